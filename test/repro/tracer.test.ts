import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadedDifferences } from '../../src/repro/repro.js';
import { assertCause, reproFixture } from './helpers.js';

test('loaded sets compared: changed versions, packages only one run loaded', () => {
  assert.deepEqual(loadedDifferences(['packaging 21.3', 'pytest 7.1.2', 'tomli 2.0.1'], ['colorama', 'packaging 25.0', 'pytest 7.1.2']), [
    'colorama loaded too',
    'packaging 21.3 → 25.0',
    'tomli 2.0.1 no longer loaded',
  ]);
  assert.deepEqual(loadedDifferences(['pytest 7.1.2'], ['pytest 7.1.2']), []);
});

test('--tracer: every run\'s D3 recorded; the drifted run loaded a newer packaging, and the cause\'s evidence says so', async () => {
  // As of 2022-06-01 the newest packaging on PyPI was 21.3 (22.0 came out in December 2022).
  const r = await reproFixture('py-drift', 'pytest -q', ['dependency-drift'], { asOf: new Date('2022-06-01T00:00:00Z'), tracer: 'auto' });
  const [reference, rerun] = r.runs;
  assert.equal(r.tracer, 'auto');
  assert.ok(reference!.traced?.loaded.includes('packaging 21.3'), JSON.stringify(reference!.traced));
  assert.ok(reference!.traced!.loaded.includes('pytest 7.1.2'));
  const live = rerun!.traced?.loaded.find((p) => p.startsWith('packaging '));
  assert.ok(live && Number(live.split(' ')[1]!.split('.')[0]) >= 22, JSON.stringify(rerun!.traced));
  assert.ok(rerun!.loadedDifferences?.includes(`packaging 21.3 → ${live.split(' ')[1]}`), JSON.stringify(rerun!.loadedDifferences));
  // The control run resolved as of the reference date again: the same packaging as the reference run.
  const control = r.attributionRuns!.find((x) => x.role === 'control')!;
  assert.ok(!control.loadedDifferences!.some((d) => d.startsWith('packaging ')), JSON.stringify(control.loadedDifferences));
  assertCause(r, 'dependency-drift', 'dependency-drift', /loaded other than the reference run: .*packaging 21\.3 → \d+/);
});
