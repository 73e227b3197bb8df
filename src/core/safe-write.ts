/**
 * Writing files as root where a project (or whoever planted links in an output directory) could have put a symbolic
 * link. The content goes to a temporary file created exclusively (O_CREAT|O_EXCL, so never through a link planted
 * at its name) with a random name in the target's directory, then renamed over the target: an interrupted write
 * leaves the old file or the new one, never half of one, and never writes through a link.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError } from './errors.js';
import { resolveInside } from './safe-read.js';

/** Refuses an output path that is a symbolic link (dangling or not): envproof does not write through links. */
async function refuseLink(file: string, shown: string): Promise<void> {
  if ((await lstat(file).catch(() => undefined))?.isSymbolicLink()) {
    throw new EnvproofError(`${shown} is a symbolic link; envproof does not write through links`, `remove ${shown} or give another path`);
  }
}

/** Writes `data` to `dir/name` through an exclusive temporary file and a rename. */
async function replaceIn(dir: string, name: string, data: string | Uint8Array, mode: number): Promise<void> {
  const temporary = path.join(dir, `.${name}.envproof-${randomBytes(6).toString('hex')}`);
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temporary, { force: true });
    throw err;
  }
  await handle.close();
  await rename(temporary, path.join(dir, name)).catch(async (err: unknown) => {
    await rm(temporary, { force: true });
    throw err;
  });
}

/** Writes an output file the user named (report --out, SBOM, SARIF, JSON): refused when the path is a link. */
export async function writeOutputFile(file: string, data: string | Uint8Array): Promise<void> {
  await refuseLink(file, file);
  await replaceIn(path.dirname(path.resolve(file)), path.basename(file), data, 0o644);
}

/**
 * Creates `dir` (and its parents) inside `root`, after checking that the part which exists resolves inside it: a
 * link on the way out of the project is refused before any directory is made through it. Returns its real path.
 */
export async function makeProjectDir(root: string, dir: string): Promise<string> {
  let existing = path.resolve(root, dir);
  while (!(await lstat(existing).catch(() => undefined))) existing = path.dirname(existing);
  const real = await resolveInside(root, existing);
  const made = path.join(real, path.relative(existing, path.resolve(root, dir)));
  await mkdir(made, { recursive: true });
  return made;
}

/**
 * Replaces a file of a project (a manifest `fix` edits, a lockfile it refreshes). Its directory must resolve inside
 * `root`; a file that is a link to elsewhere in the project is written at its real place, one out of it is refused.
 */
export async function writeProjectFile(root: string, file: string, data: string | Uint8Array): Promise<void> {
  const abs = path.resolve(root, file);
  const exists = (await lstat(abs).catch(() => undefined)) !== undefined;
  const target = exists ? await resolveInside(root, abs) : path.join(await makeProjectDir(root, path.dirname(abs)), path.basename(abs));
  const st = await lstat(target).catch(() => undefined);
  await replaceIn(path.dirname(target), path.basename(target), data, st?.isFile() ? st.mode & 0o7777 : 0o644);
}
