/**
 * The job queue: throughput of `envproof run --queue --wait` with 1, 2 and 4 `envproof worker` processes on a
 * replay workload (JavaScript projects, sandbox host) over real Redis and PostgreSQL servers; then the queue's and
 * the store's cost per job beside the run itself, and what another machine would add, estimated from them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { snapshotTree } from '../src/protocol/tree.js';
import { ResultsStore } from '../src/store/store.js';
import { runCliAsync, REPO_ROOT } from '../test/helpers/cli.js';
import { createDatabase, startPostgres, startRedis } from '../test/helpers/services.js';

const RUNS = 8;
const WORKERS = [1, 2, 4];

const root = mkdtempSync(path.join(os.tmpdir(), 'envproof-bench-queue-'));
const suiteFile = path.join(root, 'suite.yaml');
const ids = Array.from({ length: RUNS }, (_, i) => `p_${String(i + 1).padStart(2, '0')}`);
writeFileSync(suiteFile, `tasks:\n${ids.map((id) => `  - id: ${id}\n    title: Bench ${id}\n    domain: Benchmark\n    complexity: Medium\n    description: A recorded project.\n    functionalRequirements: [Print a line]\n`).join('')}`);
for (const id of ids) {
  const dir = path.join(root, 'replay', id, 'javascript', '0');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `bench-${id.replace('_', '-')}`, version: '1.0.0', main: 'index.js', dependencies: { 'is-number': '7.0.0' } }));
  writeFileSync(path.join(dir, 'index.js'), `console.log('${id}', require('is-number')(5));\n`);
}
const RUN_ARGS = ['--suite', suiteFile, '--agent', `replay:${path.join(root, 'replay')}`, '--languages', 'javascript', '--repairs', '0', '--sandbox', 'host', '--quiet'];

function worker(queue: string, store: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/cli/main.ts'), 'worker', '--queue', queue, '--store', store], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let log = '';
    child.stderr!.on('data', (c: Buffer) => {
      log += c.toString();
      if (log.includes('waiting for jobs')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${log}`)));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
try {
  console.log(`${RUNS} runs per pass (replayed JavaScript projects with one dependency, sandbox host), ${os.cpus().length} cores`);
  // Warm-up on one machine: the npm cache holds is-number afterwards, for every pass alike.
  await runCliAsync(['run', ...RUN_ARGS, '--store', path.join(root, 'warm-up.db')]);

  const perMinute: Record<number, number> = {};
  let runMs: number[] = [];
  for (const [i, n] of WORKERS.entries()) {
    const queue = `${redis.url}/${i + 1}`;
    const store = await createDatabase(postgres.url, `workers${n}`);
    const workers = await Promise.all(Array.from({ length: n }, () => worker(queue, store)));
    const started = Date.now();
    const r = await runCliAsync(['run', ...RUN_ARGS, '--queue', queue, '--wait']);
    const seconds = (Date.now() - started) / 1000;
    await Promise.all(workers.map((w) => new Promise((resolve) => (w.once('exit', resolve), w.kill('SIGTERM')))));
    if (r.status !== 0) throw new Error(`run --queue failed: ${r.stderr}`);
    perMinute[n] = RUNS / (seconds / 60);
    const s = await ResultsStore.open(store);
    const durations = [];
    for (const run of await s.allRuns()) for (const a of await s.attempts(run)) durations.push(a.durationMs ?? 0);
    await s.close();
    if (n === 1) runMs = durations;
    console.log(`${n} worker${n > 1 ? 's' : ' '}: ${seconds.toFixed(1)} s, ${perMinute[n]!.toFixed(1)} runs/min, speed-up ${(perMinute[n]! / perMinute[1]!).toFixed(2)}× (median run ${(median(durations) / 1000).toFixed(1)} s)`);
  }

  // The queue's cost per job: BullMQ add, delivery, lock and completion of an empty job, one process.
  const JOBS = 300;
  const connection = new Redis(`${redis.url}/9`, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(`${redis.url}/9`, { maxRetriesPerRequest: null });
  const q = new Queue('bench', { connection });
  const done = new Promise<void>((resolve) => {
    let n = 0;
    const w = new Worker('bench', async () => {
      if (++n === JOBS) setImmediate(() => void w.close().then(resolve));
    }, { connection: workerConnection });
  });
  const t0 = performance.now();
  await q.addBulk(Array.from({ length: JOBS }, (_, i) => ({ name: 'empty', data: { i }, opts: { jobId: `job-${i}` } })));
  await done;
  const queueMs = (performance.now() - t0) / JOBS;
  await q.close();
  connection.disconnect();
  workerConnection.disconnect();

  // The store's cost per attempt: one project tree and one run with its attempt, on SQLite and on PostgreSQL.
  const snapshot = await snapshotTree(path.join(root, 'replay', 'p_01', 'javascript', '0'));
  const storeMs: Record<string, number> = {};
  for (const [label, spec] of [['SQLite', path.join(root, 'bench.db')], ['PostgreSQL', await createDatabase(postgres.url, 'storebench')]] as const) {
    const s = await ResultsStore.open(spec);
    const WRITES = 200;
    const t = performance.now();
    for (let i = 0; i < WRITES; i++) {
      // A new tree each time (as each attempt's is), its files' contents already stored or not.
      await s.putTree({ ...snapshot, hash: `${snapshot.hash}-${i}` });
      const key = { source: 'envproof' as const, agent: 'bench', language: 'javascript' as const, taskId: `t${i}`, trial: 1 };
      await s.putRun({ ...key, primary: true, firstSuccess: true, finalSuccess: true, repairDepth: 0, initialErrorType: 'None', declared: ['is-number'], installed: ['is-number'], traced: ['is-number'], claimedCount: 1, transitiveCount: 1, status: 'done' }, [
        { attempt: 0, treeHash: `${snapshot.hash}-${i}`, manifestPath: 'package.json', manifest: '{}', success: true, errorClass: null, errorTail: null, startedAt: null, durationMs: 1, tokensIn: null, tokensOut: null, costUsd: null },
      ]);
      await s.runStatus(key);
    }
    storeMs[label] = (performance.now() - t) / WRITES;
    await s.close();
  }
  const run = median(runMs);
  console.log(`per job: queue ${queueMs.toFixed(2)} ms (BullMQ, empty job), store ${storeMs.SQLite!.toFixed(2)} ms SQLite / ${storeMs.PostgreSQL!.toFixed(2)} ms PostgreSQL (tree + run + attempt + status), against a run of ${(run / 1000).toFixed(1)} s: ${(((queueMs + storeMs.PostgreSQL!) / run) * 100).toFixed(3)} % overhead`);
  const best = Math.max(...Object.values(perMinute));
  console.log(
    `one more machine like this one: about +${best.toFixed(1)} runs/min (runs are CPU-bound on the workers; the queue and store would take ${(((queueMs + storeMs.PostgreSQL!) * (2 * best)) / 60_000 * 100).toFixed(3)} % of one server's time at ${(2 * best).toFixed(1)} runs/min)`,
  );
} finally {
  await Promise.all([redis.stop(), postgres.stop()]);
  rmSync(root, { recursive: true, force: true });
}
