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
import { SCHEMA_VERSION } from '../../src/store/schema.js';
import { ResultsStore } from '../../src/store/store.js';
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
    assert.deepEqual(tables.map((t) => t.table_name), ['attempts', 'blobs', 'envproof_schema', 'runs', 'tasks', 'tree_entries']);
    // Version 3 made D1 nullable (PostgreSQL drops the constraint where SQLite rebuilds the table).
    const d1 = await sql<{ is_nullable: string }>(url, "SELECT is_nullable FROM information_schema.columns WHERE table_name = 'runs' AND column_name = 'd1'");
    assert.deepEqual(d1, [{ is_nullable: 'YES' }]);
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
      assert.deepEqual(await store.attempts(key), [attempt(0), attempt(1)].map((a) => ({ ...a, step: null, note: null })));
      assert.equal((await store.run(key))?.declared, null);
      const content = Buffer.from([0, 1, 2, 255]);
      await store.putTree({ hash: 't1', entries: [{ path: 'bin/x', kind: 'file', executable: true, blob: 'b1' }], blobs: new Map([['b1', content]]) });
      await store.putTree({ hash: 't1', entries: [{ path: 'bin/x', kind: 'file', executable: true, blob: 'b1' }], blobs: new Map([['b1', content]]) });
      const tree = await store.tree('t1');
      assert.deepEqual(tree.entries, [{ path: 'bin/x', kind: 'file', executable: true, blob: 'b1' }]);
      assert.deepEqual(tree.blob('b1'), content);
      await store.deleteAttempts(key);
      assert.deepEqual(await store.attempts(key), []);
    } finally {
      await store.close();
    }
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
