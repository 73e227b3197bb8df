/** `envproof run --rerun`: which of the planned runs the store holds are done again from scratch. */
import { UsageError } from '../core/errors.js';
import type { ResultsStore } from '../store/store.js';
import { PAPER_ERROR_TYPE } from './classify.js';
import { runKey, type RunPlan } from './run-one.js';

/** An error class of an attempt (`code-bug`, `agent-error`, …); `infrastructure` is never an attempt's: it names the runs set aside. */
const ATTEMPT_CLASSES = Object.keys(PAPER_ERROR_TYPE).filter((c) => c !== 'infrastructure');

export const RERUN_CHOICES = ['failed', 'infrastructure', ...ATTEMPT_CLASSES] as const;

export const RERUN_HELP =
  'redo runs the store holds, from scratch (their attempts replaced): failed (ended without success), infrastructure (set aside), ' +
  `or an error class (runs with an attempt that failed so: ${ATTEMPT_CLASSES.join(', ')})`;

export function parseRerun(value: string): string {
  if (!(RERUN_CHOICES as readonly string[]).includes(value)) {
    throw new UsageError(`--rerun ${value}: not a choice`, `use failed, infrastructure or an error class: ${ATTEMPT_CLASSES.join(', ')}`);
  }
  return value;
}

/** Whether the store's run of `plan` is chosen by `which`. */
async function chosen(store: ResultsStore, plan: RunPlan, which: string): Promise<boolean> {
  const run = await store.run(runKey(plan));
  if (!run) return false;
  if (which === 'infrastructure') return run.status === 'infrastructure-failed';
  if (run.status !== 'done') return false;
  if (which === 'failed') return !run.finalSuccess;
  return (await store.attempts(run)).some((a) => a.errorClass === which);
}

/** The plans, those chosen by `which` marked to be done again from scratch. */
export async function markReruns(plans: readonly RunPlan[], store: ResultsStore, which: string): Promise<RunPlan[]> {
  const marked: RunPlan[] = [];
  for (const plan of plans) marked.push((await chosen(store, plan, which)) ? { ...plan, fresh: true } : plan);
  return marked;
}
