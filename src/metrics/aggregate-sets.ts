/** Dependency-set metrics over successful primary runs (RULES.md §4.2–4.4, 4.9, 4.10; Tables B4/B5). */
import type { EcosystemId } from '../core/types.js';
import type { AccuracyRow, FrequentGapRow, InflationRow, MismatchRow, RunRecord, UdrRow } from './aggregate-types.js';
import { ALL_AGENTS } from './aggregate-types.js';
import { mapStrata, successful, type AggregateContext } from './aggregate-strata.js';
import { projectMetrics } from './project.js';
import { mean, median, pct } from './stats.js';

/** Per-run metrics of a successful run, computed once per run. */
function metricsOf(r: RunRecord) {
  return projectMetrics(new Set(r.declared), new Set(r.installed), new Set(r.traced));
}

/** Inflation uses the recorded counts, not the lists (RULES.md §4.2). */
export function inflation(ctx: AggregateContext): InflationRow[] {
  return mapStrata(ctx, ctx.primary, (rows, agent, language) => {
    const ratios: number[] = [];
    for (const r of successful(rows)) {
      if (r.claimedCount !== null && r.claimedCount !== 0 && r.transitiveCount !== null) {
        ratios.push(r.transitiveCount / r.claimedCount);
      }
    }
    return { agent, language, n: ratios.length, ratios, mean: mean(ratios) ?? 0, median: median(ratios) };
  });
}

function meanOf(values: readonly (number | null)[]): number | null {
  return mean(values.filter((v): v is number => v !== null));
}

export function mismatch(ctx: AggregateContext): MismatchRow[] {
  return mapStrata(ctx, ctx.primary, (rows, agent, language) => {
    const ms = successful(rows).map(metricsOf);
    return {
      agent,
      language,
      n: ms.length,
      phantom: meanOf(ms.map((m) => m.phantomRate)),
      hidden: meanOf(ms.map((m) => m.hiddenRate)),
      bloat: meanOf(ms.map((m) => m.bloatRate)),
    };
  });
}

/** Table 4: runs with D1 and D3 both empty have null precision and are left out. */
export function manifestAccuracy(ctx: AggregateContext): AccuracyRow[] {
  return mapStrata(ctx, ctx.primary, (rows, agent, language) => {
    const ms = successful(rows)
      .map(metricsOf)
      .filter((m) => m.precision !== null);
    return {
      agent,
      language,
      n: ms.length,
      precision: meanOf(ms.map((m) => m.precision)),
      recall: meanOf(ms.map((m) => m.recall)),
      f1: meanOf(ms.map((m) => m.f1)),
    };
  });
}

/**
 * Fig. 11. A task is standard-library-sufficient in a language when any run of it (any agent, any trial)
 * succeeded declaring nothing; the UDR is the share of an agent's successful primary runs on such tasks that
 * declared something. Macro: unweighted mean over the languages, a language without such runs counting 0.
 */
export function unnecessaryDependencyRate(ctx: AggregateContext): UdrRow[] {
  const sufficient = new Set(
    ctx.runs.filter((r) => r.finalSuccess && r.claimedCount === 0).map((r) => `${r.language} ${r.taskId}`),
  );
  const rows = mapStrata(ctx, ctx.primary, (stratum, agent, language) => {
    const onSufficient = successful(stratum).filter((r) => sufficient.has(`${language} ${r.taskId}`));
    const withDep = onSufficient.filter((r) => (r.claimedCount ?? 0) >= 1).length;
    const row: UdrRow = {
      agent,
      language,
      nTasks: onSufficient.length,
      withExternalDep: withDep,
      udrPct: pct(withDep, onSufficient.length) ?? 0,
    };
    return row;
  });
  const out: UdrRow[] = [];
  for (const agent of [...ctx.agents, ALL_AGENTS]) {
    const own = rows.filter((r) => r.agent === agent);
    if (own.length === 0) continue;
    out.push(...own);
    const sum = own.reduce((s, r) => s + r.udrPct, 0);
    out.push({ agent, language: 'macro', nTasks: null, withExternalDep: null, udrPct: sum / ctx.languages.length });
  }
  return out;
}

/** Tables B4/B5: packages most often phantom (D1∖D3) or hidden (D3∖D1) per language, pooled over agents. */
export function frequentGaps(ctx: AggregateContext, top: number): FrequentGapRow[] {
  const out: FrequentGapRow[] = [];
  for (const kind of ['phantom', 'hidden'] as const) {
    for (const language of ctx.languages) {
      const counts = new Map<string, number>();
      for (const r of successful(ctx.primary)) {
        if (r.language !== language) continue;
        const [from, against] = kind === 'phantom' ? [r.declared, r.traced] : [r.traced, r.declared];
        const other = new Set(against);
        for (const name of from) if (!other.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      ranked.slice(0, top).forEach(([name, runs], i) => out.push({ kind, language, rank: i + 1, name, runs }));
    }
  }
  return out;
}

/** Successful primary runs of `language` whose D1 contains `name`. */
export function declaring(ctx: AggregateContext, language: EcosystemId, name: string): number {
  return ctx.primary.filter((r) => r.finalSuccess && r.language === language && r.declared.includes(name)).length;
}
