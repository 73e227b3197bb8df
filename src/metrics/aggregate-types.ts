/**
 * The aggregate model: what `envproof report` computes from many runs, for imported paper data and for
 * envproof's own runs alike. Plain data, no I/O; every writer (md, csv, json, html) renders this.
 *
 * Conventions (docs/paper-data.md):
 * - percentages are 0–100, rates and ratios 0–1, all values unrounded (writers round);
 * - `null` means undefined (e.g. EGAR with no system-library failures), never "zero";
 * - `agent: 'all'` rows pool the agents' rows of a language (not an average of agent means);
 * - row order: agents alphabetically, then 'all'; languages python, java, javascript, cpp.
 */
import type { EcosystemId } from '../core/types.js';
import type { BackendReport } from './backend.js';
import type { RunReproducibility } from '../repro/run-stats.js';

export type RunSource = 'envgap-csv' | 'envproof';

/** One generation-and-repair session: a task, a language, an agent, a trial. */
export interface RunRecord {
  source: RunSource;
  agent: string;
  language: EcosystemId;
  /** e.g. `p_01`. */
  taskId: string;
  /** 1-based. */
  trial: number;
  /** Primary runs are the ones the per-stratum metrics use (the paper: trial 1 of every agent). */
  primary: boolean;
  firstSuccess: boolean;
  finalSuccess: boolean;
  /** Repair rounds until success (0 = first attempt); null when failed or not known (imported data). */
  repairDepth: number | null;
  /** Error class of the first attempt as recorded (`None`, `MissingDep`, `SystemLib`, ...); null when absent. */
  initialErrorType: string | null;
  /**
   * D1, D2, D3: normalised, de-duplicated, sorted package names. D1 is null when the first manifest M(0) could not
   * be read: what the agent declared is unknown, and the run is left out of every dependency-set metric.
   */
  declared: string[] | null;
  installed: string[];
  traced: string[];
  /** Declared/installed counts as recorded: the agent's own figures for imported data, set sizes for envproof runs. */
  claimedCount: number | null;
  transitiveCount: number | null;
}

export interface TaskInfo {
  /** Whose task this is; with runs of several sources, a task only describes the runs of its own source. */
  source?: RunSource;
  id: string;
  title?: string;
  /** The task domain (the paper's `category`). */
  domain: string;
  complexity?: string;
}

/** Label of rows that pool every agent. */
export const ALL_AGENTS = 'all';

export interface ConvergenceRow {
  agent: string;
  language: EcosystemId;
  /** Primary runs in the stratum. */
  n: number;
  firstSuccesses: number;
  finalSuccesses: number;
  sr0Pct: number | null;
  finalSrPct: number | null;
  firstAttemptFailures: number;
  /** Failed first attempts that ended successful. */
  repaired: number;
  /** 100 × repaired / failures; 100 when there were no failures. */
  repairedPct: number | null;
}

export type RepairBucket = '0' | '1-3' | '4-7' | '8-10' | '>10' | 'failed' | 'unknown';
/** The paper's buckets for k ≤ 10, and `>10` for runs given more repair rounds (`envproof run --repairs`). */
export const REPAIR_BUCKETS: readonly RepairBucket[] = ['0', '1-3', '4-7', '8-10', '>10', 'failed', 'unknown'];

/** Repair-depth distribution (Fig. 5). `unknown`: succeeded after repair, depth not recorded (imported data). */
export interface RepairBucketRow {
  agent: string;
  language: EcosystemId;
  n: number;
  counts: Record<RepairBucket, number>;
}

export interface InflationRow {
  agent: string;
  language: EcosystemId;
  /** Number of contributing ratios (successful primary runs with a non-zero declared count and an installed count). */
  n: number;
  ratios: number[];
  mean: number;
  median: number | null;
}

export interface MismatchRow {
  agent: string;
  language: EcosystemId;
  /** Successful primary runs. */
  n: number;
  phantom: number | null;
  hidden: number | null;
  bloat: number | null;
}

/** Table 4: D1 against D3, per-run values averaged. */
export interface AccuracyRow {
  agent: string;
  language: EcosystemId;
  /** Successful primary runs with D1 or D3 non-empty. */
  n: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

/** Fig. 9: agreement of D1 between two agents on the same task (pair `all pairs` pools the pairs). */
export interface CrossAgentRow {
  language: EcosystemId;
  /** `a-b` with a < b alphabetically, or `all pairs`. */
  pair: string;
  nTasks: number;
  meanJaccard: number | null;
  /** Share (%) of tasks whose declared sets are completely disjoint (Jaccard exactly 0). */
  cdrPct: number | null;
}

/** Table 5: one agent's repeated trials of the same task. */
export interface StabilityRow {
  agent: string;
  language: EcosystemId;
  trials: number[];
  /** Tasks with a run for every trial, all successful. */
  nTasks: number;
  meanJaccard: number | null;
  medianJaccard: number | null;
  unanimous: number;
  /** Unanimous consensus rate, %. */
  ucrPct: number | null;
  meanUnion: number | null;
  meanCore: number | null;
}

/** Table 6: C++ system-library assumptions. */
export interface SyslibRow {
  agent: string;
  firstAttemptFailures: number;
  syslib: number;
  slarPct: number | null;
  recovered: number;
  /** Undefined (null) when there are no system-library failures. */
  egarPct: number | null;
}

/** Fig. 10: convergence per task domain, pooled over languages. */
export interface DomainRow {
  agent: string;
  domain: string;
  n: number;
  sr0Pct: number | null;
  finalSrPct: number | null;
}

export interface WeakestDomain {
  agent: string;
  domain: string;
  sr0Pct: number;
}

/** Fig. 11: unnecessary dependency rate on standard-library-sufficient tasks. `language: 'macro'` rows average the languages. */
export interface UdrRow {
  agent: string;
  language: EcosystemId | 'macro';
  nTasks: number | null;
  withExternalDep: number | null;
  udrPct: number;
}

/** Table A1: Spearman rank correlation of |D1| with first-attempt success. */
export interface SpearmanRow {
  agent: string;
  language: EcosystemId;
  n: number;
  rho: number | null;
  /** Two-sided p-value, t approximation with n − 2 degrees of freedom. */
  pValue: number | null;
}

/**
 * Tables B4/B5: how many successful primary runs have the package phantom (declared, not traced) or hidden.
 * Ties (docs/report.md): packages with the same count share a rank (1, 2, 2, 4), are listed alphabetically, and
 * `tied` says how many packages have that count, listed or not.
 */
export interface FrequentGapRow {
  kind: 'phantom' | 'hidden';
  language: EcosystemId;
  rank: number;
  name: string;
  runs: number;
  /** Packages of this language and kind with the same count, this one included. */
  tied: number;
}

/** Runs left out of every metric, per (agent, language) and pooled per language. */
export interface SetAsideRow {
  agent: string;
  language: EcosystemId;
  /** Runs that ended and are counted. */
  counted: number;
  /** Runs the machinery (sandbox, registry, model API) failed beyond its retries: not the agent's failures. */
  infrastructureFailed: number;
  /** Runs still being recorded, or stopped before they ended. */
  unfinished: number;
}

/** A run set aside after infrastructure failures, and why (the store's reason; null for runs set aside before v7). */
export interface SetAsideRun {
  agent: string;
  language: EcosystemId;
  taskId: string;
  trial: number;
  reason: string | null;
}

/** Which runs the report is about: one source, or every source with agents and tasks keyed by their source. */
export type ReportSource = RunSource | 'all';

export interface AggregateReport {
  /** Shape version of this object, bumped on incompatible changes. */
  schemaVersion: 1;
  /** The runs' source; `all` when several sources are pooled (agents and tasks then read `<source>/<name>`). */
  source: ReportSource;
  agents: string[];
  languages: EcosystemId[];
  domains: string[];
  counts: {
    totalRuns: number;
    primaryRuns: number;
    sources: Partial<Record<RunSource, number>>;
    /** Tasks per domain (Table 1), in descending count then alphabetical order. */
    tasksPerDomain: { domain: string; tasks: number }[];
    /** Successful primary C++ runs whose D1 contains `nlohmann-json`. */
    cppNlohmannJson: number;
  };
  convergence: ConvergenceRow[];
  repairBuckets: RepairBucketRow[];
  inflation: InflationRow[];
  /**
   * Inflation with the paper's D2 for the languages where the paper defines D2 := D1 (C++: CMake resolves nothing
   * transitively), beside `inflation`, which uses D2 as recorded (for envproof's runs, what CMake configure found).
   */
  inflationPaperCompatible: InflationRow[];
  mismatch: MismatchRow[];
  manifestAccuracy: AccuracyRow[];
  crossAgent: CrossAgentRow[];
  /** Unweighted mean of the languages' pooled CDRs. */
  cdrMacroPct: number | null;
  stability: StabilityRow[];
  syslib: SyslibRow[];
  domainConvergence: DomainRow[];
  weakestDomains: WeakestDomain[];
  udr: UdrRow[];
  spearman: SpearmanRow[];
  frequentGaps: FrequentGapRow[];
  setAside: SetAsideRow[];
  /** Every run set aside after infrastructure failures, with its reason. */
  setAsideRuns: SetAsideRun[];
  /** The backend suite's metrics (seed 002), when the store holds backend runs. */
  backend?: BackendReport;
  /** How many successful final projects reproduce in fresh re-runs, when `envproof run --repro` recorded any. */
  reproducibility?: RunReproducibility;
}
