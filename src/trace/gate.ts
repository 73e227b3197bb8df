/**
 * A run's gate: a fresh copy of envproof-gate in the sandbox's work directory, prefixed to the traced
 * command. The tracers recognise its exec (strace by its path, the fast tracer by its inode) and trace from
 * there on, so that whatever a sandbox runs before the program (prlimit, bwrap, setpriv) stays out of D3.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fchmodSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
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

let gateBytes: Buffer | undefined;

function gateProgram(): Buffer {
  if (gateBytes) return gateBytes;
  const program = nativeProgram('gate');
  if (!program) throw new EnvproofError('the tracer\'s gate program is not built', 'run scripts/setup.sh');
  gateBytes = readFileSync(program);
  return gateBytes;
}

/**
 * Writes the gate from memory, synchronously: it is a few kilobytes, and each round trip through libuv's thread
 * pool would add to every traced run's fixed cost. The mode is set explicitly: the sandbox's user must be able to
 * run it whatever this process's umask.
 */
export async function placeGate(sandbox: Sandbox): Promise<Gate> {
  const bytes = gateProgram();
  const inside = path.posix.join(sandbox.workDir, `.envproof-gate-${randomUUID()}`);
  const host = sandbox.toHost(inside);
  if (host === null) throw new EnvproofError(`the work directory ${sandbox.workDir} of the ${sandbox.backend} sandbox is not visible from the host`);
  const fd = openSync(host, 'wx', 0o755);
  try {
    writeFileSync(fd, bytes);
    fchmodSync(fd, 0o755);
  } finally {
    closeSync(fd);
  }
  return { inside, host, remove: () => rm(host, { force: true }) };
}
