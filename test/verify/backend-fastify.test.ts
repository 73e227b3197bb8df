/**
 * The Fastify + Sequelize reference server (the Express server's domain layers under Fastify plug-ins), evaluated
 * end to end on SQLite in the bwrap sandbox. sqlite3 is a native addon without a reachable prebuilt binary: the
 * install compiles it (minutes), with the compilers of the backend environment (docs/backend.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReferencePasses, evaluateReference } from './reference-servers.js';

test('the Fastify reference server passes both suites and every verifier on SQLite; Fastify, its plug-in wrapper and sqlite3 are traced', async () => {
  const e = await evaluateReference({ name: 'fastify-sequelize', language: 'javascript', orm: 'sequelize', port: 3000 }, 'sqlite');
  assertReferencePasses(e, ['fastify', 'fastify-plugin', 'sequelize', 'sqlite3']);
  // Every declared package is loaded while serving: nothing phantom.
  assert.deepEqual(e.environment!.gaps.phantom, []);
});
