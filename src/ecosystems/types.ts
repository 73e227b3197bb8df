import type { DeclaredResult, Dependency } from '../core/types.js';
import type { EcosystemFacts } from './facts.js';
import type { ComponentFacts, ManifestEditor, StaticImports } from './outputs.js';
import type { EcosystemRepro } from './repro-facts.js';
import type { Sandbox } from '../sandbox/types.js';
import type { TracerChoice } from '../trace/index.js';

/**
 * Where one audit happens: the project copy and the private environment directory, inside a sandbox, with the same
 * directories as envproof reads them on the host.
 */
export interface AuditContext {
  sandbox: Sandbox;
  /** The project copy, as the program sees it (inside the sandbox). Writable. */
  projectDir: string;
  /** A private directory for the environment (venv, Maven repository copy, build dir), as seen inside. */
  envDir: string;
  /** `projectDir` and `envDir` on the host. */
  host: { projectDir: string; envDir: string };
  /** The host path of a path inside the sandbox's work directory; an error for one outside it. */
  hostPath(inside: string): string;
  /** Limit of each traced run (--timeout). */
  timeoutMs: number;
  /** Limit of each install and build step (--install-timeout, step-limit.ts). */
  installTimeoutMs: number;
  /** The tracer of traced runs (default auto). */
  tracer?: TracerChoice;
  /** Progress lines for the terminal; never part of results. */
  progress(message: string): void;
}

/**
 * `network`: the tool's output shows a failed connection, not yet told whose (ecosystems/registry.ts settles it
 * into `registry-unreachable`, infrastructure, or `fetch-failure`, the project's own download); `timeout`: the step
 * ran out of time while the registry answered.
 */
export type InstallFailureClass =
  | 'no-such-package'
  | 'no-matching-version'
  | 'native-build-failure'
  | 'network'
  | 'registry-unreachable'
  | 'timeout'
  | 'missing-system-library'
  | 'fetch-failure'
  | 'build-configuration'
  | 'other';

/** An install's outcome; `Details` is what the ecosystem learnt while installing, for its later steps. */
export interface InstallResult<Details = unknown> {
  /** D2: what the package manager says it installed, minus the environment's own baseline. */
  installed: Dependency[];
  /** The ecosystem's own install details (the npm tree, the venv's site-packages, CMake's findings). */
  details: Details;
  /** Commands that were run, for the report. */
  commands: string[];
  durationMs: number;
  /** Names of the project's own packages learnt while installing (e.g. the distribution `pip install .` made). */
  own?: string[];
  /** Build tools the configure step found; not in `installed`. */
  buildTools?: Dependency[];
  /**
   * D2 without what only development needs, where the install includes it (npm installs devDependencies, as the
   * paper's `npm ls --all` counts them): the nodes npm marks dev, which `npm ls --all --omit=dev` leaves out.
   */
  production?: Dependency[];
}

export interface RunChoice {
  argv: string[];
  /**
   * The command as the user would type it with --run, when `argv` holds internal parts (the venv's interpreter
   * path, the Java class path, the PATH wrapper of npm scripts). Default: `argv` shell-quoted.
   */
  display?: string;
  /** Why this command was chosen, e.g. "package.json bin" or "--run". */
  reason: string;
  env?: Record<string, string>;
}

export interface AttributionResult {
  /**
   * D3: packages that own at least one file the program opened or executed. Each entry's `files` lists every
   * traced file that put it there (the SBOM's evidence occurrences).
   */
  traced: TracedDependency[];
  /** Per package name, a few of the files that put it in D3 (evidence for the report). */
  evidence: Record<string, string[]>;
  /** Alternative D3 layers (e.g. Java's opened jars vs loaded classes, C++ build-time), keyed by name. */
  alternatives?: Record<string, TracedDependency[]>;
  /** C++: libraries only programs that are not the project's mapped (`ls` in `--run "prog && ls"`), with those programs; in no layer. */
  loadedBySystemTools?: (TracedDependency & { programs: string[] })[];
}

/** A D3 entry with the traced files (paths as seen inside the sandbox) that put it in its layer. */
export interface TracedDependency extends Dependency {
  files?: string[];
}

/**
 * One ecosystem: its facts (facts.ts), and what it does. Pure parts (extractDeclared, attribute) return data; the rest run commands through
 * the sandbox. Errors the user can fix are thrown as EnvproofError (see core/errors.ts).
 */
export interface EcosystemModule<Details = unknown> extends EcosystemFacts {
  /** D1, from the project directory on the host. Entries it cannot interpret are skipped with a reason. */
  extractDeclared(projectDir: string): Promise<DeclaredResult>;
  /**
   * D1 as the environment makes it, now that it exists, where what is declared depends on it (Python's environment
   * markers are evaluated for the environment's own interpreter). Given D1 as read before (`declared`), it reads
   * the manifest again only where the environment differs from what that reading assumed. Optional.
   */
  declaredInEnvironment?(projectDir: string, ctx: AuditContext, declared?: DeclaredResult): Promise<DeclaredResult>;
  /**
   * D2: install into a fresh private environment. The audit gives D1 as it read it, so that no ecosystem parses the
   * manifest again (a direct caller may leave it out). Throws InstallError on failure.
   */
  install(ctx: AuditContext, declared?: DeclaredResult): Promise<InstallResult<Details>>;
  /** Build step, for ecosystems that compile. */
  build?(ctx: AuditContext, install: InstallResult<Details>): Promise<void>;
  /** The command to trace when the user gives none. Throws EnvproofError when none can be found. */
  defaultRun(ctx: AuditContext, install: InstallResult<Details>): Promise<RunChoice>;
  /** Turns a user's --run string into argv in this environment (e.g. `python` → the venv's python). */
  userRun(command: string, ctx: AuditContext, install: InstallResult<Details>): RunChoice;
  /** D3 from the files the traced program opened or executed (paths as seen inside the sandbox). */
  /** `byProgram`: the same files per traced program that opened them, where the tracer gave them. */
  attribute(files: ReadonlySet<string>, ctx: AuditContext, install: InstallResult<Details>, byProgram?: ReadonlyMap<string, ReadonlySet<string>>): Promise<AttributionResult>;
  /** Whether a declared dependency pins one version (default: it has a `version`, which D1 sets for exact pins only). */
  isPinned?(dep: Dependency): boolean;
  /**
   * The installed version a declaration resolves to, where D2 may hold its name at several versions (npm: the
   * top-level node; Maven: the artifact of its groupId:artifactId). Default: the name's only installed version.
   */
  resolvedVersion?(dep: Dependency, install: InstallResult<Details>): string | undefined;
  /**
   * Groups of DeclaredResult.other that declare packages the install includes (npm devDependencies): an installed
   * package one of them names is reported as declared there, not as installed but undeclared.
   */
  declaringGroups?: readonly string[];
  /** SBOM facts about the installed packages (package URL, hashes, dependency graph), while the environment exists. */
  componentFacts?(ctx: AuditContext, install: InstallResult<Details>, attribution: AttributionResult): Promise<ComponentFacts>;
  /** What the project's code imports, read statically: splits phantoms into unused and imported-but-not-traced. */
  staticImports?(ctx: AuditContext, install: InstallResult<Details>, attribution: AttributionResult): Promise<StaticImports>;
  /** What of the install details the JSON report keeps (default: all of them). */
  reportedDetails?(details: Details): unknown;
  /** Surgical edits of the manifest for `envproof fix`, and the manifest lines of declarations for SARIF. */
  manifestEditor?: ManifestEditor;
  /** What `envproof repro` needs of the ecosystem (src/ecosystems/repro-facts.ts); without it, repro does not support it. */
  repro?: EcosystemRepro;
}

