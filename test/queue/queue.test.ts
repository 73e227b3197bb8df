/**
 * The job queue for real: Debian's redis-server and PostgreSQL on private ports, `envproof worker` processes, a
 * scripted agent (no model). The store the workers fill is compared with the same workload run on one machine
 * into SQLite.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { queueStatus, withQueue } from '../../src/queue/client.js';
import { runCliAsync } from '../helpers/cli.js';
import { createDatabase, freePort, startPostgres, startRedis, type Service } from '../helpers/services.js';
import { readStore, SUITE, tempStore, type StoreEntry } from '../protocol/helpers.js';
import { startWorker, stopWorker, until, type WorkerProcess } from './workers.js';

const SCRIPT = path.join(import.meta.dirname, 'fixtures', 'workload.yaml');
const OPTIONS = ['--suite', SUITE, '--sandbox', 'host', '--quiet', '--languages', 'javascript', '--repairs', '2'];
const WORKLOAD = [...OPTIONS, '--agent', `scripted:${SCRIPT}`];

/** What two recordings of the same workload share: everything but timings, ids and temporary paths. */
function comparable(entries: StoreEntry[]): unknown[] {
  return entries.map(({ run, attempts }) => ({
    run,
    attempts: attempts.map(({ attempt, success, errorClass, step, treeHash, manifestPath, manifest, sandbox }) => ({ attempt, success, errorClass, step, treeHash, manifestPath, manifest, sandbox })),
  }));
}

const p02Attempts = async (store: string) => (await readStore(store).catch(() => [])).find((e) => e.run.taskId === 'p_02')?.attempts.length ?? 0;

describe('envproof run --queue with workers', () => {
  let redis: Service;
  let postgres: Service;
  let baseline: unknown[];

  before(async () => {
    const local = tempStore();
    const [r, services] = await Promise.all([runCliAsync(['run', ...WORKLOAD, '--store', local]), Promise.all([startRedis(), startPostgres()])]);
    [redis, postgres] = services;
    assert.equal(r.status, 0, r.stderr);
    baseline = comparable(await readStore(local));
    assert.equal(baseline.length, 3);
  });

  after(async () => {
    await Promise.all([redis?.stop(), postgres?.stop()]);
  });

  test('two workers record the workload once, as one machine does', async () => {
    const queue = `${redis.url}/1`;
    const store = await createDatabase(postgres.url, 'two');
    const workers = [startWorker(queue, store), startWorker(queue, store)];
    const r = await runCliAsync(['run', ...WORKLOAD, '--queue', queue, '--wait']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^3 runs in .*: 3 succeeded, 0 failed, 0 already done, 0 set aside/);
    assert.deepEqual(await Promise.all(workers.map(stopWorker)), [0, 0], 'SIGTERM stops an idle worker cleanly');
    assert.deepEqual(comparable(await readStore(store)), baseline);
    const started = workers.map((w) => (w.log().match(/: started/g) ?? []).length);
    assert.equal(started[0]! + started[1]!, 3, `each job was delivered once: ${started}`);

    // Enqueuing the same runs again adds no job and records nothing new.
    const again = await runCliAsync(['run', ...WORKLOAD, '--queue', queue, '--wait']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^3 runs in .*: 0 succeeded, 0 failed, 3 already done/);
  });

  test('three workers, one killed with SIGKILL mid-run and another started: the run resumes after its last attempt', async () => {
    const queue = `${redis.url}/2`;
    const store = await createDatabase(postgres.url, 'killed');
    const workers = [1, 2, 3].map(() => startWorker(queue, store, '--lock-timeout', '5'));
    const run = runCliAsync(['run', ...WORKLOAD, '--queue', queue, '--wait']);
    // p_02's first attempt fails and is recorded; its repair round takes 3 s: kill its worker there.
    let victim: WorkerProcess | undefined;
    await until('p_02 attempt 0 recorded', async () => {
      victim = workers.find((w) => w.log().includes('scripted p_02 javascript #1: started'));
      return victim !== undefined && (await p02Attempts(store)) === 1;
    });
    victim!.child.kill('SIGKILL');
    await victim!.exited;
    const [before] = (await readStore(store)).filter((e) => e.run.taskId === 'p_02');
    assert.equal(before!.run.status, 'running');
    const fourth = startWorker(queue, store, '--lock-timeout', '5');

    const r = await run;
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^3 runs in .*: 3 succeeded, 0 failed, 0 already done, 0 set aside/);
    const alive = [...workers.filter((w) => w !== victim), fourth];
    assert.deepEqual(await Promise.all(alive.map(stopWorker)), [0, 0, 0]);
    const after = await readStore(store);
    assert.deepEqual(comparable(after), baseline, 'complete, without duplicates, equal to one machine');
    const p02 = after.find((e) => e.run.taskId === 'p_02')!;
    assert.deepEqual(p02.attempts[0], before!.attempts[0], 'attempt 0 was kept, not run again');
    const redelivered = alive.filter((w) => w.log().includes('scripted p_02 javascript #1: started'));
    assert.equal(redelivered.length, 1, 'the stalled job went to another worker');
  });

  test('SIGTERM: the worker finishes the attempt in progress, hands the job back and exits 0; the next resumes', async () => {
    const queue = `${redis.url}/5`;
    const store = await createDatabase(postgres.url, 'handback');
    const script = ['--agent', `scripted:${path.join(import.meta.dirname, 'fixtures', 'handback.yaml')}`, '--tasks', 'p_01'];
    const first = startWorker(queue, store);
    const run = runCliAsync(['run', ...OPTIONS, ...script, '--queue', queue, '--wait']);
    const attempts = async () => (await readStore(store).catch(() => []))[0]?.attempts.length ?? 0;
    await until('attempt 0 recorded', async () => (await attempts()) === 1);
    first.child.kill('SIGTERM'); // during round 1 (3 s of agent, then its execution)
    assert.equal(await first.exited, 0, first.log());
    const [handedBack] = await readStore(store);
    assert.equal(handedBack!.run.status, 'running');
    assert.equal(handedBack!.attempts.length, 2, 'round 1 was finished and recorded, round 2 not started');
    assert.deepEqual((await withQueue(queue, queueStatus)).counts, { waiting: 1, active: 0, delayed: 0, completed: 0, failed: 0 });

    const second = startWorker(queue, store);
    const r = await run;
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^1 runs in .*: 1 succeeded/);
    assert.equal(await stopWorker(second), 0);
    const [after] = await readStore(store);
    assert.equal(after!.run.status, 'done');
    assert.equal(after!.run.repairDepth, 2);
    assert.deepEqual(after!.attempts.slice(0, 2), handedBack!.attempts, 'rounds 0 and 1 were kept');
    assert.deepEqual(after!.attempts.map((a) => a.success), [false, false, true]);
  });

  test('a queue or store that is not there at start is a clear error', async () => {
    const closed = await freePort();
    const [run, worker, status] = await Promise.all([
      runCliAsync(['run', ...WORKLOAD, '--queue', `redis://127.0.0.1:${closed}`]),
      runCliAsync(['worker', '--queue', redis.url, '--store', `postgres://postgres:secret@127.0.0.1:${closed}/none`]),
      runCliAsync(['queue', 'status', '--queue', `redis://127.0.0.1:${closed}`]),
    ]);
    assert.equal(run.status, 2);
    assert.match(run.stderr, /cannot reach the Redis queue redis:\/\/127\.0\.0\.1:\d+/);
    assert.doesNotMatch(run.stderr, /internal error|\n\s+at /);
    assert.equal(worker.status, 2);
    assert.match(worker.stderr, /cannot reach the PostgreSQL results store postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/none/, 'the password is not printed');
    assert.equal(status.status, 2);
    assert.match(status.stderr, /cannot reach the Redis queue/);
  });

  test('Redis and PostgreSQL lost mid-run: the worker waits, reconnects and records the run whole', async () => {
    const queue = `${redis.url}/3`;
    const store = await createDatabase(postgres.url, 'lost');
    const worker = startWorker(queue, store);
    const run = runCliAsync(['run', ...WORKLOAD, '--tasks', 'p_02', '--queue', queue, '--wait']);
    await until('p_02 attempt 0 recorded', async () => (await p02Attempts(store)) === 1);
    await Promise.all([redis.pause(), postgres.pause()]);
    // The repair round ends 3 s later and its tree is written: the store is not there.
    await until('the worker noticing the lost store', () => worker.log().includes('lost the results store'), 60_000);
    await Promise.all([redis.start(), postgres.start()]);

    const r = await run;
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^1 runs in .*: 1 succeeded/);
    assert.equal(await stopWorker(worker), 0);
    assert.match(worker.log(), /results store .* is back/);
    assert.deepEqual(comparable(await readStore(store)), baseline.filter((e) => (e as StoreEntry).run.taskId === 'p_02'));
  });

  test('queue status shows a dead letter; retry puts it back; drain removes what waits', async () => {
    const queue = `${redis.url}/4`;
    const store = await createDatabase(postgres.url, 'dead');
    const script = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-queue-')), 'script.yaml');
    copyFileSync(SCRIPT, script);
    const one = ['run', ...OPTIONS, '--agent', `scripted:${script}`, '--tasks', 'p_01', '--queue', queue, '--retries', '0'];
    assert.equal((await runCliAsync(one)).status, 0);
    const counts = async () => (await withQueue(queue, queueStatus)).counts;
    const json = await runCliAsync(['queue', 'status', '--queue', queue, '--json']);
    assert.deepEqual(JSON.parse(json.stdout), { counts: { waiting: 1, active: 0, delayed: 0, completed: 0, failed: 0 }, deadLetters: [] });

    // The worker cannot rebuild the job's agent: a failure that is not the agent's, dead-lettered.
    rmSync(script);
    const worker = startWorker(queue, store);
    await until('the job dead-lettered', async () => (await counts()).failed === 1);
    const status = await runCliAsync(['queue', 'status', '--queue', queue]);
    assert.equal(status.status, 1, 'dead letters are findings');
    assert.match(status.stdout, /^0 waiting, 0 running, 0 delayed, 0 completed, 1 dead-lettered\ndead letter scripted p_01 javascript #1 \(1 deliveries, .*\): cannot read the agent script/);

    copyFileSync(SCRIPT, script);
    const retried = await runCliAsync(['queue', 'retry', '--queue', queue]);
    assert.match(retried.stdout, /^1 dead-lettered jobs back in the queue/);
    await until('the retried job completed', async () => (await counts()).completed === 1);
    assert.equal(await stopWorker(worker), 0);
    assert.deepEqual(comparable(await readStore(store)), baseline.filter((e) => (e as StoreEntry).run.taskId === 'p_01'));

    // With no worker, the other two runs wait; drain removes them and keeps the ended job.
    assert.equal((await runCliAsync(['run', ...OPTIONS, '--agent', `scripted:${script}`, '--queue', queue])).status, 0);
    assert.deepEqual(await counts(), { waiting: 2, active: 0, delayed: 0, completed: 1, failed: 0 });
    assert.match((await runCliAsync(['queue', 'drain', '--queue', queue])).stdout, /^removed 2 jobs/);
    assert.deepEqual(await counts(), { waiting: 0, active: 0, delayed: 0, completed: 1, failed: 0 });
  });
});
