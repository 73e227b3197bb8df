/**
 * The queue's other kinds of job, for real: a repro corpus (the Go corpus of test/repro) by two `envproof worker`
 * processes into one SQLite store, compared row by row with the same corpus run here; a backend evaluation (a tiny
 * Node server, sandbox host) through a worker, compared with the same evaluation made here.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { queueStatus, withQueue } from '../../src/queue/client.js';
import { runCliAsync, SHARED } from '../helpers/cli.js';
import { startRedis, type Service } from '../helpers/services.js';
import { tempStore } from '../protocol/helpers.js';
import { corpusLine, corpusRepo } from '../repro/corpus-fixture.js';
import { writeTree } from '../verify/helpers.js';
import { startWorker, stopWorker } from './workers.js';
import { TMP } from '../helpers/regexp.js';

const REPRO = ['--k', '1', '--vary', 'timezone', '--trials', '1', '-q'];

/**
 * What differs between two recordings of the same work, replaced by placeholders: the time a clock probe read, the
 * suites' random user names, temporary folders, ports and serving-run ids.
 */
function scrub<T>(value: T): T {
  const text = JSON.stringify(value)
    .replace(/it read [0-9T:.Z-]+/g, 'it read <time>')
    .replace(/envproof_[0-9a-f]{8}/g, 'envproof_<user>')
    .replace(new RegExp(`${TMP}/envproof-[A-Za-z0-9]{6}`, 'g'), '<tmp>/envproof-<dir>')
    .replace(/PORT='\d+'/g, "PORT='<port>'")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>');
  return JSON.parse(text) as T;
}

/** The store's repro rows, without what differs between two recordings of the same corpus (times). */
function reproRows(store: string): unknown {
  const db = new Database(store, { readonly: true });
  try {
    const instances = db.prepare('SELECT * FROM repro_instances ORDER BY corpus, instance_id').all() as Record<string, unknown>[];
    const runs = db.prepare('SELECT corpus, instance_id, seq, arm, role, variation, outcome, matches FROM repro_runs ORDER BY corpus, instance_id, seq').all();
    return scrub({ instances: instances.map(({ rerun_at, updated_at, overhead_ratio, ...rest }) => ({ ...rest, overheadMeasured: typeof overhead_ratio === 'number' && overhead_ratio > 0 })), runs });
  } finally {
    db.close();
  }
}

/** An evaluation without its timings (`…Ms`, the audit's phases) and the server's log (its lines carry times), scrubbed. */
function comparable(value: unknown): unknown {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).filter(([k]) => !k.endsWith('Ms') && k !== 'serverLog' && k !== 'phases').map(([k, x]) => [k, strip(x)]));
  };
  return scrub(strip(value));
}

// The tests run at once: each has a Redis database, workers and stores of its own.
describe('repro and evaluate jobs on the queue', { concurrency: true }, () => {
  let redis: Service;
  const c = corpusRepo();
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
  });

  test('a bad corpus line or a patch that does not apply: a clear error at enqueue, nothing enqueued', async () => {
    const queue = `${redis.url}/1`;
    const missing = path.join(c.dir, 'missing.jsonl');
    writeFileSync(missing, `${corpusLine({ id: 'a', repo: 'repo', commit: c.commit, patch: 'rename.patch' })}\n${corpusLine({ id: 'b', repo: 'repo', patch: 'rename.patch' })}\n`);
    const badPatch = path.join(c.dir, 'bad-patch.jsonl');
    writeFileSync(badPatch, `${corpusLine({ id: 'a', repo: 'repo', commit: c.commit, patch: 'rename.patch' })}\n${corpusLine({ id: 'b', repo: 'repo', commit: c.commit, patch: 'broken.patch' })}\n`);
    const [r1, r2, withStore] = await Promise.all([
      runCliAsync(['repro', '--corpus', missing, '--queue', queue, ...REPRO]),
      runCliAsync(['repro', '--corpus', badPatch, '--queue', queue, ...REPRO]),
      runCliAsync(['repro', '--corpus', missing, '--queue', queue, '--store', 'x.db', ...REPRO]),
    ]);
    assert.equal(r1.status, 2);
    assert.match(r1.stderr, /missing\.jsonl:2: missing field "commit"/);
    assert.equal(r2.status, 2);
    assert.match(r2.stderr, /instance b: the patch .*broken\.patch does not apply/);
    for (const r of [r1, r2]) assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
    assert.equal(withStore.status, 2);
    assert.match(withStore.stderr, /--store is the workers' with --queue/);
    assert.deepEqual((await withQueue(queue, queueStatus)).counts, { waiting: 0, active: 0, delayed: 0, completed: 0, failed: 0 });
  });

  test('a corpus by two workers: the same rows in the store as the corpus run here; enqueued again, nothing new', async () => {
    const queue = `${redis.url}/2`;
    const corpus = path.join(c.dir, 'corpus.jsonl');
    writeFileSync(corpus, `${corpusLine({ id: 'local-time', repo: 'repo', commit: c.commit, patch: 'local-time.patch' })}\n${corpusLine({ id: 'rename', repo: 'repo', commit: c.commit, patch: 'rename.patch' })}\n`);
    const local = tempStore();
    const shared = tempStore();
    const workers = [startWorker(queue, shared), startWorker(queue, shared)];
    const [here, queued] = await Promise.all([
      runCliAsync(['repro', '--corpus', corpus, '--store', local, ...REPRO]),
      runCliAsync(['repro', '--corpus', corpus, '--queue', queue, '--wait', '--json', ...REPRO]),
    ]);
    assert.equal(here.status, 1, here.stderr);
    assert.equal(queued.status, 1, queued.stderr);
    assert.deepEqual(await Promise.all(workers.map(stopWorker)), [0, 0]);
    const started = workers.map((w) => (w.log().match(/: started/g) ?? []).length);
    assert.deepEqual(started.sort(), [1, 1], `each worker took one instance: ${started}`);
    const ended = JSON.parse(queued.stdout).instances.sort((a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id));
    assert.deepEqual(ended.map((i: { id: string; verdict: string; shimVerdict: string; baselineVerdict: string }) => [i.id, i.verdict, i.shimVerdict, i.baselineVerdict]), [
      ['local-time', 'broken', 'reproducible', 'reproducible'],
      ['rename', 'reproducible', 'reproducible', 'reproducible'],
    ]);
    const rows = reproRows(shared) as { instances: unknown[]; runs: unknown[] };
    assert.equal(rows.instances.length, 2);
    // local-time: re-run, control, one factor, the default-environment run paired with the shim run, the shim run,
    // baseline reference and re-run; rename: the same without attribution's two.
    assert.equal(rows.runs.length, 7 + 5);
    assert.deepEqual(rows, reproRows(local));

    const again = await runCliAsync(['repro', '--corpus', corpus, '--queue', queue, '--wait', ...REPRO.slice(0, -1)]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /enqueued 0 jobs on .* \(2 were already there\)/);
    assert.match(again.stdout, /^2 instances on .*: 1 reproducible, 0 flaky, 1 broken, 0 dead-lettered/);
    assert.deepEqual(reproRows(shared), rows);
  });

  test('a backend evaluation through a worker equals the one made here', async () => {
    const queue = `${redis.url}/3`;
    // A Node server without dependencies that answers its health check and nothing else.
    const server = writeTree({
      'package.json': '{ "name": "tiny-conduit", "version": "1.0.0", "private": true }\n',
      'server.js': "require('node:http').createServer((req, res) => { const ok = req.url === '/api/health-check'; res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' }); res.end(ok ? '{}' : '{\"errors\":{\"body\":[\"not found\"]}}'); }).listen(Number(process.env.PORT ?? 3000));\n",
      'run.sh': 'node server.js\n',
    });
    const args = ['evaluate', server, '--spec', path.join(SHARED, 'data/realworld/openapi.yml'), '--sandbox', 'host', '--json', '-q'];
    const worker = startWorker(queue, tempStore());
    const [here, queued] = await Promise.all([runCliAsync(args), runCliAsync([...args, '--queue', queue, '--wait'])]);
    assert.equal(here.status, 1, here.stderr);
    assert.equal(queued.status, 1, queued.stderr);
    assert.equal(await stopWorker(worker), 0);
    assert.match(worker.log(), /evaluate .*: started/);
    const local = JSON.parse(here.stdout);
    assert.deepEqual([local.passed, local.failureClass, local.startup.started, local.contract.total], [false, 'missing-routes', true, 107]);
    assert.deepEqual(comparable(JSON.parse(queued.stdout)), comparable(local));

    // The same project enqueued again: no new job, the evaluation kept with the first.
    const again = await runCliAsync([...args.slice(0, -1), '--queue', queue, '--wait']);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /enqueued 0 jobs .*\n.*evaluated before/);
    assert.deepEqual(comparable(JSON.parse(again.stdout)), comparable(local));
  });
});
