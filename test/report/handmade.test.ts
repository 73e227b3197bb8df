// tier: quick
/**
 * A small hand-made dataset in the paper's per-run CSV format (fixtures/handmade): agents claude (trials 1–3 in
 * Python, 1 in C++) and codex (trial 1), tasks p_01–p_04, languages python and cpp, files split over results/raw
 * and data/results. Every expected value below was worked out by hand from the fixture rows; the arithmetic is
 * in the comments. Normalised sets (docs/paper-data.md §3) of the successful primary runs, used throughout:
 *
 *   claude python  p_01 D1{pandas,requests} D2{numpy,pandas,requests,urllib3} D3{numpy,requests}
 *                  p_02 D1{} D2{} D3{}     p_03 D1{flask} (from "Flask[async]>=2") D2{flask,werkzeug} D3{flask,jinja2,werkzeug}
 *                  p_04 failed
 *   codex python   p_01 D1{pandas} D2{numpy,pandas} D3{numpy,pandas}
 *                  p_02 D1{rich} D2{markdown-it-py,pygments,rich} D3{rich}   p_03 D1=D2=D3={flask}   p_04 failed
 *   claude cpp     p_01 D1=D2{nlohmann-json} D3{}   p_02 D1=D2{openssl,zlib} D3{crypto,ssl,z} (libssl.so.3 → ssl ...)
 *                  p_03 all empty   p_04 D1=D2{boost} D3{boost-system} (libboost_system.so.1.74.0)
 *   codex cpp      p_01 D1=D2{nlohmann-json} D3{}   p_02 D1=D2{openssl} D3{crypto}   p_03 failed   p_04 all empty
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { AggregateReport } from '../../src/metrics/aggregate.js';
import { runCli } from '../helpers/cli.js';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'handmade');

function close(actual: number | null | undefined, expected: number, what: string): void {
  assert.ok(actual !== null && actual !== undefined, `${what}: got ${actual}`);
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: got ${actual}, expected ${expected}`);
}

describe('hand-made dataset: every metric checked against hand arithmetic', () => {
  let dir: string;
  let report: AggregateReport;
  const row = <T extends { agent: string; language: string }>(rows: T[], agent: string, language: string): T => {
    const r = rows.find((x) => x.agent === agent && x.language === language);
    assert.ok(r, `no row ${agent} ${language}`);
    return r;
  };

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'envproof-handmade-'));
    const store = path.join(dir, 'store.db');
    const imp = runCli(['import', 'envgap-csv', FIXTURE, '--store', store]);
    assert.equal(imp.status, 0, imp.stderr);
    // 3 Python trials of claude x 4 tasks + 3 other files x 4 tasks = 24 runs; trial 1 of each of 4 files = 16 primary.
    assert.match(imp.stdout, /imported 24 runs \(16 primary\) from 6 files and 4 tasks/);
    const rep = runCli(['report', '--store', store, '--format', 'json']);
    assert.equal(rep.status, 0, rep.stderr);
    report = JSON.parse(rep.stdout) as AggregateReport;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('counts, agents, languages, domains', () => {
    assert.deepEqual(report.agents, ['claude', 'codex']);
    assert.deepEqual(report.languages, ['python', 'cpp']);
    assert.equal(report.counts.totalRuns, 24);
    assert.equal(report.counts.primaryRuns, 16);
    // Two tasks each; equal counts sort alphabetically.
    assert.deepEqual(report.counts.tasksPerDomain, [
      { domain: 'Cryptography', tasks: 2 },
      { domain: 'Data Processing', tasks: 2 },
    ]);
    // claude p_01 (raw nlohmann_json) and codex p_01 (nlohmann-json).
    assert.equal(report.counts.cppNlohmannJson, 2);
  });

  it('convergence SR(0), SR(≤k), repaired share', () => {
    const expected: [string, string, number, number, number, number, number | null][] = [
      // agent, language, SR0, final SR, failures, repaired, repaired %
      ['claude', 'python', 50, 75, 2, 1, 50], // first T,T,F,F; final T,T,T,F; p_03 repaired
      ['claude', 'cpp', 25, 100, 3, 3, 100], // first T,F,F,F; final all T
      ['codex', 'python', 50, 75, 2, 1, 50], // first T,yes,false,0; final T,yes,success,0
      ['codex', 'cpp', 75, 75, 1, 0, 0], // only p_03 fails first, and never recovers
      ['all', 'python', 50, 75, 4, 2, 50], // 4/8, 6/8, 2 of 4
      ['all', 'cpp', 50, 87.5, 4, 3, 75], // (1+3)/8, (4+3)/8, 3 of 4
    ];
    for (const [agent, language, sr0, finalSr, failures, repaired, repairedPct] of expected) {
      const r = row(report.convergence, agent, language);
      assert.equal(r.n, agent === 'all' ? 8 : 4);
      close(r.sr0Pct, sr0, `SR0 ${agent} ${language}`);
      close(r.finalSrPct, finalSr, `final ${agent} ${language}`);
      assert.equal(r.firstAttemptFailures, failures);
      assert.equal(r.repaired, repaired);
      close(r.repairedPct, repairedPct!, `repaired ${agent} ${language}`);
    }
    assert.deepEqual(report.convergence.map((r) => `${r.agent} ${r.language}`), [
      'claude python', 'claude cpp', 'codex python', 'codex cpp', 'all python', 'all cpp',
    ]);
  });

  it('repair buckets (imported depth is known only for first-attempt successes)', () => {
    const counts = (agent: string, language: string) => row(report.repairBuckets, agent, language).counts;
    assert.deepEqual(counts('claude', 'python'), { '0': 2, '1-3': 0, '4-7': 0, '8-10': 0, '>10': 0, failed: 1, unknown: 1 });
    assert.deepEqual(counts('claude', 'cpp'), { '0': 1, '1-3': 0, '4-7': 0, '8-10': 0, '>10': 0, failed: 0, unknown: 3 });
    assert.deepEqual(counts('codex', 'cpp'), { '0': 3, '1-3': 0, '4-7': 0, '8-10': 0, '>10': 0, failed: 1, unknown: 0 });
  });

  it('inflation from the count columns', () => {
    // claude py: p_01 4/2=2, p_02 declared 0 (skipped), p_03 3/1=3 (count says 3, list has 2) → mean 2.5, median 2.5
    // codex py: 2/1, 3/1, 1/1 → [2,3,1] mean 2, median 2
    // pooled py: [2,3,2,3,1] mean 11/5 = 2.2, median 2
    // claude cpp: p_01 1/1, p_02 2/2, p_03 declared 0, p_04 transitive N/A (skipped) → [1,1]
    // codex cpp: p_01 1/1, p_02 4/1 = 4, p_04 declared 0 → [1,4] mean 2.5 median 2.5
    // pooled cpp: [1,1,1,4] mean 7/4, median (1+1)/2 = 1
    const expected: [string, string, number, number, number][] = [
      ['claude', 'python', 2, 2.5, 2.5],
      ['codex', 'python', 3, 2, 2],
      ['all', 'python', 5, 2.2, 2],
      ['claude', 'cpp', 2, 1, 1],
      ['codex', 'cpp', 2, 2.5, 2.5],
      ['all', 'cpp', 4, 1.75, 1],
    ];
    for (const [agent, language, n, m, med] of expected) {
      const r = row(report.inflation, agent, language);
      assert.equal(r.n, n, `inflation n ${agent} ${language}`);
      close(r.mean, m, `rho mean ${agent} ${language}`);
      close(r.median, med, `rho median ${agent} ${language}`);
    }
  });

  it('phantom, hidden and bloat rates', () => {
    // claude py rows (phantom, hidden, bloat): p_01 (1/2, 1/2, 2/4), p_02 (0,0,0), p_03 (0, 2/3, 0)
    //   → (1/6, (1/2+2/3)/3 = 7/18, 1/6)
    // codex py: p_01 (0, 1/2, 0), p_02 (0, 0, 2/3), p_03 (0,0,0) → (0, 1/6, 2/9)
    // pooled py, 6 rows: phantom 1/2 / 6 = 1/12; hidden (1/2+2/3+1/2)/6 = 5/18; bloat (1/2+2/3)/6 = 7/36
    // claude cpp: p_01 (1, 0 [D3 empty], 1), p_02 (1,1,1), p_03 (0,0,0), p_04 (1,1,1) → (3/4, 1/2, 3/4)
    // codex cpp: p_01 (1,0,1), p_02 (1,1,1), p_04 (0,0,0) → (2/3, 1/3, 2/3); pooled cpp 7 rows → (5/7, 3/7, 5/7)
    const expected: [string, string, number, number, number, number][] = [
      ['claude', 'python', 3, 1 / 6, 7 / 18, 1 / 6],
      ['codex', 'python', 3, 0, 1 / 6, 2 / 9],
      ['all', 'python', 6, 1 / 12, 5 / 18, 7 / 36],
      ['claude', 'cpp', 4, 3 / 4, 1 / 2, 3 / 4],
      ['codex', 'cpp', 3, 2 / 3, 1 / 3, 2 / 3],
      ['all', 'cpp', 7, 5 / 7, 3 / 7, 5 / 7],
    ];
    for (const [agent, language, n, phantom, hidden, bloat] of expected) {
      const r = row(report.mismatch, agent, language);
      assert.equal(r.n, n);
      close(r.phantom, phantom, `phantom ${agent} ${language}`);
      close(r.hidden, hidden, `hidden ${agent} ${language}`);
      close(r.bloat, bloat, `bloat ${agent} ${language}`);
    }
  });

  it('Table 4 precision, recall, F1 (both-empty runs excluded)', () => {
    // claude py: p_01 i=1 → P 1/2 R 1/2 F1 1/2; p_02 excluded; p_03 i=1 → P 1, R 1/3, F1 (2/3)/(4/3) = 1/2
    //   → n 2, P 3/4, R 5/12, F1 1/2
    // codex py: p_01 P 1 R 1/2 F1 2/3; p_02 1,1,1; p_03 1,1,1 → n 3, P 1, R 5/6, F1 8/9
    // all py: n 5, P 4.5/5 = 0.9, R (1/2+1/3+1/2+1+1)/5 = 2/3, F1 (1/2+1/2+2/3+1+1)/5 = 11/15
    // claude cpp: p_01 D3 empty → P 0, R 1, F1 0; p_02 0,0,0; p_03 excluded; p_04 0,0,0 → n 3, P 0, R 1/3, F1 0
    // codex cpp: p_01 0,1,0; p_02 0,0,0; p_04 excluded → n 2, P 0, R 1/2, F1 0; all cpp n 5, R 2/5
    const expected: [string, string, number, number, number, number][] = [
      ['claude', 'python', 2, 3 / 4, 5 / 12, 1 / 2],
      ['codex', 'python', 3, 1, 5 / 6, 8 / 9],
      ['all', 'python', 5, 0.9, 2 / 3, 11 / 15],
      ['claude', 'cpp', 3, 0, 1 / 3, 0],
      ['codex', 'cpp', 2, 0, 1 / 2, 0],
      ['all', 'cpp', 5, 0, 2 / 5, 0],
    ];
    for (const [agent, language, n, p, r, f1] of expected) {
      const a = row(report.manifestAccuracy, agent, language);
      assert.equal(a.n, n, `table 4 n ${agent} ${language}`);
      close(a.precision, p, `P ${agent} ${language}`);
      close(a.recall, r, `R ${agent} ${language}`);
      close(a.f1, f1, `F1 ${agent} ${language}`);
    }
  });

  it('cross-agent Jaccard and complete disjointness', () => {
    // python: p_01 {pandas,requests} vs {pandas} = 1/2; p_02 {} vs {rich} = 0 (disjoint); p_03 1; p_04 claude failed
    //   → 3 tasks, mean 1/2, CDR 1/3
    // cpp: p_01 1; p_02 {openssl,zlib} vs {openssl} = 1/2; p_03 codex failed; p_04 {boost} vs {} = 0 → same figures
    for (const language of ['python', 'cpp']) {
      for (const pair of ['claude-codex', 'all pairs']) {
        const r = report.crossAgent.find((c) => c.language === language && c.pair === pair);
        assert.ok(r, `${language} ${pair}`);
        assert.equal(r.nTasks, 3);
        close(r.meanJaccard, 1 / 2, `J ${language} ${pair}`);
        close(r.cdrPct, 100 / 3, `CDR ${language} ${pair}`);
      }
    }
    close(report.cdrMacroPct, 100 / 3, 'macro CDR');
  });

  it('Table 5 stability over claude\'s three Python trials', () => {
    // Tasks with all three trials successful: p_01, p_02 (p_03 fails in trial 3, p_04 in trial 1).
    // p_01: {pandas,requests}, {pandas,requests}, {pandas}: J 1, 1/2, 1/2 → 2/3; union 2, core 1
    // p_02: {}, {}, {tabulate}: J 1 (both empty), 0, 0 → 1/3; union 1, core 0
    // → mean J 1/2, median 1/2, unanimous 0 (UCR 0%), mean union 3/2, mean core 1/2
    for (const agent of ['claude', 'all']) {
      const s = row(report.stability, agent, 'python');
      assert.deepEqual(s.trials, [1, 2, 3]);
      assert.equal(s.nTasks, 2);
      close(s.meanJaccard, 1 / 2, 'mean J');
      close(s.medianJaccard, 1 / 2, 'median J');
      assert.equal(s.unanimous, 0);
      close(s.ucrPct, 0, 'UCR');
      close(s.meanUnion, 1.5, 'union');
      close(s.meanCore, 0.5, 'core');
    }
    // Only one trial elsewhere: no stability rows for codex or for C++.
    assert.equal(report.stability.length, 2);
  });

  it('Table 6 SLAR and EGAR', () => {
    // claude cpp failures p_02 SystemLib, p_03 MissingDep, p_04 BuildConfig → 3, syslib 2, SLAR 2/3, both recovered → EGAR 100
    // codex cpp failures p_03 MissingDep → 1, syslib 1, SLAR 100, not recovered → EGAR 0
    const [claude, codex] = report.syslib;
    assert.deepEqual(
      [claude?.agent, claude?.firstAttemptFailures, claude?.syslib, claude?.recovered],
      ['claude', 3, 2, 2],
    );
    close(claude?.slarPct, 200 / 3, 'SLAR claude');
    close(claude?.egarPct, 100, 'EGAR claude');
    assert.deepEqual([codex?.agent, codex?.firstAttemptFailures, codex?.syslib, codex?.recovered], ['codex', 1, 1, 0]);
    close(codex?.slarPct, 100, 'SLAR codex');
    close(codex?.egarPct, 0, 'EGAR codex');
  });

  it('domains and the weakest domain', () => {
    // claude Cryptography (py p_03,p_04, cpp p_03,p_04): first F,F,F,F → 0; final T,F,T,T → 75
    // claude Data Processing (py p_01,p_02, cpp p_01,p_02): first T,T,T,F → 75; final all T → 100
    // codex Cryptography: first F,F (py) F,T (cpp) → 25; final success,0,F,T → 50; codex Data Processing: 100, 100
    const expected: [string, string, number, number][] = [
      ['claude', 'Cryptography', 0, 75],
      ['claude', 'Data Processing', 75, 100],
      ['codex', 'Cryptography', 25, 50],
      ['codex', 'Data Processing', 100, 100],
      ['all', 'Cryptography', 12.5, 62.5], // 1/8 and 5/8
      ['all', 'Data Processing', 87.5, 100], // 7/8, 8/8
    ];
    for (const [agent, domain, sr0, finalSr] of expected) {
      const d = report.domainConvergence.find((x) => x.agent === agent && x.domain === domain);
      assert.ok(d, `${agent} ${domain}`);
      assert.equal(d.n, 4 * (agent === 'all' ? 2 : 1));
      close(d.sr0Pct, sr0, `SR0 ${agent} ${domain}`);
      close(d.finalSrPct, finalSr, `final ${agent} ${domain}`);
    }
    assert.deepEqual(report.weakestDomains, [
      { agent: 'claude', domain: 'Cryptography', sr0Pct: 0 },
      { agent: 'codex', domain: 'Cryptography', sr0Pct: 25 },
    ]);
  });

  it('unnecessary dependency rate', () => {
    // Stdlib-sufficient (any run, any trial, successful with claimed_count 0):
    //   python p_02 (claude t1) and p_04 (claude t2 only); cpp p_03 (claude) and p_04 (codex).
    // claude py: p_02 ok & 0 deps; p_04 failed → n 1, 0 with deps → 0
    // codex py: p_02 rich (1) ; p_04 failed → n 1, 1 → 100
    // claude cpp: p_03 0 deps, p_04 boost → n 2, 1 → 50; codex cpp: p_03 failed, p_04 0 → n 1, 0 → 0
    // macro claude (0+50)/2 = 25, codex (100+0)/2 = 50
    // pooled py n 2 with 1 → 50; pooled cpp n 3 with 1 → 100/3; macro (50 + 100/3)/2 = 125/3
    const expected: [string, string, number | null, number | null, number][] = [
      ['claude', 'python', 1, 0, 0],
      ['claude', 'cpp', 2, 1, 50],
      ['claude', 'macro', null, null, 25],
      ['codex', 'python', 1, 1, 100],
      ['codex', 'cpp', 1, 0, 0],
      ['codex', 'macro', null, null, 50],
      ['all', 'python', 2, 1, 50],
      ['all', 'cpp', 3, 1, 100 / 3],
      ['all', 'macro', null, null, 125 / 3],
    ];
    assert.equal(report.udr.length, expected.length);
    expected.forEach(([agent, language, nTasks, withDep, udr], i) => {
      const u = report.udr[i]!;
      assert.deepEqual([u.agent, u.language, u.nTasks, u.withExternalDep], [agent, language, nTasks, withDep]);
      close(u.udrPct, udr, `UDR ${agent} ${language}`);
    });
  });

  it('Spearman of |D1| with first-attempt success', () => {
    // codex py: x = |D1| = [1,1,1,2] → ranks [2,2,2,4]; y = [1,1,0,0] → ranks [3.5,3.5,1.5,1.5]
    //   dx = [-.5,-.5,-.5,1.5], dy = [1,1,-1,-1]: Sxy = -2, Sxx = 3, Syy = 4 → rho = -2/√12 = -1/√3
    //   t = rho·√(2/(1−1/3)) = -1; df 2: p = 1 − |t|/√(2+t²) = 1 − 1/√3
    // codex cpp: x = [1,1,1,0] → ranks [3,3,3,1]; y = [1,1,0,1] → ranks [3,3,1,3]
    //   dx = [.5,.5,.5,-1.5], dy = [.5,.5,-1.5,.5]: Sxy = -1, Sxx = Syy = 3 → rho = -1/3; t = -1/3·√(2/(8/9)) = -1/2
    //   p = 1 − 0.5/√2.25 = 2/3
    // claude py: x ranks [4,1,2.5,2.5], y ranks [3.5,3.5,1.5,1.5]: Sxy = 1.5 − 1.5 = 0 → rho 0, p 1
    // pooled py (8 runs): x = [2,0,1,1,1,1,1,2] → ranks [7.5,1,4,4,4,4,4,7.5]; y ranks 6.5 / 2.5;
    //   Sxy = 3·2 − 3.5·2 + .5·2 − .5·2 − .5·2 + .5·2 + 3·(−2) = −6, Sxx = 31.5, Syy = 32 → rho = −6/√1008
    const sp = (agent: string, language: string) => row(report.spearman, agent, language);
    close(sp('codex', 'python').rho, -1 / Math.sqrt(3), 'rho codex python');
    assert.ok(Math.abs(sp('codex', 'python').pValue! - (1 - 1 / Math.sqrt(3))) < 1e-7, 'p codex python');
    close(sp('codex', 'cpp').rho, -1 / 3, 'rho codex cpp');
    assert.ok(Math.abs(sp('codex', 'cpp').pValue! - 2 / 3) < 1e-7, 'p codex cpp');
    close(sp('claude', 'python').rho, 0, 'rho claude python');
    assert.ok(Math.abs(sp('claude', 'python').pValue! - 1) < 1e-9, 'p claude python');
    assert.equal(sp('all', 'python').n, 8);
    close(sp('all', 'python').rho, -6 / Math.sqrt(1008), 'rho pooled python');
  });

  it('most frequent phantom and hidden packages', () => {
    const list = (kind: string, language: string) =>
      report.frequentGaps.filter((g) => g.kind === kind && g.language === language).map((g) => `${g.name}:${g.runs}`);
    // python phantom: only claude p_01 pandas. hidden: numpy (claude p_01, codex p_01), jinja2, werkzeug (claude p_03)
    assert.deepEqual(list('phantom', 'python'), ['pandas:1']);
    assert.deepEqual(list('hidden', 'python'), ['numpy:2', 'jinja2:1', 'werkzeug:1']);
    // cpp phantom: nlohmann-json (p_01 x2), openssl (p_02 x2), boost, zlib. hidden: crypto x2, boost-system, ssl, z
    assert.deepEqual(list('phantom', 'cpp'), ['nlohmann-json:2', 'openssl:2', 'boost:1', 'zlib:1']);
    assert.deepEqual(list('hidden', 'cpp'), ['crypto:2', 'boost-system:1', 'ssl:1', 'z:1']);
  });
});
