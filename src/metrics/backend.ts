/**
 * The metrics of the backend suite (seed 002), from the final evaluation of every finished backend run:
 * A% (strict: 0 when a verifier does not hold; lenient: the suite alone), pass@k with the unbiased estimator,
 * the framework table, the marginal effect of each constraint by matched pairs (± standard error), the L0→L3
 * decay, and the failure taxonomy's shares. Percentages 0–100; `null` = undefined.
 */
import type { BackendEvaluationRecord, RunKey } from '../store/types.js';
import { mean } from './stats.js';

export type BackendRun = BackendEvaluationRecord & { key: RunKey };

/** Rows with this agent pool every agent. */
export const ALL_AGENTS = 'all';

export interface LevelRow {
  agent: string;
  level: number;
  runs: number;
  tasks: number;
  aStrictPct: number;
  aLenientPct: number;
  /** Mean over tasks of the share of passing trials (the unbiased pass@1). */
  pass1Pct: number;
}

export interface PassAtKRow {
  agent: string;
  k: number;
  /** Tasks with at least k trials. */
  tasks: number;
  passAtKPct: number;
}

export interface FrameworkRow {
  agent: string;
  framework: string;
  runs: number;
  aStrictPct: number;
  aLenientPct: number;
  pass1Pct: number;
}

export type ConstraintName = 'architecture' | 'sqlite' | 'postgresql' | 'orm';

export interface MarginalRow {
  agent: string;
  constraint: ConstraintName;
  /** Matched task pairs (same framework, the other constraints equal). */
  pairs: number;
  /** Mean of A%(with) − A%(without), percentage points, strict A%. */
  deltaPct: number | null;
  /** Standard error of that mean (sample standard deviation / √pairs). */
  stdErr: number | null;
}

export interface DecayRow {
  agent: string;
  l0Pct: number | null;
  l3Pct: number | null;
  /** L0 − L3, percentage points of strict A%. */
  dropPts: number | null;
  /** The drop as a share of L0, %. */
  relativePct: number | null;
}

export interface TaxonomyRow {
  agent: string;
  kind: 'coarse' | 'root-cause';
  category: string;
  count: number;
  /** Coarse: % of failed runs; root cause: % of judged logic errors. */
  sharePct: number;
}

export interface BackendReport {
  runs: number;
  agents: string[];
  levels: LevelRow[];
  passAtK: PassAtKRow[];
  frameworks: FrameworkRow[];
  marginal: MarginalRow[];
  decay: DecayRow[];
  taxonomy: TaxonomyRow[];
}

/** The unbiased estimator of pass@k from n samples with c correct: 1 − C(n−c, k) / C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new Error(`pass@${k} needs at least ${k} samples, got ${n}`);
  if (n - c < k) return 1;
  let ratio = 1;
  for (let i = n - c + 1; i <= n; i++) ratio *= 1 - k / i;
  return 1 - ratio;
}

/** A task is its framework and its constraints. */
function taskKey(r: BackendRun): string {
  const c = r.constraints;
  return `${r.framework}|${c.architecture ?? ''}|${c.database ?? ''}|${c.orm ?? ''}`;
}

function byKey<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const t of items) m.set(key(t), [...(m.get(key(t)) ?? []), t]);
  return m;
}

const avg = (xs: readonly number[]) => mean(xs) ?? 0;

/** Mean over tasks of the passing share of each task's trials. */
function pass1(runs: readonly BackendRun[]): number {
  return 100 * avg([...byKey(runs, taskKey).values()].map((t) => t.filter((r) => r.passed).length / t.length));
}

function perAgent(runs: readonly BackendRun[]): [string, BackendRun[]][] {
  const agents = [...new Set(runs.map((r) => r.key.agent))].sort();
  return [...agents.map((a) => [a, runs.filter((r) => r.key.agent === a)] as [string, BackendRun[]]), [ALL_AGENTS, [...runs]]];
}

function levels(agent: string, runs: BackendRun[]): LevelRow[] {
  return [0, 1, 2, 3].flatMap((level) => {
    const at = runs.filter((r) => r.level === level);
    if (at.length === 0) return [];
    return [{ agent, level, runs: at.length, tasks: byKey(at, taskKey).size, aStrictPct: avg(at.map((r) => r.aStrict)), aLenientPct: avg(at.map((r) => r.aLenient)), pass1Pct: pass1(at) }];
  });
}

function passAtKRows(agent: string, runs: BackendRun[]): PassAtKRow[] {
  const tasks = [...byKey(runs, taskKey).values()];
  const maxN = Math.max(0, ...tasks.map((t) => t.length));
  const out: PassAtKRow[] = [];
  for (let k = 1; k <= maxN; k++) {
    const eligible = tasks.filter((t) => t.length >= k);
    out.push({ agent, k, tasks: eligible.length, passAtKPct: 100 * avg(eligible.map((t) => passAtK(t.length, t.filter((r) => r.passed).length, k))) });
  }
  return out;
}

function frameworkRows(agent: string, runs: BackendRun[]): FrameworkRow[] {
  return [...byKey(runs, (r) => r.framework)].sort(([a], [b]) => a.localeCompare(b)).map(([framework, at]) => ({
    agent,
    framework,
    runs: at.length,
    aStrictPct: avg(at.map((r) => r.aStrict)),
    aLenientPct: avg(at.map((r) => r.aLenient)),
    pass1Pct: pass1(at),
  }));
}

/** Whether a task has the constraint, and the key of its twin without it (undefined when it cannot have one). */
function without(c: ConstraintName, r: BackendRun): string | undefined {
  const k = r.constraints;
  switch (c) {
    case 'architecture':
      return k.architecture ? `${r.framework}||${k.database ?? ''}|${k.orm ?? ''}` : undefined;
    case 'sqlite':
    case 'postgresql':
      // A database without an ORM; with an ORM the twin would need an ORM without a database, which is no task.
      return k.database === c && !k.orm ? `${r.framework}|${k.architecture ?? ''}||` : undefined;
    case 'orm':
      return k.orm ? `${r.framework}|${k.architecture ?? ''}|${k.database ?? ''}|` : undefined;
  }
}

function marginalRows(agent: string, runs: BackendRun[]): MarginalRow[] {
  const meanA = new Map([...byKey(runs, taskKey)].map(([k, t]) => [k, avg(t.map((r) => r.aStrict))]));
  const tasks = [...byKey(runs, taskKey).values()].map((t) => t[0]!);
  return (['architecture', 'sqlite', 'postgresql', 'orm'] as const).map((constraint) => {
    const deltas = tasks.flatMap((t) => {
      const twin = without(constraint, t);
      return twin !== undefined && meanA.has(twin) ? [meanA.get(taskKey(t))! - meanA.get(twin)!] : [];
    });
    const m = mean(deltas);
    const sd = deltas.length > 1 ? Math.sqrt(deltas.reduce((s, d) => s + (d - m!) ** 2, 0) / (deltas.length - 1)) : null;
    return { agent, constraint, pairs: deltas.length, deltaPct: m, stdErr: sd === null ? null : sd / Math.sqrt(deltas.length) };
  });
}

function decayRow(agent: string, rows: readonly LevelRow[]): DecayRow {
  const at = (l: number) => rows.find((r) => r.agent === agent && r.level === l)?.aStrictPct ?? null;
  const [l0, l3] = [at(0), at(3)];
  const drop = l0 !== null && l3 !== null ? l0 - l3 : null;
  return { agent, l0Pct: l0, l3Pct: l3, dropPts: drop, relativePct: drop !== null && l0 ? (100 * drop) / l0 : null };
}

function taxonomyRows(agent: string, runs: BackendRun[]): TaxonomyRow[] {
  const failed = runs.filter((r) => !r.passed);
  const judged = failed.filter((r) => r.failureClass === 'logic-error' && r.rootCause);
  const shares = (kind: TaxonomyRow['kind'], items: BackendRun[], of: (r: BackendRun) => string) =>
    [...byKey(items, of)].sort(([a], [b]) => a.localeCompare(b)).map(([category, xs]) => ({ agent, kind, category, count: xs.length, sharePct: (100 * xs.length) / items.length }));
  return [...shares('coarse', failed, (r) => r.failureClass ?? 'unclassified'), ...shares('root-cause', judged, (r) => r.rootCause!)];
}

export function computeBackendReport(runs: readonly BackendRun[]): BackendReport {
  const groups = perAgent(runs);
  const levelRows = groups.flatMap(([a, rs]) => levels(a, rs));
  return {
    runs: runs.length,
    agents: groups.map(([a]) => a).filter((a) => a !== ALL_AGENTS),
    levels: levelRows,
    passAtK: groups.flatMap(([a, rs]) => passAtKRows(a, rs)),
    frameworks: groups.flatMap(([a, rs]) => frameworkRows(a, rs)),
    marginal: groups.flatMap(([a, rs]) => marginalRows(a, rs)),
    decay: groups.map(([a]) => decayRow(a, levelRows)),
    taxonomy: groups.flatMap(([a, rs]) => taxonomyRows(a, rs)),
  };
}
