/** `audit --overhead n`: what tracing costs on the audited project, measured by running it both ways. */
import { median } from '../metrics/stats.js';
import type { Sandbox } from '../sandbox/types.js';
import { traceRun, type TraceRequest, type TracerChoice, type TracerName } from '../trace/index.js';
import type { Overhead } from './report.js';

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await work();
  return { ms: performance.now() - t0, value };
}

/**
 * n untraced and n traced runs, alternating so that a change of machine load affects both alike. Times are
 * wall times seen from envproof, the traced ones end to end (tracer setup, the run, reading the trace).
 */
export async function measureOverhead(sandbox: Sandbox, req: TraceRequest, tracer: TracerChoice | undefined, n: number): Promise<{ overhead: Overhead; notes: string[] }> {
  const untraced: number[] = [];
  const traced: number[] = [];
  const tracers = new Set<TracerName>();
  const notes = new Set<string>();
  for (let i = 0; i < n; i++) {
    const plain = await timed(() => sandbox.exec(req));
    const t = await timed(() => traceRun(sandbox, req, tracer));
    untraced.push(plain.ms);
    traced.push(t.ms);
    tracers.add(t.value.tracer);
    for (const note of t.value.notes) notes.add(`overhead runs: ${note}`);
    if (plain.value.exitCode !== 0 || t.value.run.exitCode !== 0) notes.add('overhead runs: the program did not always exit with 0, so the runs may have done different work');
  }
  if (tracers.size > 1) notes.add(`overhead runs: traced with ${[...tracers].join(' and ')} (see the notes above)`);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    overhead: {
      tracer: [...tracers].at(-1)!,
      n,
      untracedMedianMs: round(median(untraced)!),
      tracedMedianMs: round(median(traced)!),
      ratio: Math.round(median(traced.map((t, i) => t / untraced[i]!))! * 1000) / 1000,
    },
    notes: [...notes],
  };
}
