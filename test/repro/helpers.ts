import assert from 'node:assert/strict';
import path from 'node:path';
import { runRepro, type ReproOptions } from '../../src/repro/repro.js';
import type { FactorId, ReproReport } from '../../src/repro/types.js';
import { literal } from '../helpers/regexp.js';

export const FIXTURES = path.join(import.meta.dirname, 'fixtures');

/** One repro of a fixture with small k, in the default sandbox (bwrap): attribution stops at the first cause, the runs share one install. */
export function reproFixture(fixture: string, command: string, vary: FactorId[], extra: Partial<ReproOptions> = {}): Promise<ReproReport> {
  return runRepro({
    dir: path.join(FIXTURES, fixture),
    command,
    k: 1,
    vary,
    attribute: true,
    // One run per attribution arm: the fixtures are deterministic, and the repetition is unit-tested (units.test.ts).
    trials: 1,
    shim: false,
    ecosystem: 'auto',
    backend: 'auto',
    timeoutSec: 300,
    progress: () => {},
    ...extra,
  });
}

/** The report's causes are exactly `factor`, in `category`, with evidence naming `evidence`. */
export function assertCause(report: ReproReport, factor: FactorId, category: string, evidence: string | RegExp): void {
  const summary = JSON.stringify({ verdict: report.verdict, causes: report.causes, runs: report.runs.map((r) => [r.role, r.outcome, r.differences]) }, null, 1);
  assert.notEqual(report.verdict, 'reproducible', summary);
  assert.deepEqual(report.causes?.map((c) => [c.factor, c.category]), [[factor, category]], summary);
  assert.match(report.causes![0]!.evidence, typeof evidence === 'string' ? new RegExp(literal(evidence)) : evidence, summary);
}

/** The setting a run made for `factor`. */
export function settingOf(report: ReproReport, role: string, factor: FactorId) {
  return [...report.runs, ...(report.attributionRuns ?? [])].find((r) => r.role === role)?.variation.find((s) => s.factor === factor);
}
