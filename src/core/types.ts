/** Shared data model of envproof. Everything here is plain data: no I/O. */

/**
 * The id of a registered ecosystem ('python', 'cpp', ...). The registry (src/ecosystems/index.ts) lists them; input
 * from outside (command line, store, task suites) is checked against it where it enters.
 */
export type EcosystemId = string;

/** One package in a layer. `name` is normalised for the ecosystem; versions never decide set membership. */
export interface Dependency {
  name: string;
  version?: string;
  /** Ecosystem-specific extras, e.g. `groupId:artifactId` for Maven, the raw spec for npm. */
  id?: string;
  /** Where the entry came from (manifest file and line, owning path, ...). */
  source?: string;
  /**
   * The version as the system's package manager writes it, when `version` is given in the ecosystem's own
   * format (C++: `version` 1.2.13 as CMake reports it, `systemVersion` Debian's 1:1.2.13.dfsg-1).
   */
  systemVersion?: string;
}

/** Why a manifest entry could not be turned into a named dependency. A closed set, never an exception. */
export const SKIP_REASONS = [
  'unnamed-url',
  'unnamed-vcs',
  'local-path',
  'unsupported-syntax',
  'unresolved-property',
  'invalid-name',
  'marker-excluded',
  'include-cycle',
  'include-missing',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface SkippedEntry {
  raw: string;
  reason: SkipReason;
  source?: string;
  detail?: string;
}

/** D1: what the manifest declares, plus what it mentions but does not count as a declaration. */
export interface DeclaredResult {
  manifest: string;
  declared: Dependency[];
  /** Non-D1 groups reported separately: devDependencies, test scope, constraints, ... keyed by group name. */
  other: Record<string, Dependency[]>;
  skipped: SkippedEntry[];
  notes: string[];
  /**
   * Names of the project's own packages (its Python distribution, npm package and workspaces, Maven artifact
   * and reactor modules; a Go module would give its main module's path): the audited project is never its own
   * dependency, in any layer. The audit removes them from D1, D2, D3 and every alternative view.
   */
  own?: string[];
  /** Programs the build looks for (CMake's PkgConfig, Git, Doxygen, ...): declared, but not library dependencies. */
  buildTools?: Dependency[];
  /**
   * What the reading assumed about the environment the project will run in, where D1 depends on it: each value it
   * read, by name (Python: the environment-marker variables its markers compared, as assumed before the
   * environment existed). An environment whose values agree gives the same D1, so it is not read again.
   */
  assumedEnvironment?: Record<string, string>;
}

export interface GapSets {
  phantom: string[];
  hidden: string[];
  bloat: string[];
  transitive: string[];
}

export interface ProjectMetrics {
  n1: number;
  n2: number;
  n3: number;
  inflation: number | null;
  phantomRate: number | null;
  hiddenRate: number | null;
  bloatRate: number | null;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

/** Gap sets of a project whose program never ran: the D3-based ones are unknown (null), not empty. */
export type UntracedGapSets = { [K in keyof GapSets]: K extends 'transitive' ? string[] : null };

/** Metrics of a project whose program never ran: those that need D3 are null. */
export type UntracedMetrics = Omit<ProjectMetrics, 'n3'> & { n3: null };
