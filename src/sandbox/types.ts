import type { EcosystemId } from '../core/types.js';

export type SandboxBackend = 'host' | 'bwrap' | 'docker' | 'podman';

/** What a clean environment contains before any project is installed into it; D2 subtracts it. */
export interface SandboxBaseline {
  /** Debian package names (`dpkg-query -W`). */
  debian: string[];
  /** Per package manager (pip, npm, maven, pkg-config), the names it reports as already present. */
  packages: Record<string, string[]>;
  /** The prompt's promised tools → the version the environment runs (node 20.20.2), when its build recorded them. */
  tools?: Record<string, string>;
}

export interface SystemPackage {
  name: string;
  version: string;
}

export interface ExecRequest {
  argv: string[];
  /** Working directory as the program sees it. */
  cwd: string;
  /** Added to the sandbox's own clean environment. */
  env?: Record<string, string>;
  timeoutMs: number;
  /** Installing needs the network; the traced run does not get it. */
  network: boolean;
  maxOutputBytes?: number;
  /**
   * A command run on the host around the sandbox's whole command line, which it must run (a tracer watching the
   * program from outside, where the program cannot reach what it writes). Only for sandboxes whose
   * `supportsHostWrapper` is true.
   */
  hostWrapper?: readonly string[];
  /**
   * Show the program only CPUs 0 to n-1 where the backend can (bwrap: the CPU lists under /sys and /proc/stat).
   * Affinity is not set here: the caller restricts it itself (taskset), which every backend honours.
   */
  visibleCpus?: number;
}

/** What isolation one program run really had, which may be less than it asked for (the host backend). */
export interface ExecIsolation {
  /** No network but loopback. */
  networkOff: boolean;
  /** Writes confined to the work directory, the package-cache layer and a private /tmp. */
  filesystemConfined: boolean;
  /** Own pid namespace: nothing the program started outlives it. */
  ownProcessTree: boolean;
  /** Where something asked for was not given: why (e.g. "new network namespaces are not permitted here"). */
  shortfall?: string;
}

export interface ExecResult {
  /** What the run was really given; absent means nothing is known to have been isolated. */
  isolation?: ExecIsolation;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  spawnError?: string;
}

/**
 * One isolated environment for one project. The work directory is the only writable place the
 * program has (besides a private /tmp). Paths in requests and in traces are paths as seen inside;
 * `toHost` maps them back so envproof can read the files.
 */
export interface Sandbox {
  readonly backend: SandboxBackend;
  readonly language: EcosystemId;
  /** Host path of the work directory. */
  readonly hostWorkDir: string;
  /** The same directory as the program sees it. */
  readonly workDir: string;
  /** A sentence for reports when isolation is weak (host), otherwise undefined. */
  readonly isolationWarning?: string;
  /** Whether the programs `exec` runs are descendants of the host process it starts (not with a container engine). */
  readonly supportsHostWrapper: boolean;
  exec(req: ExecRequest): Promise<ExecResult>;
  /** Host path of a path seen inside, or null when it is not visible from the host (e.g. the rootfs's own /usr). */
  toHost(insidePath: string): string | null;
  /** Host path under which the sandbox's root filesystem lies ('/' for host). */
  readonly rootOnHost: string;
  /** The environment's own contents, when the backend knows them (bwrap, docker, podman). */
  readonly baseline?: SandboxBaseline;
  /**
   * Debian packages added to the language's clean environment at the user's request (SandboxOptions.systemPackages),
   * with the versions installed; empty for the clean environment.
   */
  readonly systemPackages: readonly SystemPackage[];
  dispose(): Promise<void>;
}
