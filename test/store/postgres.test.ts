// tier: quick
/**
 * The PostgreSQL results store (a real server, Debian's, on a private port) against the SQLite one: the same
 * migrations give the same tables; import, export and report give the same documents on both.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/schema.js';
import { PostgresDatabase } from '../../src/store/postgres-db.js';
import { ddlFor, type SqlDatabase } from '../../src/store/sql.js';
import { SqliteDatabase } from '../../src/store/sqlite-db.js';
import type { TreeEntry } from '../../src/store/types.js';
import { ResultsStore } from '../../src/store/store.js';
import { startFakeLlm } from '../agents/fake-llm.js';
import { runCliAsync } from '../helpers/cli.js';
import { createDatabase, startPostgres, type Service } from '../helpers/services.js';

const HANDMADE = path.join(import.meta.dirname, '..', 'report', 'fixtures', 'handmade');

async function sql<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL results store', () => {
  let server: Service;
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await server?.stop();
  });

  test('import, export and report give what they give on SQLite', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-pg-parity-')), 'store.db');
    const url = await createDatabase(server.url, 'parity');
    for (const store of [file, url]) {
      const r = await runCliAsync(['import', 'envgap-csv', HANDMADE, '--store', store]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /imported 24 runs \(16 primary\) from 6 files and 4 tasks/);
    }
    const [sqliteExport, pgExport] = await Promise.all([file, url].map((s) => runCliAsync(['export', '--store', s])));
    const docs = [sqliteExport, pgExport].map((r) => {
      assert.equal(r!.status, 0, r!.stderr);
      const { store, ...doc } = JSON.parse(r!.stdout) as { store: string; runs: unknown[] };
      return { store, doc };
    });
    assert.equal(docs[1]!.store, url);
    assert.equal(docs[1]!.doc.runs.length, 24);
    assert.deepEqual(docs[1]!.doc, docs[0]!.doc);
    const [sqliteReport, pgReport] = await Promise.all([file, url].map((s) => runCliAsync(['report', '--store', s, '--format', 'json'])));
    assert.equal(pgReport!.status, 0, pgReport!.stderr);
    assert.deepEqual(JSON.parse(pgReport!.stdout), JSON.parse(sqliteReport!.stdout));
  });

  test('a new database gets every migration once, even when workers open it together', async () => {
    const url = await createDatabase(server.url, 'fresh');
    const stores = await Promise.all([1, 2, 3].map(() => ResultsStore.open(url)));
    await Promise.all(stores.map((s) => s.close()));
    assert.deepEqual(await sql(url, 'SELECT version FROM envproof_schema'), [{ version: SCHEMA_VERSION }]);
    const tables = await sql<{ table_name: string }>(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
    assert.deepEqual(tables.map((t) => t.table_name), ['attempts', 'backend_evaluations', 'blobs', 'envproof_schema', 'repro_instances', 'repro_runs', 'runs', 'tasks', 'tree_entries']);
    // Version 3 made D1 nullable (PostgreSQL drops the constraint where SQLite rebuilds the table).
    const d1 = await sql<{ is_nullable: string }>(url, "SELECT is_nullable FROM information_schema.columns WHERE table_name = 'runs' AND column_name = 'd1'");
    assert.deepEqual(d1, [{ is_nullable: 'YES' }]);
  });

  test('a store another envproof creates between two looks at the database is taken, not refused as foreign (both databases)', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-raced-')), 'store.db');
    const url = await createDatabase(server.url, 'raced');
    for (const [spec, db] of [[file, SqliteDatabase.open(file, { readonly: false, mustExist: false })], [url, await PostgresDatabase.open(url, { reconnectSec: 5 })]] as const) {
      // Right after this envproof's first look (the version or the tables), the other creates the whole store.
      let raced = false;
      const racing = new Proxy<SqlDatabase>(db, {
        get(target, prop) {
          const value = Reflect.get(target, prop) as unknown;
          if (typeof value !== 'function') return value;
          if ((prop !== 'schemaVersion' && prop !== 'hasTables') || raced) return value.bind(target);
          return async () => {
            const seen = await value.call(target);
            raced = true;
            await (await ResultsStore.open(spec)).close();
            return seen;
          };
        },
      });
      const store = await ResultsStore.over(racing, { readonly: false, mustExist: false });
      try {
        assert.ok(raced, spec);
        assert.deepEqual(await store.allRuns(), [], `${spec}: the store the other created is read as a store`);
      } finally {
        await store.close();
      }
    }
    assert.deepEqual(await sql(url, 'SELECT version FROM envproof_schema'), [{ version: SCHEMA_VERSION }]);
  });

  test('a version 3 database (before the backend, Go and repro migrations) is brought to the current version, its runs kept', async () => {
    const url = await createDatabase(server.url, 'v3');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const m of MIGRATIONS.filter((m) => m.version <= 3)) await client.query(ddlFor('postgres', m));
      await client.query('CREATE TABLE envproof_schema (version INTEGER NOT NULL); INSERT INTO envproof_schema VALUES (3)');
      await client.query(`INSERT INTO runs (source, agent, language, task_id, trial, is_primary, first_success, final_success, d1, d2, d3, updated_at)
                          VALUES ('envproof', 'a', 'python', 'p_01', 1, 1, 1, 1, '[]', '[]', '[]', 'x')`);
      await assert.rejects(client.query(`UPDATE runs SET language = 'go'`), /runs_language_check/, 'version 3 checks the language');
    } finally {
      await client.end();
    }
    const store = await ResultsStore.open(url);
    try {
      const [run] = await store.allRuns();
      assert.deepEqual([run?.agent, run?.language, run?.taskId], ['a', 'python', 'p_01']);
      // Version 5 dropped the CHECK of four language names: a Go run is stored.
      await store.putRun({ ...run!, language: 'go' });
      assert.deepEqual((await store.allRuns()).map((r) => r.language), ['go', 'python']);
      assert.deepEqual(await store.backendEvaluations(), []);
      assert.deepEqual(await store.repro().instances(), []);
    } finally {
      await store.close();
    }
    assert.deepEqual(await sql(url, 'SELECT version FROM envproof_schema'), [{ version: SCHEMA_VERSION }]);
  });

  test('backend evaluations: written with their attempt, read back, and judged (envproof judge --store postgres://)', async () => {
    const url = await createDatabase(server.url, 'judged');
    const store = await ResultsStore.open(url);
    const key = { source: 'envproof' as const, agent: 'a', language: 'python' as const, taskId: 'flask-sqlite', trial: 1 };
    const run = { ...key, primary: true, firstSuccess: false, finalSuccess: false, repairDepth: null, initialErrorType: 'CodeBug', declared: [], installed: [], traced: [], claimedCount: 0, transitiveCount: 0, status: 'done' as const };
    const attempt = (n: number) => ({ attempt: n, treeHash: null, manifestPath: null, manifest: null, success: false, errorClass: 'code-bug', errorTail: '', startedAt: null, durationMs: null, tokensIn: null, tokensOut: null, costUsd: null });
    const evaluation = (n: number, failed: number) => ({
      attempt: n, framework: 'flask', level: 1, constraints: { database: 'sqlite' }, passed: false, failureClass: 'logic-error', aLenient: (100 * (107 - failed)) / 107, aStrict: 50.5,
      verifiers: [{ name: 'orm', rules: 'sqlalchemy', passed: false, strict: false }],
      assertions: Array.from({ length: 107 }, (_, i) => ({ id: `step-${i}.check`, passed: i >= failed, ...(i < failed ? { message: 'got 500' } : {}) })),
      postman: { passed: 3, total: 4 }, postmanPct: 75, startup: { started: true, afterMs: 10 }, serverLog: 'no such column: articles.favorites_count',
    });
    try {
      // Two attempts, each stored with its evaluation in one transaction; the final (last) one is what counts.
      await store.putRun({ ...run, status: 'running' }, [attempt(0)], [evaluation(0, 9)]);
      await store.putRun(run, [attempt(1)], [evaluation(1, 3)]);
      await assert.rejects(store.putEvaluation({ ...key, trial: 9 }, evaluation(0, 1)), /no run a flask-sqlite python #9 to attach an evaluation to/);
      const [final, ...others] = await store.backendEvaluations();
      assert.equal(others.length, 0);
      assert.deepEqual(final, { key, ...evaluation(1, 3) });
    } finally {
      await store.close();
    }

    const answer = JSON.stringify({ root_cause: 'db-orm-runtime-error', reason: 'a column is missing' });
    const llm = await startFakeLlm([{ json: { content: [{ type: 'text', text: answer }], usage: { input_tokens: 10, output_tokens: 5 } } }]);
    try {
      const r = await runCliAsync(['judge', '--store', url, '--judge', `anthropic:model=claude-judge,base=${llm.url}`]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(llm.requests.length, 1, 'only the final evaluation is judged');
      assert.match(llm.requests[0]!.body.messages[0].content, /Assertions passed: 104 of 107/);
    } finally {
      await llm.close();
    }
    const rows = await sql<{ attempt: number; root_cause: string | null; root_cause_note: string | null }>(url, 'SELECT attempt, root_cause, root_cause_note FROM backend_evaluations ORDER BY attempt');
    assert.deepEqual(rows, [{ attempt: 0, root_cause: null, root_cause_note: null }, { attempt: 1, root_cause: 'db-orm-runtime-error', root_cause_note: 'a column is missing' }]);
  });

  test('runs, attempts and project trees round-trip; writing a run again replaces it', async () => {
    const url = await createDatabase(server.url, 'roundtrip');
    const store = await ResultsStore.open(url);
    try {
      const key = { source: 'envproof' as const, agent: 'a', language: 'python' as const, taskId: 'p_01', trial: 1 };
      const run = { ...key, primary: true, firstSuccess: false, finalSuccess: true, repairDepth: 1, initialErrorType: 'CodeBug', declared: null, installed: ['six'], traced: [], claimedCount: null, transitiveCount: 1, status: 'running' as const };
      const attempt = (n: number) => ({ attempt: n, treeHash: 't1', manifestPath: 'requirements.txt', manifest: 'six\n', success: n === 1, errorClass: n === 1 ? null : 'code-bug', errorTail: null, startedAt: null, durationMs: 5, tokensIn: null, tokensOut: null, costUsd: 0.25, phasesMs: { agent: 3 }, sandbox: 'host' });
      const id = await store.putRun(run, [attempt(0)]);
      assert.equal(await store.putRun({ ...run, status: 'done' }, [attempt(1)]), id, 'the same key is the same run');
      assert.equal(await store.runStatus(key), 'done');
      const unset = { step: null, note: null, agentOutput: null, agentStderr: null, programOutput: null, prompt: null };
      assert.deepEqual(await store.attempts(key), [attempt(0), attempt(1)].map((a) => ({ ...a, ...unset })));
      assert.equal((await store.run(key))?.declared, null);
      const content = Buffer.from([0, 1, 2, 255]);
      await store.putTree({ hash: 't1', entries: [{ path: 'bin/x', kind: 'file', executable: true, blob: 'b1' }], blobs: new Map([['b1', content]]) });
      await store.putTree({ hash: 't1', entries: [{ path: 'bin/x', kind: 'file', executable: true, blob: 'b1' }], blobs: new Map([['b1', content]]) });
      const tree = await store.tree('t1');
      assert.deepEqual(tree.entries, [{ path: 'bin/x', kind: 'file', executable: true, blob: 'b1' }]);
      assert.deepEqual(tree.blob('b1'), content);
      // A run redone from scratch: its attempts replaced in one write, with the transcripts and the set-aside reason.
      const transcript = { agentOutput: 'the reply', agentStderr: 'a warning', programOutput: 'hello' };
      await store.putRun({ ...run, status: 'infrastructure-failed', statusReason: 'HTTP 503' }, [{ ...attempt(0), ...transcript }], [], { replaceAttempts: true });
      assert.deepEqual(await store.attempts(key), [{ ...attempt(0), ...unset, ...transcript }]);
      assert.equal((await store.run(key))?.statusReason, 'HTTP 503');
    } finally {
      await store.close();
    }
  });

  test('a tree larger than one multi-row insert is stored whole, on both databases; storing it again changes nothing', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-pg-tree-')), 'store.db');
    const url = await createDatabase(server.url, 'bigtree');
    // 450 files (more than two inserts' worth), 300 distinct contents, a symlink.
    const blobs = new Map(Array.from({ length: 300 }, (_, i) => [`b${i}`, Buffer.from(`content ${i}`)]));
    const entries: TreeEntry[] = Array.from({ length: 450 }, (_, i) => ({ path: `src/f${String(i).padStart(3, '0')}.js`, kind: 'file', executable: i % 7 === 0, blob: `b${i % 300}` }));
    entries.push({ path: 'src/link', kind: 'symlink', executable: false, blob: 'b1' });
    for (const spec of [file, url]) {
      const store = await ResultsStore.open(spec);
      try {
        await store.putTree({ hash: 'big', entries, blobs });
        await store.putTree({ hash: 'big', entries, blobs });
        const tree = await store.tree('big');
        assert.deepEqual(tree.entries, [...entries].sort((a, b) => (a.path < b.path ? -1 : 1)), spec);
        assert.deepEqual(tree.blob('b299'), Buffer.from('content 299'));
      } finally {
        await store.close();
      }
    }
    assert.deepEqual(await sql(url, 'SELECT CAST(COUNT(*) AS INTEGER) AS n FROM blobs'), [{ n: 300 }]);
  });

  test('a database that is not a store is refused, one without a schema only when it must exist', async () => {
    const other = await createDatabase(server.url, 'other');
    await sql(other, 'CREATE TABLE customers (id INTEGER)');
    await assert.rejects(ResultsStore.open(other), /is not an envproof results store \(schema version 0\)/);
    const empty = await createDatabase(server.url, 'empty');
    const r = await runCliAsync(['report', '--store', empty]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /envproof: postgres:\/\/postgres@127\.0\.0\.1:\d+\/empty is not an envproof results store/);
    assert.deepEqual(await sql(empty, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"), [], 'report created nothing');
  });
});
