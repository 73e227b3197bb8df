import { cp, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import { skippedDirs } from '../ecosystems/index.js';


export interface WorkDir {
  /** Root of the work directory (host path). */
  root: string;
  /** The project copy. */
  project: string;
  /** Private environment: venv, logs, build output. */
  env: string;
}

/** Checks that the audited path is a readable directory; a clear error otherwise. */
/** `purpose`: what the project is given for, as the hint says it ("to audit", "to reproduce"). */
export async function checkProjectDir(dir: string, purpose = 'to audit'): Promise<string> {
  const abs = path.resolve(dir);
  const st = await stat(abs).catch(() => undefined);
  if (!st) throw new EnvproofError(`no such directory: ${dir}`, `give the path of the project ${purpose}`);
  if (!st.isDirectory()) throw new EnvproofError(`not a directory: ${dir}`, 'give the project directory, not a file in it');
  return abs;
}

/**
 * Copies the project into a fresh work directory, so nothing the audit installs or the program writes lands
 * in the user's tree. Symlinks are copied as links, never followed out of the project. Environments and build
 * output (the registry's skippedDirs) are left behind: a previous install would contaminate D2.
 */
export async function createWorkDir(projectDir: string, parent = os.tmpdir()): Promise<WorkDir> {
  const root = await mkdtemp(path.join(parent, 'envproof-'));
  const project = path.join(root, 'project');
  const env = path.join(root, 'env');
  const skipped = skippedDirs();
  await cp(projectDir, project, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => src === projectDir || !skipped.has(path.basename(src)),
  });
  await mkdir(env, { recursive: true });
  return { root, project, env };
}

export async function removeWorkDir(work: WorkDir): Promise<void> {
  await rm(work.root, { recursive: true, force: true });
}
