import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { HostSandbox } from '../../src/sandbox/host.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { traceRun } from '../../src/trace/index.js';
import { assertOpensScenario, NoPidNamespaceSandbox, request, scratchDir, sleeperAlive, uniqueSleep } from './scenario.js';

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function sandbox(): HostSandbox {
  return new HostSandbox('python', scratchDir());
}

test('a real program: relative opens after chdir, symlinks, dirfd, a child, a failed open, an exec', { timeout: 120_000 }, async () => {
  await assertOpensScenario(sandbox(), [PYTHON]);
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
  const seconds = uniqueSleep();
  const r = await traceRun(sb, request(sb, ['sh', '-c', `sleep ${seconds} </dev/null >/dev/null 2>&1 & exit 4`], 30_000));
  assert.equal(r.run.timedOut, false);
  assert.equal(r.run.exitCode, 4);
  assert.equal(sleeperAlive(seconds), false, 'the background sleeper survived');
  assert.ok(r.execs.includes('/usr/bin/sleep') || r.execs.includes('/bin/sleep'), r.execs.join(' '));
});

test('the log may go to a directory that does not exist yet', { timeout: 60_000 }, async () => {
  const sb = sandbox();
  const r = await traceRun(sb, { ...request(sb, ['cat', 'opens-nothing-else.txt']), logPath: path.join(sb.workDir, 'logs/deep/strace.log') });
  assert.equal(r.run.exitCode, 1, 'cat fails: the file is missing');
  assert.ok(!r.files.has(path.join(sb.workDir, 'opens-nothing-else.txt')));
  assert.ok(existsSync(path.join(sb.hostWorkDir, 'logs/deep/strace.log')));
});

test('a program that cannot be started is reported as a spawn error', { timeout: 60_000 }, async () => {
  const sb = sandbox();
  const r = await traceRun(sb, request(sb, ['/nonexistent/program']));
  assert.equal(r.run.exitCode, null);
  assert.match(r.run.spawnError ?? '', /nonexistent\/program/);
  assert.equal(r.files.size, 0);
});

/**
 * Runs a shell script that starts a background sleeper in its process group, then one sleeper per entry
 * of `daemons` under setsid (with that redirection; each records "<pid> <session id>"), then hangs;
 * checks that the run timed out and no sleeper survived.
 */
async function assertTreeDiesOnTimeout(sb: Sandbox, daemons: string[]): Promise<void> {
  const sleeps = [uniqueSleep(), ...daemons.map(uniqueSleep)];
  const script = [`sleep ${sleeps[0]} &`];
  daemons.forEach((redirect, i) => {
    // The shell's own /proc/self/stat (pid and session as the host's /proc numbers them, in a pid namespace too).
    const record = `read -r pid comm state ppid pgrp sid rest < /proc/self/stat; echo $pid $sid > d${i}.tmp; mv d${i}.tmp d${i}.pid`;
    script.push(`setsid sh -c '${record}; exec sleep ${sleeps[i + 1]}' ${redirect} &`, `while [ ! -f d${i}.pid ]; do sleep 0.05; done`);
  });
  script.push('exec sleep 3602');
  writeFileSync(path.join(sb.hostWorkDir, 'hang.sh'), script.join('\n'));
  const r = await traceRun(sb, request(sb, ['sh', 'hang.sh'], 1500));
  assert.equal(r.run.timedOut, true);
  for (let i = 0; i < daemons.length; i++) {
    const [daemon, session] = readFileSync(path.join(sb.hostWorkDir, `d${i}.pid`), 'utf8').trim().split(' ').map(Number);
    assert.equal(session, daemon, 'the daemon leads its own session, out of reach of the process-group kill');
  }
  for (const seconds of sleeps) assert.equal(sleeperAlive(seconds), false, `sleep ${seconds} survived`);
}

test('on timeout the whole traced tree dies, including a child that left the session', { timeout: 60_000 }, async () => {
  await assertTreeDiesOnTimeout(sandbox(), ['</dev/null >/dev/null 2>&1']);
});

test('without a pid namespace too, a child that left the session dies on timeout', { timeout: 60_000 }, async () => {
  await assertTreeDiesOnTimeout(new NoPidNamespaceSandbox('python', sandbox().hostWorkDir), ['</dev/null >/dev/null 2>&1']);
});

test('a detached child holding the output pipes does not keep the run from returning', { timeout: 60_000 }, async () => {
  await assertTreeDiesOnTimeout(new NoPidNamespaceSandbox('python', sandbox().hostWorkDir), ['']);
});
