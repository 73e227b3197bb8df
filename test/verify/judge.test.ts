// tier: quick
/**
 * The failure judge against a local server speaking the real chat-completions and Messages protocols: the
 * prompt it is given, temperature 0, its answers parsed and stored, and Cohen's κ against manual labels.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { cohensKappa } from '../../src/metrics/kappa.js';
import { ResultsStore } from '../../src/store/store.js';
import { completion, startFakeLlm } from '../agents/fake-llm.js';
import { runCliAsync } from '../helpers/cli.js';
import { FIXTURES } from './helpers.js';

const answer = (cause: string) => JSON.stringify({ root_cause: cause, reason: `because of ${cause}` });

test("Cohen's kappa: perfect, chance-level and a hand-computed case", () => {
  assert.equal(cohensKappa([['a', 'a'], ['b', 'b']]).kappa, 1);
  // Both raters say "a" half the time, independently: observed 0.5, expected 0.5.
  assert.equal(cohensKappa([['a', 'a'], ['a', 'b'], ['b', 'a'], ['b', 'b']]).kappa, 0);
  assert.equal(cohensKappa([]).kappa, null);
});

test('judge --agreement: six labelled failures, one disagreement, kappa 7/9', async () => {
  // Labels: auth, auth, query, query, orm, business. Judged: auth, auth, query, business, orm, business.
  // Observed 5/6; chance (2·2 + 2·1 + 1·1 + 1·2) / 36 = 1/4; kappa (5/6 − 1/4) / (3/4) = 7/9.
  const judged = ['auth-misconfiguration', 'auth-misconfiguration', 'incorrect-query-logic', 'business-logic-defect', 'db-orm-runtime-error', 'business-logic-defect'];
  const llm = await startFakeLlm(judged.map((c, i) => ({ json: completion(i === 2 ? `Here you go:\n\`\`\`json\n${answer(c)}\n\`\`\`` : answer(c), 500, 20) })));
  try {
    const r = await runCliAsync(['judge', '--agreement', path.join(FIXTURES, 'judge-labels.json'), '--judge', `openai:model=judge-model,base=${llm.url}/v1`, '--explain', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.n, 6);
    assert.ok(Math.abs(report.kappa - 7 / 9) < 1e-12, String(report.kappa));
    assert.deepEqual(report.items.filter((i: { label: string; judged: string }) => i.label !== i.judged).map((i: { id: string }) => i.id), ['tag-filter']);
    const first = llm.requests[0]!.body;
    assert.equal(first.temperature, 0);
    assert.equal(first.model, 'judge-model');
    assert.match(first.messages[0].content, /Choose exactly one root cause:\n- incorrect-query-logic: /);
    assert.match(first.messages[1].content, /- current-user\.status: expected 200, got 401/);
    assert.match(first.messages[1].content, /jwt malformed/);
    assert.match(r.stderr, /--- prompt\nFramework: express\./, '--explain shows the prompt');
  } finally {
    await llm.close();
  }
});

test('judge --store: the logic errors of backend runs get a root cause through the Messages API', async () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'envproof-judge-')), 'store.db');
  const store = await ResultsStore.open(file);
  const key = { source: 'envproof' as const, agent: 'a', language: 'python' as const, taskId: 'flask-sqlite', trial: 1 };
  const run = { ...key, primary: true, firstSuccess: false, finalSuccess: false, repairDepth: null, initialErrorType: 'CodeBug', declared: [], installed: [], traced: [], claimedCount: 0, transitiveCount: 0, status: 'done' as const };
  const attempt = { attempt: 0, treeHash: null, manifestPath: null, manifest: null, success: false, errorClass: 'code-bug', errorTail: '', startedAt: null, durationMs: null, tokensIn: null, tokensOut: null, costUsd: null };
  await store.putRun(run, [attempt]);
  const record = (failureClass: string, failed: number) => ({
    attempt: 0, framework: 'flask', level: 1, constraints: { database: 'sqlite' }, passed: false, failureClass, aLenient: 0, aStrict: 0,
    assertions: Array.from({ length: 107 }, (_, i) => ({ id: `step-${i}.check`, passed: i >= failed, ...(i < failed ? { message: 'got 500' } : {}) })),
    startup: { started: true, afterMs: 10 }, serverLog: 'sqlite3.OperationalError: no such column: articles.favorites_count',
  });
  await store.putEvaluation(key, record('logic-error', 3));
  await store.putRun({ ...run, trial: 2 }, [attempt]);
  await store.putEvaluation({ ...key, trial: 2 }, record('startup-failure', 107));
  await store.close();

  const llm = await startFakeLlm([{ json: { content: [{ type: 'text', text: answer('db-orm-runtime-error') }], usage: { input_tokens: 10, output_tokens: 5 } } }]);
  try {
    const r = await runCliAsync(['judge', '--store', file, '--judge', `anthropic:model=claude-judge,base=${llm.url}`]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(llm.requests.length, 1, 'only the logic error is judged');
    assert.equal(llm.requests[0]!.url, '/v1/messages');
    assert.equal(llm.requests[0]!.body.temperature, 0);
    assert.match(llm.requests[0]!.body.messages[0].content, /Assertions passed: 104 of 107/);
    const after = await ResultsStore.open(file);
    const [first, second] = await after.backendEvaluations();
    await after.close();
    assert.equal(first!.rootCause, 'db-orm-runtime-error');
    assert.equal(first!.rootCauseNote, 'because of db-orm-runtime-error');
    assert.equal(second!.rootCause, undefined);
  } finally {
    await llm.close();
  }
});
