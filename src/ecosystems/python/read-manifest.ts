import { EnvproofError, errorMessage } from '../../core/errors.js';
import { OutsideProjectError, readProjectFile } from '../../core/safe-read.js';

const BOMS: { bytes: number[]; encoding: string }[] = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be' },
];

/** PEP 263 declaration in the first two lines, which pip honours in requirements files. */
const CODING_RE = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

function declaredEncoding(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 400).toString('latin1').split(/\r?\n/).slice(0, 2);
  for (const line of head) {
    const m = CODING_RE.exec(line);
    if (m) return m[1];
  }
  return undefined;
}

/** Decodes with the WHATWG decoder, trying Python's spellings of the label too (`latin_1`, `latin-1` → `latin1`). */
function decode(bytes: Buffer, encoding: string): string | undefined {
  for (const label of new Set([encoding, encoding.replace(/_/g, '-'), encoding.replace(/[-_]/g, '')])) {
    try {
      return new TextDecoder(label, { fatal: true }).decode(bytes);
    } catch {
      // An unknown label or undecodable bytes: try the next spelling.
    }
  }
  return undefined;
}

/**
 * A manifest's text. Decodes UTF-8, or UTF-16 with a byte-order mark (what Windows shells write for
 * `pip freeze > requirements.txt`), or a PEP 263-declared encoding; anything else, and any text with
 * NUL characters, is refused as binary with an error naming the file. `file` must resolve inside `projectDir`.
 */
export async function readManifestText(file: string, label: string, projectDir: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readProjectFile(projectDir, file);
  } catch (err) {
    if (err instanceof OutsideProjectError) throw err;
    throw new EnvproofError(`cannot read ${label}: ${errorMessage(err)}`, 'check that the file exists and is readable');
  }
  const bom = BOMS.find((b) => b.bytes.every((byte, i) => bytes[i] === byte));
  const body = bom ? bytes.subarray(bom.bytes.length) : bytes;
  let encoding = bom?.encoding ?? 'utf-8';
  let text = decode(body, encoding);
  if (text === undefined && !bom) {
    const declared = declaredEncoding(bytes);
    if (declared) {
      encoding = declared;
      text = decode(body, declared);
    }
  }
  if (text === undefined) {
    throw new EnvproofError(`${label} is not valid ${encoding} text`, `save ${label} as UTF-8 text`);
  }
  if (text.includes('\0')) {
    throw new EnvproofError(`${label} looks like a binary file (it contains NUL bytes)`, `${label} must be a text file`);
  }
  return text;
}
