/** Agreement of declared sets: across agents on one task (Fig. 9) and across one agent's trials (Table 5). */
import { ALL_AGENTS, type CrossAgentRow, type RunRecord, type StabilityRow } from './aggregate-types.js';
import { measurable, type AggregateContext, type DeclaredRun } from './aggregate-strata.js';
import { jaccard, mean, median, pct } from './stats.js';

export const ALL_PAIRS = 'all pairs';

function summarise(language: RunRecord['language'], pair: string, values: readonly number[]): CrossAgentRow {
  return {
    language,
    pair,
    nTasks: values.length,
    meanJaccard: mean(values),
    cdrPct: pct(values.filter((j) => j === 0).length, values.length),
  };
}

/** Pairs of agents (alphabetical), per language; both agents' primary runs of a task must be successful. */
export function crossAgent(ctx: AggregateContext): { rows: CrossAgentRow[]; cdrMacroPct: number | null } {
  const rows: CrossAgentRow[] = [];
  const pooledCdr: number[] = [];
  for (const language of ctx.languages) {
    // Both agents' runs of a task must be successful with a known D1.
    const byAgentTask = new Map<string, DeclaredRun>();
    for (const r of measurable(ctx.primary)) if (r.language === language) byAgentTask.set(`${r.agent} ${r.taskId}`, r);
    const taskIds = [...new Set(ctx.primary.filter((r) => r.language === language).map((r) => r.taskId))].sort();
    const pooled: number[] = [];
    for (let i = 0; i < ctx.agents.length; i++) {
      for (let j = i + 1; j < ctx.agents.length; j++) {
        const a = ctx.agents[i]!;
        const b = ctx.agents[j]!;
        const values: number[] = [];
        for (const task of taskIds) {
          const ra = byAgentTask.get(`${a} ${task}`);
          const rb = byAgentTask.get(`${b} ${task}`);
          if (ra && rb) values.push(jaccard(new Set(ra.declared), new Set(rb.declared)));
        }
        rows.push(summarise(language, `${a}-${b}`, values));
        pooled.push(...values);
      }
    }
    if (ctx.agents.length < 2) continue;
    const all = summarise(language, ALL_PAIRS, pooled);
    rows.push(all);
    if (all.cdrPct !== null) pooledCdr.push(all.cdrPct);
  }
  return { rows, cdrMacroPct: mean(pooledCdr) };
}

interface TaskStability {
  jaccard: number;
  unanimous: boolean;
  union: number;
  core: number;
}

function taskStability(sets: readonly Set<string>[]): TaskStability {
  const pairs: number[] = [];
  for (let i = 0; i < sets.length; i++) for (let j = i + 1; j < sets.length; j++) pairs.push(jaccard(sets[i]!, sets[j]!));
  const union = new Set(sets.flatMap((s) => [...s]));
  const core = [...union].filter((x) => sets.every((s) => s.has(x)));
  const first = sets[0]!;
  const unanimous = sets.every((s) => s.size === first.size && [...s].every((x) => first.has(x)));
  return { jaccard: mean(pairs) ?? 1, unanimous, union: union.size, core: core.length };
}

function stabilityRow(agent: string, language: RunRecord['language'], trials: number[], tasks: TaskStability[]): StabilityRow {
  const unanimous = tasks.filter((t) => t.unanimous).length;
  return {
    agent,
    language,
    trials,
    nTasks: tasks.length,
    meanJaccard: mean(tasks.map((t) => t.jaccard)),
    medianJaccard: median(tasks.map((t) => t.jaccard)),
    unanimous,
    ucrPct: pct(unanimous, tasks.length),
    meanUnion: mean(tasks.map((t) => t.union)),
    meanCore: mean(tasks.map((t) => t.core)),
  };
}

/**
 * Table 5, for every agent that ran a language in two or more trials: a task counts when the agent has a run for
 * every one of its trials and all are successful. The `all` row pools the tasks of those agents.
 */
export function stability(ctx: AggregateContext): StabilityRow[] {
  const rows: StabilityRow[] = [];
  const pooled = new Map<string, { trials: Set<number>; tasks: TaskStability[] }>();
  for (const agent of ctx.agents) {
    for (const language of ctx.languages) {
      const runs = ctx.runs.filter((r) => r.agent === agent && r.language === language);
      const trials = [...new Set(runs.map((r) => r.trial))].sort((a, b) => a - b);
      if (trials.length < 2) continue;
      // A task counts when every trial's run is successful with a known D1.
      const byTask = new Map<string, Map<number, DeclaredRun>>();
      for (const r of measurable(runs)) {
        const m = byTask.get(r.taskId) ?? new Map<number, DeclaredRun>();
        m.set(r.trial, r);
        byTask.set(r.taskId, m);
      }
      const tasks: TaskStability[] = [];
      for (const task of [...byTask.keys()].sort()) {
        const perTrial = trials.map((t) => byTask.get(task)!.get(t));
        if (perTrial.every((r) => r !== undefined)) tasks.push(taskStability(perTrial.map((r) => new Set(r!.declared))));
      }
      rows.push(stabilityRow(agent, language, trials, tasks));
      const pool = pooled.get(language) ?? { trials: new Set<number>(), tasks: [] };
      trials.forEach((t) => pool.trials.add(t));
      pool.tasks.push(...tasks);
      pooled.set(language, pool);
    }
  }
  for (const language of ctx.languages) {
    const pool = pooled.get(language);
    if (pool) rows.push(stabilityRow(ALL_AGENTS, language, [...pool.trials].sort((a, b) => a - b), pool.tasks));
  }
  return rows;
}
