import type { EcosystemId, GapSets, ProjectMetrics, SkippedEntry } from '../core/types.js';
import type { ComponentHash, ManifestLocation } from '../ecosystems/outputs.js';
import type { SandboxBackend } from '../sandbox/types.js';

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

/** One package the audit saw installed or loaded, with what the SBOM says about it (docs/sbom.md). */
export interface ComponentEntry {
  name: string;
  version?: string;
  id?: string;
  /** The package URL, canonical form. */
  purl?: string;
  /** The hashes the package manager gives for it; empty when it gives none. */
  hashes: ComponentHash[];
  hashSource?: string;
  /** `name@version` keys of the components it depends on (the package manager's graph). */
  dependsOn: string[];
  /** The project depends on it directly: in the package manager's graph, else declared. */
  direct: boolean;
  /** In D1, D2, D3 (by name for D1, as the metrics compare them). */
  declared: boolean;
  installed: boolean;
  loaded: boolean;
  /**
   * Every traced file that shows it loaded: relative to the project when inside it, `$ENVPROOF_ENV/...` inside the
   * audit's private environment, absolute otherwise. Empty when it was not loaded.
   */
  files: string[];
}

export const FINDING_KINDS = ['phantom', 'hidden', 'unpinned', 'bloat', 'transitive'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/**
 * `unused`: declared, and nothing in the code imports it (remove it). `not-traced`: the code imports it, on a path
 * the traced runs did not take (trace more entry points). Only when the ecosystem reads static imports.
 */
export type PhantomClass = 'unused' | 'not-traced';

/** One gap, per package, with where it is written and what to do about it. */
export interface Finding {
  kind: FindingKind;
  name: string;
  /** The version that was installed or loaded, when there is one. */
  version?: string;
  /** The manifest line of the declaration; for hidden packages, the manifest itself. */
  location?: ManifestLocation;
  phantom?: PhantomClass;
  /** Phantoms the code imports: where (`file:line`). */
  importedAt?: string[];
  advice: string;
  /** Listed in the configuration's `ignore` for its kind: reported, but not a finding for the exit code. */
  ignored?: boolean;
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
  /**
   * C++ only: the paper's D2 := D1 (CMake resolves nothing transitively), with the gaps and metrics it gives, beside
   * envproof's own D2 from the configure step, so inflation can be compared with the paper's figures.
   */
  paperCompatible?: { installed: LayerEntry[]; gaps: GapSets; metrics: ProjectMetrics };
  gaps: GapSets;
  metrics: ProjectMetrics;
  /** The first traced command (the only one unless several were given). */
  run: RunOutcome;
  /** Every traced command, in order; D3 is the union of what they loaded. */
  runs: RunOutcome[];
  /** Every installed or loaded package, with purl, hashes, graph and evidence (the SBOM's content). */
  components: ComponentEntry[];
  /** Notes about the components (e.g. where hashes come from, what is missing). */
  componentNotes: string[];
  /** The project's static imports, when the ecosystem reads them (the phantom split). */
  staticImports?: { method: string; imports: Record<string, string[]>; notes: string[] };
  /** Phantom, hidden, unpinned, bloat and transitive packages, one entry each. */
  findings: Finding[];
  phasesMs: PhaseTimes;
  /** Per traced package, a few files that put it in D3. */
  evidence: Record<string, string[]>;
  install: { commands: string[]; details?: Record<string, unknown> };
  notes: string[];
  /** Present with --keep. */
  workDir?: string;
}
