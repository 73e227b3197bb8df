/** `envproof worker` processes for the queue tests: started, their stderr kept, stopped with SIGTERM. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cliCommand } from '../helpers/cli.js';

export interface WorkerProcess {
  child: ChildProcess;
  log(): string;
  exited: Promise<number | null>;
}

export function startWorker(queue: string, store: string, ...extra: string[]): WorkerProcess {
  const [cmd, ...argv] = cliCommand('worker', '--queue', queue, '--store', store, ...extra);
  const child = spawn(cmd, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (c: Buffer) => (log += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, log: () => log, exited };
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** SIGTERM once the worker is up (its signal handlers installed), then the exit code (a graceful stop is 0). */
export async function stopWorker(w: WorkerProcess): Promise<number | null> {
  if (w.child.exitCode === null && w.child.signalCode === null) {
    await until('the worker up', () => w.log().includes('waiting for jobs') || w.child.exitCode !== null);
    w.child.kill('SIGTERM');
  }
  return w.exited;
}
