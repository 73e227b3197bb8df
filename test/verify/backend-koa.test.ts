/**
 * The Koa + Sequelize reference server (the Express server's domain layers under Koa routes), evaluated end to
 * end on SQLite in the bwrap sandbox. sqlite3 compiles during the install (minutes), as for Express.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { evaluateBackend } from '../../src/verify/evaluate.js';
import { COLLECTION, expectedPostmanTotal, referenceServer, SPEC } from './helpers.js';

const POSTMAN_TOTAL = expectedPostmanTotal(JSON.parse(readFileSync(COLLECTION, 'utf8')));

test('the Koa reference server passes both suites and every verifier on SQLite; Koa, its router and sqlite3 are traced', async () => {
  const e = await evaluateBackend({
    dir: referenceServer('koa-sequelize', 'sqlite'),
    language: 'javascript',
    constraints: { architecture: 'clean', database: 'sqlite', orm: 'sequelize' },
    sandbox: 'bwrap',
    port: 3000,
    spec: SPEC,
    collection: COLLECTION,
    startupTimeoutSec: 60,
    timeoutSec: 1800,
    progress: () => {},
  });
  assert.equal(e.startup.started, true, `${e.startup.started ? '' : e.startup.reason}\n${e.serverLog.slice(-3000)}`);
  assert.deepEqual(e.contract?.assertions.filter((a) => !a.passed), []);
  assert.equal(e.contract?.total, 107);
  assert.equal(e.postman?.total, POSTMAN_TOTAL);
  assert.equal(e.postman?.passed, POSTMAN_TOTAL, JSON.stringify(e.postman?.assertions.filter((a) => !a.passed).slice(0, 5)));
  assert.deepEqual(e.verifiers?.verifiers.map((v) => [v.name, v.passed, v.strict?.passed]), [['architecture', true, undefined], ['database', true, undefined], ['orm', true, true]]);
  assert.equal(e.passed, true);
  const traced = e.environment!.layers.traced!.map((d) => d.name);
  for (const name of ['koa', '@koa/router', 'koa-bodyparser', 'sequelize', 'sqlite3']) assert.ok(traced.includes(name), `${name} was loaded while serving: ${traced.join(', ')}`);
  assert.deepEqual(e.environment!.gaps.phantom, []);
});
