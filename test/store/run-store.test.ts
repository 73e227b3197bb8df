/**
 * `report` on a store written by `envproof run` (scripted agents, real pip installs, real tracer, host sandbox):
 * the same metric code as for imported data, with repair depth known. Expected values by hand from the scripts
 * in fixtures/run (D1 from round 0's requirements.txt, D2 the final manifest's install, D3 what main.py imports):
 *
 *   alpha p_01  D1{six}        D2{six}        D3{six}        first attempt succeeds
 *   alpha p_02  D1{six}        D2{pyyaml,six} D3{pyyaml,six} round 0 lacks PyYAML, repaired in round 1
 *   beta  p_01  D1{pyyaml,six} D2{pyyaml,six} D3{six}        first attempt succeeds
 *   beta  p_02  D1{six}        D2{six}        D3{}           first attempt succeeds (main.py imports nothing)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { AggregateReport } from '../../src/metrics/aggregate.js';
import { runCli } from '../helpers/cli.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'run');

function close(actual: number | null | undefined, expected: number, what: string): void {
  assert.ok(actual !== null && actual !== undefined && Math.abs(actual - expected) < 1e-9, `${what}: got ${actual}, expected ${expected}`);
}

describe('report on a store written by envproof run', () => {
  let dir: string;
  let report: AggregateReport;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'envproof-run-report-'));
    const store = path.join(dir, 'store.db');
    const run = runCli([
      'run',
      '--suite',
      path.join(FIXTURES, 'suite.yaml'),
      '--agent',
      `alpha@scripted:${path.join(FIXTURES, 'alpha.yaml')}`,
      `beta@scripted:${path.join(FIXTURES, 'beta.yaml')}`,
      '--tasks',
      'p_01,p_02',
      '--languages',
      'python',
      '--repairs',
      '2',
      '--sandbox',
      'host',
      '--quiet',
      '--store',
      store,
    ]);
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const r = runCli(['report', '--store', store, '--format', 'json']);
    assert.equal(r.status, 0, r.stderr);
    report = JSON.parse(r.stdout) as AggregateReport;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('convergence and repair depth', () => {
    assert.deepEqual(report.counts.sources, { envproof: 4 });
    assert.deepEqual(report.agents, ['alpha', 'beta']);
    const alpha = report.convergence.find((c) => c.agent === 'alpha')!;
    // alpha: 1 of 2 first attempts, 2 of 2 in the end, the one failure repaired.
    close(alpha.sr0Pct, 50, 'alpha SR0');
    close(alpha.finalSrPct, 100, 'alpha final');
    close(alpha.repairedPct, 100, 'alpha repaired');
    const beta = report.convergence.find((c) => c.agent === 'beta')!;
    close(beta.sr0Pct, 100, 'beta SR0');
    assert.deepEqual(report.repairBuckets.find((b) => b.agent === 'alpha')?.counts, {
      '0': 1,
      '1-3': 1,
      '4-7': 0,
      '8-10': 0,
      '>10': 0,
      failed: 0,
      unknown: 0,
    });
  });

  it('set metrics', () => {
    // alpha rows (phantom, hidden, bloat): p_01 (0,0,0), p_02 (0, 1/2, 0); beta: p_01 (1/2, 0, 1/2), p_02 (1, 0, 1)
    const m = (agent: string) => report.mismatch.find((x) => x.agent === agent)!;
    close(m('alpha').hidden, 0.25, 'alpha hidden');
    close(m('alpha').phantom, 0, 'alpha phantom');
    close(m('beta').phantom, 0.75, 'beta phantom');
    close(m('beta').bloat, 0.75, 'beta bloat');
    // Table 4: alpha p_01 (1,1,1), p_02 (1, 1/2, 2/3) → R 3/4, F1 5/6; beta p_01 (1/2, 1, 2/3), p_02 (0, 1 [D3 empty], 0)
    const a = (agent: string) => report.manifestAccuracy.find((x) => x.agent === agent)!;
    close(a('alpha').recall, 0.75, 'alpha R');
    close(a('alpha').f1, 5 / 6, 'alpha F1');
    close(a('beta').precision, 0.25, 'beta P');
    close(a('beta').recall, 1, 'beta R');
    close(a('beta').f1, 1 / 3, 'beta F1');
    // Inflation from the set sizes: alpha 1/1 and 2/1 → 1.5; beta 2/2 and 1/1 → 1.
    close(report.inflation.find((x) => x.agent === 'alpha')?.mean, 1.5, 'alpha rho');
    close(report.inflation.find((x) => x.agent === 'beta')?.mean, 1, 'beta rho');
    // Cross-agent: p_01 {six} vs {pyyaml,six} = 1/2, p_02 {six} vs {six} = 1 → mean 3/4, nothing disjoint.
    const pair = report.crossAgent.find((c) => c.pair === 'alpha-beta')!;
    assert.equal(pair.nTasks, 2);
    close(pair.meanJaccard, 0.75, 'J');
    close(pair.cdrPct, 0, 'CDR');
  });
});
