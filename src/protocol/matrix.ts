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

export type ProgressEvent = { done: number; total: number; failures: number; plan: RunPlan; phase: string };

/** Runs the plans with at most `jobs` at a time; each run records itself in the store as it goes. */
export async function runMatrix(
  plans: RunPlan[],
  store: ResultsStore,
  opts: Omit<ProtocolOptions, 'progress'> & { jobs: number; onProgress(e: ProgressEvent): void },
): Promise<MatrixSummary> {
  const started = Date.now();
  const counts = emptyCounts();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < plans.length) {
      const plan = plans[next++]!;
      const emit = (phase: string) => opts.onProgress({ done, total: plans.length, failures: counts.failed + counts['infrastructure-failed'], plan, phase });
      const outcome = await runProtocol(plan, store, { ...opts, progress: emit });
      counts[outcome]++;
      done++;
      emit(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.jobs, plans.length)) }, worker));
  return { total: plans.length, counts, durationMs: Date.now() - started };
}
