/**
 * The fast tracer: the kernel reports each open, exec and directory change of the program's process tree
 * as it happens, without stopping the program (native/fasttrace). Works for every backend: the run's gate
 * is recognised by its inode, whoever starts it.
 */
import { EnvproofError } from '../../core/errors.js';
import { tail } from '../../core/process.js';
import type { ExecResult } from '../../sandbox/types.js';
import { placeGate } from '../gate.js';
import { programOutcome, startFailure } from '../outcome.js';
import { reapingRun, RUN_MARKER_VARIABLE } from '../reap.js';
import { withSymlinkTargets } from '../symlinks.js';
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

/** The fast tracer served by `daemon` (by default the one this process shares). */
export function fastTracer(daemon: () => Promise<FastTraceDaemon> = sharedDaemon): Tracer {
  return async (sandbox, req) => {
    const tracer = await daemon();
    const collector = new FastTraceCollector(req.cwd);
    const gate = await placeGate(sandbox);
    let run: ExecResult;
    let lost: number;
    try {
      const traced = await tracer.open(gate.host, (r) => collector.push(r));
      try {
        run = await reapingRun(req.timeoutMs, (marker) =>
          sandbox.exec({ ...req, argv: [gate.inside, ...req.argv], env: { ...req.env, [RUN_MARKER_VARIABLE]: marker } }),
        );
      } finally {
        lost = await traced.end();
      }
    } finally {
      await gate.remove();
    }
    const seen = collector.result();
    if (!seen.gateRan) {
      if (run.spawnError) throw new EnvproofError(`the ${sandbox.backend} sandbox could not be started: ${run.spawnError}`);
      throw new EnvproofError(`the ${sandbox.backend} sandbox did not start the traced program`, undefined, tail(run.stderr));
    }
    if (lost + seen.incomplete > 0) throw new IncompleteTraceError(lost + seen.incomplete);
    return {
      run: programOutcome(run, { started: seen.programStarted, end: seen.rootEnd }, () => startFailure(run.stderr, 'envproof-gate: ')),
      files: withSymlinkTargets(seen.files, (p) => sandbox.toHost(p)),
      execs: seen.execs,
      tracer: 'fast',
      notes: [],
    };
  };
}
