/**
 * `envproof run --suite backend`: a scripted agent writes the Flask reference server with a wrong status, then
 * fixes it in the repair round. Each attempt is evaluated in the sandbox and stored; the report's backend
 * section is computed from the final evaluation.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { runCliAsync } from '../helpers/cli.js';
import { readStore, tempStore, type StoreEntry } from '../protocol/helpers.js';
import { referenceServer, SPEC } from './helpers.js';

function treeFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const f = path.join(d, n);
      if (statSync(f).isDirectory()) walk(f);
      else out[path.relative(dir, f)] = readFileSync(f, 'utf8');
    }
  };
  walk(dir);
  return out;
}

test('run --suite backend: a failed attempt, its repair, both evaluations stored, the report from the last', async () => {
  const fixed = treeFiles(referenceServer('flask-sqlalchemy', 'sqlite'));
  const broken = treeFiles(referenceServer('flask-sqlalchemy', 'sqlite', [{ file: 'conduit/routes/users.py', from: 'users.register(body_of("user"))}), 201', to: 'users.register(body_of("user"))}), 200' }]));
  const store = tempStore();
  const script = path.join(path.dirname(store), 'agent.json');
  writeFileSync(script, JSON.stringify({ 'flask-sqlite/python': [{ files: broken }, { files: { 'conduit/routes/users.py': fixed['conduit/routes/users.py'] } }] }));
  const r = await runCliAsync(['run', '--suite', 'backend', '--spec', SPEC, '--tasks', 'flask-sqlite', '--languages', 'python', '--repairs', '1', '--agent', `scripted:${script}`, '--sandbox', 'bwrap', '--store', store, '--quiet']);
  assert.equal(r.status, 0, r.stderr);
  const [{ run, attempts }] = (await readStore(store)) as [StoreEntry];
  assert.equal(run.taskId, 'flask-sqlite');
  assert.deepEqual([run.firstSuccess, run.finalSuccess, run.repairDepth], [false, true, 1]);
  assert.deepEqual(attempts.map((a) => [a.attempt, a.success, a.errorClass]), [[0, false, 'code-bug'], [1, true, null]]);
  assert.match(attempts[0]!.errorTail!, /logic-error: .*\n.*2 of 107 assertions failed:\n- register\.status: status 201 — expected 201, got 200/);
  // D1/D2/D3 of the run are the server's, traced while it served.
  assert.equal(run.declared?.length, 11);
  assert.deepEqual(run.traced, run.declared);

  const db = new Database(store, { readonly: true });
  const rows = db.prepare('SELECT attempt, framework, level, passed, failure_class, a_lenient, a_strict FROM backend_evaluations ORDER BY attempt').all();
  db.close();
  assert.deepEqual(rows, [
    { attempt: 0, framework: 'flask', level: 1, passed: 0, failure_class: 'logic-error', a_lenient: (100 * 105) / 107, a_strict: (100 * 105) / 107 },
    { attempt: 1, framework: 'flask', level: 1, passed: 1, failure_class: null, a_lenient: 100, a_strict: 100 },
  ]);
  const report = await runCliAsync(['report', '--store', store, '--format', 'json']);
  assert.equal(report.status, 0, report.stderr);
  const backend = JSON.parse(report.stdout).backend;
  assert.deepEqual(backend.levels.find((l: { agent: string }) => l.agent === 'scripted'), { agent: 'scripted', level: 1, runs: 1, tasks: 1, aStrictPct: 100, aLenientPct: 100, pass1Pct: 100 });
  assert.equal(JSON.parse(report.stdout).counts.totalRuns, 0, 'backend runs stay out of the environment-gap tables');
});
