/**
 * The strace tracer. Where the sandbox can run a host command around its own (host, bwrap), strace runs
 * on the host, outside the sandbox, and writes its log to a private host directory the program cannot
 * reach; the gate marks where the program starts. Elsewhere (docker, podman) strace runs inside, beside
 * the program, and its log lies in the work directory, where the program could change it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EnvproofError } from '../core/errors.js';
import { tail } from '../core/process.js';
import type { ExecResult, Sandbox } from '../sandbox/types.js';
import { placeGate } from './gate.js';
import { programOutcome, startFailure } from './outcome.js';
import { parseStraceLog } from './parse.js';
import { killLeftovers, reapingRun, RUN_MARKER_VARIABLE } from './reap.js';
import { straceCommand, straceFeatures } from './strace.js';
import { programFiles, withSymlinkTargets } from './symlinks.js';
import type { Tracer, TraceRequest } from './types.js';
import { watchRootEnd } from './watch.js';

const INSIDE_LOG_NOTE =
  'strace ran inside the container, beside the program, and its log lay in the work directory, where the program could have changed it';

/** Runs `exec` with the strace log growing at `hostLog`, killing what the program leaves behind. */
function runWatched(sandbox: Sandbox, req: TraceRequest, hostLog: string, gate?: string): Promise<ExecResult> {
  const { signal, ...exec } = req;
  return reapingRun(exec.timeoutMs, async (marker) => {
    // `strace -f` runs until every traced process has ended: when the program itself ends, what it left
    // running is killed, as an untraced run's process group (or pid namespace) would be.
    const rootWatch = watchRootEnd(hostLog, () => void killLeftovers(marker, { tracedOnly: true }), gate);
    // Stopping kills the program's processes, not strace, so that strace ends normally and its log is complete.
    const stop = () => void killLeftovers(marker, { tracedOnly: true });
    if (signal?.aborted) stop();
    signal?.addEventListener('abort', stop);
    try {
      return await sandbox.exec({ ...exec, env: { ...exec.env, [RUN_MARKER_VARIABLE]: marker } });
    } finally {
      signal?.removeEventListener('abort', stop);
      rootWatch.stop();
    }
  });
}

function straceDidNotRun(sandbox: Sandbox, run: ExecResult): EnvproofError {
  return new EnvproofError(
    `strace did not run${sandbox.supportsHostWrapper ? '' : ` in the ${sandbox.backend} sandbox`}${run.spawnError ? `: ${run.spawnError}` : ' (it wrote no log)'}`,
    'check that strace is installed (scripts/setup.sh)',
    tail(run.stderr),
  );
}

/** strace on the host around the sandbox's command; the log in a directory of its own. */
async function traceFromHost(sandbox: Sandbox, req: TraceRequest) {
  const features = await straceFeatures({ host: true });
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'envproof-trace-'));
  const hostLog = path.join(logDir, 'trace.strace');
  const gate = await placeGate(sandbox);
  try {
    const exec = { ...req, argv: [gate.inside, ...req.argv], hostWrapper: straceCommand(features, hostLog) };
    const run = await runWatched(sandbox, exec, hostLog, gate.inside);
    if (run.spawnError || !existsSync(hostLog)) throw straceDidNotRun(sandbox, run);
    const parsed = await parseStraceLog(hostLog, req.cwd, { gate: gate.inside });
    if (parsed.rootPid === null) {
      throw new EnvproofError(`the ${sandbox.backend} sandbox did not start the traced program`, undefined, tail(run.stderr));
    }
    const started = parsed.execs.length > 0; // the gate's exec is not among them, the program's is the first
    return { run: programOutcome(run, { started, end: parsed.rootEnd }, () => startFailure(run.stderr, 'envproof-gate: ')), parsed, notes: [] };
  } finally {
    await gate.remove();
    rmSync(logDir, { recursive: true, force: true });
  }
}

/** strace inside the sandbox, as the program's parent; the log in the work directory. */
async function traceInside(sandbox: Sandbox, req: TraceRequest) {
  const features = await straceFeatures({ host: false, sandbox });
  const logPath = path.posix.join(sandbox.workDir, `.envproof-trace-${randomUUID()}.strace`);
  const hostLog = sandbox.toHost(logPath);
  if (hostLog === null) throw new EnvproofError(`the work directory ${sandbox.workDir} of the ${sandbox.backend} sandbox is not visible from the host`);
  mkdirSync(path.dirname(hostLog), { recursive: true });
  try {
    const run = await runWatched(sandbox, { ...req, argv: [...straceCommand(features, logPath), ...req.argv] }, hostLog);
    if (run.spawnError || !existsSync(hostLog)) throw straceDidNotRun(sandbox, run);
    const parsed = await parseStraceLog(hostLog, req.cwd);
    // strace could not start the program when its log has no process (e.g. "strace: Can't stat 'x'").
    const outcome = programOutcome(run, { started: parsed.rootPid !== null, end: parsed.rootEnd }, () => startFailure(run.stderr, 'strace: '));
    return { run: outcome, parsed, notes: [INSIDE_LOG_NOTE] };
  } finally {
    rmSync(hostLog, { force: true });
  }
}

export const straceTracer: Tracer = async (sandbox, req) => {
  const { run, parsed, notes } = sandbox.supportsHostWrapper ? await traceFromHost(sandbox, req) : await traceInside(sandbox, req);
  return {
    run,
    files: withSymlinkTargets(parsed.files, (p) => sandbox.toHost(p)),
    execs: parsed.execs,
    byProgram: programFiles(parsed.byProgram, (p) => sandbox.toHost(p)),
    tracer: 'strace',
    notes,
  };
};
