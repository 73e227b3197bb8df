// tier: quick
/**
 * `envproof view` over a PostgreSQL store (a real server, Debian's, on a private port): a backend run with its
 * evaluation and a re-run of its final project, written through the store's interface as `run` and `run --repro`
 * write them, shown by the real command; a run written while it serves appears; the view's sessions cannot write.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runInstanceId } from '../../src/repro/final-projects.js';
import { RUN_CORPUS } from '../../src/store/repro-tables.js';
import { ResultsStore } from '../../src/store/store.js';
import type { AttemptRecord, BackendEvaluationRecord, StoredRun } from '../../src/store/types.js';
import { createDatabase, startPostgres, type Service } from '../helpers/services.js';
import { sessionCookie, startView, type RunningView } from './helpers.js';

const key = { source: 'envproof', agent: 'a', language: 'python', taskId: 'flask-sqlite', trial: 1 } as const;
const run: StoredRun = { ...key, primary: true, firstSuccess: false, finalSuccess: true, repairDepth: 1, initialErrorType: 'CodeBug', declared: ['flask'], installed: ['flask', 'werkzeug'], traced: ['flask', 'werkzeug'], claimedCount: 1, transitiveCount: 2, status: 'done' };
const models = Buffer.from('from flask import Flask\ndb.execute("SELECT * FROM users")\n');
const blob = createHash('sha256').update(models).digest('hex');
const treeHash = 'c'.repeat(64);

function attempt(n: number): AttemptRecord {
  return { attempt: n, treeHash, manifestPath: 'requirements.txt', manifest: 'flask\n', success: n === 1, errorClass: n === 1 ? null : 'code-bug', errorTail: n === 1 ? null : 'assertions failed', startedAt: null, durationMs: 1200, tokensIn: null, tokensOut: null, costUsd: null, step: n === 1 ? null : 'run' };
}

function evaluation(n: number): BackendEvaluationRecord {
  return {
    attempt: n, framework: 'flask', level: 2, constraints: { database: 'sqlite', orm: 'sqlalchemy' }, passed: n === 1, aLenient: n === 1 ? 100 : 66.7, aStrict: n === 1 ? 100 : 0,
    ...(n === 1 ? {} : { failureClass: 'logic-error' }),
    verifiers: [{ name: 'orm', rules: 'orm/1', passed: n === 1, strict: n === 1, evidence: n === 1 ? [] : [{ file: 'app/models.py', line: 2, message: 'raw SQL bypasses the ORM' }] }],
    assertions: [{ id: 'login.status', passed: true }, { id: 'login.body', passed: true }, { id: 'articles.list', passed: n === 1, ...(n === 1 ? {} : { message: 'got 500' }) }],
    startup: { started: true, afterMs: 300 }, serverLog: n === 1 ? 'ok' : 'Traceback: <b>no such table</b>',
  };
}

describe('envproof view over PostgreSQL', () => {
  let server: Service;
  let url: string;
  let view: RunningView;
  let cookie: string;
  const get = async (path: string) => {
    const r = await fetch(`${view.base}${path}`, { headers: { cookie } });
    assert.equal(r.status, 200, path);
    return r.text();
  };

  before(async () => {
    server = await startPostgres();
    url = await createDatabase(server.url, 'view');
    const store = await ResultsStore.open(url);
    try {
      await store.putTree({ hash: treeHash, entries: [{ path: 'app/models.py', kind: 'file', executable: false, blob }], blobs: new Map([[blob, models]]) });
      await store.putRun({ ...run, status: 'running' }, [attempt(0)], [evaluation(0)]);
      await store.putRun(run, [attempt(1)], [evaluation(1)]);
      await store.repro().begin({ corpus: RUN_CORPUS, instanceId: runInstanceId(key), repo: 'envproof run', commit: treeHash, command: 'python app.py', recordedAt: '2026-01-01T00:00:00.000Z', rerunAt: '2026-01-02T00:00:00.000Z', k: 4 });
      await store.repro().finish(RUN_CORPUS, runInstanceId(key), {
        kind: 'python', verdict: 'flaky', rate: 0.5, shimVerdict: 'reproducible', shimRate: 1, overheadRatio: 1.25, baselineVerdict: null, baselineRate: null,
        causes: [{ factor: 'timezone', category: 'time-date', evidence: 'fails with TZ=Pacific/Kiritimati, passes with TZ=UTC' }],
      });
    } finally {
      await store.close();
    }
    view = await startView('--store', url);
    cookie = await sessionCookie(view);
  });

  after(async () => {
    if (view && view.child.exitCode === null) await view.stop();
    await server?.stop();
  });

  test('the run page: each attempt’s evaluation, its failing assertion, the verifier’s evidence at its file and line, the server log as text', async () => {
    const page = await get(`/runs/envproof/a/python/flask-sqlite/1`);
    assert.match(page, /data-evaluation="0"[\s\S]*1 of 3 assertions failed[\s\S]*<code>articles\.list<\/code> got 500/);
    assert.match(page, new RegExp(`<a href="/trees/${treeHash}/app/models\\.py#L2">app/models\\.py:2</a> raw SQL bypasses the ORM`));
    assert.match(page, /Traceback: &lt;b&gt;no such table&lt;\/b&gt;/);
    assert.match(page, /A% strict 0, lenient 66\.7/);
    const file = await get(`/trees/${treeHash}/app/models.py`);
    assert.match(file, /<span class="line" id="L2">db\.execute\(&quot;SELECT \* FROM users&quot;\)<\/span>/);
  });

  test('the re-run of the final project: verdict, rate with its interval, the shim, the cause and its evidence', async () => {
    const page = await get(`/runs/envproof/a/python/flask-sqlite/1`);
    // 2 of 4 runs matched: Wilson 95% interval 0.5 ± 0.35.
    assert.match(page, /<dd data-verdict>flaky<\/dd>[\s\S]*0\.50 of k = 4 \(95% CI 0\.15–0\.85\)/);
    assert.match(page, /reproducible, 1 of k = 4 \(95% CI 0\.51–1\.00\); test time × 1\.25/);
    assert.match(page, /<td>timezone<\/td><td>time-date<\/td><td>fails with TZ=Pacific\/Kiritimati, passes with TZ=UTC<\/td>/);
    assert.match(await get('/repro'), /<td>envproof run<\/td>[\s\S]*flaky/);
  });

  test('the backend list and the runs table', async () => {
    assert.match(await get('/backend'), /a · flask-sqlite · python · trial 1<\/a><\/td><td>flask<\/td><td class="num">2<\/td><td><span class="yes">yes<\/span>/);
    assert.match(await get('/'), /data-filter="kind" href="[^"]*">backend \(1\)/);
  });

  test('a run written while the view serves appears', async () => {
    const { stamp } = (await (await fetch(`${view.base}/api/stamp`, { headers: { cookie } })).json()) as { stamp: string };
    const store = await ResultsStore.open(url);
    try {
      await store.putRun({ ...run, taskId: 'late-task', status: 'running' });
    } finally {
      await store.close();
    }
    const after = (await (await fetch(`${view.base}/api/stamp`, { headers: { cookie } })).json()) as { stamp: string };
    assert.notEqual(after.stamp, stamp);
    assert.match(await get('/'), /data-run="\/runs\/envproof\/a\/python\/late-task\/1"/);
    assert.equal(await view.stop(), 0, view.stderr());
  });

  test('a store opened read-only, as the view opens it, refuses writes on the server', async () => {
    const store = await ResultsStore.open(url, { readonly: true });
    try {
      await assert.rejects(store.putRun({ ...run, taskId: 'written-by-a-reader' }), /read-only transaction/);
      assert.equal(await store.run({ ...key, taskId: 'written-by-a-reader' }), undefined);
    } finally {
      await store.close();
    }
  });
});
