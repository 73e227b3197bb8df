/**
 * Reading the pieces of one strace output line: pid prefixes, C-escaped strings, `-y` fd annotations and
 * the return value. Lines are read as latin1 text, so every character is one byte of the log, and decoded
 * strings stay byte strings (one character per byte): turning them into UTF-8 is left to `bytesToText`,
 * once per distinct path rather than once per line.
 */

const QUOTE = 34; // "
const BACKSLASH = 92;
const LT = 60; // <
const GT = 62; // >
const LPAREN = 40;
const RPAREN = 41;
const SPACE = 32;
const EQUALS = 61;
const ZERO = 48;
const NINE = 57;

/** A decoded byte string and the index just after its terminator. */
export interface Token {
  value: string;
  end: number;
}

const SIMPLE_ESCAPES: Record<string, number> = { n: 10, t: 9, r: 13, v: 11, f: 12, a: 7, b: 8, e: 27 };

function isOctal(c: number): boolean {
  return c >= ZERO && c <= 55;
}

function hexValue(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  const lower = c | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** A byte string (one character per byte) read as UTF-8. */
export function bytesToText(bytes: string): string {
  return /[^\x00-\x7f]/.test(bytes) ? Buffer.from(bytes, 'latin1').toString('utf8') : bytes;
}

/**
 * A copy of a string sliced from a log chunk, for keeping: V8 slices share their parent's memory, so a
 * kept slice would keep the whole chunk alive.
 */
export function detach(bytes: string): string {
  return Buffer.from(bytes, 'latin1').toString('latin1');
}

/** Text as a byte string of its UTF-8 encoding, comparable with strings read from the log. */
export function textToBytes(text: string): string {
  return Buffer.from(text, 'utf8').toString('latin1');
}

/** Slow path: decodes escapes from `start` up to the unescaped `terminator`. */
function decodeEscaped(line: string, start: number, terminator: number): Token | null {
  const bytes: number[] = [];
  let i = start;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c === terminator) return { value: String.fromCharCode(...bytes), end: i + 1 };
    if (c !== BACKSLASH) {
      bytes.push(c & 0xff);
      i++;
      continue;
    }
    const next = line.charCodeAt(i + 1);
    if (Number.isNaN(next)) return null;
    if (isOctal(next)) {
      let value = 0;
      let j = i + 1;
      while (j < i + 4 && isOctal(line.charCodeAt(j))) value = value * 8 + (line.charCodeAt(j++) - ZERO);
      bytes.push(value & 0xff);
      i = j;
    } else if (next === 120 /* x */ && hexValue(line.charCodeAt(i + 2)) >= 0) {
      let value = hexValue(line.charCodeAt(i + 2));
      let j = i + 3;
      const low = hexValue(line.charCodeAt(j));
      if (low >= 0) {
        value = value * 16 + low;
        j++;
      }
      bytes.push(value);
      i = j;
    } else {
      bytes.push(SIMPLE_ESCAPES[String.fromCharCode(next)] ?? next);
      i += 2;
    }
  }
  return null;
}

/** Reads text from `start` up to the unescaped `terminator`, decoding escapes. */
function readDelimited(line: string, start: number, terminator: number): Token | null {
  const close = line.indexOf(terminator === QUOTE ? '"' : '>', start);
  if (close === -1) return null;
  // Searching backwards from the terminator stops at `start` in practice: the text before is short.
  if (line.lastIndexOf('\\', close) < start) return { value: line.slice(start, close), end: close + 1 };
  return decodeEscaped(line, start, terminator);
}

/** The string whose opening quote is at `quote`, e.g. a path argument. */
export function readQuoted(line: string, quote: number): Token | null {
  if (line.charCodeAt(quote) !== QUOTE) return null;
  return readDelimited(line, quote + 1, QUOTE);
}

/** The `-y` annotation whose `<` is at `open`: the path of a file descriptor. */
function readAnnotation(line: string, open: number): Token | null {
  if (line.charCodeAt(open) !== LT) return null;
  return readDelimited(line, open + 1, GT);
}

/** A directory argument: `AT_FDCWD`, `AT_FDCWD</cwd>`, `3` or `3</dir>`. */
export class DirfdToken {
  private decoded: string | null | undefined;

  constructor(
    private readonly line: string,
    readonly atCwd: boolean,
    /** Index of the annotation's `<`, -1 when there is none. */
    private readonly annotationAt: number,
    /** Index just after the argument. */
    readonly end: number,
  ) {}

  /** The annotated path, null when strace printed none; decoded on first use, as most lines never need it. */
  get path(): string | null {
    if (this.decoded === undefined) {
      this.decoded = this.annotationAt === -1 ? null : (readAnnotation(this.line, this.annotationAt)?.value ?? null);
    }
    return this.decoded;
  }
}

export function readDirfd(line: string, start: number): DirfdToken | null {
  let i = start;
  let atCwd = false;
  if (line.startsWith('AT_FDCWD', i)) {
    atCwd = true;
    i += 8;
  } else {
    const first = i;
    if (line.charCodeAt(i) === 45 /* - */) i++;
    while (i < line.length && line.charCodeAt(i) >= ZERO && line.charCodeAt(i) <= NINE) i++;
    if (i === first) return null;
  }
  if (line.charCodeAt(i) !== LT) return new DirfdToken(line, atCwd, -1, i);
  // Inside an annotation strace escapes `>`, so the first one closes it.
  const close = line.indexOf('>', i);
  return close === -1 ? null : new DirfdToken(line, atCwd, i, close + 1);
}

/** Index just past the closing quote of the string opened at `quote`, without decoding it. */
function skipQuoted(line: string, quote: number): number {
  let i = quote + 1;
  for (;;) {
    const close = line.indexOf('"', i);
    if (close === -1) return -1;
    let backslashes = 0;
    while (line.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return close + 1;
    i = close + 1;
  }
}

/**
 * Index of the `)` that closes the argument list, scanning from `from` at nesting depth 1 and skipping
 * strings and fd annotations (which may hold parentheses). -1 when the line is cut short.
 */
export function findArgsEnd(line: string, from: number): number {
  let depth = 1;
  for (let i = from; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      i = skipQuoted(line, i) - 1;
      if (i < 0) return -1;
    } else if (c === LT) {
      i = line.indexOf('>', i);
      if (i === -1) return -1;
    } else if (c === LPAREN) depth++;
    else if (c === RPAREN && --depth === 0) return i;
  }
  return -1;
}

/** The value after ` = ` that follows the argument list closed at `close`, and the index after it (see below). */
function readResult(line: string, close: number): { value: number; end: number } {
  let i = close + 1;
  while (line.charCodeAt(i) === SPACE) i++;
  if (line.charCodeAt(i) !== EQUALS) return { value: NaN, end: i };
  i++;
  while (line.charCodeAt(i) === SPACE) i++;
  let value = 0;
  const first = i;
  for (let c = line.charCodeAt(i); c >= ZERO && c <= NINE; c = line.charCodeAt(++i)) value = value * 10 + (c - ZERO);
  return { value: i === first ? NaN : value, end: i };
}

/**
 * The value after ` = ` that follows the argument list closed at `close`: a non-negative integer for a
 * successful call, NaN for a failed one (`= -1 ENOENT ...`), an unknown outcome (`= ?`) or no result.
 */
export function readReturnValue(line: string, close: number): number {
  return readResult(line, close).value;
}

const PIDNS_NOTE = /^ \/\* (\d+) in strace's PID NS \*\//;

/**
 * A fork's result, the child's pid: in a pid namespace other than strace's, `--decode-pids=pidns` adds the
 * pid as strace's namespace numbers it (`= 2 /* 18839 in strace's PID NS *\/`), which is the one the child's
 * own lines carry.
 */
export function readPidResult(line: string, close: number): number {
  const { value, end } = readResult(line, close);
  const note = Number.isNaN(value) ? null : PIDNS_NOTE.exec(line.slice(end, end + 48));
  return note ? Number(note[1]) : value;
}

/** A line split into the pid that printed it (null when strace ran without -f) and where the call starts. */
export interface PidSplit {
  pid: number | null;
  body: number;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

/** Index after a `-t`/`-tt`/`-ttt`/`-r` timestamp (`12:00:01.123456 `, `1700000000.123 `) at `i`, or `i`. */
function skipTimestamp(line: string, i: number): number {
  let j = i;
  while (line.charCodeAt(j) === SPACE) j++;
  const first = j;
  for (let c = line.charCodeAt(j); isDigit(c) || c === 58 /* : */ || c === 46 /* . */; c = line.charCodeAt(++j));
  if (j === first || line.charCodeAt(j) !== SPACE) return i;
  while (line.charCodeAt(j) === SPACE) j++;
  return j;
}

/** Reads `1234  ...` (strace -f -o FILE) or `[pid  1234] ...` (strace -f to a terminal), and any timestamp after. */
export function splitPid(line: string): PidSplit {
  let i = 0;
  let bracketed = false;
  if (line.startsWith('[pid', 0)) {
    bracketed = true;
    i = 4;
    while (line.charCodeAt(i) === SPACE) i++;
  }
  const first = i;
  let pid = 0;
  for (let c = line.charCodeAt(i); isDigit(c); c = line.charCodeAt(++i)) pid = pid * 10 + (c - ZERO);
  if (i === first || (bracketed ? line.charCodeAt(i) !== 93 /* ] */ : line.charCodeAt(i) !== SPACE)) {
    return { pid: null, body: skipTimestamp(line, 0) };
  }
  if (bracketed) i++;
  while (line.charCodeAt(i) === SPACE) i++;
  return { pid, body: isDigit(line.charCodeAt(i)) ? skipTimestamp(line, i) : i };
}
