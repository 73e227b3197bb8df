/**
 * The FastAPI + SQLAlchemy reference server (the Flask server's domain layers under FastAPI routes, served by
 * uvicorn), evaluated end to end on SQLite in the bwrap sandbox: both suites, the verifiers, the trace.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReferencePasses, evaluateReference } from './reference-servers.js';

test('the FastAPI reference server passes both suites and every verifier on SQLite; FastAPI and uvicorn are traced', async () => {
  const e = await evaluateReference({ name: 'fastapi-sqlalchemy', language: 'python', orm: 'sqlalchemy', port: 8080 }, 'sqlite');
  assertReferencePasses(e, ['fastapi', 'starlette', 'uvicorn', 'sqlalchemy', 'pyjwt']);
  assert.match(e.serverLog, /"GET \/api\/health-check HTTP\/1\.1" 200/);
});
