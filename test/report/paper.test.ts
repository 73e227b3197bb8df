// tier: quick
/**
 * The paper's public data (SHARED/data/envgap-paper) imported and checked through the CLI: all 160 claims of
 * results/verification.csv, and the nine published tables string for string.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CheckOutcome } from '../../src/report/check.js';
import { ResultsStore } from '../../src/store/store.js';
import { runCli, SHARED } from '../helpers/cli.js';
import { requiresShared } from '../helpers/requires.js';

const PAPER = path.join(SHARED, 'data', 'envgap-paper');
const VERIFICATION = path.join(PAPER, 'results', 'verification.csv');
const PAPER_TABLES = [
  'convergence',
  'inflation',
  'mismatch_rates',
  'table4_manifest_accuracy',
  'cross_agent_agreement',
  'table5_stochastic',
  'table6_cpp_syslib',
  'domains',
  'unnecessary_dependency_rate',
];

/** verification.csv rows; the claim names contain commas inside quotes, values never do. */
function verificationRows(text: string): { claim: string; paper: string; reproduced: string }[] {
  return text
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => {
      const m = /^("(?:[^"]|"")*"|[^,]*),([^,]*),([^,]*),([^,]*)$/.exec(line);
      assert.ok(m, `unexpected verification line ${line}`);
      const claim = m[1]!.startsWith('"') ? m[1]!.slice(1, -1).replace(/""/g, '"') : m[1]!;
      return { claim, paper: m[2]!, reproduced: m[3]! };
    });
}

describe('the paper: import + report --check', requiresShared(SHARED, 'data/envgap-paper'), () => {
  let dir: string;
  let store: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'envproof-paper-'));
    store = path.join(dir, 'envproof.db');
    const r = runCli(['import', 'envgap-csv', PAPER, '--store', store]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /imported 1000 runs \(600 primary\) from 20 files and 50 tasks/);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reproduces all 160 published claims (exit 0), each printed as the upstream script printed it', () => {
    const r = runCli(['report', '--store', store, '--check', VERIFICATION]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^160 of 160 claims match: 149 of 149 metric values, 11 of 11 input counts and thresholds$/m);
    assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('yes ')).length, 160);
    // Input counts and the ≥ threshold are printed apart, after the metric values.
    const [values, inputs] = r.stdout.split(/^Input counts and thresholds.*$/m);
    assert.ok(inputs !== undefined, r.stdout);
    const claimsOf = (part: string) => part.split('\n').filter((l) => l.startsWith('yes ')).map((l) => l.replace(/^yes\s+\S+\s+\S+\s+/, ''));
    assert.deepEqual(claimsOf(inputs!), [
      'Lowest final SR over agent-domain pairs, at least (%)',
      'Total evaluation runs',
      'Primary runs',
      ...['Data Processing', 'Cryptography', 'Image Processing', 'Networking', 'Text Processing', 'Compression', 'Math/Scientific', 'System/Generation'].map(
        (d) => `Table 1 tasks in domain ${d}`,
      ),
    ]);
    assert.equal(claimsOf(values!).length, 149);

    const json = runCli(['report', '--store', store, '--check', VERIFICATION, '--format', 'json']);
    assert.equal(json.status, 0, json.stderr);
    const { results } = JSON.parse(json.stdout) as CheckOutcome;
    const published = verificationRows(readFileSync(VERIFICATION, 'utf8'));
    assert.equal(results.length, 160);
    assert.equal(published.length, 160);
    results.forEach((res, i) => {
      const want = published[i]!;
      assert.equal(res.claim, want.claim);
      assert.equal(res.published, want.paper);
      // The upstream script's own recomputation: equal to ours, digit for digit.
      assert.equal(res.recomputed, want.reproduced, res.claim);
      assert.equal(res.ok, true, res.claim);
    });
  });

  it('exits 1 and marks the row when a published value is altered beyond its tolerance', () => {
    const text = readFileSync(VERIFICATION, 'utf8');
    // Table 4 tolerance is 0.0015: 0.733 → 0.736 is out; SR0 tolerance 0.5: 86 → 86.4 stays in.
    const altered = text
      .replace('Table 4 F1 claude python,0.733,', 'Table 4 F1 claude python,0.736,')
      .replace('SR0 claude python (%),86,', 'SR0 claude python (%),86.4,');
    assert.notEqual(altered, text);
    const file = path.join(dir, 'altered.csv');
    writeFileSync(file, altered);
    const r = runCli(['report', '--store', store, '--check', file]);
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^159 of 160 claims match: 148 of 149 metric values, 11 of 11 input counts and thresholds$/m);
    assert.match(r.stdout, /^NO\s+0\.736\s+0\.733\s+Table 4 F1 claude python$/m);
    assert.match(r.stdout, /^yes\s+86\.4\s+86\s+SR0 claude python \(%\)$/m);
  });

  it('flags an unknown claim name', () => {
    const file = path.join(dir, 'unknown.csv');
    writeFileSync(file, 'claim,paper,reproduced,match\nTable 9 something,1,1,yes\n');
    const r = runCli(['report', '--store', store, '--check', file]);
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^NO\s+1\s+-\s+Table 9 something\s+\(unknown claim\)$/m);
  });

  it('lists the claims envproof recomputes that the file does not hold, with their values', () => {
    const json = runCli(['report', '--store', store, '--check', VERIFICATION, '--format', 'json']);
    const { missing } = JSON.parse(json.stdout) as CheckOutcome;
    // By another route: the paper's own tables hold these values (cross_agent_agreement.csv, unnecessary_dependency_rate.csv).
    const agreement = readFileSync(path.join(PAPER, 'results', 'cross_agent_agreement.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
    const names: Record<string, string> = { python: 'Python', java: 'Java', javascript: 'JavaScript', cpp: 'C++' };
    const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
    const expected = agreement
      .filter(([, pair]) => pair !== 'all pairs')
      .map(([language, pair, , jaccard]) => ({ claim: `Cross-agent Jaccard ${pair!.split('-').map(cap).join('-')} ${names[language!]}`, recomputed: jaccard! }))
      .filter((c) => c.claim !== 'Cross-agent Jaccard Codex-Gemini JavaScript');
    const udr = readFileSync(path.join(PAPER, 'results', 'unnecessary_dependency_rate.csv'), 'utf8').trim().split('\n').map((l) => l.split(','));
    for (const agent of ['codex', 'gemini']) {
      const macro = udr.find(([a, language]) => a === agent && language === 'macro')!;
      expected.push({ claim: `Unnecessary dependency rate, ${cap(agent)} macro average (%)`, recomputed: macro[4]! });
    }
    // The published CSVs print Python floats (0.25 for 0.250): compare the numbers.
    const numeric = (cs: { claim: string; recomputed: string }[]) => cs.map((c) => ({ claim: c.claim, value: Number(c.recomputed) }));
    assert.deepEqual(numeric(missing), numeric(expected));
    const text = runCli(['report', '--store', store, '--check', VERIFICATION]);
    assert.match(text.stdout, /^13 claims envproof recomputes are not in .*verification\.csv:$/m);
    assert.match(text.stdout, /^\s+0\.348  Cross-agent Jaccard Claude-Codex Python$/m);
  });

  it('writes the nine published tables string for string', () => {
    const out = path.join(dir, 'csv');
    const r = runCli(['report', '--store', store, '--format', 'csv', '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    for (const t of PAPER_TABLES) {
      assert.equal(readFileSync(path.join(out, `${t}.csv`), 'utf8'), readFileSync(path.join(PAPER, 'results', `${t}.csv`), 'utf8'), t);
    }
  });

  it('re-importing the same data replaces rather than duplicates', async () => {
    const before = await ResultsStore.open(store, { readonly: true });
    const runsBefore = await before.runs();
    await before.close();
    const r = runCli(['import', 'envgap-csv', PAPER, '--store', store]);
    assert.equal(r.status, 0, r.stderr);
    const afterStore = await ResultsStore.open(store, { readonly: true });
    const runsAfter = await afterStore.runs();
    const tasks = await afterStore.tasks();
    await afterStore.close();
    assert.equal(runsAfter.length, 1000);
    assert.deepEqual(runsAfter, runsBefore);
    assert.equal(tasks.length, 50);
    // Spot-check one imported row against the CSV (claude_cpp line 3: p_02, "nlohmann_json,valijson").
    const p02 = runsAfter.find((x) => x.agent === 'claude' && x.language === 'cpp' && x.trial === 1 && x.taskId === 'p_02');
    assert.deepEqual(p02?.declared, ['nlohmann-json', 'valijson']);
    assert.equal(p02?.raw?.claimed_deps, 'nlohmann_json,valijson');
    assert.match(p02?.origin ?? '', /results\/raw\/claude_cpp_reproducibility_analysis\.csv:3$/);
  });
});
