/** Grouping of runs into (agent, language) strata and per-language pools, shared by the aggregate metrics. */
import type { EcosystemId } from '../core/types.js';
import { ecosystemIds } from '../ecosystems/index.js';
import { ALL_AGENTS, type RunRecord, type TaskInfo } from './aggregate-types.js';


export interface AggregateContext {
  runs: readonly RunRecord[];
  primary: readonly RunRecord[];
  /** Agents present, alphabetical. */
  agents: string[];
  /** Languages present, in the registry's order (the paper's for its four). */
  languages: EcosystemId[];
  tasks: ReadonlyMap<string, TaskInfo>;
}

export function makeContext(runs: readonly RunRecord[], tasks: readonly TaskInfo[]): AggregateContext {
  const agents = [...new Set(runs.map((r) => r.agent))].sort();
  const present = new Set(runs.map((r) => r.language));
  return {
    runs,
    primary: runs.filter((r) => r.primary),
    agents,
    languages: ecosystemIds().filter((l) => present.has(l)),
    tasks: new Map(tasks.map((t) => [t.id, t])),
  };
}

/** Runs keyed by `agent language` and `all language`. */
export function groupByStratum<R extends RunRecord>(rows: readonly R[]): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  const push = (key: string, r: R) => {
    const list = groups.get(key);
    if (list) list.push(r);
    else groups.set(key, [r]);
  };
  for (const r of rows) {
    push(`${r.agent} ${r.language}`, r);
    push(`${ALL_AGENTS} ${r.language}`, r);
  }
  return groups;
}

/**
 * Calls `fn` for every (agent, language) stratum of `rows` that has rows, agents first (alphabetically, languages in
 * order), then the pooled `all` rows per language; collects the non-null results.
 */
export function mapStrata<R extends RunRecord, T>(
  ctx: AggregateContext,
  rows: readonly R[],
  fn: (rows: R[], agent: string, language: EcosystemId) => T | null,
): T[] {
  const groups = groupByStratum(rows);
  const out: T[] = [];
  for (const agent of [...ctx.agents, ALL_AGENTS]) {
    for (const language of ctx.languages) {
      const stratum = groups.get(`${agent} ${language}`);
      if (!stratum) continue;
      const value = fn(stratum, agent, language);
      if (value !== null) out.push(value);
    }
  }
  return out;
}

/** A run whose first manifest could be read: D1 is known. */
export type DeclaredRun = RunRecord & { declared: string[] };

export function hasDeclared(r: RunRecord): r is DeclaredRun {
  return r.declared !== null;
}

/**
 * The runs the dependency-set metrics use: successful, with a known D1. A run whose first manifest could not be
 * read declared something unknown, not nothing, so it is left out rather than counted as declaring nothing.
 */
export function measurable(rows: readonly RunRecord[]): DeclaredRun[] {
  return rows.filter((r): r is DeclaredRun => r.finalSuccess && hasDeclared(r));
}
