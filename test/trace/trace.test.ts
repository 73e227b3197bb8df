import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HostSandbox } from '../../src/sandbox/host.js';
import { traceRun, type TraceRequest } from '../../src/trace/index.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function sandbox(): HostSandbox {
  return new HostSandbox('python', realpathSync(mkdtempSync(path.join(tmpdir(), 'envproof-trace-'))));
}

function request(sb: HostSandbox, argv: string[], timeoutMs = 60_000): TraceRequest {
  return { argv, cwd: sb.workDir, timeoutMs, network: false, logPath: path.join(sb.workDir, 'strace.log') };
}

/** Alive and not a zombie waiting to be reaped. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

test('a real program: relative opens after chdir, symlinks, dirfd, a child, a failed open, an exec', { timeout: 120_000 }, async () => {
  const sb = sandbox();
  const w = sb.workDir;
  for (const dir of ['data/sub', 'real', 'dirfd', 'child', 'bin']) mkdirSync(path.join(w, dir), { recursive: true });
  for (const file of ['data/a.txt', 'data/sub/b.txt', 'real/c.txt', 'dirfd/d.txt', 'child/e.txt']) writeFileSync(path.join(w, file), 'x');
  symlinkSync('real', path.join(w, 'link'));
  writeFileSync(path.join(w, 'bin/hello.sh'), '#!/bin/sh\nexit 0\n');
  chmodSync(path.join(w, 'bin/hello.sh'), 0o755);
  copyFileSync(path.join(FIXTURES, 'opens.py'), path.join(w, 'opens.py'));

  const r = await traceRun(sb, request(sb, [PYTHON, 'opens.py']));

  assert.equal(r.run.exitCode, 0, r.run.stderr);
  const expected = [
    'opens.py',
    'data/a.txt',
    'data/sub/b.txt',
    'link/c.txt',
    'real/c.txt',
    'dirfd',
    'dirfd/d.txt',
    'child/e.txt',
    'bin/hello.sh',
  ].map((f) => path.join(w, f));
  for (const f of expected) assert.ok(r.files.has(f), `missing ${f}`);
  const inWorkDir = [...r.files].filter((f) => f.startsWith(w + '/') && !f.endsWith('strace.log'));
  assert.deepEqual(inWorkDir.sort(), [...expected].sort(), 'nothing else in the work directory, above all not data/missing.txt');
  assert.equal(r.execs.at(-1), path.join(w, 'bin/hello.sh'));
  // The program itself and the child interpreter were both executed.
  assert.ok(r.execs.filter((e) => e.includes('python')).length >= 2, r.execs.join('\n'));
  assert.ok(r.lines > 0);
});

test('exit codes and fatal signals pass through strace', { timeout: 60_000 }, async () => {
  const sb = sandbox();
  const exit3 = await traceRun(sb, request(sb, ['sh', '-c', 'exit 3']));
  assert.equal(exit3.run.exitCode, 3);
  assert.equal(exit3.run.signal, null);
  const crash = await traceRun(sb, request(sb, ['sh', '-c', 'kill -SEGV $$']));
  assert.equal(crash.run.exitCode, null);
  assert.equal(crash.run.signal, 'SIGSEGV');
  assert.equal(crash.run.timedOut, false);
});

test('the run ends with the program: a background child it leaves is killed, not waited for', { timeout: 60_000 }, async () => {
  const sb = sandbox();
  const script = 'sleep 3600 </dev/null >/dev/null 2>&1 & echo $! > bg.pid; exit 4';
  const r = await traceRun(sb, request(sb, ['sh', '-c', script], 30_000));
  assert.equal(r.run.timedOut, false);
  assert.equal(r.run.exitCode, 4);
  const bg = Number(readFileSync(path.join(sb.workDir, 'bg.pid'), 'utf8'));
  assert.equal(isAlive(bg), false, `background sleeper ${bg} survived`);
  assert.ok(r.execs.includes('/usr/bin/sleep') || r.execs.includes('/bin/sleep'), r.execs.join(' '));
});

test('a program that cannot be started is reported as a spawn error', { timeout: 60_000 }, async () => {
  const sb = sandbox();
  const r = await traceRun(sb, request(sb, ['/nonexistent/program']));
  assert.equal(r.run.exitCode, null);
  assert.match(r.run.spawnError ?? '', /nonexistent\/program/);
  assert.equal(r.files.size, 0);
});

/**
 * Runs a shell script that starts `sleep 3600 &` in its process group, then `daemons` (shell commands run
 * under setsid, each writing "<pid> <session id>" to d<i>.pid), then hangs; checks that all are gone.
 */
async function assertTreeDiesOnTimeout(daemons: string[]): Promise<void> {
  const sb = sandbox();
  const script = ['sleep 3600 &', 'echo $! > bg.pid'];
  daemons.forEach((redirect, i) => {
    const record = `echo $$ $(cut -d" " -f6 /proc/$$/stat) > d${i}.tmp; mv d${i}.tmp d${i}.pid`;
    script.push(`setsid sh -c '${record}; exec sleep 3601' ${redirect} &`, `while [ ! -f d${i}.pid ]; do sleep 0.05; done`);
  });
  script.push('exec sleep 3602');
  writeFileSync(path.join(sb.workDir, 'hang.sh'), script.join('\n'));
  const r = await traceRun(sb, request(sb, ['sh', 'hang.sh'], 1500));
  assert.equal(r.run.timedOut, true);
  const bg = Number(readFileSync(path.join(sb.workDir, 'bg.pid'), 'utf8'));
  assert.equal(isAlive(bg), false, `background sleeper ${bg} survived`);
  for (let i = 0; i < daemons.length; i++) {
    const [daemon, session] = readFileSync(path.join(sb.workDir, `d${i}.pid`), 'utf8').trim().split(' ').map(Number);
    assert.equal(session, daemon, 'the daemon leads its own session, out of reach of the process-group kill');
    assert.equal(isAlive(daemon!), false, `setsid sleeper ${daemon} survived`);
  }
}

test('on timeout the whole traced tree dies, including a child that left the session', { timeout: 60_000 }, async () => {
  await assertTreeDiesOnTimeout(['</dev/null >/dev/null 2>&1']);
});

test('a detached child holding the output pipes does not keep the run from returning', { timeout: 60_000 }, async () => {
  await assertTreeDiesOnTimeout(['']);
});
