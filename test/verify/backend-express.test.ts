/**
 * The Express + Sequelize reference server, evaluated end to end on SQLite and on PostgreSQL in the bwrap
 * sandbox. sqlite3 is a native addon without a reachable prebuilt binary: the install compiles it (minutes), with
 * the compilers of the backend environment (docs/backend.md).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { evaluateBackend, type Evaluation } from '../../src/verify/evaluate.js';
import type { Database } from '../../src/verify/types.js';
import { COLLECTION, expectedPostmanTotal, referenceServer, SPEC } from './helpers.js';

const POSTMAN_TOTAL = expectedPostmanTotal(JSON.parse(readFileSync(COLLECTION, 'utf8')));

function evaluate(database: Database): Promise<Evaluation> {
  return evaluateBackend({
    dir: referenceServer('express-sequelize', database),
    language: 'javascript',
    constraints: { architecture: 'clean', database, orm: 'sequelize' },
    sandbox: 'bwrap',
    port: 3000,
    spec: SPEC,
    collection: COLLECTION,
    startupTimeoutSec: 60,
    timeoutSec: 1800,
    progress: () => {},
  });
}

for (const database of ['postgresql', 'sqlite'] as const) {
  test(`the Express reference server passes both suites and every verifier on ${database}`, async () => {
    const e = await evaluate(database);
    assert.equal(e.startup.started, true, `${e.startup.started ? '' : e.startup.reason}\n${e.serverLog.slice(-3000)}`);
    assert.deepEqual(e.contract?.assertions.filter((a) => !a.passed), []);
    assert.equal(e.contract?.total, 107);
    assert.equal(e.postman?.total, POSTMAN_TOTAL);
    assert.equal(e.postman?.passed, POSTMAN_TOTAL);
    assert.deepEqual(e.verifiers?.verifiers.map((v) => [v.name, v.passed, v.strict?.passed]), [['architecture', true, undefined], ['database', true, undefined], ['orm', true, true]]);
    assert.equal(e.passed, true);
    const driver = database === 'sqlite' ? 'sqlite3' : 'pg';
    assert.ok(e.environment!.layers.traced!.some((d) => d.name === driver), `${driver} was loaded while serving`);
    // Sequelize's documentation asks for pg-hstore beside pg, but loads it only for HSTORE columns, which Conduit
    // does not have: declared, installed, never loaded while serving.
    assert.deepEqual(e.environment!.gaps.phantom, database === 'postgresql' ? ['pg-hstore'] : []);
  });
}
