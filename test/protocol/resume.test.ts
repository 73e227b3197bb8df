import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { cliCommand, runCli } from '../helpers/cli.js';
import { FIXTURES, SUITE, readStore, tempStore, type StoreEntry } from './helpers.js';

const args = (store: string) => [
  'run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--quiet',
  '--agent', `scripted:${path.join(FIXTURES, 'resume.yaml')}`, '--tasks', 'p_01-p_03', '--languages', 'python', '--repairs', '2',
];

test('a run killed half-way resumes where it stopped, without re-running finished attempts', async () => {
  const store = tempStore();
  const [cmd, ...argv] = cliCommand(...args(store));
  const child = spawn(cmd, argv, { stdio: 'ignore' });
  // Kill it once p_01 is done and p_02's first (failed) attempt is recorded: its repair round sleeps 4 s.
  const deadline = Date.now() + 120_000;
  let before: StoreEntry[] = [];
  for (;;) {
    assert.ok(Date.now() < deadline, 'the run reached p_02 attempt 0 in time');
    await new Promise((r) => setTimeout(r, 300));
    try {
      before = (await readStore(store));
    } catch {
      continue; // the store is not created yet
    }
    const p02 = before.find((e) => e.run.taskId === 'p_02');
    if (p02 && p02.attempts.length === 1) break;
  }
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));

  const p01Before = before.find((e) => e.run.taskId === 'p_01')!;
  assert.equal(p01Before.run.status, 'done');
  assert.equal(before.find((e) => e.run.taskId === 'p_02')!.run.status, 'running');
  assert.equal(before.find((e) => e.run.taskId === 'p_03'), undefined);

  const r = runCli(args(store));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /3 runs .*: 2 succeeded, 0 failed, 1 already done/);
  const after = (await readStore(store));
  const p01 = after.find((e) => e.run.taskId === 'p_01')!;
  const p02 = after.find((e) => e.run.taskId === 'p_02')!;
  const p03 = after.find((e) => e.run.taskId === 'p_03')!;
  assert.deepEqual(p01.attempts, p01Before.attempts, 'the finished run was not run again');
  assert.deepEqual(p02.attempts[0], before.find((e) => e.run.taskId === 'p_02')!.attempts[0], 'attempt 0 of the interrupted run was kept');
  assert.equal(p02.attempts.length, 2);
  assert.equal(p02.attempts[1]!.success, true);
  assert.equal(p02.run.status, 'done');
  assert.equal(p02.run.repairDepth, 1);
  assert.equal(p02.run.initialErrorType, 'CodeBug');
  assert.equal(p03.run.firstSuccess, true);
});
