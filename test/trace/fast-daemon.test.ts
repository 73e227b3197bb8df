// tier: quick
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { HostSandbox } from '../../src/sandbox/host.js';
import { FastTraceDaemon } from '../../src/trace/fast/daemon.js';
import { RecordKind, type TraceRecord } from '../../src/trace/fast/records.js';
import { placeGate } from '../../src/trace/gate.js';
import { scratchDir, sleeperAlive, uniqueSleep } from './scenario.js';

const PYTHON = '/usr/bin/python3';

/** Starts `argv` through a fresh gate registered with `daemon`, outside any sandbox; its records are collected. */
async function gated(daemon: FastTraceDaemon, argv: string[]) {
  const sb = new HostSandbox('python', scratchDir());
  const gate = await placeGate(sb);
  const records: TraceRecord[] = [];
  const run = await daemon.open(gate.host, (r) => records.push(r));
  const child = spawn(gate.host, argv, { stdio: 'ignore' });
  const exited = once(child, 'exit');
  return { run, records, exited };
}

/** Whether `p` settles within `ms`. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([p.then(() => true), sleep(ms).then(() => false)]);
}

describe('the fast tracer ends a run by itself when its last process ends', () => {
  const daemon = FastTraceDaemon.start();
  after(async () => (await daemon).stop());

  test('not while a child the program left behind still runs, and at once when it ends', { timeout: 60_000 }, async () => {
    const { run, records, exited } = await gated(await daemon, ['/bin/sh', '-c', 'sleep 0.5 & exit 0']);
    await exited;
    assert.equal(await settlesWithin(run.over, 200), false, 'the run is not over while sleep runs');
    assert.equal(await settlesWithin(run.over, 10_000), true, 'the run is over once sleep ended, without being asked');
    const execs = records.filter((r) => r.kind === RecordKind.exec).map((r) => r.path);
    assert.equal(execs.length, 2, `the shell and sleep were reported: ${execs.join(', ')}`);
    assert.equal(execs[0], '/bin/sh');
    assert.match(execs[1]!, /\/sleep$/);
    assert.equal(records.filter((r) => r.kind === RecordKind.exit).length, 2, 'both processes ended before the run did');
    assert.equal(await run.end(), 0, 'nothing was lost; ending it again changes nothing');
  });

  test('a thread other than the leader that execs does not end the run early', { timeout: 60_000 }, async () => {
    const code = "import os, threading\nt = threading.Thread(target=lambda: os.execv('/bin/cat', ['cat', '/etc/hostname']))\nt.start()\nt.join()";
    const { run, records, exited } = await gated(await daemon, [PYTHON, '-c', code]);
    await exited;
    assert.equal(await settlesWithin(run.over, 10_000), true);
    const opened = records.filter((r) => r.kind === RecordKind.open).map((r) => r.path);
    assert.ok(opened.includes('/etc/hostname'), `what the exec'd program opened is in the trace before the run ended: ${opened.slice(-5).join(', ')}`);
    assert.ok(records.some((r) => r.kind === RecordKind.exec && r.path === '/bin/cat' && r.aux !== r.tid), 'the exec came from a thread other than the leader');
  });

  test('a run with a process still alive ends when asked, and that process dies', { timeout: 60_000 }, async () => {
    const seconds = uniqueSleep();
    const { run, exited } = await gated(await daemon, ['/bin/sh', '-c', `sleep ${seconds} & exit 0`]);
    await exited;
    assert.equal(await settlesWithin(run.over, 300), false);
    assert.equal(await run.end(), 0);
    assert.equal(sleeperAlive(seconds), false, `sleep ${seconds} survived the end of its run`);
  });
});
