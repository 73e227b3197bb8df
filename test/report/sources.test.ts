// tier: quick
/**
 * One store, two sources: the paper's import and envproof's own runs of an agent also called `claude`, with tasks
 * whose domains differ from the paper's. The report never mixes them: the paper's numbers stay the paper's (all
 * 160 claims), `--source all` keeps the agents apart, and each source reports its own left-out runs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { AggregateReport } from '../../src/metrics/aggregate.js';
import { ResultsStore } from '../../src/store/store.js';
import type { StoredRun } from '../../src/store/types.js';
import { runCli, SHARED } from '../helpers/cli.js';
import { requiresShared } from '../helpers/requires.js';

const PAPER = path.join(SHARED, 'data', 'envgap-paper');
const VERIFICATION = path.join(PAPER, 'results', 'verification.csv');

function envproofRun(agent: string, taskId: string, over: Partial<StoredRun> = {}): StoredRun {
  return {
    source: 'envproof',
    agent,
    language: 'python',
    taskId,
    trial: 1,
    primary: true,
    firstSuccess: true,
    finalSuccess: true,
    repairDepth: 0,
    initialErrorType: 'None',
    declared: [],
    installed: [],
    traced: [],
    claimedCount: 0,
    transitiveCount: 0,
    ...over,
  };
}

/** Runs `fn` with the path of a store in a new temporary directory, removed afterwards. */
async function withTempStore(fn: (file: string) => Promise<void> | void): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'envproof-store-'));
  try {
    await fn(path.join(dir, 'store.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(store: string, ...args: string[]): { status: number | null; json: unknown; stderr: string } {
  const r = runCli(['report', '--store', store, '--format', 'json', ...args]);
  return { status: r.status, json: r.status === 0 ? JSON.parse(r.stdout) : undefined, stderr: r.stderr };
}

describe('a store holding the paper and envproof runs of an agent named claude', requiresShared(SHARED, 'data/envgap-paper'), () => {
  let dir: string;
  let mixed: string;
  let paperOnly: string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'envproof-sources-'));
    mixed = path.join(dir, 'mixed.db');
    paperOnly = path.join(dir, 'paper.db');
    for (const store of [mixed, paperOnly]) {
      const r = runCli(['import', 'envgap-csv', PAPER, '--store', store]);
      assert.equal(r.status, 0, r.stderr);
    }
    // envproof's runs, written after the import, with tasks whose ids are the paper's but whose domains are not.
    const store = await ResultsStore.open(mixed);
    await store.replaceRuns(
      [
        envproofRun('claude', 'p_01', { declared: ['requests'], installed: ['requests'], traced: ['requests'], claimedCount: 1, transitiveCount: 1 }),
        envproofRun('claude', 'p_02', { firstSuccess: false, finalSuccess: false, repairDepth: null, initialErrorType: 'CodeBug' }),
        envproofRun('claude', 'p_03', { status: 'infrastructure-failed', firstSuccess: false, finalSuccess: false, repairDepth: null }),
      ],
      { source: 'envproof', tasks: [{ id: 'p_01', domain: 'Games' }, { id: 'p_02', domain: 'Games' }, { id: 'p_03', domain: 'Puzzles' }] },
    );
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--check --source envgap-csv still matches all 160 claims', () => {
    const r = runCli(['report', '--store', mixed, '--check', VERIFICATION, '--source', 'envgap-csv']);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^160 of 160 claims match:/m);
  });

  it('by default each source is reported apart; the paper\'s report is the one of a store holding only the paper', () => {
    const both = report(mixed);
    assert.equal(both.status, 0, both.stderr);
    const { bySource } = both.json as { bySource: Record<string, AggregateReport> };
    assert.deepEqual(Object.keys(bySource).sort(), ['envgap-csv', 'envproof']);
    const alone = report(paperOnly).json as AggregateReport;
    assert.deepEqual(bySource['envgap-csv'], alone);

    const own = bySource.envproof!;
    assert.equal(own.source, 'envproof');
    assert.deepEqual(own.agents, ['claude']);
    assert.equal(own.counts.totalRuns, 2);
    assert.deepEqual(own.counts.tasksPerDomain, [{ domain: 'Games', tasks: 2 }, { domain: 'Puzzles', tasks: 1 }]);
    assert.deepEqual(own.domainConvergence.find((d) => d.agent === 'claude'), { agent: 'claude', domain: 'Games', n: 2, sr0Pct: 50, finalSrPct: 50 });

    // --check without --source checks the paper's runs: the store's own runs are no claim of the paper's.
    const check = runCli(['report', '--store', mixed, '--check', VERIFICATION]);
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /^160 of 160 claims match:/m);
    assert.doesNotMatch(check.stdout, /== source/);
    const ownCheck = runCli(['report', '--store', mixed, '--check', VERIFICATION, '--source', 'envproof']);
    assert.equal(ownCheck.status, 1, 'asked for, the own runs are compared with the paper, and differ');
  });

  it('--json is --format json, and markdown is md', () => {
    const json = runCli(['report', '--store', mixed, '--source', 'envproof', '--json']);
    assert.equal(json.status, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as AggregateReport).source, 'envproof');
    const markdown = runCli(['report', '--store', mixed, '--source', 'envproof', '--format', 'markdown']);
    assert.equal(markdown.status, 0, markdown.stderr);
    assert.match(markdown.stdout, /^# envproof report \(source envproof\)/);
    assert.match(markdown.stdout, /^\| Agent \| Language \| Runs \| SR\(0\) % \|/m, 'the Markdown tables, labelled');
  });

  it('--source all pools the sources without merging them: agents and tasks keyed by source', () => {
    const all = report(mixed, '--source', 'all').json as AggregateReport;
    assert.equal(all.source, 'all');
    assert.deepEqual(all.agents, ['envgap-csv/claude', 'envgap-csv/codex', 'envgap-csv/gemini', 'envproof/claude']);
    assert.equal(all.counts.totalRuns, 1002);
    assert.deepEqual(all.counts.sources, { 'envgap-csv': 1000, envproof: 2 });
    const paperSr0 = (report(paperOnly).json as AggregateReport).convergence.find((c) => c.agent === 'claude' && c.language === 'python')!;
    assert.deepEqual(all.convergence.find((c) => c.agent === 'envgap-csv/claude' && c.language === 'python'), { ...paperSr0, agent: 'envgap-csv/claude' });
    assert.equal(all.convergence.find((c) => c.agent === 'envproof/claude')?.n, 2);
    // The paper's p_01 stays Data Processing; envproof's p_01 is Games.
    assert.ok(all.counts.tasksPerDomain.some((d) => d.domain === 'Data Processing' && d.tasks === 10));
    assert.ok(all.counts.tasksPerDomain.some((d) => d.domain === 'Games' && d.tasks === 2));
  });

  it('counts the runs set aside as infrastructure failures, per agent and language, in every format', () => {
    const own = report(mixed, '--source', 'envproof').json as AggregateReport;
    assert.deepEqual(own.setAside, [
      { agent: 'claude', language: 'python', counted: 2, infrastructureFailed: 1, unfinished: 0 },
      { agent: 'all', language: 'python', counted: 2, infrastructureFailed: 1, unfinished: 0 },
    ]);
    const md = runCli(['report', '--store', mixed, '--source', 'envproof']);
    assert.equal(md.status, 0, md.stderr);
    assert.match(md.stdout, /Not counted in any metric: 1 set aside as infrastructure failures/);
    assert.match(md.stdout, /^\| claude \| Python \| 2 \| 1 \| 0 \|$/m);
    const paper = report(mixed, '--source', 'envgap-csv').json as AggregateReport;
    assert.ok(paper.setAside.every((r) => r.infrastructureFailed === 0 && r.unfinished === 0));
  });

  it('a source without finished runs is a clear error when asked for', async () => {
    const store = path.join(dir, 'aside.db');
    const s = await ResultsStore.open(store);
    await s.putRun(envproofRun('claude', 'p_01', { status: 'infrastructure-failed' }));
    await s.close();
    const r = runCli(['report', '--store', store]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /holds no finished runs of source envproof \(1 set aside as infrastructure failures\)/);
    // --check looks for the paper's runs: a store without them says so, and how to check one's own.
    const check = runCli(['report', '--store', store, '--check', VERIFICATION]);
    assert.equal(check.status, 2);
    assert.match(check.stderr, /holds no finished runs of source envgap-csv/);
    assert.match(check.stderr, /hint: It holds runs of envproof: choose one with --source/);
    const wrong = runCli(['report', '--store', mixed, '--source', 'nope']);
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /--source/);
  });
});

describe('a run whose first manifest could not be read', () => {
  it('declared "unknown" (null), not "nothing": left out of UDR, the set metrics and Table A1', () => {
    return withTempStore(async (file) => {
      const store = await ResultsStore.open(file);
      await store.replaceRuns(
        [
          // alpha's M(0) was unreadable; it succeeded later. beta declared requests for the same task.
          envproofRun('alpha', 'p_01', { declared: null, claimedCount: null, installed: ['six'], traced: ['six'], transitiveCount: 1 }),
          envproofRun('beta', 'p_01', { declared: ['requests'], installed: ['requests'], traced: ['requests'], claimedCount: 1, transitiveCount: 1 }),
          envproofRun('beta', 'p_02', { declared: [], claimedCount: 0 }),
        ],
        { source: 'envproof', tasks: [{ id: 'p_01', domain: 'Data Processing' }, { id: 'p_02', domain: 'Data Processing' }] },
      );
      assert.equal((await store.run({ source: 'envproof', agent: 'alpha', language: 'python', taskId: 'p_01', trial: 1 }))?.declared, null, 'stored as null');
      await store.close();
      const r = report(file).json as AggregateReport;
      // Were alpha's D1 taken as empty, p_01 would be standard-library-sufficient and beta's UDR 100 % on 2 tasks.
      assert.deepEqual(
        r.udr.filter((u) => u.agent === 'beta' && u.language === 'python'),
        [{ agent: 'beta', language: 'python', nTasks: 1, withExternalDep: 0, udrPct: 0 }],
      );
      assert.equal(r.udr.find((u) => u.agent === 'alpha' && u.language === 'python')?.nTasks, 0);
      assert.equal(r.mismatch.find((m) => m.agent === 'alpha')?.n, 0, 'no phantom/hidden rates without a D1');
      assert.equal(r.manifestAccuracy.find((m) => m.agent === 'alpha')?.n, 0);
      assert.equal(r.spearman.find((s) => s.agent === 'alpha'), undefined, 'no Table A1 row without a known |D1|');
      assert.equal(r.convergence.find((c) => c.agent === 'alpha')?.n, 1, 'success rates still count the run');
      assert.deepEqual(r.crossAgent.find((c) => c.pair === 'alpha-beta'), { language: 'python', pair: 'alpha-beta', nTasks: 0, meanJaccard: null, cdrPct: null });
    });
  });
});

describe("C++ inflation: envproof's configure-derived D2 and the paper's D2 := D1", () => {
  it('reports both, so envproof runs compare with the paper\'s ρ = 1', () => {
    return withTempStore(async (file) => {
      const store = await ResultsStore.open(file);
      // p_01: declared greet, banner; configure also fetched shout (ρ 3/2). p_02: declared zlib, found zlib (ρ 1).
      await store.replaceRuns([
        envproofRun('claude', 'p_01', { language: 'cpp', declared: ['banner', 'greet'], installed: ['banner', 'greet', 'shout'], traced: [], claimedCount: 2, transitiveCount: 3 }),
        envproofRun('claude', 'p_02', { language: 'cpp', declared: ['zlib'], installed: ['zlib'], traced: ['zlib'], claimedCount: 1, transitiveCount: 1 }),
        envproofRun('claude', 'p_01', { declared: ['six'], installed: ['six'], traced: ['six'], claimedCount: 1, transitiveCount: 1 }),
      ]);
      await store.close();
      const r = report(file).json as AggregateReport;
      const cpp = r.inflation.find((i) => i.agent === 'claude' && i.language === 'cpp')!;
      assert.deepEqual([cpp.ratios, cpp.mean], [[1.5, 1], 1.25]);
      assert.deepEqual(
        r.inflationPaperCompatible.map((i) => [i.agent, i.language, i.ratios, i.mean]),
        [
          ['claude', 'cpp', [1, 1], 1],
          ['all', 'cpp', [1, 1], 1],
        ],
        'only C++, where the paper defines D2 := D1',
      );
    });
  });
});
