/**
 * Whether the traced program ever started. A run that never started has no D3 at all — its empty trace is not
 * evidence that nothing is used — so the audit reports D3 as unknown instead of computing gaps from it.
 */
import path from 'node:path';
import type { ExecResult } from '../sandbox/types.js';

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ksh']);

/** The shell's own words for a command it could not run (dash, bash). */
const NOT_FOUND = /(?:^|\n)(?:[^\n]*: )?([^\n:]+): (?:command )?not found\s*(?:\n|$)|No such file or directory/;
const NOT_EXECUTABLE = /Permission denied|cannot execute|Exec format error/;

function lastLineMatching(text: string, pattern: RegExp): string | undefined {
  return text.split('\n').filter((l) => pattern.test(l)).at(-1)?.trim();
}

/**
 * Why the program never started, or undefined when it did. It did not when the tracer could not start it; or when
 * only shells ran (the command line given to `sh -c` named nothing that could be executed) and the shell
 * reported that (exit 127 "not found", 126 "cannot execute") or was killed before it got further.
 */
export function whyNotStarted(run: ExecResult, execs: readonly string[]): string | undefined {
  if (run.spawnError) return run.spawnError;
  if (execs.some((e) => !SHELLS.has(path.posix.basename(e)))) return undefined;
  const output = `${run.stdout}\n${run.stderr}`;
  if (run.exitCode === 127) return `command not found${detail(lastLineMatching(output, NOT_FOUND))}`;
  if (run.exitCode === 126) return `command could not be executed${detail(lastLineMatching(output, NOT_EXECUTABLE))}`;
  if (run.signal && !run.timedOut) return `killed by ${run.signal} before any program started`;
  return undefined;
}

function detail(line: string | undefined): string {
  return line ? ` (${line})` : '';
}
