/**
 * Each test file's wall time in the last run that took it, used to start the longest files first. The working copy
 * lives under node_modules/.cache (beside the type-checker's build info); `test/timings.json`, committed, seeds a
 * fresh clone and is rewritten by `--save-timings`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type Timings = Record<string, number>;

const cacheFile = (root: string) => path.join(root, 'node_modules', '.cache', 'envproof', 'test-timings.json');
const seedFile = (root: string) => path.join(root, 'test', 'timings.json');

function readJson<T = Timings>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return value && typeof value === 'object' ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The recorded seconds per file: the seed, overridden by what this checkout measured last. */
export function readTimings(root: string): Timings {
  return { ...readJson(seedFile(root)), ...readJson(cacheFile(root)) };
}

/** Records this run's seconds per file (files not run keep their last time); with `seed`, also the committed seed. */
export function saveTimings(root: string, measured: Timings, seed: boolean): void {
  const merged = { ...readTimings(root), ...measured };
  const sorted = Object.fromEntries(Object.keys(merged).sort().map((f) => [f, Math.round(merged[f]! * 10) / 10]));
  mkdirSync(path.dirname(cacheFile(root)), { recursive: true });
  writeFileSync(cacheFile(root), `${JSON.stringify(sorted, null, 1)}\n`);
  if (seed) writeFileSync(seedFile(root), `${JSON.stringify(Object.fromEntries(Object.entries(sorted).map(([f, s]) => [f, Math.round(s)])), null, 1)}\n`);
}

/** What the last run of each tier measured: read by `npm run bench -- suite`. */
export interface RunRecord {
  tier: 'quick' | 'full' | 'some';
  endedAt: string;
  files: number;
  tests: number;
  failed: number;
  concurrency: number;
  wallMs: number;
  /** CPU seconds of all the files' process trees, where the runner could count them (cpu.ts). */
  cpuSeconds?: number;
  /** Building the environments that were missing (0 when every one was ready: a warm cache). */
  prepareMs: number;
  environmentsWereReady: boolean;
  slowest: { file: string; ms: number; cpuSeconds?: number }[];
}

const runsFile = (root: string) => path.join(root, 'node_modules', '.cache', 'envproof', 'test-runs.json');

export function readRunRecords(root: string): Partial<Record<RunRecord['tier'], RunRecord>> {
  return readJson<Partial<Record<RunRecord['tier'], RunRecord>>>(runsFile(root)) ?? {};
}

export function saveRunRecord(root: string, record: RunRecord): void {
  const records = { ...readRunRecords(root), [record.tier]: record };
  mkdirSync(path.dirname(runsFile(root)), { recursive: true });
  writeFileSync(runsFile(root), `${JSON.stringify(records, null, 1)}\n`);
}
