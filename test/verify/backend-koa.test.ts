/**
 * The Koa + Sequelize reference server (the Express server's domain layers under Koa routes), evaluated end to
 * end on PostgreSQL in the bwrap sandbox (the Express server covers SQLite, whose sqlite3 compiles for minutes).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReferencePasses, evaluateReference } from './reference-servers.js';

test('the Koa reference server passes both suites and every verifier on PostgreSQL; Koa, its router and pg are traced', async () => {
  const e = await evaluateReference({ name: 'koa-sequelize', language: 'javascript', orm: 'sequelize', port: 3000 }, 'postgresql');
  assertReferencePasses(e, ['koa', '@koa/router', 'koa-bodyparser', 'sequelize', 'pg']);
  // As for Express: Sequelize asks for pg-hstore beside pg and loads it only for HSTORE columns, which Conduit has not.
  assert.deepEqual(e.environment!.gaps.phantom, ['pg-hstore']);
});
