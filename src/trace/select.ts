/**
 * Which tracer traces a run: `fast` (kernel events, native/fasttrace) where it can run, else strace. A fast
 * trace that missed calls is never used: the run is repeated under strace, and the result says so.
 */
import { EnvproofError } from '../core/errors.js';
import type { Sandbox } from '../sandbox/types.js';
import { FastTracerUnavailable } from './fast/daemon.js';
import { fastTracer, IncompleteTraceError } from './fast/tracer.js';
import { straceTracer } from './strace-run.js';
import type { TraceRequest, TraceResult, Tracer } from './types.js';

export type TracerChoice = 'auto' | 'fast' | 'strace';
export const TRACER_CHOICES: readonly TracerChoice[] = ['auto', 'fast', 'strace'];

export interface Tracers {
  fast: Tracer;
  strace: Tracer;
}

const DEFAULT_TRACERS: Tracers = { fast: fastTracer(), strace: straceTracer };

export async function traceRun(sandbox: Sandbox, req: TraceRequest, choice: TracerChoice = 'auto', tracers: Tracers = DEFAULT_TRACERS): Promise<TraceResult> {
  if (choice === 'strace') return tracers.strace(sandbox, req);
  let why: string;
  try {
    return await tracers.fast(sandbox, req);
  } catch (err) {
    if (err instanceof FastTracerUnavailable) {
      if (choice === 'fast') throw new EnvproofError(`the fast tracer cannot run here: ${err.message}`, 'use --tracer auto or strace');
      why = `the fast tracer cannot run here (${err.message}): traced with strace`;
    } else if (err instanceof IncompleteTraceError) {
      why = `the fast tracer missed ${err.lost} call${err.lost === 1 ? '' : 's'} (${err.reason}): the run was repeated under strace`;
    } else throw err;
  }
  const r = await tracers.strace(sandbox, req);
  return { ...r, notes: [why, ...r.notes] };
}
