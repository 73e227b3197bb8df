/**
 * The FastAPI + SQLAlchemy reference server (the Flask server's domain layers under FastAPI routes, served by
 * uvicorn), evaluated end to end on SQLite in the bwrap sandbox: both suites, the verifiers, the trace.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { evaluateBackend } from '../../src/verify/evaluate.js';
import { COLLECTION, expectedPostmanTotal, referenceServer, SPEC } from './helpers.js';

const POSTMAN_TOTAL = expectedPostmanTotal(JSON.parse(readFileSync(COLLECTION, 'utf8')));

test('the FastAPI reference server passes both suites and every verifier on SQLite; FastAPI and uvicorn are traced', async () => {
  const e = await evaluateBackend({
    dir: referenceServer('fastapi-sqlalchemy', 'sqlite'),
    language: 'python',
    constraints: { architecture: 'clean', database: 'sqlite', orm: 'sqlalchemy' },
    sandbox: 'bwrap',
    port: 8080,
    spec: SPEC,
    collection: COLLECTION,
    startupTimeoutSec: 60,
    timeoutSec: 600,
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
  for (const name of ['fastapi', 'starlette', 'uvicorn', 'sqlalchemy', 'pyjwt']) assert.ok(traced.includes(name), `${name} was loaded while serving: ${traced.join(', ')}`);
  assert.match(e.serverLog, /"GET \/api\/health-check HTTP\/1\.1" 200/);
});
