/**
 * The fast tracer's records (native/fasttrace/events.h, keep the two in step): a 24-byte little-endian
 * header, then directory components (innermost first, each NUL-terminated), then the path and a NUL.
 * Paths come out as byte strings, one character per byte, like the strace parser's.
 */
export const RecordKind = {
  armed: 1,
  exec: 2,
  open: 3,
  chdir: 4,
  fchdir: 5,
  fork: 6,
  exit: 7,
  ready: 16,
  gate: 17,
  end: 18,
} as const;

export const RecordFlag = {
  atDir: 1,
  incomplete: 2,
  sharesFs: 4,
} as const;

export interface TraceRecord {
  kind: number;
  flags: number;
  run: number;
  tid: number;
  aux: number;
  /** The directory of the components (atDir records and fchdir), else null. */
  dir: string | null;
  path: string;
}

const HEADER_BYTES = 24;

function directoryOf(components: Buffer): string {
  const names = components.toString('latin1').split('\0');
  names.pop(); // after the last NUL
  return `/${names.reverse().join('/')}`;
}

function decode(buf: Buffer, at: number, size: number): TraceRecord {
  const kind = buf.readUInt8(at + 16);
  const flags = buf.readUInt8(at + 17);
  const dirLen = buf.readUInt16LE(at + 18);
  const pathLen = buf.readUInt16LE(at + 20);
  const data = at + HEADER_BYTES;
  if (HEADER_BYTES + dirLen + pathLen + 1 > size) throw new Error(`malformed fast-tracer record of ${size} bytes`);
  const hasDir = (flags & RecordFlag.atDir) !== 0 || kind === RecordKind.fchdir;
  return {
    kind,
    flags,
    run: buf.readUInt32LE(at + 4),
    tid: buf.readUInt32LE(at + 8),
    aux: buf.readUInt32LE(at + 12),
    // No components at all is the root directory.
    dir: hasDir ? directoryOf(buf.subarray(data, data + dirLen)) : null,
    path: buf.toString('latin1', data + dirLen, data + dirLen + pathLen),
  };
}

/** Cuts a byte stream into records. */
export class RecordStream {
  private pending: Buffer = Buffer.alloc(0);

  /** The complete records in `chunk` and what came before it. */
  *push(chunk: Buffer): Generator<TraceRecord> {
    const buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let at = 0;
    while (buf.length - at >= HEADER_BYTES) {
      const size = buf.readUInt32LE(at);
      if (size < HEADER_BYTES) throw new Error(`malformed fast-tracer record of ${size} bytes`);
      if (buf.length - at < size) break;
      yield decode(buf, at, size);
      at += size;
    }
    this.pending = buf.subarray(at);
  }
}
