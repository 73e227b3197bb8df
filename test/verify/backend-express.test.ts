/**
 * The Express + Sequelize reference server, evaluated end to end on SQLite and on PostgreSQL in the bwrap
 * sandbox. sqlite3 is a native addon without a reachable prebuilt binary: the install compiles it (minutes), with
 * the compilers of the backend environment (docs/backend.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReferencePasses, evaluateReference } from './reference-servers.js';

for (const database of ['postgresql', 'sqlite'] as const) {
  test(`the Express reference server passes both suites and every verifier on ${database}`, async () => {
    const e = await evaluateReference({ name: 'express-sequelize', language: 'javascript', orm: 'sequelize', port: 3000 }, database);
    assertReferencePasses(e, [database === 'sqlite' ? 'sqlite3' : 'pg']);
    // Sequelize's documentation asks for pg-hstore beside pg, but loads it only for HSTORE columns, which Conduit
    // does not have: declared, installed, never loaded while serving.
    assert.deepEqual(e.environment!.gaps.phantom, database === 'postgresql' ? ['pg-hstore'] : []);
  });
}
