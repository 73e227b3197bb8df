/**
 * Cause attribution: a control run with every factor pinned, then one factor varied at a time; when no single
 * factor changes the outcome but the re-runs did, the varied set is narrowed to the factors that act together.
 */
import { FACTOR_CATEGORY } from './factors.js';
import type { Cause, FactorId, RunRecord } from './types.js';

/** Runs the test command with `varied` factors varied (at the values of re-run `index`) and the rest pinned. */
export type VariedRun = (varied: readonly FactorId[], role: RunRecord['role'], index: number) => Promise<RunRecord>;

export interface Attribution {
  causes: Cause[];
  runs: RunRecord[];
}

function describe(run: RunRecord, factors: readonly FactorId[]): string {
  const what = run.variation.filter((s) => factors.includes(s.factor) && s.mode === 'varied').map((s) => s.value).join(', ');
  const loaded = run.loadedDifferences?.length ? `; loaded other than the reference run: ${run.loadedDifferences.join(', ')}` : '';
  return `${what}: ${run.differences.join('; ') || 'differs'}${loaded}`;
}

/**
 * `varied`: the factors the re-runs varied; `index`: a re-run that did not reproduce the reference (its values are
 * the ones tried). Every run is compared with the reference. Factors that could not be applied are never causes.
 */
export async function attribute(varied: readonly FactorId[], index: number, run: VariedRun): Promise<Attribution> {
  const runs: RunRecord[] = [];
  const control = await run([], 'control', index);
  runs.push(control);
  if (!control.matches) {
    return { runs, causes: [{ factor: 'unknown', category: 'other', evidence: `with every factor pinned the outcome still differs (${control.differences.join('; ')}): the project does not reproduce its reference regardless of the environment` }] };
  }
  const causes: Cause[] = [];
  const applicable: FactorId[] = [];
  for (const factor of varied) {
    const r = await run([factor], 'factor', index);
    runs.push(r);
    const setting = r.variation.find((s) => s.factor === factor && s.mode === 'varied');
    if (!setting?.applied) continue;
    applicable.push(factor);
    if (!r.matches) causes.push({ factor, category: FACTOR_CATEGORY[factor], evidence: describe(r, [factor]) });
  }
  if (causes.length > 0 || applicable.length < 2) return { causes, runs };
  // No single factor: find a smallest set that still changes the outcome, dropping one factor at a time.
  let set = [...applicable];
  const all = await run(set, 'narrowing', index);
  runs.push(all);
  if (all.matches) return { causes, runs };
  let last = all;
  for (const factor of applicable) {
    const without = set.filter((f) => f !== factor);
    if (without.length === 0) continue;
    const r = await run(without, 'narrowing', index);
    runs.push(r);
    if (!r.matches) {
      set = without;
      last = r;
    }
  }
  const together = set.join(' + ');
  return { runs, causes: set.map((factor) => ({ factor, category: FACTOR_CATEGORY[factor], evidence: `only together (${together}): ${describe(last, set)}` })) };
}
