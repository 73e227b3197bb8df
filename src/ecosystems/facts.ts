/**
 * What an ecosystem module says about its ecosystem besides installing, running and attributing: the facts the
 * sandbox, store, doctor, protocol, task suites and metrics ask the registry (src/ecosystems/index.ts) for, so that
 * none of them names a language. docs/ecosystems.md describes each field and how to add an ecosystem.
 */
import type { ErrorClass } from '../protocol/classify.js';
import type { CachePublisher } from '../sandbox/cache-layers.js';

/**
 * How the environment's own package manager lists what is already there, recorded as part of the baseline.
 * `parse` turns the command's stdout into name → version.
 */
export interface BaselineQuery {
  manager: string;
  argv: string[];
  parse(stdout: string): Record<string, string>;
}

/**
 * What a clean environment gets beyond Debian packages (Go: its toolchain), installed on the host into the root
 * filesystem being built. `id` names it in the environment's recipe, so that another version means a rebuild.
 */
export interface RecipeProvision {
  id: string;
  install(rootDir: string, progress: (message: string) => void): Promise<void>;
}

/** How a doctor check's `fix` installs a Debian package. */
export const APT_INSTALL = 'apt-get update && apt-get install -y';

/** One tool `envproof doctor` looks for on this machine. */
export interface DoctorCheck {
  name: string;
  argv: string[];
  /** Picks the version out of the tool's output. */
  version: RegExp;
  /** A command that installs the tool. */
  fix: string;
}

/**
 * A tool the task prompts promise the clean machine has: a doctor check of the ecosystem (by name), whose version
 * must be `atLeast` this one when given (dotted numbers). src/ecosystems/promise.ts checks an environment against it.
 */
export interface PromisedTool {
  check: string;
  atLeast?: string;
}

/** A message of the ecosystem's tools and the protocol's error class it means. */
export interface FailurePattern {
  pattern: RegExp;
  class: Extract<ErrorClass, 'missing-dependency' | 'missing-system-library' | 'build-configuration' | 'code-bug'>;
}

/** Which column of the paper's per-run data a dependency name comes from (its C++ runtime column differs). */
export type DependencyColumn = 'declared' | 'installed' | 'traced';

export interface EcosystemFacts {
  id: string;
  /** How reports, charts and prompts name the language: 'Python', 'C++'. */
  displayName: string;
  /** How messages name a project of this ecosystem, with its build tool: 'Java (Maven)'. */
  projectKind: string;
  /** Manifest file names that identify a project of this ecosystem, in order of preference. */
  manifestFiles: readonly string[];
  /**
   * What task prompts say: the manifest to deliver, the runtime of the clean machine, the paper's prompt folder;
   * `promise` is that runtime as data, the tools the environment must have (and at which versions).
   */
  prompt: { manifest: string; runtime: string; envgapFolder?: string; promise: readonly PromisedTool[] };
  /**
   * The clean environment: Debian packages on top of a minimal base, the baseline queries of its managers, and
   * what is provisioned beyond the packages.
   */
  recipe: { debianPackages: readonly string[]; baseline: readonly BaselineQuery[]; provision?: RecipeProvision };
  /**
   * Package caches: sub-directories of the shared cache, the variables that point the tools at them (given the
   * cache's root as the program sees it), and the checks that decide what of a run's downloads the shared cache
   * takes (a sub-directory without a publisher is not shared between sandboxed runs).
   */
  caches: { dirs: readonly string[]; env(cacheRoot: string): Record<string, string>; publishers: readonly CachePublisher[] };
  /** What `envproof doctor` checks for this ecosystem. */
  doctor: readonly DoctorCheck[];
  /** Folders (at any depth) that hold an environment or build output, never part of a project's tree. */
  skipDirs: readonly string[];
  /** Setup commands a README's run section may show before the run command (anchored at the line's start). */
  readmeSetupCommand?: RegExp;
  /** Messages of the ecosystem's tools and the error class each means. */
  failurePatterns: readonly FailurePattern[];
  /**
   * A dependency name of the paper's per-run data, normalised as the paper's analysis does for this language (its
   * quirks included, so that the published numbers reproduce): lower case, `_` as `-`.
   */
  normaliseName(raw: string, column: DependencyColumn): string;
  /**
   * The paper defines the installed set as the declared one (D2 := D1) for this language (C++: CMake resolves
   * nothing transitively). envproof measures D2 anyway and reports the paper-compatible figures beside its own.
   */
  paperInstalledIsDeclared?: boolean;
}

/** The paper's common tail of name normalisation: trimmed, lower case, `_` written as `-`. */
export function paperName(name: string): string {
  return name.trim().toLowerCase().replace(/_/g, '-');
}
