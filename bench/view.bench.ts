/**
 * `envproof view` over a store of 10,000 runs (5 agents × 5 languages × 100 tasks × 4 trials, 1–3 attempts each),
 * on SQLite and on PostgreSQL: the store read at start (before the URL is printed, as `envproof view` does), the
 * first page of the runs table as a browser asks for it, again with the store unchanged, after one run was written
 * (only what was written since is read), a filtered and sorted page, a far page, one run's page, the figures of
 * one agent. Target: first page < 1 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ResultsStore } from '../src/store/store.js';
import type { AttemptRecord, StoredRun } from '../src/store/types.js';
import { startViewServer } from '../src/view/server.js';
import { CLOCK_MARGIN_MS, StoreView } from '../src/view/store-view.js';
import { startPostgres } from '../test/helpers/services.js';

const AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'llama'];
const LANGUAGES = ['python', 'java', 'javascript', 'cpp', 'go'] as const;
const TASKS = 100;
const TRIALS = 4;
const TARGET_MS = 1000;

/** A deterministic pseudo-random sequence (the same store every time). */
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const names = (n: number) => Array.from({ length: n }, () => `pkg-${Math.floor(random() * 400)}`).filter((x, i, a) => a.indexOf(x) === i).sort();

function runs(): { run: StoredRun; attempts: AttemptRecord[] }[] {
  const out = [];
  for (const agent of AGENTS) for (const language of LANGUAGES) for (let t = 1; t <= TASKS; t++) for (let trial = 1; trial <= TRIALS; trial++) {
    const depth = Math.floor(random() * 3);
    const success = random() < 0.8;
    const declared = names(3 + Math.floor(random() * 8));
    const installed = success ? [...new Set([...declared, ...names(10 + Math.floor(random() * 30))])].sort() : [];
    const traced = success ? installed.filter(() => random() < 0.6) : [];
    const run: StoredRun = {
      source: 'envproof', agent, language, taskId: `p_${String(t).padStart(3, '0')}`, trial, primary: trial === 1, firstSuccess: success && depth === 0, finalSuccess: success,
      repairDepth: success ? depth : null, initialErrorType: success && depth === 0 ? 'None' : 'MissingDep', declared, installed, traced, claimedCount: declared.length, transitiveCount: installed.length, status: 'done',
    };
    const attempts = Array.from({ length: depth + 1 }, (_, a): AttemptRecord => ({
      attempt: a, treeHash: null, manifestPath: 'requirements.txt', manifest: declared.join('\n'), success: success && a === depth, errorClass: success && a === depth ? null : 'missing-dependency',
      errorTail: success && a === depth ? null : 'ModuleNotFoundError: No module named x', startedAt: null, durationMs: 1000, tokensIn: 100, tokensOut: 50, costUsd: null,
    }));
    out.push({ run, attempts });
  }
  return out;
}

async function fill(spec: string): Promise<number> {
  const started = performance.now();
  const store = await ResultsStore.open(spec);
  try {
    for (const { run, attempts } of runs()) await store.putRun(run, attempts);
  } finally {
    await store.close();
  }
  return performance.now() - started;
}

async function timed(base: string, cookie: string, path: string): Promise<number> {
  const started = performance.now();
  const r = await fetch(`${base}${path}`, { headers: { cookie } });
  const body = await r.text();
  if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}: ${body.slice(0, 300)}`);
  return performance.now() - started;
}

async function measure(label: string, spec: string): Promise<void> {
  seed = 42;
  const fillMs = await fill(spec);
  // The view is opened on a store filled earlier: past the clock margin within which it reads writes again.
  await new Promise((r) => setTimeout(r, CLOCK_MARGIN_MS + 1000));
  const store = await ResultsStore.open(spec, { readonly: true });
  // As `envproof view` starts: the store is read once before the URL is printed.
  const view = new StoreView(store);
  const startedRead = performance.now();
  await view.snapshot();
  const startupMs = performance.now() - startedRead;
  const server = await startViewServer(view, { host: '127.0.0.1', port: 0 });
  try {
    const base = new URL(server.url).origin;
    const cookie = `envproof-view-${server.port}=${server.token}`;
    const cold = await timed(base, cookie, '/');
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push(await timed(base, cookie, '/'));
    const filtered = await timed(base, cookie, '/?source=envproof&agent=codex&language=java&sort=f1&dir=desc');
    const far = await timed(base, cookie, '/?page=150');
    const run = await timed(base, cookie, '/runs/envproof/claude/python/p_001/1');
    const figures = await timed(base, cookie, '/figures?source=envproof&agent=claude');
    const writer = await ResultsStore.open(spec);
    await writer.putRun({ ...runs()[0]!.run, taskId: 'p_new', status: 'running' });
    await writer.close();
    const changed = await timed(base, cookie, '/');
    const median = [...warm].sort((a, b) => a - b)[2]!;
    console.log(`${label}: 10,000 runs written in ${(fillMs / 1000).toFixed(1)} s`);
    console.log(`  reading the store at start (before the URL is printed): ${startupMs.toFixed(0)} ms`);
    console.log(`  first page, the first request: ${cold.toFixed(0)} ms  (target < ${TARGET_MS} ms, ratio ${(cold / TARGET_MS).toFixed(2)})`);
    console.log(`  first page again (median of 5): ${median.toFixed(1)} ms; after a run was written (read since the last): ${changed.toFixed(0)} ms (ratio ${(changed / TARGET_MS).toFixed(2)})`);
    console.log(`  agent × language filter sorted by F1: ${filtered.toFixed(1)} ms; page 150: ${far.toFixed(1)} ms; a run's page: ${run.toFixed(1)} ms`);
    console.log(`  figures of one agent (2,000 runs, drawn on the server): ${figures.toFixed(0)} ms`);
  } finally {
    await server.close();
    await store.close();
  }
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'envproof-bench-view-'));
const postgres = await startPostgres();
try {
  await measure('SQLite', path.join(dir, 'store.db'));
  await measure('PostgreSQL', postgres.url);
  console.log(`peak memory of the process (both stores): ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
} finally {
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}
