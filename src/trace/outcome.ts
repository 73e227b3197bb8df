import type { ExecResult } from '../sandbox/types.js';
import type { ProcessEnd } from './parse.js';

/** What a tracer saw of the traced program's own process. */
export interface RootProcess {
  /** Whether the program was executed (a missing program, for instance, never is). */
  started: boolean;
  /** How the program's process ended, when the tracer saw it end. */
  end: ProcessEnd | null;
}

/** The line in which the gate (or strace inside a sandbox) says it could not run the program. */
export function startFailure(stderr: string, prefix: string): string {
  return stderr.split('\n').find((l) => l.startsWith(prefix)) ?? 'the program could not be started';
}

/**
 * The traced program's own outcome. A sandbox wrapper may turn a fatal signal into exit code 128+n: the
 * tracer's view of the program's process says which it was. A program that never started is a spawn error.
 */
export function programOutcome(run: ExecResult, root: RootProcess, whyNotStarted: () => string): ExecResult {
  if (run.timedOut) return run;
  if (!root.started) return { ...run, exitCode: null, signal: null, spawnError: whyNotStarted() };
  const end = root.end;
  if (!end) return run;
  return end.kind === 'exited' ? { ...run, exitCode: end.code, signal: null } : { ...run, exitCode: null, signal: end.signal };
}
