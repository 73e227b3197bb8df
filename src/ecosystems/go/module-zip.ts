/**
 * Go module zips as the module proxy serves them (pure, no unzip tool needed): reading the entries, and the
 * `h1:` hash go.sum and the checksum database record for a module (golang.org/x/mod's dirhash Hash1: the SHA-256 of
 * the lines `<sha256 hex of the file>  <file name>\n`, over the files sorted by name, in base64).
 */
import { createHash } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** Unix permission bits, when the zip records them. */
  mode?: number;
  data: Buffer;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** Every file entry of a zip archive (directories left out). Throws on an archive it cannot read. */
export function readZip(zip: Buffer): ZipEntry[] {
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('not a zip archive (no end of central directory)');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const madeBy = zip.readUInt16LE(at + 4) >> 8;
    const external = zip.readUInt32LE(at + 38);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (zip.readUInt32LE(local) !== LOCAL) throw new Error(`corrupt zip entry ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    const data = method === 0 ? Buffer.from(raw) : method === 8 ? inflateRawSync(raw) : undefined;
    if (!data) throw new Error(`zip entry ${name} uses compression method ${method}`);
    const mode = madeBy === 3 ? (external >>> 16) & 0o7777 : undefined;
    entries.push({ name, ...(mode ? { mode } : {}), data });
  }
  return entries;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data);

/** The `h1:` hash of a module zip's files (names as the zip holds them, `module@version/...`). */
export function moduleHash(entries: readonly ZipEntry[]): string {
  const summary = [...entries]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => `${sha256(e.data).digest('hex')}  ${e.name}\n`)
    .join('');
  return `h1:${sha256(summary).digest('base64')}`;
}
