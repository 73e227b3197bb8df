/**
 * `npm run bench -- report`: import + full report on the paper's 1,000 runs, then on synthetic stores of 10,000
 * and 100,000 runs written straight into the store; prints time and peak memory per phase and how the report
 * time scales with the number of runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EcosystemId } from '../src/core/types.js';
import { computeAggregate, type TaskInfo } from '../src/metrics/aggregate.js';
import { allTables } from '../src/report/csv-tables.js';
import { tableToCsv } from '../src/report/csv.js';
import { renderJson } from '../src/report/json.js';
import { renderMarkdown } from '../src/report/markdown.js';
import { readEnvgapDir } from '../src/paper-data/envgap-import.js';
import { ResultsStore } from '../src/store/store.js';
import type { StoredRun } from '../src/store/types.js';

const PAPER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data', 'envgap-paper');
const LANGUAGES: EcosystemId[] = ['python', 'java', 'javascript', 'cpp'];
const DOMAINS = ['Compression', 'Cryptography', 'Data Processing', 'Networking'];

interface Phase {
  ms: number;
  /** User + system CPU time: less sensitive than wall time to other load on the machine. */
  cpuMs: number;
  maxRssMb: number;
  heapMb: number;
}

function measure<T>(fn: () => T): [T, Phase] {
  (globalThis as { gc?: () => void }).gc?.();
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const value = fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  return [value, { ms, cpuMs: (cpu.user + cpu.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024, heapMb: process.memoryUsage().heapUsed / 2 ** 20 }];
}

/** Everything `envproof report` does after opening the store: read, aggregate, render every format but HTML. */
function fullReport(file: string): number {
  const store = ResultsStore.open(file, { readonly: true });
  const runs = store.runs();
  const report = computeAggregate(runs, store.tasks());
  store.close();
  return renderMarkdown(report).length + renderJson(report).length + allTables(report).map(tableToCsv).join('').length;
}

/** Deterministic pseudo-random numbers (mulberry32). */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick(rand: () => number, vocabulary: readonly string[], n: number): string[] {
  const out = new Set<string>();
  while (out.size < n) out.add(vocabulary[Math.floor(rand() * vocabulary.length)]!);
  return [...out].sort();
}

/** agents × 4 languages × 50 tasks × trials runs with random but plausible sets and outcomes. */
function synthetic(agents: number, trials: number): { runs: StoredRun[]; tasks: TaskInfo[] } {
  const rand = prng(42);
  const vocabulary = Array.from({ length: 300 }, (_, i) => `pkg-${i}`);
  const tasks: TaskInfo[] = Array.from({ length: 50 }, (_, i) => ({ id: `p_${String(i + 1).padStart(2, '0')}`, domain: DOMAINS[i % DOMAINS.length]! }));
  const runs: StoredRun[] = [];
  for (let a = 0; a < agents; a++) {
    for (const language of LANGUAGES) {
      for (const task of tasks) {
        for (let trial = 1; trial <= trials; trial++) {
          const declared = pick(rand, vocabulary.slice(0, 60), Math.floor(rand() * 5));
          const installed = [...new Set([...declared, ...pick(rand, vocabulary, Math.floor(rand() * 15))])].sort();
          const traced = installed.filter(() => rand() < 0.6);
          const firstSuccess = rand() < 0.6;
          const finalSuccess = firstSuccess || rand() < 0.9;
          runs.push({
            source: 'envproof',
            agent: `agent-${a}`,
            language,
            taskId: task.id,
            trial,
            primary: trial === 1,
            firstSuccess,
            finalSuccess,
            repairDepth: firstSuccess ? 0 : finalSuccess ? 1 + Math.floor(rand() * 10) : null,
            initialErrorType: firstSuccess ? null : rand() < 0.5 ? 'MissingDep' : 'CodeBug',
            declared,
            installed,
            traced,
            claimedCount: declared.length,
            transitiveCount: installed.length,
          });
        }
      }
    }
  }
  return { runs, tasks };
}

function fmt(p: Phase): string {
  return `${(p.ms / 1000).toFixed(2).padStart(6)} s wall ${(p.cpuMs / 1000).toFixed(2).padStart(6)} s CPU   peak RSS ${p.maxRssMb.toFixed(0).padStart(5)} MB   heap after ${p.heapMb.toFixed(0).padStart(5)} MB`;
}

const dir = mkdtempSync(path.join(tmpdir(), 'envproof-bench-report-'));
try {
  const results: { label: string; runs: number; write: Phase; report: Phase }[] = [];

  const paperStore = path.join(dir, 'paper.db');
  const [paperRuns, importPhase] = measure(() => {
    const data = readEnvgapDir(PAPER);
    const store = ResultsStore.open(paperStore);
    store.replaceRuns(data.runs, { source: 'envgap-csv', tasks: data.tasks });
    store.close();
    return data.runs.length;
  });
  const [, paperReport] = measure(() => fullReport(paperStore));
  results.push({ label: 'paper (CSV import)', runs: paperRuns, write: importPhase, report: paperReport });

  for (const [agents, trials] of [
    [10, 5],
    [10, 50],
  ] as const) {
    const file = path.join(dir, `synthetic-${agents * trials}.db`);
    const [count, write] = measure(() => {
      const { runs, tasks } = synthetic(agents, trials);
      const store = ResultsStore.open(file);
      store.replaceRuns(runs, { source: 'envproof', tasks });
      store.close();
      return runs.length;
    });
    const [, report] = measure(() => fullReport(file));
    results.push({ label: `synthetic (${agents} agents, ${trials} trials)`, runs: count, write, report });
  }

  for (const r of results) {
    console.log(`${r.label}: ${r.runs} runs`);
    console.log(`  import/write  ${fmt(r.write)}`);
    console.log(`  full report   ${fmt(r.report)}`);
  }
  const base = results[0]!;
  console.log('\nscaling of the full report against the paper (time ratio / size ratio):');
  for (const r of results.slice(1)) {
    const sizeRatio = r.runs / base.runs;
    const timeRatio = r.report.ms / base.report.ms;
    const cpuRatio = r.report.cpuMs / base.report.cpuMs;
    console.log(
      `  ${r.runs} runs: size x${sizeRatio.toFixed(0)}, wall time x${timeRatio.toFixed(1)}, CPU time x${cpuRatio.toFixed(1)} ` +
        `(CPU ${(cpuRatio / sizeRatio).toFixed(2)} of linear; ${((r.report.cpuMs / r.runs) * 1000).toFixed(1)} µs CPU per run)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
