/**
 * The aggregate report of one source (or all sources pooled) from what the store holds: `envproof report` writes it,
 * `envproof view` draws its figures for the runs a filter keeps. Backend runs are another experiment: they enter the
 * backend section only, never the environment-gap tables.
 */
import { computeAggregate, type AggregateReport, type ReportSource } from '../metrics/aggregate.js';
import { computeBackendReport } from '../metrics/backend.js';
import { reproducedRuns } from '../repro/final-projects.js';
import { runReproducibility } from '../repro/run-stats.js';
import type { ReproInstanceRow } from '../store/repro-tables.js';
import type { ResultsStore } from '../store/store.js';
import type { BackendEvaluationRecord, RunKey, StoredRun, StoredTask } from '../store/types.js';

export interface ReportInput {
  done: StoredRun[];
  infrastructureFailed: StoredRun[];
  unfinished: StoredRun[];
  /** The final evaluation of every finished backend run. */
  backend: (BackendEvaluationRecord & { key: RunKey })[];
  tasks: StoredTask[];
  /** The finished `run --repro` instances. */
  reproduced: { key: RunKey; row: ReproInstanceRow }[];
}

/** What the reports need from the store; `runs`, when the caller has read them already (all of them, any status). */
export async function readReportInput(store: ResultsStore, runs?: readonly StoredRun[]): Promise<ReportInput> {
  const all = runs ?? (await store.allRuns());
  return {
    done: all.filter((r) => (r.status ?? 'done') === 'done'),
    infrastructureFailed: all.filter((r) => r.status === 'infrastructure-failed'),
    unfinished: all.filter((r) => r.status === 'running'),
    backend: await store.backendEvaluations(),
    tasks: await store.tasks(),
    reproduced: await reproducedRuns(store),
  };
}

export function runKeyText(k: RunKey): string {
  return `${k.source}|${k.agent}|${k.language}|${k.taskId}|${k.trial}`;
}

/** The report of `source`; undefined when it has no finished run. */
export function sourceReport(source: ReportSource, input: ReportInput): AggregateReport | undefined {
  const of = <T extends { source: string }>(items: readonly T[]) => items.filter((r) => source === 'all' || r.source === source);
  const finished = of(input.done);
  if (finished.length === 0) return undefined;
  const backendRuns = new Set(input.backend.map((e) => runKeyText(e.key)));
  const backendTasks = new Set(input.backend.map((e) => e.key.taskId));
  const tasks = of(input.tasks).filter((t) => !backendTasks.has(t.id));
  const report = computeAggregate(
    finished.filter((r) => !backendRuns.has(runKeyText(r))),
    tasks,
    { infrastructureFailed: of(input.infrastructureFailed), unfinished: of(input.unfinished) },
  );
  const evaluations = input.backend.filter((e) => source === 'all' || e.key.source === source);
  if (evaluations.length) report.backend = computeBackendReport(evaluations);
  // `run --repro` re-ran envproof's own runs; pooled reports key agents by source, so they are shown apart only.
  if (source === 'envproof') {
    const finishedKeys = new Set(finished.map(runKeyText));
    const reproduced = runReproducibility(input.reproduced, (key) => finishedKeys.has(runKeyText(key)));
    if (reproduced) report.reproducibility = reproduced;
  }
  return report;
}
