/**
 * A run's gate: a fresh copy of envproof-gate in the sandbox's work directory, prefixed to the traced
 * command. The tracers recognise its exec (strace by its path, the fast tracer by its inode) and trace from
 * there on, so that whatever a sandbox runs before the program (prlimit, bwrap, setpriv) stays out of D3.
 */
import { randomUUID } from 'node:crypto';
import { copyFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import type { Sandbox } from '../sandbox/types.js';
import { nativeProgram } from './native.js';

export interface Gate {
  /** The path the sandbox runs, as seen inside it. */
  inside: string;
  /** The same file on the host. */
  host: string;
  remove(): Promise<void>;
}

export async function placeGate(sandbox: Sandbox): Promise<Gate> {
  const program = nativeProgram('gate');
  if (!program) throw new EnvproofError('the tracer\'s gate program is not built', 'run scripts/setup.sh');
  const inside = path.posix.join(sandbox.workDir, `.envproof-gate-${randomUUID()}`);
  const host = sandbox.toHost(inside);
  if (host === null) throw new EnvproofError(`the work directory ${sandbox.workDir} of the ${sandbox.backend} sandbox is not visible from the host`);
  await copyFile(program, host);
  return { inside, host, remove: () => rm(host, { force: true }) };
}
