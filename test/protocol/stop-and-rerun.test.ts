/**
 * Stopping a run and redoing runs, with the real CLI, real command-line agents and real Python runs on the host:
 * Ctrl-C stops the agent's whole process group and records the attempt as interrupted, the next run resumes it;
 * `--rerun` replaces a run's attempts, and a rerun stopped before it recorded anything leaves the run as it was.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startFakeLlm } from '../agents/fake-llm.js';
import { REPO_ROOT, runCliAsync } from '../helpers/cli.js';
import { FIXTURES, readStore, SUITE, tempStore } from './helpers.js';

const TSX = import.meta.resolve('tsx');

/** A directory with the test's agents: `slow.sh` leaves a child running and waits; `good.sh` writes a working project. */
function agents(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-stop-'));
  writeFileSync(
    path.join(dir, 'slow.sh'),
    ['echo "agent started"', 'echo "thinking hard" >&2', 'sleep 300 &', 'echo $! > "$AGENTS_DIR/child.pid"', 'pwd > "$AGENTS_DIR/workspace.path"', 'wait', ''].join('\n'),
  );
  writeFileSync(path.join(dir, 'good.sh'), ['printf "" > requirements.txt', 'echo \'print("hello")\' > main.py', 'echo "wrote main.py"', 'echo "all done" >&2', ''].join('\n'));
  return dir;
}

const args = (store: string, agent: string, ...extra: string[]) => [
  'run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--tasks', 'p_01', '--languages', 'python', '--repairs', '1', '--retry-delay', '0', '--agent', agent, ...extra,
];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    assert.ok(Date.now() < deadline, `${what} within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('stopping and redoing runs', { concurrency: false }, () => {
  test('Ctrl-C stops the agent and the child it left running, removes the work directory, records the attempt as interrupted; the next run redoes it', async () => {
    const dir = agents();
    const store = tempStore();
    const child = spawn(process.execPath, ['--import', TSX, path.join(REPO_ROOT, 'src/cli/main.ts'), ...args(store, `bot@cmd:sh ${dir}/slow.sh`)], { env: { ...process.env, AGENTS_DIR: dir } });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const pidFile = path.join(dir, 'child.pid');
    await until('the agent left its child running', () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '');
    const leftover = Number(readFileSync(pidFile, 'utf8'));
    const workDir = path.dirname(readFileSync(path.join(dir, 'workspace.path'), 'utf8').trim());
    assert.ok(alive(leftover) && existsSync(workDir));

    child.kill('SIGINT');
    assert.equal(await exited, 2, stderr);
    assert.match(stderr, /SIGINT: stopping; the attempts in flight are recorded as interrupted/);
    assert.match(stderr, /envproof: stopped by SIGINT: 1 runs interrupted/);
    await until('the child the agent left behind is gone', () => !alive(leftover), 5000);
    assert.equal(existsSync(workDir), false, 'the run\'s work directory is removed');

    const [stopped] = await readStore(store);
    assert.equal(stopped!.run.status, 'running', 'unfinished: in no metric, resumed by the next run');
    assert.deepEqual(
      stopped!.attempts.map((a) => [a.attempt, a.errorClass, a.step, a.agentOutput, a.agentStderr]),
      [[0, 'interrupted', 'agent', 'agent started\n', 'thinking hard\n']],
    );

    const resumed = await runCliAsync(args(store, `bot@cmd:sh ${dir}/good.sh`, '--quiet'));
    assert.equal(resumed.status, 0, resumed.stderr);
    const [done] = await readStore(store);
    assert.equal(done!.run.status, 'done');
    assert.equal(done!.run.firstSuccess, true, 'the interrupted round was done again, as the first attempt');
    assert.deepEqual(
      done!.attempts.map((a) => [a.attempt, a.success, a.agentOutput, a.agentStderr, a.programOutput]),
      [[0, true, 'wrote main.py\n', 'all done\n', 'hello\n']],
    );
  });

  test('a refused credential in one run stops the runs beside it: their attempts in flight are recorded as interrupted', async () => {
    const store = tempStore();
    // p_01 works for a while; p_02, beside it (--jobs 2), finds the agent logged out.
    const agent = `bot@cmd:if [ {task} = p_01 ]; then echo "working on p_01"; sleep 60; else echo "Error: Not logged in · Please run /login" >&2; exit 1; fi`;
    const started = Date.now();
    const r = await runCliAsync(['run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--quiet', '--tasks', 'p_01,p_02', '--languages', 'python', '--jobs', '2', '--agent', agent]);
    assert.equal(r.status, 2, r.stderr);
    assert.ok(Date.now() - started < 45_000, 'p_01 was not waited for');
    assert.match(r.stderr, /envproof: the agent bot has no usable credentials: Error: Not logged in · Please run \/login/);
    assert.match(r.stderr, /hint: log the agent in/);
    const entries = await readStore(store);
    assert.deepEqual(entries.map((e) => [e.run.taskId, e.run.status, e.attempts.map((a) => [a.errorClass, a.agentOutput])]), [['p_01', 'running', [['interrupted', 'working on p_01\n']]]]);
  });

  test('--rerun failed redoes a failed run from scratch; stopped before its first attempt, it leaves the run as it was', async () => {
    const dir = agents();
    const store = tempStore();
    const failing = await runCliAsync(args(store, `bot@scripted:${path.join(FIXTURES, 'never-converges.yaml')}`, '--quiet'));
    assert.equal(failing.status, 1, 'every run failed: exit 1');
    assert.match(failing.stdout, /0 succeeded, 1 failed/);
    assert.match(failing.stdout, /^no run succeeded$/m);
    const [before] = await readStore(store);
    assert.deepEqual(before!.attempts.map((a) => [a.attempt, a.errorClass]), [[0, 'code-bug'], [1, 'code-bug']]);

    // The redo is refused its credentials before it records anything: the failed run is kept whole.
    const api = await startFakeLlm([{ status: 401, json: { error: { message: 'bad key' } } }]);
    try {
      const refused = await runCliAsync(args(store, `bot@openai:model=m,base=${api.url}/v1`, '--quiet', '--rerun', 'failed'));
      assert.equal(refused.status, 2, refused.stderr);
    } finally {
      await api.close();
    }
    assert.deepEqual(await readStore(store), [before]);

    const skipped = await runCliAsync(args(store, `bot@cmd:sh ${dir}/good.sh`, '--quiet'));
    assert.match(skipped.stdout, /1 already done/, 'without --rerun a finished run is kept');

    const redone = await runCliAsync(args(store, `bot@cmd:sh ${dir}/good.sh`, '--rerun', 'failed'));
    assert.equal(redone.status, 0, redone.stderr);
    assert.match(redone.stderr, /--rerun failed: 1 of 1 runs are done again from scratch/);
    const [after] = await readStore(store);
    assert.equal(after!.run.finalSuccess, true);
    assert.equal(after!.run.initialErrorType, 'None');
    assert.deepEqual(after!.attempts.map((a) => [a.attempt, a.success]), [[0, true]], 'attempt 1 of the old run is gone');
  });
});
