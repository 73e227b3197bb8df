import type { EcosystemId, GapSets, ProjectMetrics, SkippedEntry } from '../core/types.js';
import type { SandboxBackend } from '../sandbox/types.js';
import type { TracerName } from '../trace/index.js';

/** What tracing cost on this project (`--overhead n`). */
export interface Overhead {
  /** The tracer of the traced runs. */
  tracer: TracerName;
  /** Runs of each kind. */
  n: number;
  untracedMedianMs: number;
  tracedMedianMs: number;
  /** The median of the n ratios traced ÷ untraced, each traced run with the untraced run before it. */
  ratio: number;
}

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
  /** Which tracer traced the run: `fast` (kernel events) or `strace`. */
  tracer: TracerName;
  /** With --overhead. */
  overhead?: Overhead;
}

export interface PhaseTimes {
  prepare: number;
  install: number;
  build: number;
  /** The program's traced run. */
  run: number;
  /** What the tracer adds around the run: starting, reading its output, resolving symlinks, reaping leftovers. */
  tracing: number;
  analysis: number;
  /** The runs of --overhead (0 without it). */
  overhead: number;
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
  sandbox: { backend: SandboxBackend; warning?: string; baseline?: { debian: number; packages: Record<string, number> } };
  layers: { declared: LayerEntry[]; installed: LayerEntry[]; traced: LayerEntry[] };
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
