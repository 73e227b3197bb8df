/** One row per corpus instance for the report: its verdicts with their intervals, its causes, whether drift was tested. Pure. */
import type { ReproInstanceRow, StoredRun } from '../store/repro-tables.js';
import { wilsonInterval } from '../metrics/stats.js';
import type { CauseCategory, FactorId, Verdict } from './types.js';

/**
 * Whether the instance's runs could have seen dependency drift: its re-runs resolved against the live registry and
 * another of its runs (the shim's, the control's) against the registry as of the recorded date. `why` when not.
 */
export type DriftTest = { tested: true } | { tested: false; why: string; detail?: string };

export function driftTest(kind: string | null, runs: readonly StoredRun[]): DriftTest {
  const settings = runs.filter((r) => r.arm === 'patched').flatMap((r) => r.variation.filter((s) => s.factor === 'dependency-drift'));
  if (!settings.some((s) => s.mode === 'varied')) return { tested: false, why: 'not varied' };
  const refused = settings.find((s) => !s.applied);
  if (refused) return { tested: false, why: `${kind ?? 'this ecosystem'}: no dated resolution`, ...(refused.note ? { detail: refused.note } : {}) };
  if (!settings.some((s) => s.mode === 'pinned')) return { tested: false, why: 'no run resolved as of the recorded date' };
  return { tested: true };
}

/** A verdict over `runs` runs, with the rate's 95% Wilson interval. */
export interface RatedVerdict {
  verdict: Verdict;
  rate: number;
  interval: [number, number];
  runs: number;
}

export interface InstanceFigures {
  id: string;
  kind: string | null;
  patched: RatedVerdict;
  shim: RatedVerdict | null;
  baseline: RatedVerdict | null;
  causes: { factor: FactorId | 'unknown' | 'nondeterministic'; category: CauseCategory }[];
  drift: DriftTest & { drifted: boolean };
}

function rated(verdict: Verdict | null, rate: number | null, k: number): RatedVerdict | null {
  if (verdict === null || rate === null) return null;
  return { verdict, rate, interval: wilsonInterval(Math.round(rate * k), k)!, runs: k };
}

/** A finished instance (its verdict set) and its stored runs. */
export function instanceFigures(row: ReproInstanceRow, runs: readonly StoredRun[]): InstanceFigures {
  const causes = (row.causes ?? []).map((c) => ({ factor: c.factor, category: c.category }));
  return {
    id: row.instanceId,
    kind: row.kind,
    patched: rated(row.verdict, row.rate, row.k)!,
    shim: rated(row.shimVerdict, row.shimRate, row.k),
    baseline: rated(row.baselineVerdict, row.baselineRate, row.k),
    causes,
    drift: { ...driftTest(row.kind, runs), drifted: causes.some((c) => c.category === 'dependency-drift') },
  };
}

const rateCell = (r: RatedVerdict | null) => (r ? `${r.verdict} ${r.rate.toFixed(2)} [${r.interval[0].toFixed(2)}, ${r.interval[1].toFixed(2)}] of ${r.runs}` : 'n/a');

/** The instance table's header and cells, for the Markdown and the text report alike. */
export function instanceTable(rows: readonly InstanceFigures[]): string[][] {
  const head = ['instance', 'kind', 'verdict, rate [95% CI]', 'with the shim', 'baseline', 'causes', 'drift'];
  return [
    head,
    ...rows.map((r) => [
      r.id,
      r.kind ?? '?',
      rateCell(r.patched),
      rateCell(r.shim),
      rateCell(r.baseline),
      r.causes.map((c) => c.factor).join(', ') || 'none',
      r.drift.tested ? (r.drift.drifted ? 'drifted' : 'tested, not drifted') : `not tested (${r.drift.why})`,
    ]),
  ];
}
