/**
 * What an ecosystem contributes to the audit's outputs beyond the three layers: facts for the SBOM, the project's
 * static imports (the phantom split), and surgical manifest edits (`envproof fix`). Each is an optional member of
 * EcosystemModule; the generic writers (src/report/) and the fix command (src/fix/) never ask which ecosystem it is.
 */
import type { DeclaredResult, Dependency } from '../core/types.js';
import type { NamedLicense } from './licenses.js';
import type { AuditContext } from './types.js';

/** A package URL's parts (the purl specification); the SBOM writer turns them into the canonical string. */
export interface PurlParts {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers?: Record<string, string>;
}

export type HashAlgorithm = 'MD5' | 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';

export interface ComponentHash {
  algorithm: HashAlgorithm;
  /** Lower-case hex. */
  value: string;
}

/** SBOM facts about one installed package, keyed like the layers: name and version. */
export interface ComponentFact {
  name: string;
  version?: string;
  purl?: PurlParts;
  hashes: ComponentHash[];
  /** Where the hashes were read (e.g. "pip install report", "package-lock.json integrity"). */
  hashSource?: string;
  /** The license as an SPDX expression, as the installed metadata declares it (licenses.ts); none when it does not. */
  license?: string;
  /**
   * Licenses the metadata names when some of them is no license envproof knows by its SPDX id (a POM's
   * `<licenses>` by name): every one as it is named, with the id of those it knows; `license` is then unset.
   */
  namedLicenses?: NamedLicense[];
  /**
   * Checksums the package manager gives that are no hash of a file (Go's go.sum `h1:` dirhashes), by name; the SBOM
   * writes each as the property `envproof:<name>`.
   */
  properties?: Record<string, string>;
  /** The packages it depends on, as `name@version` keys of other installed packages. */
  dependsOn: string[];
}

export interface ComponentFacts {
  components: ComponentFact[];
  /** `name@version` keys of the project's direct dependencies, when the package manager's graph says which. */
  direct?: string[];
  /** What the reader should know about these facts (e.g. that a package manager gives no hashes). */
  notes: string[];
}

/** The key of a package in a layer, the facts and the dependency graph. */
export function componentKey(d: { name: string; version?: string }): string {
  return `${d.name}@${d.version ?? ''}`;
}

/**
 * How a package nothing imports is loaded all the same (a phantom `discovered`): a tool or a registry finds it by
 * name. `rule` is the id of the rule that recognised it (docs/audit-json.md lists them), `evidence` where
 * (`file:line`, or what was seen).
 */
export interface Discovery {
  rule: string;
  evidence: string;
}

export interface StaticImports {
  /** Per package name (the layers' names), where the project's code imports it: `file:line` or `file`. */
  imports: Record<string, string[]>;
  /** How the imports were read, for the report (e.g. "Python's ast, in the environment's interpreter"). */
  method: string;
  /**
   * The advice for a declared package the code imports but the traced run did not load. Default: trace the entry
   * points that reach it. C++ replaces it: an include seen at build time leaves no runtime trace.
   */
  notTracedAdvice?: string;
  /**
   * Set where the manifest must list every package of the build, not only what the code imports (Go's go.mod, by
   * module graph pruning): a hidden one the code does not import is no transitive information but a missing entry,
   * with this advice.
   */
  unlistedAdvice?: string;
  /**
   * The advice for a declared package only development code imports (tests, docs, examples). Default: declare it
   * as a development dependency. Go replaces it: go.mod has no such group, and lists what tests import.
   */
  developmentAdvice?: string;
  /** Modules the code imports that no installed package provides, with where (`file:line`): missing dependencies. */
  unresolved?: Record<string, string[]>;
  /** Packages loaded by discovery rather than by import (plug-ins named in configuration, service providers, entry points), by name. */
  discovered?: Record<string, Discovery>;
  /**
   * Go: the packages imported only in files the build's constraints left out (`//go:build tcell`, `_windows.go`),
   * each with those files' constraints, and the build's context (`linux/amd64, no -tags`).
   */
  constrained?: { context: string; imports: Record<string, string[]> };
  notes: string[];
}

/** One change `envproof fix` asks of a manifest. */
export type ManifestEdit =
  /** Declare a hidden dependency at the version that was installed and loaded. `id` is the ecosystem's identity. */
  | { kind: 'add'; name: string; version: string; id?: string }
  /** Pin a declared dependency to the installed version. */
  | { kind: 'pin'; dependency: Dependency; version: string }
  /** Remove a declared dependency that nothing uses. */
  | { kind: 'remove'; dependency: Dependency };

/** A manifest file before and after the edits, relative to the project directory. */
export interface FileChange {
  file: string;
  before: string;
  after: string;
}

export interface EditOutcome {
  changes: FileChange[];
  applied: ManifestEdit[];
  /** Edits the editor would not make, with the reason (the user can make them by hand). */
  refused: { edit: ManifestEdit; reason: string }[];
}

/** Where a declaration is written in the manifest. */
export interface ManifestLocation {
  file: string;
  line?: number;
}

/**
 * Surgical manifest editing: bytes outside the changed lines stay as they are (comments, order, spacing, line
 * endings); nothing is parsed and re-serialised. Adding an ecosystem's editor is one file that implements this.
 */
export interface ManifestEditor {
  /** Where each declared dependency (by name) is written, for SARIF and annotations. */
  locate(projectDir: string, declared: DeclaredResult): Promise<Record<string, ManifestLocation>>;
  /** The new text of the manifest files; writes nothing. */
  apply(projectDir: string, declared: DeclaredResult, edits: readonly ManifestEdit[]): Promise<EditOutcome>;
  /**
   * Run in a sandbox on a copy of the edited project, to bring what derives from the manifest up to date (npm's
   * lockfile). Returns the files it rewrote, relative to the project.
   */
  refresh?(ctx: AuditContext): Promise<string[]>;
}

/** `file:line` of a Dependency.source, when it has that form. */
export function sourceLocation(source: string | undefined): ManifestLocation | undefined {
  const m = source ? /^(.+):(\d+)$/.exec(source) : null;
  return m ? { file: m[1]!, line: Number(m[2]) } : undefined;
}

/** Where each declaration is written, from the `file:line` source D1 recorded (the first one per name). */
export function locationsFromSources(declared: DeclaredResult): Record<string, ManifestLocation> {
  const out: Record<string, ManifestLocation> = {};
  for (const d of declared.declared) {
    const at = sourceLocation(d.source);
    if (at && !out[d.name]) out[d.name] = at;
  }
  return out;
}
