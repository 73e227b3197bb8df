// tier: quick
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { storedInstances } from '../../src/repro/corpus-report.js';
import { corpusFigures, renderCorpusMarkdown, renderCorpusText } from '../../src/repro/corpus-stats.js';
import type { Cause, FactorSetting, RunRecord, Verdict } from '../../src/repro/types.js';
import { ResultsStore } from '../../src/store/store.js';

const GO_WHY = "Go's minimal version selection builds with the versions go.mod requires";
const drift = (mode: FactorSetting['mode'], applied = true, note?: string): FactorSetting => ({ factor: 'dependency-drift', mode, value: mode, applied, ...(note ? { note } : {}) });
const run = (role: RunRecord['role'], variation: FactorSetting[]): RunRecord => ({ role, variation, outcome: { status: 'pass', exitCode: 0 }, matches: true, differences: [], durationMs: 1, installMs: 1 });
const cause = (factor: Cause['factor'], category: Cause['category']): Cause => ({ factor, category, evidence: 'e' });

interface Instance {
  id: string;
  kind: string;
  verdicts: [Verdict, number, Verdict, number, Verdict, number];
  causes: Cause[];
  runs: RunRecord[];
}

// Four instances re-run with k = 5, made in a real store; what each one's drift was tested by is in its runs.
const INSTANCES: Instance[] = [
  { id: 'py-tz', kind: 'python', verdicts: ['broken', 0, 'reproducible', 1, 'reproducible', 1], causes: [cause('timezone', 'implicit-environment')], runs: [run('rerun', [drift('varied')]), run('shim', [drift('pinned')])] },
  { id: 'go-race', kind: 'go', verdicts: ['flaky', 0.6, 'flaky', 0.8, 'flaky', 0.6], causes: [cause('nondeterministic', 'other')], runs: [run('rerun', [drift('varied')]), run('shim', [drift('pinned', false, GO_WHY)])] },
  { id: 'js-clean', kind: 'javascript', verdicts: ['reproducible', 1, 'reproducible', 1, 'reproducible', 1], causes: [], runs: [run('rerun', []), run('shim', [drift('pinned')])] },
  { id: 'py-drift', kind: 'python', verdicts: ['broken', 0, 'reproducible', 1, 'reproducible', 1], causes: [cause('dependency-drift', 'dependency-drift')], runs: [run('rerun', [drift('varied')]), run('control', [drift('pinned')])] },
];

async function storeWith(instances: readonly Instance[]): Promise<ResultsStore> {
  const store = await ResultsStore.open(path.join(mkdtempSync(path.join(tmpdir(), 'corpus-report-')), 'r.db'));
  const t = store.repro();
  for (const i of instances) {
    await t.begin({ corpus: '/c.jsonl', instanceId: i.id, repo: '/r', commit: 'c', command: 'test', recordedAt: '2026-01-01T00:00:00Z', rerunAt: '2026-03-01T00:00:00Z', k: 5 });
    for (const r of i.runs) await t.addRun('/c.jsonl', i.id, 'patched', r);
    // The baseline's runs never vary drift: only the patched arm is asked.
    await t.addRun('/c.jsonl', i.id, 'baseline', run('rerun', [drift('varied')]));
    const [verdict, rate, shimVerdict, shimRate, baselineVerdict, baselineRate] = i.verdicts;
    await t.finish('/c.jsonl', i.id, { kind: i.kind, verdict, rate, shimVerdict, shimRate, overheadRatio: 1.1, baselineVerdict, baselineRate, causes: i.causes });
  }
  return store;
}

test('the corpus report: a row per instance with its intervals; drift counted only where it was tested', async () => {
  const store = await storeWith(INSTANCES);
  const f = corpusFigures(await storedInstances(store));
  await store.close();
  const byId = Object.fromEntries(f.rows.map((r) => [r.id, r]));
  // Wilson 95% by hand, z = 1.96, n = 5: 3/5 → centre (0.6 + z²/10)/(1 + z²/5) = 0.5565, half 0.3258; 4/5 → 0.6697 ± 0.2941;
  // 0/5 → [0, 2·0.2172]; 5/5 its mirror.
  const near = (got: [number, number], want: [number, number]) => assert.ok(Math.abs(got[0] - want[0]) < 5e-4 && Math.abs(got[1] - want[1]) < 5e-4, `${got} vs ${want}`);
  near(byId['go-race']!.patched.interval, [0.2307, 0.8824]);
  near(byId['go-race']!.shim!.interval, [0.3755, 0.9638]);
  near(byId['py-tz']!.patched.interval, [0, 0.4345]);
  near(byId['py-tz']!.shim!.interval, [0.5655, 1]);
  assert.deepEqual(byId['go-race']!.drift, { tested: false, why: 'go: no dated resolution', detail: GO_WHY, drifted: false });
  assert.deepEqual(byId['js-clean']!.drift, { tested: false, why: 'not varied', drifted: false });
  assert.deepEqual([byId['py-tz']!.drift, byId['py-drift']!.drift], [{ tested: true, drifted: false }, { tested: true, drifted: true }]);
  assert.deepEqual([f.drift.n, f.drift.drifted, f.drift.notTested], [2, 1, [{ why: 'go: no dated resolution', count: 1 }, { why: 'not varied', count: 1 }]]);

  const md = renderCorpusMarkdown(f);
  assert.match(md, /Dependency drift: 1 of 2 tested drifted; 1 not tested \(go: no dated resolution\); 1 not tested \(not varied\)/);
  assert.match(md, /\| go-race \| go \| flaky 0\.60 \[0\.23, 0\.88\] of 5 \| flaky 0\.80 \[0\.38, 0\.96\] of 5 \| flaky 0\.60 \[0\.23, 0\.88\] of 5 \| nondeterministic \| not tested \(go: no dated resolution\) \|/);
  assert.match(md, /\| js-clean \| javascript \| reproducible 1\.00 \[0\.57, 1\.00\] of 5 \|.*\| none \| not tested \(not varied\) \|/);
  const text = renderCorpusText(f);
  assert.match(text, /^py-drift +python +broken 0\.00 \[0\.00, 0\.43\] of 5 +reproducible 1\.00 \[0\.57, 1\.00\] of 5 +reproducible .* of 5 +dependency-drift +drifted$/m);
  assert.match(text, /^verdicts: 1 reproducible, 1 flaky, 2 broken; with the shim: 3 reproducible, 1 flaky, 0 broken$/m);
  assert.match(text, /^causes: 1 implicit-environment, 1 dependency-drift, 1 other$/m);
});

test('the corpus report: no instance with drift tested gives no half-life and says so', async () => {
  const store = await storeWith([INSTANCES[1]!, INSTANCES[2]!]);
  const f = corpusFigures(await storedInstances(store));
  await store.close();
  assert.deepEqual([f.drift.n, f.drift.days], [0, null]);
  assert.match(renderCorpusText(f), /^Dependency drift: 0 of 0 tested drifted; 1 not tested \(go: no dated resolution\); 1 not tested \(not varied\); no half-life/m);
});
