/**
 * The fast tracer against strace on every fixture of an ecosystem, each installed once the way an audit
 * installs it (host backend): one run watched by both must give identical files, and separate runs, one per
 * tracer as audits take them, the same D3 and the same other views of it.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { prepareAudit, type PreparedAudit } from '../../src/audit/audit.js';
import { EnvproofError } from '../../src/core/errors.js';
import type { Dependency, EcosystemId } from '../../src/core/types.js';
import type { AttributionResult } from '../../src/ecosystems/types.js';
import { traceRun } from '../../src/trace/index.js';
import { traceWithBoth } from './both.js';

export interface EquivalenceOptions {
  ecosystem: EcosystemId;
  fixtures: string;
  /** The fixtures that get as far as a traced run; every other one must fail before it. */
  traced: readonly string[];
  /** Fixtures of the manifest parser only, with why they cannot be installed at all. */
  manifestOnly?: Record<string, string>;
  /** Per fixture, the directory to audit when it is not the fixture itself (placeholders filled in). */
  source?: (fixture: string) => Promise<string | undefined>;
  timeoutSec?: Record<string, number>;
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
    const fixtures = readdirSync(opts.fixtures, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !(d.name in (opts.manifestOnly ?? {})))
      .map((d) => d.name)
      .sort();
    const reached: string[] = [];

    for (const fixture of fixtures) {
      test(fixture, { timeout: 600_000 }, async () => {
        const dir = (await opts.source?.(fixture)) ?? path.join(opts.fixtures, fixture);
        let p: PreparedAudit;
        try {
          p = await prepareAudit({ dir, ecosystem: opts.ecosystem, sandbox: 'host', timeoutSec: opts.timeoutSec?.[fixture] ?? 60, keep: false, progress: () => {} });
        } catch (err) {
          if (!(err instanceof EnvproofError)) throw err;
          assert.ok(!opts.traced.includes(fixture), `${fixture} was expected to reach its traced run: ${err.message}`);
          return;
        }
        try {
          reached.push(fixture);
          const both = await traceWithBoth(p.sandbox, p.request);
          assert.equal(both.fastIncomplete, 0, 'the fast tracer missed calls');
          assert.ok(both.strace.size > 0, 'strace saw nothing');
          assert.deepEqual(sorted(both.fast), sorted(both.strace), 'one run, two tracers, different files');

          const fast = await traceRun(p.sandbox, p.request, 'fast');
          const strace = await traceRun(p.sandbox, p.request, 'strace');
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

    test('the fixtures that reach a traced run are the expected ones', () => {
      assert.deepEqual(reached.sort(), [...opts.traced].sort());
    });
  });
}
