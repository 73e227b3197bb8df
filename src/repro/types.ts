/** The data model of `envproof repro`: plain data, no I/O. */

/** What one run of the test command came to. */
export type OutcomeStatus = 'pass' | 'fail' | 'timeout' | 'not-started' | 'install-failed';

export type TestResult = 'passed' | 'failed' | 'skipped';

/** The test runners whose per-test results envproof reads. */
export type RunnerId = 'pytest' | 'jest' | 'vitest' | 'node-test' | 'go-test' | 'surefire' | 'ctest';

export interface Outcome {
  status: OutcomeStatus;
  exitCode: number | null;
  /** Which runner's results `tests` holds; absent when the command's runner is not one envproof reads. */
  runner?: RunnerId;
  /** Per test id, its result; absent when unknown (unknown runner, or its report was not written). */
  tests?: Record<string, TestResult>;
  /** Why a run never started, or why the runner's report could not be read. */
  note?: string;
}

export const FACTORS = [
  'timezone',
  'locale',
  'clock',
  'path',
  'home',
  'umask',
  'cpus',
  'test-order',
  'hash-seed',
  'network',
  'dependency-drift',
] as const;
export type FactorId = (typeof FACTORS)[number];

/** The seed paper's failure categories. */
export type CauseCategory = 'implicit-environment' | 'dependency-drift' | 'time-date' | 'test-order' | 'network' | 'other';

/**
 * What one run did with one factor: `value` as set (e.g. "TZ=Pacific/Kiritimati"); `applied` false with `note` when it
 * could not. `drawn`: a factor that is random by default (Python's hash seed, pytest-randomly's order), left to chance
 * as the default environment would but with the value drawn by envproof and recorded in `seed`, so that it can be replayed.
 */
export interface FactorSetting {
  factor: FactorId;
  mode: 'varied' | 'pinned' | 'drawn';
  value: string;
  applied: boolean;
  /** The seed the run used, for the factors that take one (hash seed, shuffle seed). */
  seed?: number;
  note?: string;
}

/** What a traced run loaded: D3 as `name version` (the project's own packages left out), and how it was traced. */
export interface LoadedSet {
  tracer: 'fast' | 'strace';
  loaded: string[];
  notes: string[];
}

export interface RunRecord {
  /** What this run changed from the default environment (empty: the default environment). */
  variation: FactorSetting[];
  /** The role of the run: `reference`, `rerun`, `control`, `factor`, `narrowing`, `shim`, `default` (beside each shim run, for its overhead). */
  role: 'reference' | 'rerun' | 'control' | 'factor' | 'narrowing' | 'shim' | 'default';
  outcome: Outcome;
  matches: boolean;
  /** Differences from the reference (status, tests that changed). */
  differences: string[];
  /** Wall-clock time of the test command. */
  durationMs: number;
  /** Wall-clock time of the install before it: the fresh install, or the copy of a shared one (`install`). */
  installMs: number;
  /** `fresh`: installed for this run; `reused`: a fresh copy of the install of an earlier run of the same kind (docs/repro.md). */
  install?: 'fresh' | 'reused';
  /** With --tracer: what the run loaded. */
  traced?: LoadedSet;
  /** With --tracer, when the reference run was traced too: how the loaded set differs from the reference run's. */
  loadedDifferences?: string[];
}

export type Verdict = 'reproducible' | 'flaky' | 'broken';

/** How a factor's runs in attribution compared with the control's (every factor pinned). */
export interface CauseStatistics {
  /** The factor's runs that differed from the reference, of `trials`, with the 95% Wilson interval of that rate. */
  mismatched: number;
  trials: number;
  interval: [number, number];
  controlMismatched: number;
  controlTrials: number;
  /** Fisher's exact test (two-sided) of the two arms' match/mismatch counts. */
  p: number;
  /** p below the level; false: named only because every run of the factor differed and none of the control's did, in too few trials to tell. */
  significant: boolean;
}

export interface Cause {
  /** `nondeterministic`: the outcome varies with every factor pinned (a race, a random seed envproof does not know). */
  factor: FactorId | 'unknown' | 'nondeterministic';
  category: CauseCategory;
  evidence: string;
  /** For a factor tried in attribution: its runs against the control's. */
  statistics?: CauseStatistics;
}

/**
 * What the reference ran under, as far as it was recorded: the control and the shim pin these factors to these
 * values, so that they replay the reference. Every field is optional in a reference file.
 */
export interface ReferenceEnvironment {
  /** TZ (an IANA name, e.g. Asia/Shanghai). */
  timezone?: string;
  /** LANG and LC_ALL (e.g. de_DE.UTF-8). */
  locale?: string;
  /** The clock the run read as it started (ISO 8601); absent: `recordedAt`. */
  date?: string;
  /** The seeds of the factors random by default (hash-seed, test-order) the run used. */
  seeds?: Partial<Record<FactorId, number>>;
  /** `<os>-<arch>` as Node names them (linux-x64): not a factor repro can vary, said when it differs. */
  platform?: string;
}

export interface Reference {
  /** `file` (given with --reference) or `first-run` (the first run in the default environment). */
  source: 'file' | 'first-run';
  path?: string;
  /** When the reference outcome was recorded (ISO 8601): the date the shim's clock and index are pinned to. */
  recordedAt: string;
  outcome: Outcome;
  /** What the reference ran under; absent from a reference file that does not say. */
  environment?: ReferenceEnvironment;
}

export interface ShimSummary {
  verdict: Verdict;
  rate: number;
  /** The 95% Wilson interval of the rate. */
  rateInterval: [number, number];
  runs: RunRecord[];
  /** Runs in the default environment, each made just before the shim run of the same index (the overhead's baseline). */
  defaultRuns: RunRecord[];
  /** The median over the pairs (default run, shim run) of the shim run's test-command time over the default run's. */
  overheadRatio: number | null;
  /** The spread of those pairwise ratios; absent when no pair had a test time. */
  overheadSpread?: { min: number; q1: number; q3: number; max: number; pairs: number };
  /** What the shim pinned, as set. */
  pins: string[];
}

export interface ReproReport {
  schemaVersion: 1;
  tool: { name: 'envproof'; version: string };
  project: string;
  command: string;
  kind: string;
  sandbox: string;
  verdict: Verdict;
  rate: number;
  /** The 95% Wilson interval of the rate over the k re-runs. */
  rateInterval: [number, number];
  k: number;
  vary: FactorId[];
  /** The tracer of every run (--tracer); absent: the runs were not traced. */
  tracer?: 'auto' | 'fast' | 'strace';
  reference: Reference;
  runs: RunRecord[];
  /** Present with --attribute: empty for a reproducible project. */
  causes?: Cause[];
  /** With --attribute: the runs the attribution made (control, one factor at a time, narrowing). */
  attributionRuns?: RunRecord[];
  /**
   * With --attribute, when some re-run differed: `first-cause` stopped at the first factor that was a cause, `all`
   * (--attribute all) tried every one; `order` is the order they were tried in, `notTried` those never run.
   */
  attribution?: { mode: 'first-cause' | 'all'; order: FactorId[]; notTried: FactorId[] };
  shim?: ShimSummary;
  notes: string[];
}
