/** What the real-tracer tests share between sandboxes: the request, the opens scenario, a liveness check. */
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../../src/core/process.js';
import { cleanEnvironment, HostSandbox } from '../../src/sandbox/host.js';
import type { ExecRequest, ExecResult, Sandbox } from '../../src/sandbox/types.js';
import { traceRun, type TraceRequest, type TracerName } from '../../src/trace/index.js';
import { processesWith } from '../sandbox/helpers.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Everything the tests write goes under this directory, removed when the test file ends. */
const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), 'envproof-trace-')));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh directory with a symlink-free path. */
export function scratchDir(): string {
  return mkdtempSync(path.join(scratch, 'w-'));
}

/** Both tracers, each test runs with each. */
export const TRACERS: readonly TracerName[] = ['fast', 'strace'];

export function request(sb: Sandbox, argv: string[], timeoutMs = 60_000): TraceRequest {
  return { argv, cwd: sb.workDir, timeoutMs, network: false };
}

/**
 * The host sandbox without its pid namespace, as where unshare is not permitted: only the process group
 * kill and the tracer's own reaping stand between a timeout and leftover processes.
 */
export class NoPidNamespaceSandbox extends HostSandbox {
  override async exec(req: ExecRequest): Promise<ExecResult> {
    const home = path.join(this.hostWorkDir, 'home');
    mkdirSync(home, { recursive: true });
    return runProcess([...(req.hostWrapper ?? []), ...req.argv], { cwd: req.cwd, env: cleanEnvironment(home, req.env), timeoutMs: req.timeoutMs });
  }
}

/** A `sleep` argument no other process has, to find the sleeper by its command line. */
export function uniqueSleep(): string {
  return `3600.${process.pid}${Math.floor(Math.random() * 1e9)}`;
}

/** Whether any process still runs `sleep <seconds>`. */
export function sleeperAlive(seconds: string): boolean {
  return processesWith(`sleep ${seconds}`).length > 0;
}

/**
 * Traces fixtures/opens.py with `python` in the sandbox's work directory and checks, against paths
 * written out here by hand, every file it opened or executed there.
 */
export async function assertOpensScenario(sb: Sandbox, python: string[], tracer: TracerName): Promise<void> {
  const host = sb.hostWorkDir;
  for (const dir of ['data/sub', 'real', 'dirfd', 'child', 'bin']) mkdirSync(path.join(host, dir), { recursive: true });
  for (const file of ['data/a.txt', 'data/sub/b.txt', 'real/c.txt', 'dirfd/d.txt', 'dirfd/f.txt', 'child/e.txt', 'child/e2.txt']) writeFileSync(path.join(host, file), 'x');
  symlinkSync('real', path.join(host, 'link'));
  writeFileSync(path.join(host, 'bin/hello.sh'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(host, 'bin/hello.sh'), 0o755);
  copyFileSync(path.join(FIXTURES, 'opens.py'), path.join(host, 'opens.py'));

  const r = await traceRun(sb, request(sb, [...python, 'opens.py']), tracer);

  assert.equal(r.run.exitCode, 0, r.run.stderr);
  assert.equal(r.tracer, tracer);
  const w = sb.workDir;
  const expected = [
    'opens.py',
    'data/a.txt',
    'data/sub/b.txt',
    'link/c.txt',
    'real/c.txt',
    'dirfd',
    'dirfd/d.txt',
    'dirfd/f.txt',
    'child/e2.txt',
    'child/e.txt',
    'bin/hello.sh',
  ].map((f) => path.join(w, f));
  const inWorkDir = [...r.files].filter((f) => f.startsWith(w + '/'));
  assert.deepEqual(inWorkDir.sort(), [...expected].sort(), 'exactly these in the work directory, above all not data/missing.txt');
  assert.equal(r.execs.at(-1), path.join(w, 'bin/hello.sh'));
  // The program itself and the child interpreter were both executed.
  assert.ok(r.execs.filter((e) => e.includes('python')).length >= 2, r.execs.join('\n'));
}
