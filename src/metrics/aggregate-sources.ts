/**
 * Runs of several sources (the paper's import, envproof's own runs) in one report: pooled side by side, never
 * merged. Each agent and task is renamed `<source>/<name>`, so an agent called `claude` in both sources stays two
 * agents, and a task id is matched (domains, agreement, UDR) only within its own source.
 */
import type { ReportSource, RunRecord, RunSource, TaskInfo } from './aggregate-types.js';

export interface KeyedInput<R extends RunRecord> {
  source: ReportSource;
  runs: R[];
  tasks: TaskInfo[];
}

export function sourcesOf(runs: readonly RunRecord[]): RunSource[] {
  return [...new Set(runs.map((r) => r.source))].sort();
}

/**
 * The runs and tasks as the metrics see them: unchanged for one source, keyed by source for several. A task
 * without a source belongs to every source present.
 */
export function keyBySource<R extends RunRecord>(runs: readonly R[], tasks: readonly TaskInfo[]): KeyedInput<R> {
  const sources = sourcesOf(runs);
  if (sources.length <= 1) return { source: sources[0] ?? 'all', runs: [...runs], tasks: [...tasks] };
  return {
    source: 'all',
    runs: runs.map((r) => ({ ...r, agent: `${r.source}/${r.agent}`, taskId: `${r.source}/${r.taskId}` })),
    tasks: tasks.flatMap((t) => (t.source ? [t.source] : sources).map((source) => ({ ...t, source, id: `${source}/${t.id}` }))),
  };
}
