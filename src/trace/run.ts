/** `traceRun`: runs a program under strace inside a sandbox and reports what it opened and executed. */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import { tail } from '../core/process.js';
import type { ExecResult } from '../sandbox/types.js';
import { parseStraceLog, type ParsedTrace } from './parse.js';
import { killLeftovers, RUN_MARKER_VARIABLE } from './reap.js';
import { straceArgv, straceFeatures } from './strace.js';
import { withSymlinkTargets } from './symlinks.js';
import type { Tracer } from './types.js';
import { watchRootEnd } from './watch.js';

/** How often, once the run is this far past its time limit, processes that escaped the group kill are looked for. */
const STRAGGLER_CHECK_MS = 500;

export const traceRun: Tracer = async (sandbox, req) => {
  const { logPath, signal, ...exec } = req;
  const hostLog = sandbox.toHost(logPath);
  if (hostLog === null) {
    throw new EnvproofError(`the strace log path ${logPath} is not visible from the host`, 'put the log in the sandbox work directory');
  }
  const features = await straceFeatures(sandbox);
  mkdirSync(path.dirname(hostLog), { recursive: true });
  rmSync(hostLog, { force: true }); // the watcher below must not read a previous run's log
  const marker = randomUUID();
  const started = Date.now();
  // A process that left the process group keeps the output pipes open, so the exec would not return at
  // its time limit: once past it, kill such processes.
  const stragglers = setInterval(() => {
    if (Date.now() - started > exec.timeoutMs + STRAGGLER_CHECK_MS) void killLeftovers(marker);
  }, STRAGGLER_CHECK_MS);
  // When the program itself ends, what it left running is killed, as an untraced run's process group
  // would be; strace then exits with the program's status.
  const rootWatch = watchRootEnd(hostLog, () => void killLeftovers(marker, { tracedOnly: true }));
  // Stopping kills the program's processes, not strace, so that strace ends normally and its log is complete.
  const stop = () => void killLeftovers(marker, { tracedOnly: true });
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop);
  let run: ExecResult;
  try {
    run = await sandbox.exec({
      ...exec,
      argv: straceArgv(features, logPath, exec.argv),
      env: { ...exec.env, [RUN_MARKER_VARIABLE]: marker },
    });
  } finally {
    signal?.removeEventListener('abort', stop);
    clearInterval(stragglers);
    rootWatch.stop();
    await killLeftovers(marker);
  }
  if (run.spawnError || !existsSync(hostLog)) {
    throw new EnvproofError(
      `strace did not run in the ${sandbox.backend} sandbox${run.spawnError ? `: ${run.spawnError}` : ' (it wrote no log)'}`,
      'check that strace is installed there and that the log directory is writable',
      tail(run.stderr),
    );
  }
  const parsed = await parseStraceLog(hostLog, exec.cwd);
  return {
    run: programOutcome(run, parsed),
    files: withSymlinkTargets(parsed.files, (p) => sandbox.toHost(p)),
    execs: parsed.execs,
    lines: parsed.lines,
    seccompBpf: features.seccompBpf,
  };
};

/**
 * The traced program's own outcome. strace exits with the program's code and re-raises its fatal signal,
 * but a sandbox wrapper may turn that signal into 128+n; the log's `+++ killed by SIGx +++` says which.
 */
function programOutcome(run: ExecResult, parsed: ParsedTrace): ExecResult {
  if (run.timedOut) return run;
  if (parsed.rootPid === null) {
    // strace could not start the program (e.g. "strace: Can't stat 'x': No such file or directory").
    const reason = run.stderr.split('\n').find((l) => l.startsWith('strace: ')) ?? 'strace could not start the program';
    return { ...run, exitCode: null, signal: null, spawnError: reason };
  }
  const end = parsed.rootEnd;
  if (!end) return run;
  return end.kind === 'exited' ? { ...run, exitCode: end.code, signal: null } : { ...run, exitCode: null, signal: end.signal };
}
