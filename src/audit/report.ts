import type { EcosystemId, GapSets, ProjectMetrics, SkippedEntry, UntracedGapSets, UntracedMetrics } from '../core/types.js';
import type { ComponentHash, Discovery, ManifestLocation } from '../ecosystems/outputs.js';
import type { NamedLicense } from '../ecosystems/licenses.js';
import type { BackendChoice } from '../sandbox/index.js';
import type { ExecIsolation, SandboxBackend } from '../sandbox/types.js';
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
  /** The version in the system package manager's format, when `version` is written in another (C++: Debian's). */
  systemVersion?: string;
}

/** A layer's size two ways: entries (name@version; one name can be installed at several versions) and names. */
export interface LayerCount {
  entries: number;
  /** What the metrics count (n1, n2, n3). */
  names: number;
}

export interface RunOutcome {
  /** The command as the user would type it with --run (`argv` holds the full line). */
  command: string;
  argv: string[];
  /** Why this command was traced (e.g. "--run", "package.json bin"). */
  reason: string;
  /** Variables the run was given beyond the sandbox's own environment (README: "What --run can use"). */
  env: Record<string, string>;
  /** False when the program never started (command not found, not executable, killed first): D3 is unknown. */
  started: boolean;
  /** Why it never started; set only when `started` is false. */
  notStarted?: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  success: boolean;
  durationMs: number;
  /** The tail of what the program printed (stdout then stderr). */
  outputTail: string;
  /** What isolation the traced run really had (the host backend may give less than asked for). */
  isolation: ExecIsolation;
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
  /** The license as an SPDX expression, from the installed metadata (docs/sbom.md); none when it declares none. */
  license?: string;
  /** Licenses named by the metadata when some is no known SPDX license (Maven), each with its id where known; `license` is then unset. */
  namedLicenses?: NamedLicense[];
  /** Checksums that are no file hash (Go's go.sum `h1:`), by name: the SBOM's `envproof:<name>` properties. */
  properties?: Record<string, string>;
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

export const FINDING_KINDS = ['phantom', 'hidden', 'missing', 'unpinned', 'bloat', 'transitive'] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/**
 * `direct`: the project's own code imports it (declare it). `transitive`: only other packages load it (declare it
 * only if the code comes to import it). Set when the ecosystem reads static imports.
 */
export type HiddenClass = 'direct' | 'transitive';

/**
 * `unused`: declared, and nothing in the code imports it (remove it). `not-traced`: the code imports it, on a path
 * the traced runs did not take (trace more entry points). `discovered`: nothing imports it, but a tool loads it by
 * name (`discovery` says how): keep it. Only when the ecosystem reads static imports.
 */
export type PhantomClass = 'unused' | 'not-traced' | 'discovered';

/** One gap, per package, with where it is written and what to do about it. */
export interface Finding {
  kind: FindingKind;
  name: string;
  /** The version that was installed or loaded, when there is one. */
  version?: string;
  /**
   * The manifest line of the declaration; for a direct hidden dependency and a missing one, the import in the code
   * (`file:line`); for a transitive hidden one, the manifest itself.
   */
  location?: ManifestLocation;
  phantom?: PhantomClass;
  hidden?: HiddenClass;
  /** A transitive hidden dependency: the chain that brought it, from a declared package to it (`["pandas", "numpy"]`). */
  via?: string[];
  /** Where the project's runtime code imports it (`file:line`): phantoms, hidden and missing packages. */
  importedAt?: string[];
  /** Where only development code imports it (tests/, docs/, examples/): never evidence of runtime use. */
  developmentImports?: string[];
  /** A phantom nothing imports that is loaded by discovery (a plug-in named in configuration, a service provider, an entry point): which rule decided, and the evidence. */
  discovery?: Discovery;
  /** Transitive packages declared outside D1, in a group the install includes (npm `devDependencies`): the group. */
  declaredIn?: string;
  /** A missing module a traced run failed on: that run's error line. */
  runError?: string;
  /** Go: a `not-traced` phantom imported only in files the build's constraints excluded, with those constraints. */
  buildConstraints?: string[];
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
  /** `requested`: the user's --sandbox choice (`auto` included), `backend` the one that ran. */
  /** `tools`: the versions of the tools the task prompts promise, as the environment's build recorded them (node 20.20.2). */
  sandbox: {
    backend: SandboxBackend;
    requested: BackendChoice;
    warning?: string;
    baseline?: { debian: number; packages: Record<string, number> };
    tools?: Record<string, string>;
  };
  /** `traced` is null when the program never started (`run.started` false): D3 is unknown, not empty. */
  layers: { declared: LayerEntry[]; installed: LayerEntry[]; traced: LayerEntry[] | null };
  layerCounts: { declared: LayerCount; installed: LayerCount; traced: LayerCount | null };
  /**
   * Debian packages the project needs beyond the clean environment, as the user named them (--system-packages),
   * with the versions the environment installed; empty in the paper's strict clean environment.
   */
  systemDependencies: { name: string; version: string }[];
  /** The project's own packages, removed from every layer (never its own dependency). */
  ownPackages: string[];
  /** Build tools (C++: find_package(PkgConfig), Git, Doxygen, ...), declared and found; in no layer. */
  buildTools: { declared: LayerEntry[]; found: LayerEntry[] };
  /** Declared but not part of D1: devDependencies, test scope, constraints, optional extras, ... */
  otherDeclared: Record<string, LayerEntry[]>;
  skipped: SkippedEntry[];
  /** Other views of D3 (Java opened vs loaded, C++ build-time), keyed by name. */
  alternatives: Record<string, LayerEntry[]>;
  /**
   * The gaps and metrics with each alternative view in place of D3; `withBuildTools` counts the build tools in
   * D1 and D2, as the paper's rule (every find_package name) does.
   */
  alternativeMetrics: Record<string, { gaps: GapSets; metrics: ProjectMetrics }>;
  /**
   * C++ only: the paper's D2 := D1 (CMake resolves nothing transitively), with the gaps and metrics it gives, beside
   * envproof's own D2 from the configure step, so inflation can be compared with the paper's figures.
   */
  paperCompatible?: { installed: LayerEntry[]; gaps: GapSets | UntracedGapSets; metrics: ProjectMetrics | UntracedMetrics };
  /**
   * Where the install includes development-only packages (npm's devDependencies, as the paper's `npm ls --all`
   * counts them): D2 without them (`npm ls --all --omit=dev`), with the gaps and metrics it gives, beside the paper's.
   */
  productionOnly?: { installed: LayerEntry[]; count: LayerCount; gaps: GapSets | UntracedGapSets; metrics: ProjectMetrics | UntracedMetrics };
  /** The D3-based gaps and metrics are null when the program never started. */
  gaps: GapSets | UntracedGapSets;
  metrics: ProjectMetrics | UntracedMetrics;
  /** The first traced command (the only one unless several were given). */
  run: RunOutcome;
  /** Every traced command, in order; D3 is the union of what they loaded. */
  runs: RunOutcome[];
  /** Every installed or loaded package, with purl, hashes, graph and evidence (the SBOM's content). */
  components: ComponentEntry[];
  /** Notes about the components (e.g. where hashes come from, what is missing). */
  componentNotes: string[];
  /** The project's static imports, when the ecosystem reads them (the phantom split). */
  staticImports?: { method: string; imports: Record<string, string[]>; unresolved?: Record<string, string[]>; notes: string[] };
  /** Phantom, hidden, missing, unpinned, bloat and transitive packages, one entry each. */
  findings: Finding[];
  phasesMs: PhaseTimes;
  /** Per traced package, a few files that put it in D3. */
  evidence: Record<string, string[]>;
  /** C++: libraries only programs that are not the project's mapped (base-system tools in --run), with those programs; in no layer. */
  loadedBySystemTools?: { name: string; version?: string; programs: string[] }[];
  /** The commands of the install, and the ecosystem's install details (its `reportedDetails`). */
  install: { commands: string[]; details?: unknown };
  notes: string[];
  /** Present with --keep. */
  workDir?: string;
}

/**
 * What a failed audit had computed before the step that failed (`envproof audit --json` prints it with `error`):
 * D1 once the manifest was read, D2 once the install succeeded.
 */
export interface PartialAudit {
  project?: string;
  ecosystem?: EcosystemId;
  manifest?: string;
  sandbox?: AuditReport['sandbox'];
  layers?: { declared: LayerEntry[]; installed?: LayerEntry[] };
  otherDeclared?: Record<string, LayerEntry[]>;
  skipped?: SkippedEntry[];
  ownPackages?: string[];
  install?: { commands: string[] };
  notes?: string[];
  phasesMs?: PhaseTimes;
  workDir?: string;
}
