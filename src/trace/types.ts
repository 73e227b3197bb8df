import type { ExecRequest, ExecResult, Sandbox } from '../sandbox/types.js';

export interface TraceRequest extends ExecRequest {
  /** Aborting stops the traced program (its processes are killed; the tracer then ends and reads its result as usual). */
  signal?: AbortSignal;
}

export type TracerName = 'fast' | 'strace';

export interface TraceResult {
  /** The traced program's own outcome. */
  run: ExecResult;
  /**
   * Every file the program (or any process it started) successfully opened or executed: absolute paths
   * as seen inside the sandbox, `.`/`..` resolved against the process's working directory, and, where
   * the path goes through a symlink, the resolved target as well.
   */
  files: Set<string>;
  /** Successfully executed programs, in order. */
  execs: string[];
  /**
   * The same files per program that opened them (the process's last exec; '' for what the processes opened before
   * any exec), with the symlink targets as in `files`.
   */
  byProgram: Map<string, Set<string>>;
  /** The tracer that produced this result. */
  tracer: TracerName;
  /** What a reader of the result should know about how it was obtained (a fallback, a repeated run). */
  notes: string[];
}

export type Tracer = (sandbox: Sandbox, req: TraceRequest) => Promise<TraceResult>;
