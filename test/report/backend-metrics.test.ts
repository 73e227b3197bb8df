// tier: quick
/**
 * The backend suite's metrics on a hand-made set of runs whose values are worked out in the comments, and the
 * report writers' backend section (CSV, Markdown, HTML figures) from a real store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { computeBackendReport, passAtK, type BackendRun } from '../../src/metrics/backend.js';
import { ResultsStore } from '../../src/store/store.js';
import { runCli } from '../helpers/cli.js';

function run(agent: string, framework: string, constraints: BackendRun['constraints'], trial: number, aStrict: number, extra: Partial<BackendRun> = {}): BackendRun {
  const level = Number(Boolean(constraints.architecture)) + Number(Boolean(constraints.database)) + Number(Boolean(constraints.orm));
  const id = [framework, constraints.architecture, constraints.database, constraints.orm].filter(Boolean).join('-');
  return {
    key: { source: 'envproof', agent, language: 'python', taskId: id, trial },
    attempt: 0, framework, level, constraints, passed: aStrict === 100, aStrict, aLenient: extra.aLenient ?? aStrict,
    assertions: [], startup: { started: true }, ...(aStrict === 100 ? {} : { failureClass: 'logic-error' }), ...extra,
  };
}

test('pass@k: the unbiased estimator 1 − C(n−c, k)/C(n, k)', () => {
  assert.equal(passAtK(3, 0, 1), 0);
  assert.equal(passAtK(3, 3, 2), 1);
  assert.ok(Math.abs(passAtK(3, 1, 1) - 1 / 3) < 1e-12);
  // n = 3, c = 1, k = 2: 1 − C(2,2)/C(3,2) = 1 − 1/3.
  assert.ok(Math.abs(passAtK(3, 1, 2) - 2 / 3) < 1e-12);
  assert.ok(Math.abs(passAtK(5, 2, 3) - (1 - 1 / 10)) < 1e-12, 'C(3,3)/C(5,3) = 1/10');
});

const RUNS: BackendRun[] = [
  // flask baseline: three trials, one passes → pass@1 1/3, pass@2 2/3, A% (100 + 80 + 60)/3 = 80.
  run('a', 'flask', {}, 1, 100), run('a', 'flask', {}, 2, 80), run('a', 'flask', {}, 3, 60),
  // flask clean: A% 50 → architecture pair flask: 50 − 80 = −30.
  run('a', 'flask', { architecture: 'clean' }, 1, 50, { aLenient: 90, failureClass: 'constraint-violation' }),
  // flask sqlite: 70 → sqlite pair −10; flask sqlite + orm: 40 → orm pair 40 − 70 = −30.
  run('a', 'flask', { database: 'sqlite' }, 1, 70),
  run('a', 'flask', { database: 'sqlite', orm: 'sqlalchemy' }, 1, 40, { failureClass: 'logic-error', rootCause: 'db-orm-runtime-error' }),
  // express baseline 90, express clean 80 → second architecture pair −10.
  run('a', 'express', {}, 1, 90), run('a', 'express', { architecture: 'clean' }, 1, 80, { failureClass: 'startup-failure' }),
  // flask clean + sqlite + orm (L3): 20 → third architecture pair 20 − 40 = −20. Architecture: deltas −30, −10, −20:
  // mean −20, sample sd 10, SE 10/√3.
  run('a', 'flask', { architecture: 'clean', database: 'sqlite', orm: 'sqlalchemy' }, 1, 20, { failureClass: 'logic-error', rootCause: 'incorrect-query-logic' }),
];

test('levels, pass@k, frameworks, matched-pair effects, decay and taxonomy, worked out by hand', () => {
  const b = computeBackendReport(RUNS);
  const l = (level: number) => b.levels.find((r) => r.agent === 'a' && r.level === level)!;
  // L0: flask (80 mean of 3 runs) and express (90): run mean (100+80+60+90)/4 = 82.5; pass@1 = mean(1/3, 0) = 1/6.
  assert.equal(l(0).aStrictPct, 82.5);
  assert.ok(Math.abs(l(0).pass1Pct - 100 / 6) < 1e-9);
  assert.equal(l(0).tasks, 2);
  // L1: flask clean 50, flask sqlite 70, express clean 80 → 66.67; lenient (90 + 70 + 80)/3 = 80.
  assert.ok(Math.abs(l(1).aStrictPct - 200 / 3) < 1e-9);
  assert.equal(l(1).aLenientPct, 80);
  assert.equal(l(3).aStrictPct, 20);
  // pass@2 only flask baseline has ≥ 2 trials: 2/3.
  const k2 = b.passAtK.find((r) => r.agent === 'a' && r.k === 2)!;
  assert.equal(k2.tasks, 1);
  assert.ok(Math.abs(k2.passAtKPct - 200 / 3) < 1e-9);
  const m = (c: string) => b.marginal.find((r) => r.agent === 'a' && r.constraint === c)!;
  assert.deepEqual([m('architecture').pairs, m('architecture').deltaPct], [3, -20]);
  assert.ok(Math.abs(m('architecture').stdErr! - 10 / Math.sqrt(3)) < 1e-9);
  assert.deepEqual([m('sqlite').pairs, m('sqlite').deltaPct, m('sqlite').stdErr], [1, -10, null]);
  assert.deepEqual([m('orm').pairs, m('orm').deltaPct], [1, -30]);
  assert.deepEqual([m('postgresql').pairs, m('postgresql').deltaPct], [0, null]);
  const d = b.decay.find((r) => r.agent === 'a')!;
  assert.equal(d.dropPts, 62.5);
  assert.ok(Math.abs(d.relativePct! - (100 * 62.5) / 82.5) < 1e-9);
  // 8 failed runs: logic errors 5 (flask 80, 60, sqlite 70, sqlite+orm, L3), constraint-violation 1, startup 1, express 90 logic error → 6.
  const share = (kind: string, cat: string) => b.taxonomy.find((r) => r.agent === 'a' && r.kind === kind && r.category === cat)!;
  assert.deepEqual([share('coarse', 'logic-error').count, share('coarse', 'logic-error').sharePct], [6, 75]);
  assert.equal(share('coarse', 'startup-failure').sharePct, 12.5);
  assert.deepEqual([share('root-cause', 'incorrect-query-logic').count, share('root-cause', 'incorrect-query-logic').sharePct], [1, 50]);
  const fw = b.frameworks.find((r) => r.agent === 'all' && r.framework === 'express')!;
  assert.equal(fw.aStrictPct, 85);
});

test('envproof report: the backend section in CSV and HTML, from the store', async () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-backend-report-')), 'store.db');
  const store = await ResultsStore.open(file);
  for (const r of RUNS) {
    const key = r.key;
    await store.putRun({ ...key, primary: key.trial === 1, firstSuccess: r.passed, finalSuccess: r.passed, repairDepth: r.passed ? 0 : null, initialErrorType: null, declared: [], installed: [], traced: [], claimedCount: 0, transitiveCount: 0, status: 'done' }, [
      { attempt: 0, treeHash: null, manifestPath: null, manifest: null, success: r.passed, errorClass: null, errorTail: null, startedAt: null, durationMs: null, tokensIn: null, tokensOut: null, costUsd: null },
    ]);
    const { key: _key, ...record } = r;
    await store.putEvaluation(key, record);
  }
  await store.close();
  const out = mkdtempSync(path.join(os.tmpdir(), 'envproof-backend-csv-'));
  const csv = runCli(['report', '--store', file, '--format', 'csv', '--out', out]);
  assert.equal(csv.status, 0, csv.stderr);
  const decay = readFileSync(path.join(out, 'backend_decay.csv'), 'utf8');
  assert.match(decay, /^agent,l0_pct,l3_pct,drop_pts,relative_pct\na,82\.5,20\.0,62\.5,75\.8\n/);
  const html = runCli(['report', '--store', file, '--format', 'html']);
  assert.equal(html.status, 0, html.stderr);
  assert.match(html.stdout, /<section id="backend">/);
  for (const fig of ['figB1', 'figB2']) assert.match(html.stdout, new RegExp(`<figure data-figure="${fig}"><h3[^>]*>[^<]+</h3><div class="chart"><svg`));
});

test('a version 2 store is migrated to the current version: the backend_evaluations table is added, the runs kept', async () => {
  const { default: Database } = await import('better-sqlite3');
  const { MIGRATE_V1_TO_V2, SCHEMA_V1, SCHEMA_VERSION } = await import('../../src/store/schema.js');
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-v2-')), 'store.db');
  const db = new Database(file);
  db.exec(SCHEMA_V1);
  db.exec(MIGRATE_V1_TO_V2);
  db.pragma('user_version = 2');
  db.prepare(`INSERT INTO runs (source, agent, language, task_id, trial, is_primary, first_success, final_success, d1, d2, d3, updated_at) VALUES ('envproof', 'a', 'python', 'p_01', 1, 1, 1, 1, '[]', '[]', '[]', 'x')`).run();
  db.close();
  const store = await ResultsStore.open(file);
  assert.equal((await store.allRuns()).length, 1);
  assert.deepEqual(await store.backendEvaluations(), []);
  await store.close();
  const after = new Database(file, { readonly: true });
  assert.equal(after.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  assert.ok(after.prepare("SELECT name FROM sqlite_master WHERE name = 'backend_evaluations'").get());
  after.close();
});
