/** Outcome metrics: success rates, repair depth, C++ system libraries, task domains, Spearman (docs/paper-data.md §4.1, 4.7, 4.8). */
import {
  ALL_AGENTS,
  REPAIR_BUCKETS,
  type ConvergenceRow,
  type DomainRow,
  type RepairBucket,
  type RepairBucketRow,
  type RunRecord,
  type SpearmanRow,
  type SyslibRow,
  type WeakestDomain,
} from './aggregate-types.js';
import { hasDeclared, mapStrata, type AggregateContext } from './aggregate-strata.js';
import { pct, spearman } from './stats.js';

interface Outcome {
  n: number;
  firstSuccesses: number;
  finalSuccesses: number;
  firstAttemptFailures: number;
  repaired: number;
}

function outcome(rows: readonly RunRecord[]): Outcome {
  let firstSuccesses = 0;
  let finalSuccesses = 0;
  let repaired = 0;
  for (const r of rows) {
    if (r.firstSuccess) firstSuccesses++;
    if (r.finalSuccess) finalSuccesses++;
    if (!r.firstSuccess && r.finalSuccess) repaired++;
  }
  return { n: rows.length, firstSuccesses, finalSuccesses, firstAttemptFailures: rows.length - firstSuccesses, repaired };
}

export function convergence(ctx: AggregateContext): ConvergenceRow[] {
  return mapStrata(ctx, ctx.primary, (rows, agent, language) => {
    const o = outcome(rows);
    return {
      agent,
      language,
      ...o,
      sr0Pct: pct(o.firstSuccesses, o.n),
      finalSrPct: pct(o.finalSuccesses, o.n),
      // docs/paper-data.md §4.1: 100 when nothing needed repairing.
      repairedPct: o.firstAttemptFailures === 0 ? 100 : pct(o.repaired, o.firstAttemptFailures),
    };
  });
}

export function repairBucket(r: RunRecord): RepairBucket {
  if (r.firstSuccess) return '0';
  if (!r.finalSuccess) return 'failed';
  const d = r.repairDepth;
  if (d === null || d < 1) return 'unknown';
  return d <= 3 ? '1-3' : d <= 7 ? '4-7' : d <= 10 ? '8-10' : '>10';
}

export function repairBuckets(ctx: AggregateContext): RepairBucketRow[] {
  return mapStrata(ctx, ctx.primary, (rows, agent, language) => {
    const counts = Object.fromEntries(REPAIR_BUCKETS.map((b) => [b, 0])) as Record<RepairBucket, number>;
    for (const r of rows) counts[repairBucket(r)]++;
    return { agent, language, n: rows.length, counts };
  });
}

/**
 * First-attempt error types that count as a system-library assumption in C++ (docs/paper-data.md §4.7). envproof's own
 * runs record their error class in the same vocabulary (src/protocol/classify.ts PAPER_ERROR_TYPE).
 */
const SYSLIB_ERROR_TYPES = new Set(['MissingDep', 'SystemLib']);

export function syslib(ctx: AggregateContext): SyslibRow[] {
  const cpp = ctx.primary.filter((r) => r.language === 'cpp');
  return ctx.agents.flatMap((agent) => {
    const failures = cpp.filter((r) => r.agent === agent && !r.firstSuccess);
    if (!cpp.some((r) => r.agent === agent)) return [];
    const sys = failures.filter((r) => SYSLIB_ERROR_TYPES.has((r.initialErrorType ?? '').trim()));
    const recovered = sys.filter((r) => r.finalSuccess).length;
    return [
      {
        agent,
        firstAttemptFailures: failures.length,
        syslib: sys.length,
        slarPct: pct(sys.length, failures.length) ?? 0,
        recovered,
        egarPct: pct(recovered, sys.length),
      },
    ];
  });
}

export function domainConvergence(ctx: AggregateContext): DomainRow[] {
  const domains = [...new Set([...ctx.tasks.values()].map((t) => t.domain))].sort();
  const out: DomainRow[] = [];
  for (const agent of [...ctx.agents, ALL_AGENTS]) {
    for (const domain of domains) {
      const rows = ctx.primary.filter(
        (r) => (agent === ALL_AGENTS || r.agent === agent) && ctx.tasks.get(r.taskId)?.domain === domain,
      );
      if (rows.length === 0) continue;
      const o = outcome(rows);
      out.push({ agent, domain, n: o.n, sr0Pct: pct(o.firstSuccesses, o.n), finalSrPct: pct(o.finalSuccesses, o.n) });
    }
  }
  return out;
}

/** Lowest first-attempt domain per agent; ties go to the alphabetically first domain (rows are in that order). */
export function weakestDomains(ctx: AggregateContext, rows: readonly DomainRow[]): WeakestDomain[] {
  return ctx.agents.flatMap((agent) => {
    let weakest: WeakestDomain | null = null;
    for (const r of rows) {
      if (r.agent !== agent || r.sr0Pct === null) continue;
      if (weakest === null || r.sr0Pct < weakest.sr0Pct) weakest = { agent, domain: r.domain, sr0Pct: r.sr0Pct };
    }
    return weakest ? [weakest] : [];
  });
}

/** Table A1: |D1| against first-attempt success (1/0), over the primary runs of the stratum whose D1 is known. */
export function spearmanRows(ctx: AggregateContext): SpearmanRow[] {
  return mapStrata(ctx, ctx.primary.filter(hasDeclared), (rows, agent, language) => {
    const s = spearman(
      rows.map((r) => r.declared.length),
      rows.map((r) => (r.firstSuccess ? 1 : 0)),
    );
    return { agent, language, n: s.n, rho: s.rho, pValue: s.pValue };
  });
}
