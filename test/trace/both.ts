/**
 * One run watched by both tracers at once: strace from the host around the sandbox's command, the fast
 * tracer from the kernel, the same gate for both. Whatever the program does differently from one run to the
 * next (temporary names, caches it writes), both see the same calls, so their file sets must be identical.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Sandbox } from '../../src/sandbox/types.js';
import { FastTraceCollector } from '../../src/trace/fast/collect.js';
import { sharedDaemon } from '../../src/trace/fast/daemon.js';
import { placeGate } from '../../src/trace/gate.js';
import { parseStraceLog, type TraceRequest } from '../../src/trace/index.js';
import { straceCommand, straceFeatures } from '../../src/trace/strace.js';
import { withSymlinkTargets } from '../../src/trace/symlinks.js';

export interface BothTraces {
  exitCode: number | null;
  strace: Set<string>;
  fast: Set<string>;
  /** Calls the fast tracer reported lost or could not read: its result is only comparable when 0. */
  fastIncomplete: number;
}

export async function traceWithBoth(sandbox: Sandbox, req: TraceRequest): Promise<BothTraces> {
  const logDir = mkdtempSync(path.join(tmpdir(), 'envproof-both-'));
  const log = path.join(logDir, 'trace.strace');
  const gate = await placeGate(sandbox);
  const collector = new FastTraceCollector(req.cwd);
  try {
    const traced = await (await sharedDaemon()).open(gate.host, (r) => collector.push(r));
    const hostWrapper = straceCommand(await straceFeatures({ host: true }), log);
    const run = await sandbox.exec({ ...req, argv: [gate.inside, ...req.argv], hostWrapper });
    const lost = await traced.end();
    const parsed = await parseStraceLog(log, req.cwd, { gate: gate.inside });
    const seen = collector.result();
    const resolved = (files: Set<string>) => withSymlinkTargets(files, (p) => sandbox.toHost(p));
    return { exitCode: run.exitCode, strace: resolved(parsed.files), fast: resolved(seen.files), fastIncomplete: lost + seen.incomplete };
  } finally {
    await gate.remove();
    rmSync(logDir, { recursive: true, force: true });
  }
}
