/**
 * `computeAggregate`: every metric of the paper (RULES.md §4) and of DESIGN.md "Gaps and metrics", per
 * (agent, language) stratum and per language pooled over agents, from run records of any source.
 */
import type { AggregateReport, RunRecord, RunSource, TaskInfo } from './aggregate-types.js';
import { crossAgent, stability } from './aggregate-agreement.js';
import {
  convergence,
  domainConvergence,
  repairBuckets,
  spearmanRows,
  syslib,
  weakestDomains,
} from './aggregate-convergence.js';
import { declaring, frequentGaps, inflation, manifestAccuracy, mismatch, unnecessaryDependencyRate } from './aggregate-sets.js';
import { makeContext } from './aggregate-strata.js';

export * from './aggregate-types.js';
export { LANGUAGE_ORDER } from './aggregate-strata.js';

/** How many packages Tables B4/B5 list per language. */
export const FREQUENT_GAPS_TOP = 10;

function tasksPerDomain(tasks: readonly TaskInfo[]): { domain: string; tasks: number }[] {
  const counts = new Map<string, number>();
  for (const t of tasks) counts.set(t.domain, (counts.get(t.domain) ?? 0) + 1);
  return [...counts]
    .map(([domain, n]) => ({ domain, tasks: n }))
    .sort((a, b) => b.tasks - a.tasks || (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}

export function computeAggregate(runs: RunRecord[], tasks: TaskInfo[]): AggregateReport {
  const ctx = makeContext(runs, tasks);
  const sources: Partial<Record<RunSource, number>> = {};
  for (const r of runs) sources[r.source] = (sources[r.source] ?? 0) + 1;
  const domainRows = domainConvergence(ctx);
  const agreement = crossAgent(ctx);
  return {
    schemaVersion: 1,
    agents: ctx.agents,
    languages: ctx.languages,
    domains: [...new Set(tasks.map((t) => t.domain))].sort(),
    counts: {
      totalRuns: runs.length,
      primaryRuns: ctx.primary.length,
      sources,
      tasksPerDomain: tasksPerDomain(tasks),
      cppNlohmannJson: declaring(ctx, 'cpp', 'nlohmann-json'),
    },
    convergence: convergence(ctx),
    repairBuckets: repairBuckets(ctx),
    inflation: inflation(ctx),
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
  };
}
