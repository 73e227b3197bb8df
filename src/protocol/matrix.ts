import type { Agent } from '../agents/types.js';
import type { EcosystemId } from '../core/types.js';
import type { ResultsStore } from '../store/store.js';
import type { PromptVariant, Task, TaskSuite } from '../tasks/types.js';
import { runProtocol, type ProtocolOptions, type RunOutcome, type RunPlan } from './run-one.js';

export interface MatrixSpec {
  agents: Agent[];
  suite: TaskSuite;
  tasks: Task[];
  languages: EcosystemId[];
  trials: number;
  variant: PromptVariant;
}

export interface MatrixSummary {
  total: number;
  counts: Record<RunOutcome, number>;
  durationMs: number;
}

/** Every (agent, task, language, trial), in a stable order. */
export function planRuns(spec: MatrixSpec): RunPlan[] {
  const plans: RunPlan[] = [];
  for (const agent of spec.agents)
    for (const language of spec.languages)
      for (const task of spec.tasks) {
        // A backend task is written in its framework's language only.
        if (task.backend && task.backend.language !== language) continue;
        for (let trial = 1; trial <= spec.trials; trial++) plans.push({ agent, suite: spec.suite, task, language, trial, variant: spec.variant });
      }
  return plans;
}

export function emptyCounts(): Record<RunOutcome, number> {
  return { skipped: 0, succeeded: 0, failed: 0, 'infrastructure-failed': 0, 'no-attempt': 0, interrupted: 0 };
}

/** What a run is doing now (`phase`), where the matrix stands, and how long the rest should take. */
export interface ProgressEvent {
  done: number;
  total: number;
  failures: number;
  plan: RunPlan;
  phase: string;
  /** Which of the `jobs` workers runs the plan (0-based). */
  slot: number;
  /** Since the matrix started. */
  elapsedMs: number;
  /** The runs not ended yet at the mean duration of those that ran, spread over the workers; unknown before one has ended. */
  etaMs?: number;
}

/**
 * Runs the plans with at most `jobs` at a time; each run records itself in the store as it goes. The first error of
 * any run (a refused credential, a store that fails) stops the whole matrix: the other runs stop as at Ctrl-C (their
 * attempts in flight recorded as interrupted), then the error is thrown. An aborted `signal` stops it the same way,
 * and the summary counts the interrupted runs.
 */
export async function runMatrix(
  plans: RunPlan[],
  store: ResultsStore,
  opts: Omit<ProtocolOptions, 'progress'> & { jobs: number; onProgress(e: ProgressEvent): void },
): Promise<MatrixSummary> {
  const started = Date.now();
  const counts = emptyCounts();
  const stop = new AbortController();
  const stopWith = () => stop.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', stopWith, { once: true });
  if (opts.signal?.aborted) stopWith();
  const slots = Math.max(1, Math.min(opts.jobs, plans.length));
  let next = 0;
  let done = 0;
  let ranMs = 0;
  let ran = 0;
  let fatal: { error: unknown } | undefined;
  const eta = () => (ran === 0 ? undefined : ((ranMs / ran) * (plans.length - done)) / slots);
  const worker = async (slot: number) => {
    while (next < plans.length && !stop.signal.aborted) {
      const plan = plans[next++]!;
      const runStarted = Date.now();
      const emit = (phase: string) =>
        opts.onProgress({ done, total: plans.length, failures: counts.failed + counts['infrastructure-failed'], plan, phase, slot, elapsedMs: Date.now() - started, ...(eta() === undefined ? {} : { etaMs: eta() }) });
      let outcome: RunOutcome;
      try {
        outcome = await runProtocol(plan, store, { ...opts, signal: stop.signal, progress: emit });
      } catch (error) {
        fatal ??= { error };
        stop.abort(error);
        return;
      }
      counts[outcome]++;
      done++;
      if (outcome !== 'skipped' && outcome !== 'no-attempt' && outcome !== 'interrupted') {
        ranMs += Date.now() - runStarted;
        ran++;
      }
      emit(outcome);
    }
  };
  try {
    await Promise.all(Array.from({ length: slots }, (_, slot) => worker(slot)));
  } finally {
    opts.signal?.removeEventListener('abort', stopWith);
  }
  if (fatal) throw fatal.error;
  return { total: plans.length, counts, durationMs: Date.now() - started };
}
