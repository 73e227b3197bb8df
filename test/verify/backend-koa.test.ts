/**
 * The Koa + Sequelize reference server (the Express server's domain layers under Koa routes), evaluated end to
 * end on PostgreSQL in the bwrap sandbox. Its SQLite variant is verified statically: serving it would compile
 * sqlite3 for minutes, which the Fastify server's test does once for the same domain layers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReferencePasses, assertVerifiersHold, evaluateReference, type ReferenceServer } from './reference-servers.js';

const KOA: ReferenceServer = { name: 'koa-sequelize', language: 'javascript', orm: 'sequelize', port: 3000 };

test('the Koa reference server passes both suites and every verifier on PostgreSQL; Koa, its router and pg are traced', async () => {
  const e = await evaluateReference(KOA, 'postgresql');
  assertReferencePasses(e, ['koa', '@koa/router', 'koa-bodyparser', 'sequelize', 'pg']);
  // As for Express: Sequelize asks for pg-hstore beside pg and loads it only for HSTORE columns, which Conduit has not.
  assert.deepEqual(e.environment!.gaps.phantom, ['pg-hstore']);
});

test('the Koa reference server on SQLite holds every verifier, on its sqlite3 dependency and its dialect', async () => {
  await assertVerifiersHold(KOA, 'sqlite', ['package.json:17', 'src/config/database.js:2']);
});
