import type { EcosystemId, GapSets, ProjectMetrics, SkippedEntry } from '../core/types.js';
import type { BackendChoice } from '../sandbox/index.js';
import type { ExecIsolation, SandboxBackend } from '../sandbox/types.js';

/** Version of the `envproof audit --json` document; bumped on any incompatible change (docs/audit-json.md). */
export const AUDIT_SCHEMA_VERSION = 1;

export interface LayerEntry {
  name: string;
  version?: string;
  id?: string;
}

export interface RunOutcome {
  /** The command as a shell-quoted string. */
  command: string;
  argv: string[];
  /** Why this command was traced (e.g. "--run", "package.json bin"). */
  reason: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  success: boolean;
  durationMs: number;
  /** The tail of what the program printed (stdout then stderr). */
  outputTail: string;
  /** What isolation the traced run really had (the host backend may give less than asked for). */
  isolation: ExecIsolation;
}

export interface PhaseTimes {
  prepare: number;
  install: number;
  build: number;
  /** The program's run under strace. */
  run: number;
  /** Reading the trace: parsing the log, resolving symlinks, reaping leftovers. */
  tracing: number;
  analysis: number;
}

export interface AuditReport {
  schemaVersion: typeof AUDIT_SCHEMA_VERSION;
  tool: { name: 'envproof'; version: string };
  project: string;
  ecosystem: EcosystemId;
  manifest: string;
  /**
   * `baseline`: how many packages the clean environment holds before anything is installed (Debian's, and each
   * package manager's). D2 is measured inside a private environment created from it, so they are never in D2.
   */
  /** `requested`: the user's --sandbox choice (`auto` included), `backend` the one that ran. */
  sandbox: { backend: SandboxBackend; requested: BackendChoice; warning?: string; baseline?: { debian: number; packages: Record<string, number> } };
  layers: { declared: LayerEntry[]; installed: LayerEntry[]; traced: LayerEntry[] };
  /**
   * Debian packages the project needs beyond the clean environment, as the user named them (--system-packages),
   * with the versions the environment installed; empty in the paper's strict clean environment.
   */
  systemDependencies: { name: string; version: string }[];
  /** Declared but not part of D1: devDependencies, test scope, constraints, optional extras, ... */
  otherDeclared: Record<string, LayerEntry[]>;
  skipped: SkippedEntry[];
  /** Other views of D3 (Java opened vs loaded, C++ build-time), keyed by name. */
  alternatives: Record<string, LayerEntry[]>;
  /** The gaps and metrics with each alternative view in place of D3. */
  alternativeMetrics: Record<string, { gaps: GapSets; metrics: ProjectMetrics }>;
  gaps: GapSets;
  metrics: ProjectMetrics;
  run: RunOutcome;
  phasesMs: PhaseTimes;
  /** Per traced package, a few files that put it in D3. */
  evidence: Record<string, string[]>;
  install: { commands: string[]; details?: Record<string, unknown> };
  notes: string[];
  /** Present with --keep. */
  workDir?: string;
}
