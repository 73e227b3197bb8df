// tier: quick
/** The results store: schema, WAL, envproof's own runs with attempts, and `report` over them. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { AggregateReport } from '../../src/metrics/aggregate.js';
import { MIGRATE_V1_TO_V2, SCHEMA_V1, SCHEMA_VERSION } from '../../src/store/schema.js';
import { ResultsStore } from '../../src/store/store.js';
import type { AttemptRecord, StoredRun } from '../../src/store/types.js';
import { runCli } from '../helpers/cli.js';

function envproofRun(taskId: string, over: Partial<StoredRun> = {}): StoredRun {
  return {
    source: 'envproof',
    agent: 'scripted',
    language: 'python',
    taskId,
    trial: 1,
    primary: true,
    firstSuccess: false,
    finalSuccess: true,
    repairDepth: 2,
    initialErrorType: 'MissingDep',
    declared: ['requests'],
    installed: ['certifi', 'requests'],
    traced: ['certifi', 'requests'],
    claimedCount: 1,
    transitiveCount: 2,
    ...over,
  };
}

function attempt(n: number, success: boolean): AttemptRecord {
  return {
    attempt: n,
    treeHash: `sha256:${n}`,
    manifestPath: 'requirements.txt',
    manifest: 'requests\n',
    success,
    errorClass: success ? null : 'missing-dependency',
    errorTail: success ? null : "ModuleNotFoundError: No module named 'requests'",
    startedAt: '2026-01-01T00:00:00Z',
    durationMs: 1200,
    tokensIn: 100,
    tokensOut: 50,
    costUsd: 0.01,
  };
}

describe('results store', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'envproof-store-'));
    file = path.join(dir, 'nested', 'store.db');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the documented schema in WAL mode', async () => {
    await (await ResultsStore.open(file)).close();
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    assert.deepEqual(tables, ['attempts', 'backend_evaluations', 'blobs', 'repro_instances', 'repro_runs', 'runs', 'tasks', 'tree_entries']);
    const attemptCols = (db.prepare('PRAGMA table_info(attempts)').all() as { name: string }[]).map((c) => c.name);
    for (const c of ['attempt', 'tree_hash', 'manifest', 'error_class', 'error_tail', 'duration_ms', 'tokens_in', 'cost_usd', 'sandbox']) {
      assert.ok(attemptCols.includes(c), c);
    }
    db.close();
  });

  it('keeps envproof runs with their attempts; writing a run again replaces it', async () => {
    const store = await ResultsStore.open(file);
    const id = await store.putRun(envproofRun('p_01'), [attempt(0, false), attempt(1, false), attempt(2, true)]);
    const again = await store.putRun(envproofRun('p_01', { repairDepth: 1 }), [attempt(0, false), attempt(1, true)]);
    assert.equal(again, id, 'same key, same run id');
    await store.putRun(envproofRun('p_02', { firstSuccess: true, repairDepth: 0, initialErrorType: null }), [attempt(0, true)]);
    await store.putRun(envproofRun('p_03', { finalSuccess: false, repairDepth: null }));
    const runs = await store.runs();
    assert.equal(runs.length, 3);
    assert.equal(runs.find((r) => r.taskId === 'p_01')?.repairDepth, 1);
    const attempts = await store.attempts({ source: 'envproof', agent: 'scripted', language: 'python', taskId: 'p_01', trial: 1 });
    // Attempt 2 of the first write is still there: putRun replaces the attempts it is given, it does not delete others.
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.success]),
      [
        [0, false],
        [1, true],
        [2, true],
      ],
    );
    assert.equal(attempts[0]?.errorTail, "ModuleNotFoundError: No module named 'requests'");
    await store.close();
  });

  it("keeps each attempt's transcript and a set-aside run's reason; replaceAttempts swaps a run's attempts in one write", async () => {
    const store = await ResultsStore.open(path.join(dir, 'transcripts.db'));
    try {
      const key = { source: 'envproof' as const, agent: 'scripted', language: 'python' as const, taskId: 'p_04', trial: 1 };
      await store.putRun(envproofRun('p_04'), [attempt(0, false), attempt(1, true)]);
      const transcript = { agentOutput: 'I wrote main.py', agentStderr: 'warning: slow', programOutput: 'hello\n' };
      await store.putRun(envproofRun('p_04', { status: 'infrastructure-failed', statusReason: 'HTTP 503 twice' }), [{ ...attempt(0, false), ...transcript }], [], { replaceAttempts: true });
      const attempts = await store.attempts(key);
      assert.deepEqual(attempts.map((a) => [a.attempt, a.agentOutput, a.agentStderr, a.programOutput]), [[0, 'I wrote main.py', 'warning: slow', 'hello\n']], 'attempt 1 of the old run is gone');
      assert.equal((await store.run(key))?.statusReason, 'HTTP 503 twice');
    } finally {
      await store.close();
    }
  });

  it('report works on a store of envproof runs (repair depth known)', () => {
    const r = runCli(['report', '--store', file, '--format', 'json']);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as AggregateReport;
    assert.deepEqual(report.counts.sources, { envproof: 3 });
    const buckets = report.repairBuckets.find((b) => b.agent === 'scripted' && b.language === 'python');
    // p_01 repaired in 1 round, p_02 first time, p_03 failed.
    assert.deepEqual(buckets?.counts, { '0': 1, '1-3': 1, '4-7': 0, '8-10': 0, '>10': 0, failed: 1, unknown: 0 });
    // p_01: D1 {requests}, D2 = D3 {certifi, requests}: hidden 1/2, bloat 0, inflation 2; p_02 the same.
    const m = report.mismatch.find((x) => x.agent === 'scripted');
    assert.equal(m?.n, 2);
    assert.equal(m?.hidden, 0.5);
    assert.equal(m?.bloat, 0);
    assert.equal(report.inflation.find((x) => x.agent === 'scripted')?.mean, 2);
  });

  it('report never migrates a version 1 store (it says how); a command that writes migrates it', async () => {
    const old = path.join(dir, 'v1.db');
    const db = new Database(old);
    db.exec(SCHEMA_V1);
    db.pragma('user_version = 1');
    db.prepare(
      `INSERT INTO runs (source, agent, language, task_id, trial, is_primary, first_success, final_success, d1, d2, d3, updated_at)
       VALUES ('envproof', 'scripted', 'java', 'p_07', 1, 1, 1, 1, '["gson"]', '["gson"]', '["gson"]', 'x')`,
    ).run();
    db.close();
    await assert.rejects(ResultsStore.open(old, { readonly: true }), /older store schema version 1/);
    const refused = runCli(['report', '--store', old, '--format', 'json']);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /older store schema version 1[\s\S]*envproof import, envproof run\) migrates it/);
    const unchanged = new Database(old, { readonly: true });
    assert.equal(unchanged.pragma('user_version', { simple: true }), 1);
    unchanged.close();
    await (await ResultsStore.open(old)).close();
    const r = runCli(['report', '--store', old, '--format', 'json']);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as AggregateReport;
    assert.deepEqual(report.counts.sources, { envproof: 1 });
    assert.deepEqual(report.languages, ['java']);
    const after = new Database(old, { readonly: true });
    assert.equal(after.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    after.close();
  });

  it('migrates a version 2 store through 3 (and on to the current version): runs keep their ids and attempts, D1 may be null, tasks are kept per source', async () => {
    const old = path.join(dir, 'v2.db');
    const db = new Database(old);
    db.exec(SCHEMA_V1);
    db.exec(MIGRATE_V1_TO_V2);
    db.pragma('user_version = 2');
    db.prepare(
      `INSERT INTO runs (id, source, agent, language, task_id, trial, is_primary, first_success, final_success, d1, d2, d3, updated_at, status)
       VALUES (7, 'envproof', 'scripted', 'python', 'p_01', 1, 1, 0, 1, '["six"]', '["six"]', '["six"]', 'x', 'done')`,
    ).run();
    db.prepare(`INSERT INTO attempts (run_id, attempt, success, error_class) VALUES (7, 0, 0, 'code-bug'), (7, 1, 1, NULL)`).run();
    db.prepare(`INSERT INTO tasks (id, domain) VALUES ('p_01', 'Data Processing')`).run();
    db.close();

    const store = await ResultsStore.open(old);
    const key = { source: 'envproof', agent: 'scripted', language: 'python', taskId: 'p_01', trial: 1 } as const;
    assert.deepEqual((await store.attempts(key)).map((a) => [a.attempt, a.errorClass, a.sandbox]), [[0, 'code-bug', null], [1, null, null]], 'attempts survive the rebuild of runs');
    assert.deepEqual((await store.run(key))?.declared, ['six']);
    // A v2 store did not record whose tasks it held: both sources get them.
    assert.deepEqual((await store.tasks()).map((t) => [t.source, t.id, t.domain]), [['envgap-csv', 'p_01', 'Data Processing'], ['envproof', 'p_01', 'Data Processing']]);
    await store.putRun(envproofRun('p_09', { declared: null, claimedCount: null }), [{ ...attempt(0, true), sandbox: 'bwrap' }]);
    assert.equal((await store.run({ ...key, taskId: 'p_09' }))?.declared, null);
    assert.equal((await store.attempts({ ...key, taskId: 'p_09' }))[0]?.sandbox, 'bwrap');
    await store.close();
    const after = new Database(old, { readonly: true });
    assert.equal(after.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal((after.pragma('foreign_key_check') as unknown[]).length, 0);
    const ids = after.prepare('SELECT id FROM runs WHERE task_id = ?').get('p_01') as { id: number };
    assert.equal(ids.id, 7);
    after.close();
  });

  it('report and import refuse a SQLite file that is not a store, and leave it alone', () => {
    const other = path.join(dir, 'other.db');
    const db = new Database(other);
    db.exec('CREATE TABLE notes (text TEXT)');
    db.close();
    const r = runCli(['report', '--store', other]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /is not an envproof results store/);
    const imp = runCli(['import', 'envgap-csv', path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'report', 'fixtures', 'handmade'), '--store', other]);
    assert.equal(imp.status, 2);
    assert.match(imp.stderr, /is not an envproof results store/);
    const check = new Database(other, { readonly: true });
    const tables = check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    check.close();
    assert.deepEqual(tables.map((t) => t.name), ['notes']);
  });

  it('version 5 keeps no fixed list of languages: a run of an unregistered one is refused when read, by name', async () => {
    const file = path.join(dir, 'v5.db');
    await (await ResultsStore.open(file)).close();
    const db = new Database(file);
    const runsSql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'runs'").get() as { sql: string }).sql;
    assert.doesNotMatch(runsSql, /language\s+TEXT\s+NOT NULL CHECK/);
    db.prepare(`INSERT INTO runs (source, agent, language, task_id, trial, is_primary, first_success, final_success, d1, d2, d3, updated_at) VALUES ('envproof', 'a', 'cobol', 'p_01', 1, 1, 1, 1, '[]', '[]', '[]', 'x')`).run();
    db.close();
    const store = await ResultsStore.open(file);
    await assert.rejects(store.runs(), /run of unknown language cobol/);
    await store.close();
  });

  it('refuses a store written by a newer schema', async () => {
    const newer = path.join(dir, 'newer.db');
    const db = new Database(newer);
    db.pragma('user_version = 99');
    db.close();
    await assert.rejects(ResultsStore.open(newer), new RegExp(`schema version 99; this envproof knows up to ${SCHEMA_VERSION}`));
  });
});
