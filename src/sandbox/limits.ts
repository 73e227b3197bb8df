/** Resource limits for every command run in an isolating sandbox. */
export interface SandboxLimits {
  /**
   * Processes and threads of the sandbox's user (RLIMIT_NPROC); contains fork bombs. The count is shared by
   * all sandboxes running at once (they share the uid), hence generous.
   */
  processes: number;
  /** Writable private memory per process (RLIMIT_DATA), which, unlike address space, lets JVMs reserve heap. */
  memoryBytes: number;
  /** Largest file a program may write (RLIMIT_FSIZE). */
  fileSizeBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  processes: 4096,
  memoryBytes: 8 * 1024 ** 3,
  fileSizeBytes: 4 * 1024 ** 3,
};

/**
 * CPU time per process, a backstop behind the wall-clock timeout that kills the whole tree. A process's
 * threads add up, so a multi-threaded build may use `cores` seconds per second without being at fault.
 */
export function cpuSeconds(timeoutMs: number, cores: number): number {
  return Math.max(1, Math.ceil(timeoutMs / 1000) * cores);
}

/** `prlimit` options setting each limit as both soft and hard, so the program cannot raise it. */
export function prlimitArgs(limits: SandboxLimits, timeoutMs: number, cores: number): string[] {
  const both = (name: string, v: number) => `--${name}=${v}:${v}`;
  return [
    'prlimit',
    both('nproc', limits.processes),
    both('data', limits.memoryBytes),
    both('fsize', limits.fileSizeBytes),
    both('cpu', cpuSeconds(timeoutMs, cores)),
    '--',
  ];
}

/** What every backend's command line is built from: one program run, its work directory, caches and limits. */
export interface ProgramRun {
  workDir: string;
  cacheDir: string;
  cwd: string;
  network: boolean;
  env: Record<string, string>;
  argv: readonly string[];
  limits: SandboxLimits;
  timeoutMs: number;
  /** CPUs of this machine: the CPU-time limit allows all of them busy for the whole timeout. */
  cores: number;
}
