/**
 * Reading a project's files as root without being led out of the project. A generated project is untrusted: its
 * `requirements.txt` may be a symbolic link to /etc/shadow, or name `-r /etc/shadow`. Every file envproof reads
 * from a project resolves (realpath) inside the project's root, and is opened without following a link swapped in
 * afterwards (O_NOFOLLOW); anything else is refused with an error naming the link, never its content.
 */
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError } from './errors.js';

/** A project file that is, or passes through, a symbolic link leading out of the project. */
export class OutsideProjectError extends EnvproofError {
  override name = 'OutsideProjectError';
}

function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);
}

/** `file` relative to `root` for messages, or as given when it is not under it. */
export function projectLabel(root: string, file: string): string {
  const rel = path.relative(root, path.resolve(root, file));
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : file;
}

/** The first symbolic link on the way from `root` to `abs` whose target is outside `realRoot`, with its target. */
async function escapingLink(root: string, realRoot: string, abs: string): Promise<{ link: string; target: string } | undefined> {
  const rel = path.relative(root, abs);
  const parts = rel.startsWith('..') || path.isAbsolute(rel) ? [] : rel.split(path.sep);
  let at = root;
  for (const part of parts) {
    at = path.join(at, part);
    const st = await lstat(at).catch(() => undefined);
    if (!st?.isSymbolicLink()) continue;
    const target = await readlink(at);
    // A dangling link is judged by where it points: inside the project it is just a missing file.
    const real = await realpath(at).catch(async () => path.resolve(await realpath(path.dirname(at)), target));
    if (!isInside(realRoot, real)) return { link: at, target };
  }
  return undefined;
}

/**
 * The real path of `file` (absolute, or relative to `root`), which must lie inside `root`. A missing file throws the
 * usual ENOENT error (callers treat it as absent); a file outside the project throws OutsideProjectError.
 */
export async function resolveInside(root: string, file: string): Promise<string> {
  const realRoot = await realpath(root);
  const abs = path.resolve(root, file);
  const real = await realpath(abs).catch(async (err: NodeJS.ErrnoException) => {
    // A dangling link out of the project is refused as one, not reported as a missing file.
    const escape = await escapingLink(root, realRoot, abs);
    if (escape) throw outside(root, escape);
    throw err;
  });
  if (isInside(realRoot, real)) return real;
  const escape = await escapingLink(root, realRoot, abs);
  throw escape ? outside(root, escape) : new OutsideProjectError(`${file} is outside the project ${root}; envproof reads only the project's own files`, 'name a file inside the project');
}

function outside(root: string, escape: { link: string; target: string }): OutsideProjectError {
  const label = projectLabel(root, escape.link);
  return new OutsideProjectError(
    `${label} is a symbolic link out of the project (to ${escape.target}); envproof does not follow it`,
    `replace ${label} with the file itself, or a link to a file inside the project`,
  );
}

/** Reads `file` (absolute, or relative to `root`) after checking it is a regular file inside `root`. */
export async function readProjectFile(root: string, file: string): Promise<Buffer>;
export async function readProjectFile(root: string, file: string, encoding: 'utf8'): Promise<string>;
export async function readProjectFile(root: string, file: string, encoding?: 'utf8'): Promise<Buffer | string> {
  const real = await resolveInside(root, file);
  // O_NONBLOCK: a FIFO planted in the project must not hang the reader before fstat refuses it.
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile()) throw new EnvproofError(`${projectLabel(root, file)} is not a regular file`, 'envproof reads only regular files from a project');
    const bytes = await handle.readFile();
    return encoding ? bytes.toString(encoding) : bytes;
  } finally {
    await handle.close();
  }
}

/** Like readProjectFile, undefined when the file cannot be read; a link out of the project still throws. */
export async function readProjectFileIfExists(root: string, file: string): Promise<string | undefined> {
  return readProjectFile(root, file, 'utf8').catch((err: unknown) => {
    if (err instanceof OutsideProjectError) throw err;
    return undefined;
  });
}
