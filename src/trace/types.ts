import type { ExecRequest, ExecResult, Sandbox } from '../sandbox/types.js';

export interface TraceRequest extends ExecRequest {
  /** Where strace writes its log, as seen inside the sandbox (must be in a writable place). */
  logPath: string;
  /** Aborting stops the traced program (its processes are killed; strace then ends and its log is read as usual). */
  signal?: AbortSignal;
}

export interface TraceResult {
  /** The traced program's own outcome (strace passes its exit code through). */
  run: ExecResult;
  /**
   * Every file the program (or any process it started) successfully opened or executed: absolute paths
   * as seen inside the sandbox, `.`/`..` resolved against the process's working directory, and, where
   * the path goes through a symlink, the resolved target as well.
   */
  files: Set<string>;
  /** Successfully executed programs, in order. */
  execs: string[];
  /** Number of log lines parsed. */
  lines: number;
  /** Whether strace ran with --seccomp-bpf. */
  seccompBpf: boolean;
}

export type Tracer = (sandbox: Sandbox, req: TraceRequest) => Promise<TraceResult>;
