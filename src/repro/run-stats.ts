/** The reproducibility of `envproof run`'s successful final projects (`run --repro`), per agent × language. Pure. */
import { ALL_AGENTS } from '../metrics/aggregate-types.js';
import type { ReproInstanceRow } from '../store/repro-tables.js';
import type { RunKey } from '../store/types.js';
import type { CauseCategory, Verdict } from './types.js';

export interface RunReproRow {
  /** An agent, or `all` (every agent pooled, per language). */
  agent: string;
  language: string;
  /** Final projects re-run. */
  projects: number;
  /** The k of their re-runs (several when `run --repro` was given different k over time). */
  k: number[];
  verdicts: Record<Verdict, number>;
  /** Shares of `projects`, 0–1. */
  shares: Record<Verdict, number>;
  /** Mean reproduction rate r. */
  meanRate: number;
  /** How often each cause category was found (with --repro-attribute). */
  causes: Partial<Record<CauseCategory, number>>;
}

export interface RunReproducibility {
  rows: RunReproRow[];
}

function row(agent: string, language: string, of: readonly ReproInstanceRow[]): RunReproRow {
  const count = (v: Verdict) => of.filter((r) => r.verdict === v).length;
  const verdicts: Record<Verdict, number> = { reproducible: count('reproducible'), flaky: count('flaky'), broken: count('broken') };
  const share = (v: Verdict) => (of.length ? verdicts[v] / of.length : 0);
  const causes: Partial<Record<CauseCategory, number>> = {};
  for (const c of of.flatMap((r) => r.causes ?? [])) causes[c.category] = (causes[c.category] ?? 0) + 1;
  return {
    agent,
    language,
    projects: of.length,
    k: [...new Set(of.map((r) => r.k))].sort((a, b) => a - b),
    verdicts,
    shares: { reproducible: share('reproducible'), flaky: share('flaky'), broken: share('broken') },
    meanRate: of.length ? of.reduce((s, r) => s + (r.rate ?? 0), 0) / of.length : 0,
    causes,
  };
}

/**
 * One row per agent and language, then per language with every agent pooled (`all`). `instances` are the finished
 * `envproof run` instances with their run keys; only those whose key `counted` accepts enter (the report's runs).
 */
export function runReproducibility(instances: readonly { key: RunKey; row: ReproInstanceRow }[], counted: (key: RunKey) => boolean): RunReproducibility | undefined {
  const kept = instances.filter((i) => counted(i.key));
  if (kept.length === 0) return undefined;
  const sorted = [...new Set(kept.map((i) => i.key.language))].sort();
  const rows: RunReproRow[] = [];
  for (const agent of [...new Set(kept.map((i) => i.key.agent))].sort()) {
    for (const language of sorted) {
      const of = kept.filter((i) => i.key.agent === agent && i.key.language === language).map((i) => i.row);
      if (of.length) rows.push(row(agent, language, of));
    }
  }
  for (const language of sorted) rows.push(row(ALL_AGENTS, language, kept.filter((i) => i.key.language === language).map((i) => i.row)));
  return { rows };
}
