/**
 * `computeAggregate`: every metric of the paper (docs/paper-data.md §4), per
 * (agent, language) stratum and per language pooled over agents, from run records of any source.
 */
import { ALL_AGENTS, type AggregateReport, type RunRecord, type RunSource, type SetAsideRow, type TaskInfo } from './aggregate-types.js';
import { crossAgent, stability } from './aggregate-agreement.js';
import {
  convergence,
  domainConvergence,
  repairBuckets,
  spearmanRows,
  syslib,
  weakestDomains,
} from './aggregate-convergence.js';
import { keyBySource } from './aggregate-sources.js';
import { declaring, frequentGaps, inflation, inflationPaperCompatible, manifestAccuracy, mismatch, unnecessaryDependencyRate } from './aggregate-sets.js';
import { ecosystemIds } from '../ecosystems/index.js';
import { makeContext } from './aggregate-strata.js';

export * from './aggregate-types.js';

/** How many packages Tables B4/B5 list per language. */
export const FREQUENT_GAPS_TOP = 10;

function tasksPerDomain(tasks: readonly TaskInfo[]): { domain: string; tasks: number }[] {
  const counts = new Map<string, number>();
  for (const t of tasks) counts.set(t.domain, (counts.get(t.domain) ?? 0) + 1);
  return [...counts]
    .map(([domain, n]) => ({ domain, tasks: n }))
    .sort((a, b) => b.tasks - a.tasks || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}

/** Runs that ended but are not counted, kept apart so that the report can say how many there are. */
export interface ExcludedRuns {
  /** Set aside after infrastructure failures (sandbox, registry, model API): never the agent's failures; with the reason. */
  infrastructureFailed?: readonly (RunRecord & { statusReason?: string | null })[];
  /** Still being recorded, or stopped before they ended. */
  unfinished?: readonly RunRecord[];
}

/** Per (agent, language) and per language pooled: runs counted and runs left out, over every trial. */
function setAsideRows(counted: readonly RunRecord[], excluded: Required<ExcludedRuns>): SetAsideRow[] {
  const rows = new Map<string, SetAsideRow>();
  const add = (r: RunRecord, field: 'counted' | 'infrastructureFailed' | 'unfinished') => {
    for (const agent of [r.agent, ALL_AGENTS]) {
      const key = `${agent} ${r.language}`;
      const row = rows.get(key) ?? { agent, language: r.language, counted: 0, infrastructureFailed: 0, unfinished: 0 };
      row[field]++;
      rows.set(key, row);
    }
  };
  for (const r of counted) add(r, 'counted');
  for (const r of excluded.infrastructureFailed) add(r, 'infrastructureFailed');
  for (const r of excluded.unfinished) add(r, 'unfinished');
  const agentOrder = (a: string) => (a === ALL_AGENTS ? 1 : 0);
  const order = ecosystemIds();
  return [...rows.values()].sort(
    (a, b) => agentOrder(a.agent) - agentOrder(b.agent) || (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0) || order.indexOf(a.language) - order.indexOf(b.language),
  );
}

/**
 * Every metric over `runs` (the ones that ended). Runs of several sources are keyed by source (aggregate-sources.ts):
 * they are never mixed into one agent or task. `excluded` runs enter no metric; the report only counts them.
 */
export function computeAggregate(runs: readonly RunRecord[], tasks: readonly TaskInfo[], excluded: ExcludedRuns = {}): AggregateReport {
  const infrastructureFailed = excluded.infrastructureFailed ?? [];
  const unfinished = excluded.unfinished ?? [];
  // Keyed together, so that an agent reads the same in the metrics and in the set-aside counts.
  const all = keyBySource<RunRecord & { statusReason?: string | null }>([...runs, ...infrastructureFailed, ...unfinished], tasks);
  const counted = all.runs.slice(0, runs.length);
  const keyedExcluded = {
    infrastructureFailed: all.runs.slice(runs.length, runs.length + infrastructureFailed.length),
    unfinished: all.runs.slice(runs.length + infrastructureFailed.length),
  };
  const ctx = makeContext(counted, all.tasks);
  const sources: Partial<Record<RunSource, number>> = {};
  for (const r of runs) sources[r.source] = (sources[r.source] ?? 0) + 1;
  const domainRows = domainConvergence(ctx);
  const agreement = crossAgent(ctx);
  return {
    schemaVersion: 1,
    source: all.source,
    agents: ctx.agents,
    languages: ctx.languages,
    domains: [...new Set(all.tasks.map((t) => t.domain))].sort(),
    counts: {
      totalRuns: counted.length,
      primaryRuns: ctx.primary.length,
      sources,
      tasksPerDomain: tasksPerDomain(all.tasks),
      cppNlohmannJson: declaring(ctx, 'cpp', 'nlohmann-json'),
    },
    convergence: convergence(ctx),
    repairBuckets: repairBuckets(ctx),
    inflation: inflation(ctx),
    inflationPaperCompatible: inflationPaperCompatible(ctx),
    mismatch: mismatch(ctx),
    manifestAccuracy: manifestAccuracy(ctx),
    crossAgent: agreement.rows,
    cdrMacroPct: agreement.cdrMacroPct,
    stability: stability(ctx),
    syslib: syslib(ctx),
    domainConvergence: domainRows,
    weakestDomains: weakestDomains(ctx, domainRows),
    udr: unnecessaryDependencyRate(ctx),
    spearman: spearmanRows(ctx),
    frequentGaps: frequentGaps(ctx, FREQUENT_GAPS_TOP),
    setAside: setAsideRows(counted, keyedExcluded),
    setAsideRuns: keyedExcluded.infrastructureFailed.map((r) => ({ agent: r.agent, language: r.language, taskId: r.taskId, trial: r.trial, reason: r.statusReason ?? null })),
  };
}
