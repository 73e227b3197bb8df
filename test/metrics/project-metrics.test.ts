// tier: quick
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gapSets, projectMetrics } from '../../src/metrics/project.js';

const s = (...xs: string[]) => new Set(xs);

test('the paper worked example: pandas alone inflates to six installed packages', () => {
  const d1 = s('pandas');
  const d2 = s('pandas', 'numpy', 'python-dateutil', 'pytz', 'tzdata', 'six');
  const d3 = s('pandas', 'numpy', 'python-dateutil', 'six', 'pytz');
  const m = projectMetrics(d1, d2, d3);
  assert.equal(m.inflation, 6);
  assert.equal(m.phantomRate, 0);
  assert.equal(m.hiddenRate, 4 / 5);
  assert.equal(m.bloatRate, 1 / 6);
  assert.equal(m.precision, 1);
  assert.equal(m.recall, 1 / 5);
  assert.ok(Math.abs(m.f1! - (2 * 1 * 0.2) / 1.2) < 1e-12);
  assert.deepEqual(gapSets(d1, d2, d3), {
    phantom: [],
    hidden: ['numpy', 'python-dateutil', 'pytz', 'six'],
    bloat: ['tzdata'],
    transitive: ['numpy', 'python-dateutil', 'pytz', 'six', 'tzdata'],
  });
});

test('zero-denominator conventions', () => {
  const none = projectMetrics(s(), s(), s());
  assert.equal(none.inflation, null);
  assert.equal(none.precision, null);
  assert.equal(none.f1, null);
  assert.equal(none.phantomRate, 0);
  const onlyTraced = projectMetrics(s(), s('a'), s('a'));
  assert.equal(onlyTraced.precision, 1);
  assert.equal(onlyTraced.recall, 0);
  assert.equal(onlyTraced.f1, 0);
  const onlyDeclared = projectMetrics(s('a'), s('a'), s());
  assert.equal(onlyDeclared.recall, 1);
  assert.equal(onlyDeclared.precision, 0);
  assert.equal(onlyDeclared.phantomRate, 1);
});
