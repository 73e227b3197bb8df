import path from 'node:path';
import { EnvproofError, errorMessage } from '../../core/errors.js';
import { OutsideProjectError, readProjectFile } from '../../core/safe-read.js';

export type PackageJson = Record<string, unknown>;

/** 1-based line and column of a character offset. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** JSON.parse's message with the position turned into a line and column a person can find. */
function describeJsonError(text: string, err: unknown): string {
  const message = errorMessage(err);
  const position = /at position (\d+)/.exec(message)?.[1];
  const offset = position !== undefined ? Number(position) : /end of JSON input/.test(message) ? text.length : undefined;
  if (offset === undefined) return message;
  const { line, column } = lineColumn(text, offset);
  return `${message} (line ${line}, column ${column})`;
}

function decodeText(file: string, bytes: Buffer): string {
  if (bytes.includes(0)) throw new EnvproofError(`${file} is not a text file (it contains NUL bytes)`, 'package.json must be UTF-8 JSON.');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new EnvproofError(`${file} is not valid UTF-8 text`, 'package.json must be UTF-8 JSON.');
  }
}

/**
 * Reads a package.json as a JSON object; every way it can be unusable becomes a clear EnvproofError. `file` must
 * resolve inside `projectDir` (default: its own directory).
 */
export async function readPackageJson(file: string, projectDir = path.dirname(file)): Promise<PackageJson> {
  let bytes: Buffer;
  try {
    bytes = await readProjectFile(projectDir, file);
  } catch (err) {
    if (err instanceof OutsideProjectError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new EnvproofError(`no package.json at ${file}`, 'An npm project needs a package.json in its top directory.');
    }
    throw new EnvproofError(`cannot read ${file}: ${errorMessage(err)}`);
  }
  // TextDecoder drops a leading byte-order mark, as npm does.
  const text = decodeText(file, bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new EnvproofError(`${file} is not valid JSON: ${describeJsonError(text, err)}`, 'Fix the JSON syntax of package.json.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EnvproofError(`${file} must contain a JSON object, not ${Array.isArray(value) ? 'an array' : String(value === null ? 'null' : typeof value)}`);
  }
  return value as PackageJson;
}

/** A field that must be an object of strings when present (dependencies, scripts, bin). */
export function objectField(pkg: PackageJson, key: string): Record<string, unknown> | undefined {
  const v = pkg[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
