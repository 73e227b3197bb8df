/**
 * Cause attribution: a control arm with every factor pinned and one arm per varied factor, each repeated until
 * Fisher's exact test on their match/mismatch counts separates the arm from the control (a cause), can no longer
 * do so (no cause), or the trial limit is reached. A control that itself sometimes differs is the default
 * environment varying alone: the cause `nondeterministic`. When no single factor changes the outcome but the
 * re-runs did, the varied set is narrowed to the factors that act together. By default the factors are tried one after
 * another and the attribution stops at the first that is a cause (`stopAtFirstCause`); with `all`, every factor is.
 */
import { fisherExact, wilsonInterval } from '../metrics/stats.js';
import { FACTOR_CATEGORY } from './factors.js';
import type { Cause, CauseStatistics, FactorId, RunRecord } from './types.js';

/** Runs the test command with `varied` factors varied (at the values of re-run `index`) and the rest pinned. */
export type VariedRun = (varied: readonly FactorId[], role: RunRecord['role'], index: number) => Promise<RunRecord>;

export interface Attribution {
  causes: Cause[];
  runs: RunRecord[];
  /** The factors never run, because an earlier one was already a cause. */
  notTried: FactorId[];
}

export interface AttributionOptions {
  /** Most runs of each arm (the control, each factor). 1: each tried once, which cannot tell chance from cause. */
  maxTrials: number;
  /** The significance level of Fisher's exact test. */
  alpha: number;
  /** Try the factors one at a time, in the order given, and stop at the first that is a cause; false: try every factor. */
  stopAtFirstCause: boolean;
}

export const DEFAULT_ATTRIBUTION: AttributionOptions = { maxTrials: 6, alpha: 0.05, stopAtFirstCause: true };

interface Arm {
  factor?: FactorId;
  runs: RunRecord[];
}

const mismatched = (arm: Arm) => arm.runs.filter((r) => !r.matches).length;

function describe(run: RunRecord, factors: readonly FactorId[]): string {
  const what = run.variation.filter((s) => factors.includes(s.factor) && s.mode === 'varied').map((s) => s.value).join(', ');
  const loaded = run.loadedDifferences?.length ? `; loaded other than the reference run: ${run.loadedDifferences.join(', ')}` : '';
  return `${what}: ${run.differences.join('; ') || 'differs'}${loaded}`;
}

/** A rate with its 95% Wilson interval, as the evidence says it: "3/4 [0.30, 0.95]". */
export function rateText(count: number, n: number): string {
  const ci = wilsonInterval(count, n)!;
  return `${count}/${n} [${ci[0].toFixed(2)}, ${ci[1].toFixed(2)}]`;
}

function statistics(arm: Arm, control: Arm, alpha: number): CauseStatistics {
  const [fm, fn, cm, cn] = [mismatched(arm), arm.runs.length, mismatched(control), control.runs.length];
  const p = fisherExact(fm, fn - fm, cm, cn - cm);
  return { mismatched: fm, trials: fn, interval: wilsonInterval(fm, fn)!, controlMismatched: cm, controlTrials: cn, p, significant: p < alpha };
}

function statisticsText(s: CauseStatistics): string {
  const base = `differed in ${rateText(s.mismatched, s.trials)} of its runs, the control in ${rateText(s.controlMismatched, s.controlTrials)}; Fisher's exact p = ${s.p.toFixed(3)}`;
  return s.significant ? base : `${base}: too few trials to tell it from chance (--trials)`;
}

type ArmState = 'open' | 'cause' | 'no';

/** Where an arm stands against the control, given at most `maxTrials` runs of each. */
export function armState(arm: Arm, control: Arm, o: Pick<AttributionOptions, 'maxTrials' | 'alpha'>): ArmState {
  const [fm, fn, cm, cn] = [mismatched(arm), arm.runs.length, mismatched(control), control.runs.length];
  // Against a control that never matched nothing can be told; a factor whose runs never differed is not pursued.
  if (cm === cn || fm === 0) return 'no';
  if (fm / fn > cm / cn && fisherExact(fm, fn - fm, cm, cn - cm) < o.alpha) return 'cause';
  if (fn >= o.maxTrials && cn >= o.maxTrials) return fm === fn && cm === 0 ? 'cause' : 'no';
  // Futility: even if every run left differed in the arm and matched in the control, no significance would follow.
  const bestArm = fm + (o.maxTrials - fn);
  const bestControl = cm;
  const reachable = fisherExact(bestArm, o.maxTrials - bestArm, bestControl, o.maxTrials - bestControl) < o.alpha;
  const separable = fisherExact(o.maxTrials, 0, 0, o.maxTrials) < o.alpha;
  return separable && !reachable ? 'no' : 'open';
}

/**
 * `varied`: the factors to try; `index`: a re-run that did not reproduce the reference (its values are the ones
 * tried). Every run is compared with the reference. Factors that could not be applied are never causes. The causes
 * are never empty: what no factor explains is `unknown`, or `nondeterministic` when the control itself varied.
 */
export async function attribute(varied: readonly FactorId[], index: number, run: VariedRun, o: AttributionOptions = DEFAULT_ATTRIBUTION): Promise<Attribution> {
  const runs: RunRecord[] = [];
  const once = async (arm: Arm, role: RunRecord['role']) => {
    const r = await run(arm.factor ? [arm.factor] : [], role, index);
    runs.push(r);
    arm.runs.push(r);
    return r;
  };
  const control: Arm = { runs: [] };
  await once(control, 'control');
  const arms: Arm[] = [];
  const pending = [...varied];
  /** Starts the next factors' arms (all of them, or the next one): one run each; an arm that could not be applied is dropped. */
  const start = async () => {
    for (const factor of pending.splice(0, o.stopAtFirstCause ? 1 : pending.length)) {
      const arm: Arm = { factor, runs: [] };
      const r = await once(arm, 'factor');
      if (r.variation.find((s) => s.factor === factor && s.mode === 'varied')?.applied) arms.push(arm);
    }
  };
  await start();
  // Rounds: one more control run and one more run of each arm still open, until none is; then the next factor, if any.
  for (;;) {
    const open = arms.filter((a) => a.runs.length < o.maxTrials && armState(a, control, o) === 'open');
    const cm = mismatched(control);
    const noCause = !arms.some((a) => armState(a, control, o) === 'cause');
    // The control is repeated while it always differed (broken whatever the environment?), and, with no cause found and
    // no factor left to try, while it never did: the default environment alone may vary the outcome (a race), which one
    // run cannot show.
    const controlUnsure = (cm === control.runs.length || (cm === 0 && noCause && open.length === 0 && pending.length === 0)) && control.runs.length < o.maxTrials;
    if (open.length === 0 && !controlUnsure) {
      // A control that never matched is `unknown` whatever the factors do.
      const controlBroken = cm === control.runs.length;
      if (pending.length === 0 || controlBroken || !noCause) break;
      await start();
      continue;
    }
    if (control.runs.length < o.maxTrials) await once(control, 'control');
    for (const arm of open) await once(arm, 'factor');
  }
  const notTried = pending;
  const cm = mismatched(control);
  const cn = control.runs.length;
  if (cm === cn) {
    const last = control.runs.at(-1)!;
    return { runs, notTried, causes: [{ factor: 'unknown', category: 'other', evidence: `with every factor pinned the outcome still differs in ${rateText(cm, cn)} of the runs (${last.differences.join('; ')}): the project does not reproduce its reference regardless of the environment` }] };
  }
  const causes: Cause[] = arms
    .filter((a) => armState(a, control, o) === 'cause')
    .map((a) => {
      const s = statistics(a, control, o.alpha);
      return { factor: a.factor!, category: FACTOR_CATEGORY[a.factor!], evidence: `${describe(a.runs.find((r) => !r.matches)!, [a.factor!])} (${statisticsText(s)})`, statistics: s };
    });
  if (cm > 0) {
    const differing = control.runs.find((r) => !r.matches)!;
    causes.push({ factor: 'nondeterministic', category: 'other', evidence: `with every factor pinned the outcome still differed in ${rateText(cm, cn)} of the runs (${differing.differences.join('; ')}): the default environment alone varies it` });
  }
  if (causes.length > 0) return { causes, runs, notTried };
  const applicable = arms.map((a) => a.factor!);
  const narrowed = applicable.length >= 2 ? await narrow(applicable, index, run, runs) : undefined;
  if (narrowed) return { runs, notTried, causes: narrowed };
  return { runs, notTried, causes: [{ factor: 'unknown', category: 'other', evidence: `no factor tried${applicable.length >= 2 ? ', alone or together,' : ''} changed the outcome (${applicable.join(', ') || (varied.length ? 'none could be applied' : 'none was varied')}), and the control never differed in ${cn} runs: what made the re-run differ is not among them` }] };
}

/** No single factor: a smallest set that still changes the outcome, dropping one factor at a time; undefined when all together do not. */
async function narrow(applicable: readonly FactorId[], index: number, run: VariedRun, runs: RunRecord[]): Promise<Cause[] | undefined> {
  let set = [...applicable];
  const all = await run(set, 'narrowing', index);
  runs.push(all);
  if (all.matches) return undefined;
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
  return set.map((factor) => ({ factor, category: FACTOR_CATEGORY[factor], evidence: `only together (${together}): ${describe(last, set)}` }));
}
