// tier: quick
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { HostSandbox } from '../../src/sandbox/host.js';
import type { Sandbox } from '../../src/sandbox/types.js';
import { FastTraceDaemon } from '../../src/trace/fast/daemon.js';
import { fastTracer, straceTracer, traceRun, type TracerName } from '../../src/trace/index.js';
import { processesWith } from '../sandbox/helpers.js';
import { assertOpensScenario, NoPidNamespaceSandbox, request, scratchDir, sleeperAlive, TRACERS, uniqueSleep } from './scenario.js';

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function sandbox(): HostSandbox {
  return new HostSandbox('python', scratchDir());
}

/**
 * Runs a shell script that starts a background sleeper in its process group, then one sleeper per entry
 * of `daemons` under setsid (with that redirection; each records "<pid> <session id>"), then hangs;
 * checks that the run timed out, that what it opened before is in the trace, and that no sleeper survived.
 */
async function assertTreeDiesOnTimeout(sb: Sandbox, tracer: TracerName, daemons: string[]): Promise<void> {
  const sleeps = [uniqueSleep(), ...daemons.map(uniqueSleep)];
  const script = ['cat before-the-hang.txt >/dev/null', `sleep ${sleeps[0]} &`];
  daemons.forEach((redirect, i) => {
    // The shell's own /proc/self/stat (pid and session as the host's /proc numbers them, in a pid namespace too).
    const record = `read -r pid comm state ppid pgrp sid rest < /proc/self/stat; echo $pid $sid > d${i}.tmp; mv d${i}.tmp d${i}.pid`;
    script.push(`setsid sh -c '${record}; exec sleep ${sleeps[i + 1]}' ${redirect} &`, `while [ ! -f d${i}.pid ]; do sleep 0.05; done`);
  });
  script.push('exec sleep 3602');
  writeFileSync(path.join(sb.hostWorkDir, 'hang.sh'), script.join('\n'));
  writeFileSync(path.join(sb.hostWorkDir, 'before-the-hang.txt'), 'x');
  // 4 s: the script must record its daemons before the limit, which under a loaded CI machine took over 1.5 s.
  const r = await traceRun(sb, request(sb, ['sh', 'hang.sh'], 4000), tracer);
  assert.equal(r.run.timedOut, true);
  assert.equal(r.tracer, tracer);
  assert.ok(r.files.has(path.join(sb.workDir, 'before-the-hang.txt')), 'what the program opened before its time ran out is in the trace');
  for (let i = 0; i < daemons.length; i++) {
    const [daemon, session] = readFileSync(path.join(sb.hostWorkDir, `d${i}.pid`), 'utf8').trim().split(' ').map(Number);
    assert.equal(session, daemon, 'the daemon leads its own session, out of reach of the process-group kill');
  }
  for (const seconds of sleeps) assert.equal(sleeperAlive(seconds), false, `sleep ${seconds} survived`);
}

for (const tracer of TRACERS) {
  describe(`the ${tracer} tracer on the host backend`, () => {
    test('a real program: forks, execs, chdir and fchdir, relative opens, symlinks, dirfd, a thread, a failed open', { timeout: 120_000 }, async () => {
      await assertOpensScenario(sandbox(), [PYTHON], tracer);
    });

    test('exit codes and fatal signals pass through', { timeout: 60_000 }, async () => {
      const sb = sandbox();
      const exit3 = await traceRun(sb, request(sb, ['sh', '-c', 'exit 3']), tracer);
      assert.equal(exit3.run.exitCode, 3);
      assert.equal(exit3.run.signal, null);
      const crash = await traceRun(sb, request(sb, ['sh', '-c', 'kill -SEGV $$']), tracer);
      assert.equal(crash.run.exitCode, null);
      assert.equal(crash.run.signal, 'SIGSEGV');
      assert.equal(crash.run.timedOut, false);
    });

    test('the run ends with the program: a background child it leaves is killed, not waited for', { timeout: 60_000 }, async () => {
      const sb = sandbox();
      const token = uniqueSleep();
      // The child says when it runs; the program waits for that, so that the child is surely there to be killed.
      const child = `${PYTHON} -c "import time; open('started', 'w').close(); time.sleep(3600)" ${token}`;
      const r = await traceRun(sb, request(sb, ['sh', '-c', `${child} </dev/null >/dev/null 2>&1 & until [ -e started ]; do sleep 0.02; done; exit 4`], 30_000), tracer);
      assert.equal(r.run.timedOut, false);
      assert.equal(r.run.exitCode, 4);
      assert.ok(r.files.has(path.join(sb.workDir, 'started')), 'the child ran');
      assert.deepEqual(processesWith(token), [], 'the background child survived');
    });

    test('a program that cannot be started is reported as a spawn error', { timeout: 60_000 }, async () => {
      const sb = sandbox();
      const r = await traceRun(sb, request(sb, ['/nonexistent/program']), tracer);
      assert.equal(r.run.exitCode, null);
      assert.match(r.run.spawnError ?? '', /nonexistent\/program/);
      assert.equal(r.files.size, 0);
    });

    test('only the program is traced: a host process opening files meanwhile does not appear', { timeout: 60_000 }, async () => {
      const sb = sandbox();
      for (const f of ['mine.txt', 'host-only.txt']) writeFileSync(path.join(sb.hostWorkDir, f), 'x');
      // The host process reads its file over and over while the program runs, in the same directory.
      const reader = spawn('sh', ['-c', 'while :; do cat host-only.txt >/dev/null; done'], { cwd: sb.hostWorkDir, stdio: 'ignore' });
      try {
        const r = await traceRun(sb, request(sb, ['sh', '-c', 'for i in 1 2 3 4 5 6 7 8 9 10; do cat mine.txt; sleep 0.05; done >/dev/null']), tracer);
        assert.equal(r.run.exitCode, 0, r.run.stderr);
        assert.ok(r.files.has(path.join(sb.workDir, 'mine.txt')));
        assert.ok(!r.files.has(path.join(sb.workDir, 'host-only.txt')), 'a host process leaked into the trace');
      } finally {
        reader.kill('SIGKILL');
      }
    });

    test('on timeout the whole traced tree dies, including a child that left the session', { timeout: 60_000 }, async () => {
      await assertTreeDiesOnTimeout(sandbox(), tracer, ['</dev/null >/dev/null 2>&1']);
    });

    test('without a pid namespace too, a child that left the session dies on timeout', { timeout: 60_000 }, async () => {
      await assertTreeDiesOnTimeout(new NoPidNamespaceSandbox('python', sandbox().hostWorkDir), tracer, ['</dev/null >/dev/null 2>&1']);
    });

    test('a detached child holding the output pipes does not keep the run from returning', { timeout: 60_000 }, async () => {
      await assertTreeDiesOnTimeout(new NoPidNamespaceSandbox('python', sandbox().hostWorkDir), tracer, ['']);
    });
  });
}

test('a directory too deep for the fast tracer to name: the run is repeated under strace', { timeout: 120_000 }, async () => {
  const sb = sandbox();
  // 150 levels: more than the kernel part walks up from a directory descriptor (128 steps).
  const deep = Array.from({ length: 150 }, () => 'd').join('/');
  mkdirSync(path.join(sb.hostWorkDir, deep), { recursive: true });
  writeFileSync(path.join(sb.hostWorkDir, deep, 'f.txt'), 'x');
  const program = `import os\nfd = os.open('${deep}', os.O_RDONLY | os.O_DIRECTORY)\nos.close(os.open('f.txt', os.O_RDONLY, dir_fd=fd))`;
  const r = await traceRun(sb, request(sb, [PYTHON, '-c', program]));
  assert.equal(r.run.exitCode, 0, r.run.stderr);
  assert.equal(r.tracer, 'strace');
  assert.match(r.notes.join('\n'), /fast tracer missed 1 call .*repeated under strace/);
  assert.ok(r.files.has(path.join(sb.workDir, deep, 'f.txt')));
});

describe('the fast tracer loses calls when its ring buffer overflows', () => {
  // A record of these paths (about 4,080 bytes, within PATH_MAX) is larger than a one-page ring buffer can ever
  // hold, so every open overflows it whatever the reader's speed (a reader that merely lags behind would make the
  // loss depend on the machine's load), and the kernel counts what it could not send.
  const daemon = FastTraceDaemon.start({ ringPages: 1 });
  after(async () => (await daemon).stop());
  const FILES = 3000;
  const program = `import os\nlong = './' * 2035\nfor n in sorted(os.listdir('many')): open(long + 'many/' + n).close()`;

  function thousandsOfFiles(): HostSandbox {
    const sb = sandbox();
    mkdirSync(path.join(sb.hostWorkDir, 'many'));
    for (let i = 0; i < FILES; i++) writeFileSync(path.join(sb.hostWorkDir, 'many', `f${i}`), '');
    return sb;
  }

  test('a lossy run is never used: it is repeated under strace, with a note, and D3 is complete', { timeout: 180_000 }, async () => {
    const sb = thousandsOfFiles();
    const r = await traceRun(sb, request(sb, [PYTHON, '-c', program], 120_000), 'auto', { fast: fastTracer(() => daemon), strace: straceTracer });
    assert.equal(r.run.exitCode, 0, r.run.stderr);
    assert.equal(r.tracer, 'strace');
    assert.match(r.notes.join('\n'), /fast tracer missed \d+ calls?.*repeated under strace/s);
    for (let i = 0; i < FILES; i++) assert.ok(r.files.has(path.join(sb.workDir, 'many', `f${i}`)), `many/f${i} is missing`);
  });

  test('the default ring buffer keeps up with the same program', { timeout: 180_000 }, async () => {
    const sb = thousandsOfFiles();
    const r = await traceRun(sb, request(sb, [PYTHON, '-c', program], 120_000), 'fast');
    assert.equal(r.tracer, 'fast');
    assert.deepEqual(r.notes, []);
    for (let i = 0; i < FILES; i++) assert.ok(r.files.has(path.join(sb.workDir, 'many', `f${i}`)), `many/f${i} is missing`);
  });
});
