/**
 * The fast tracer against strace on every fixture of an ecosystem that gets as far as a traced run, each
 * installed once the way an audit installs it (host backend): one run watched by both must give identical
 * files, and separate runs, one per tracer as audits take them, the same D3 and the same other views of it.
 * Every other fixture must be named with the reason it never runs (its failure is its ecosystem's tests' topic).
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { prepareAudit, type PreparedAudit } from '../../src/audit/audit.js';
import type { Dependency, EcosystemId } from '../../src/core/types.js';
import type { AttributionResult } from '../../src/ecosystems/types.js';
import { traceRun } from '../../src/trace/index.js';
import { traceWithBoth } from './both.js';

export interface EquivalenceOptions {
  ecosystem: EcosystemId;
  fixtures: string;
  /** The fixtures that get as far as a traced run. */
  traced: readonly string[];
  /** Every other fixture, with why it never runs. */
  untraced: Record<string, string>;
  /** Per fixture, the directory to audit when it is not the fixture itself (placeholders filled in). */
  source?: (fixture: string) => Promise<string | undefined>;
  timeoutSec?: Record<string, number>;
  /** Per fixture, the command to trace when it has no default entry point. */
  run?: Record<string, string>;
  /** Further checks of a traced fixture, with the fast tracer's attribution. */
  alsoCheck?: (fixture: string, p: PreparedAudit, fast: AttributionResult) => Promise<void>;
}

const names = (deps: readonly Dependency[] | undefined) => (deps ?? []).map((d) => d.name).sort();
const sorted = (files: Set<string>) => [...files].sort();

function views(a: AttributionResult): Record<string, string[]> {
  return { traced: names(a.traced), ...Object.fromEntries(Object.entries(a.alternatives ?? {}).map(([k, v]) => [k, names(v)])) };
}

export function describeEquivalence(opts: EquivalenceOptions): void {
  describe(`${opts.ecosystem}: the fast tracer gives what strace gives, on every fixture`, () => {
    test('every fixture is either compared or named with the reason it never runs', () => {
      const fixtures = readdirSync(opts.fixtures, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
      assert.deepEqual(fixtures.sort(), [...opts.traced, ...Object.keys(opts.untraced)].sort());
    });

    for (const fixture of opts.traced) {
      test(fixture, { timeout: 600_000 }, async () => {
        const dir = (await opts.source?.(fixture)) ?? path.join(opts.fixtures, fixture);
        const p = await prepareAudit({ dir, ecosystem: opts.ecosystem, sandbox: 'host', timeoutSec: opts.timeoutSec?.[fixture] ?? 60, ...(opts.run?.[fixture] ? { run: [opts.run[fixture]!] } : {}), keep: false, progress: () => {} });
        try {
          const both = await traceWithBoth(p.sandbox, p.requests[0]!);
          assert.equal(both.fastIncomplete, 0, 'the fast tracer missed calls');
          assert.ok(both.strace.size > 0, 'strace saw nothing');
          assert.deepEqual(sorted(both.fast), sorted(both.strace), 'one run, two tracers, different files');

          const fast = await traceRun(p.sandbox, p.requests[0]!, 'fast');
          const strace = await traceRun(p.sandbox, p.requests[0]!, 'strace');
          assert.deepEqual([fast.tracer, strace.tracer], ['fast', 'strace']);
          assert.deepEqual(fast.notes, []);
          const fastD3 = await p.module.attribute(fast.files, p.ctx, p.install);
          const straceD3 = await p.module.attribute(strace.files, p.ctx, p.install);
          assert.deepEqual(views(fastD3), views(straceD3), 'D3 differs between the tracers');
          await opts.alsoCheck?.(fixture, p, fastD3);
        } finally {
          await p.close();
        }
      });
    }
  });
}
