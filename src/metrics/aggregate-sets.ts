/**
 * Dependency-set metrics over successful primary runs with a known D1 (docs/paper-data.md §4.2–4.4, 4.9, 4.10; Tables B4/B5).
 */
import type { EcosystemId } from '../core/types.js';
import type { AccuracyRow, FrequentGapRow, InflationRow, MismatchRow, UdrRow } from './aggregate-types.js';
import { ALL_AGENTS } from './aggregate-types.js';
import { mapStrata, measurable, type AggregateContext, type DeclaredRun } from './aggregate-strata.js';
import { paperInstalledIsDeclared, projectMetrics } from './project.js';
import { mean, median, pct } from './stats.js';

/** Per-run metrics of a successful run, computed once per run. */
function metricsOf(r: DeclaredRun) {
  return projectMetrics(new Set(r.declared), new Set(r.installed), new Set(r.traced));
}

function inflationRows(ctx: AggregateContext, installedCount: (r: DeclaredRun) => number | null, languages = ctx.languages): InflationRow[] {
  return mapStrata(ctx, ctx.primary, (rows, agent, language) => {
    if (!languages.includes(language)) return null;
    const ratios: number[] = [];
    for (const r of measurable(rows)) {
      const installed = installedCount(r);
      if (r.claimedCount !== null && r.claimedCount !== 0 && installed !== null) ratios.push(installed / r.claimedCount);
    }
    return { agent, language, n: ratios.length, ratios, mean: mean(ratios) ?? 0, median: median(ratios) };
  });
}

/** Inflation uses the recorded counts, not the lists (docs/paper-data.md §4.2). */
export function inflation(ctx: AggregateContext): InflationRow[] {
  return inflationRows(ctx, (r) => r.transitiveCount);
}

/** Inflation with the paper's D2 := D1 where the paper defines it so (C++), for the languages present. */
export function inflationPaperCompatible(ctx: AggregateContext): InflationRow[] {
  return inflationRows(ctx, (r) => r.claimedCount, ctx.languages.filter(paperInstalledIsDeclared));
}

function meanOf(values: readonly (number | null)[]): number | null {
  return mean(values.filter((v): v is number => v !== null));
}

export function mismatch(ctx: AggregateContext): MismatchRow[] {
  return mapStrata(ctx, ctx.primary, (rows, agent, language) => {
    const ms = measurable(rows).map(metricsOf);
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
    const ms = measurable(rows)
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
 * Runs with an unknown D1 neither make a task sufficient nor count in a rate.
 */
export function unnecessaryDependencyRate(ctx: AggregateContext): UdrRow[] {
  const sufficient = new Set(
    measurable(ctx.runs).filter((r) => r.claimedCount === 0).map((r) => `${r.language} ${r.taskId}`),
  );
  const rows = mapStrata(ctx, ctx.primary, (stratum, agent, language) => {
    const onSufficient = measurable(stratum).filter((r) => sufficient.has(`${language} ${r.taskId}`));
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

/**
 * Tables B4/B5: packages most often phantom (D1∖D3) or hidden (D3∖D1) per language, pooled over agents; the first
 * `top` in the order (count descending, name ascending). Equal counts share a rank (competition ranking, 1 2 2 4),
 * so a package's rank does not depend on its name, and `tied` tells how many packages share its count.
 */
export function frequentGaps(ctx: AggregateContext, top: number): FrequentGapRow[] {
  const out: FrequentGapRow[] = [];
  for (const kind of ['phantom', 'hidden'] as const) {
    for (const language of ctx.languages) {
      const counts = new Map<string, number>();
      for (const r of measurable(ctx.primary)) {
        if (r.language !== language) continue;
        const [from, against] = kind === 'phantom' ? [r.declared, r.traced] : [r.traced, r.declared];
        const other = new Set(against);
        for (const name of from) if (!other.has(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const withCount = new Map<number, number>();
      for (const [, runs] of ranked) withCount.set(runs, (withCount.get(runs) ?? 0) + 1);
      let rank = 0;
      ranked.slice(0, top).forEach(([name, runs], i) => {
        if (i === 0 || ranked[i - 1]![1] !== runs) rank = i + 1;
        out.push({ kind, language, rank, name, runs, tied: withCount.get(runs)! });
      });
    }
  }
  return out;
}

/** Successful primary runs of `language` whose D1 contains `name`. */
export function declaring(ctx: AggregateContext, language: EcosystemId, name: string): number {
  return measurable(ctx.primary).filter((r) => r.language === language && r.declared.includes(name)).length;
}
