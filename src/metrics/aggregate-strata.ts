/** Grouping of runs into (agent, language) strata and per-language pools, shared by the aggregate metrics. */
import type { EcosystemId } from '../core/types.js';
import { ALL_AGENTS, type RunRecord, type TaskInfo } from './aggregate-types.js';

/** The paper's language order. */
export const LANGUAGE_ORDER: readonly EcosystemId[] = ['python', 'java', 'javascript', 'cpp'];

export interface AggregateContext {
  runs: readonly RunRecord[];
  primary: readonly RunRecord[];
  /** Agents present, alphabetical. */
  agents: string[];
  /** Languages present, in LANGUAGE_ORDER. */
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
    languages: LANGUAGE_ORDER.filter((l) => present.has(l)),
    tasks: new Map(tasks.map((t) => [t.id, t])),
  };
}

/** Runs keyed by `agent language` and `all language`. */
export function groupByStratum(rows: readonly RunRecord[]): Map<string, RunRecord[]> {
  const groups = new Map<string, RunRecord[]>();
  const push = (key: string, r: RunRecord) => {
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
export function mapStrata<T>(
  ctx: AggregateContext,
  rows: readonly RunRecord[],
  fn: (rows: RunRecord[], agent: string, language: EcosystemId) => T | null,
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

export function successful(rows: readonly RunRecord[]): RunRecord[] {
  return rows.filter((r) => r.finalSuccess);
}
