import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { runInstanceId } from '../../src/repro/final-projects.js';
import type { RunRecord } from '../../src/repro/types.js';
import { RUN_CORPUS } from '../../src/store/repro-tables.js';
import { ResultsStore } from '../../src/store/store.js';
import { runCli } from '../helpers/cli.js';
import { SUITE, tempStore } from '../protocol/helpers.js';
import { FIXTURES } from './helpers.js';

const AGENT = path.join(FIXTURES, 'run-agent.yaml');
const args = (store: string) => [
  'run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--quiet', '--json',
  '--agent', `a@scripted:${AGENT}`, '--agent', `b@scripted:${AGENT}`, '--tasks', 'p_01-p_03', '--languages', 'python', '--repairs', '0',
  '--repro', '1', '--repro-vary', 'timezone', '--repro-attribute', '--repro-trials', '1',
];

async function withStore<T>(file: string, f: (store: ResultsStore) => Promise<T>): Promise<T> {
  const store = await ResultsStore.open(file);
  try {
    return await f(store);
  } finally {
    await store.close();
  }
}

const key = (agent: string, taskId: string) => runInstanceId({ source: 'envproof', agent, language: 'python', taskId, trial: 1 });

test('run --repro: each successful final project re-run fresh, its reproducibility stored, reported per agent and language, resumed', async () => {
  const store = tempStore();
  const first = runCli(args(store));
  assert.equal(first.status, 0, first.stderr);
  const summary = JSON.parse(first.stdout);
  assert.deepEqual([summary.counts.succeeded, summary.counts.failed], [4, 2]);
  // p_03 failed for both agents: no final project to re-run.
  assert.deepEqual(summary.repro, { reproduced: 4, alreadyDone: 0, notSuccessful: 2, errors: [] });

  await withStore(store, async (s) => {
    const rows = await s.repro().instances(RUN_CORPUS);
    const evidence = JSON.stringify(rows.map((r) => r.causes?.map((c) => c.evidence)));
    assert.deepEqual(rows.map((r) => [r.instanceId, r.verdict, r.rate, r.causes?.map((c) => c.factor)]), [
      [key('a', 'p_01'), 'reproducible', 1, []],
      [key('a', 'p_02'), 'broken', 0, ['timezone']],
      [key('b', 'p_01'), 'reproducible', 1, []],
      [key('b', 'p_02'), 'broken', 0, ['timezone']],
    ], `the causes' evidence: ${evidence}`);
    // The final tree is the one the run recorded; the command is the entry point the audit ran.
    const a02 = rows.find((r) => r.instanceId === key('a', 'p_02'))!;
    assert.equal(a02.commit, (await s.attempts({ source: 'envproof', agent: 'a', language: 'python', taskId: 'p_02', trial: 1 })).at(-1)!.treeHash);
    assert.match(a02.command, /main\.py/);
    // One re-run, then the control and the timezone run of the attribution.
    assert.equal(await s.repro().runCount(RUN_CORPUS, key('a', 'p_02')), 3);
    assert.equal(await s.repro().runCount(RUN_CORPUS, key('a', 'p_01')), 1);
    // Patch corpora's figures never count the runs' instances.
    assert.deepEqual(await s.repro().instances(), []);
  });

  const md = runCli(['report', '--store', store]);
  assert.equal(md.status, 0, md.stderr);
  assert.match(md.stdout, /## Reproducibility of successful final projects/);
  assert.match(md.stdout, /\| a \| Python \| 2 \| 1 \| 50\.0 \| 0\.0 \| 50\.0 \| 0\.5 \| implicit-environment 1 \|/);
  assert.match(md.stdout, /\| all agents \| Python \| 4 \| 1 \| 50\.0 \| 0\.0 \| 50\.0 \| 0\.5 \| implicit-environment 2 \|/);
  const json = JSON.parse(runCli(['report', '--store', store, '--format', 'json']).stdout);
  const b = json.reproducibility.rows.find((r: { agent: string }) => r.agent === 'b');
  assert.deepEqual([b.projects, b.verdicts], [2, { reproducible: 1, flaky: 0, broken: 1 }]);

  // Run again: the protocol's runs and the re-runs are done; nothing is run twice.
  const again = runCli(args(store));
  assert.equal(again.status, 0, again.stderr);
  assert.deepEqual(JSON.parse(again.stdout).repro, { reproduced: 0, alreadyDone: 4, notSuccessful: 2, errors: [] });

  // What a kill during a re-run leaves: the instance running, with part of its runs. It starts over.
  await withStore(store, async (s) => {
    const t = s.repro();
    await t.begin({ corpus: RUN_CORPUS, instanceId: key('b', 'p_02'), repo: 'envproof run', commit: 'x', command: '(the entry point)', recordedAt: new Date().toISOString(), rerunAt: new Date().toISOString(), k: 1 });
    const partial: RunRecord = { role: 'rerun', variation: [], outcome: { status: 'fail', exitCode: 1 }, matches: false, differences: ['status pass → fail'], durationMs: 1, installMs: 1 };
    await t.addRun(RUN_CORPUS, key('b', 'p_02'), 'patched', partial);
  });
  const resumed = runCli(args(store));
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.deepEqual(JSON.parse(resumed.stdout).repro, { reproduced: 1, alreadyDone: 3, notSuccessful: 2, errors: [] });
  await withStore(store, async (s) => {
    const row = (await s.repro().instance(RUN_CORPUS, key('b', 'p_02')))!;
    assert.deepEqual([row.status, row.verdict], ['done', 'broken']);
    assert.equal(await s.repro().runCount(RUN_CORPUS, key('b', 'p_02')), 3);
  });
});

test('run --repro: bad values are clear errors, exit 2, before anything runs', async () => {
  const store = tempStore();
  for (const [extra, message] of [
    [['--repro', '0'], /--repro must be an integer ≥ 1, not "0"/],
    [['--repro', '1', '--repro-vary', 'timezone,moon'], /--repro-vary: unknown factor "moon"/],
  ] as [string[], RegExp][]) {
    const r = runCli(['run', '--suite', SUITE, '--store', store, '--sandbox', 'host', '--quiet', '--agent', `scripted:${AGENT}`, '--languages', 'python', ...extra]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
  }
  await withStore(store, async (s) => assert.deepEqual(await s.allRuns(), []));
});
