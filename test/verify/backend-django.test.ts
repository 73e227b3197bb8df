/**
 * The Django reference server (the Flask server's domain layers under Django views and URL configuration, served
 * by Django's development server), evaluated end to end on SQLite in the bwrap sandbox: both suites, the verifiers,
 * the trace.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertReferencePasses, evaluateReference } from './reference-servers.js';

test('the Django reference server passes both suites and every verifier on SQLite; Django and SQLAlchemy are traced', async () => {
  const e = await evaluateReference({ name: 'django-sqlalchemy', language: 'python', orm: 'sqlalchemy', port: 8080 }, 'sqlite');
  assertReferencePasses(e, ['django', 'asgiref', 'sqlalchemy', 'pyjwt', 'werkzeug']);
  // Django's development server logs every request.
  assert.match(e.serverLog, /"GET \/api\/health-check HTTP\/1\.1" 200/);
});
