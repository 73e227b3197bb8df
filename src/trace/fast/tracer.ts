/**
 * The fast tracer: the kernel reports each open, exec and directory change of the program's process tree
 * as it happens, without stopping the program (native/fasttrace). Works for every backend: the run's gate
 * is recognised by its inode, whoever starts it.
 */
import { EnvproofError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { ExecResult, Sandbox } from '../../sandbox/types.js';
import { placeGate } from '../gate.js';
import { programOutcome, startFailure } from '../outcome.js';
import { STRAGGLER_CHECK_MS } from '../reap.js';
import { programFiles, withSymlinkTargets } from '../symlinks.js';
import type { Tracer } from '../types.js';
import { FastTraceCollector } from './collect.js';
import { sharedDaemon, type FastTraceDaemon } from './daemon.js';

/** The fast tracer could not see every call of the run: its result must not be used. */
export class IncompleteTraceError extends Error {
  readonly reason = "the kernel's ring buffer was full, a 32-bit program ran, or a path was too deep to read";
  constructor(readonly lost: number) {
    super(`the fast tracer missed ${lost} of the program's calls`);
  }
}

type ReadTrace = { seen: ReturnType<FastTraceCollector['result']>; files: Set<string>; byProgram: Map<string, Set<string>> };

function readTrace(collector: FastTraceCollector, sandbox: Sandbox): ReadTrace {
  const seen = collector.result();
  return { seen, files: withSymlinkTargets(seen.files, (p) => sandbox.toHost(p)), byProgram: programFiles(seen.byProgram, (p) => sandbox.toHost(p)) };
}

/** The fast tracer served by `daemon` (by default the one this process shares). */
export function fastTracer(daemon: () => Promise<FastTraceDaemon> = sharedDaemon): Tracer {
  return async (sandbox, req) => {
    const tracer = await daemon();
    const collector = new FastTraceCollector(req.cwd);
    const gate = await placeGate(sandbox);
    let run: ExecResult;
    let lost: number;
    let trace: Promise<ReadTrace>;
    try {
      const traced = await tracer.open(gate.host, (r) => collector.push(r));
      // The run is usually over before the exec returns (the sandbox's own processes still end): read it meanwhile.
      trace = traced.over.then(() => readTrace(collector, sandbox));
      trace.catch(() => {}); // `end` reports the same failure
      // A process that left the process group keeps the output pipes open, so the exec would not return at its
      // time limit: once past it, the run's processes are killed. When it returns, `end` kills what is left.
      const started = Date.now();
      const stragglers = setInterval(() => {
        if (Date.now() - started > req.timeoutMs + STRAGGLER_CHECK_MS) traced.kill();
      }, STRAGGLER_CHECK_MS);
      const { signal, ...exec } = req;
      const stop = () => traced.kill();
      if (signal?.aborted) stop();
      signal?.addEventListener('abort', stop);
      try {
        run = await sandbox.exec({ ...exec, argv: [gate.inside, ...exec.argv] });
      } finally {
        signal?.removeEventListener('abort', stop);
        clearInterval(stragglers);
        lost = await traced.end();
      }
    } finally {
      void gate.remove(); // not awaited: nothing depends on it, and the work directory goes in the end
    }
    const { seen, files, byProgram } = await trace;
    if (!seen.gateRan) {
      if (run.spawnError) throw new EnvproofError(`the ${sandbox.backend} sandbox could not be started: ${run.spawnError}`);
      throw new EnvproofError(`the ${sandbox.backend} sandbox did not start the traced program`, undefined, tail(run.stderr));
    }
    if (lost + seen.incomplete > 0) throw new IncompleteTraceError(lost + seen.incomplete);
    return {
      run: programOutcome(run, { started: seen.programStarted, end: seen.rootEnd }, () => startFailure(run.stderr, 'envproof-gate: ')),
      files,
      execs: seen.execs,
      byProgram,
      tracer: 'fast',
      notes: [],
    };
  };
}
