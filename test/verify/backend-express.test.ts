/**
 * The Express + Sequelize reference server, evaluated end to end on SQLite and on PostgreSQL. It runs on the
 * host backend: sqlite3 is a native addon that needs a compiler, which the bwrap JavaScript environment does not
 * have until it is derived with build tools (docs/backend.md). The SQLite install compiles sqlite3 (minutes).
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
    sandbox: 'host',
    port: 3000,
    spec: SPEC,
    collection: COLLECTION,
    startupTimeoutSec: 30,
    timeoutSec: 1200,
    progress: () => {},
  });
}

for (const database of ['postgresql', 'sqlite'] as const) {
  test(`the Express reference server passes both suites and every verifier on ${database}`, async () => {
    const e = await evaluate(database);
    assert.equal(e.startup.started, true, e.serverLog.slice(-3000));
    assert.deepEqual(e.contract?.assertions.filter((a) => !a.passed), []);
    assert.equal(e.contract?.total, 107);
    assert.equal(e.postman?.total, POSTMAN_TOTAL);
    assert.equal(e.postman?.passed, POSTMAN_TOTAL);
    assert.deepEqual(e.verifiers?.verifiers.map((v) => [v.name, v.passed, v.strict?.passed]), [['architecture', true, undefined], ['database', true, undefined], ['orm', true, true]]);
    assert.equal(e.passed, true);
    const driver = database === 'sqlite' ? 'sqlite3' : 'pg';
    assert.ok(e.environment!.layers.traced.some((d) => d.name === driver), `${driver} was loaded while serving`);
    // Sequelize's documentation asks for pg-hstore beside pg, but loads it only for HSTORE columns, which Conduit
    // does not have: declared, installed, never loaded while serving.
    assert.deepEqual(e.environment!.gaps.phantom, database === 'postgresql' ? ['pg-hstore'] : []);
  });
}
