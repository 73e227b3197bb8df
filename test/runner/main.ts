/**
 * `npm test` and `npm run test:quick`: the suite's own runner. It type-checks (incrementally) while the sandboxes'
 * root filesystems are built once, in parallel, for every file that needs them; runs the test files as separate
 * `node --test` processes, a fixed number at a time, longest first (by the last run's times); prints each file's
 * result as it ends (the whole output of a failing one) and, at the end, the totals and the slowest files.
 *
 *   node --import tsx test/runner/main.ts [--quick] [--concurrency N] [--save-timings] [file or folder ...]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { longestFirst, quickFiles, testFiles } from './files.js';
import { countsOf, formatSeconds, skipLines, slowest, type FileCounts } from './outcome.js';
import { inspectEnvironment } from '../../src/sandbox/rootfs.js';
import { ecosystemIds } from '../../src/ecosystems/index.js';
import { readTimings, saveRunRecord, saveTimings } from './timings.js';
import { accountCpu } from './cpu.js';
import { mountScratch, type Scratch } from './scratch.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Measured on the 2-core CI machine (docs/testing.md): most of a file's time waits on installs, not on the cores. */
const DEFAULT_CONCURRENCY = 3;
const FILE_TIMEOUT_MS = 30 * 60_000;
const SLOWEST_SHOWN = 15;

interface Options {
  quick: boolean;
  concurrency: number;
  saveTimings: boolean;
  typecheck: boolean;
  prepare: boolean;
  tmpfs: boolean;
  paths: string[];
}

function usage(message: string): never {
  process.stderr.write(`test runner: ${message}\nusage: node --import tsx test/runner/main.ts [--quick] [--concurrency N] [--save-timings] [--no-typecheck] [--no-prepare] [--no-tmpfs] [file or folder ...]\n`);
  process.exit(2);
}

function parseArgs(argv: string[]): Options {
  const o: Options = { quick: false, concurrency: Number(process.env.ENVPROOF_TEST_CONCURRENCY) || DEFAULT_CONCURRENCY, saveTimings: false, typecheck: true, prepare: true, tmpfs: true, paths: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') o.quick = true;
    else if (a === '--save-timings') o.saveTimings = true;
    else if (a === '--no-typecheck') o.typecheck = false;
    else if (a === '--no-prepare') o.prepare = false;
    else if (a === '--no-tmpfs') o.tmpfs = false;
    else if (a === '--concurrency') {
      o.concurrency = Number(argv[++i]);
      if (!Number.isInteger(o.concurrency) || o.concurrency < 1) usage('--concurrency takes a whole number of at least 1');
    } else if (a.startsWith('-')) usage(`unknown option ${a}`);
    else o.paths.push(a);
  }
  return o;
}

function select(o: Options): { files: string[]; quick: Set<string> } {
  const all = testFiles(ROOT);
  let files = all;
  if (o.paths.length > 0) {
    const wanted = o.paths.map((p) => path.relative(ROOT, path.resolve(p)).split(path.sep).join('/'));
    for (const w of wanted) if (!existsSync(path.join(ROOT, w))) usage(`no such test file or folder: ${w}`);
    files = all.filter((f) => wanted.some((w) => f === w || (statSync(path.join(ROOT, w)).isDirectory() && f.startsWith(`${w.replace(/\/$/, '')}/`))));
    if (files.length === 0) usage(`no test files under ${wanted.join(', ')}`);
  }
  const quick = new Set(quickFiles(ROOT, files));
  return { files: o.quick ? files.filter((f) => quick.has(f)) : files, quick };
}

const running = new Set<ChildProcess>();
let scratch: Scratch | undefined;

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  output: string;
  ms: number;
  /** CPU seconds of its whole process tree, where the runner can count them (cpu.ts). */
  cpuSeconds?: number;
}

/** Runs a command in its own process group, collecting stdout and stderr together; the group is killed when it ends. */
function run(argv: string[], timeoutMs: number): Promise<Finished> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    const cpu = accountCpu(child.pid);
    const chunks: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => chunks.push(c));
    child.stderr!.on('data', (c: Buffer) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    const done = (code: number | null, signal: NodeJS.Signals | null, extra = '') => {
      clearTimeout(timer);
      killGroup(child);
      running.delete(child);
      const cpuSeconds = cpu?.seconds();
      cpu?.remove();
      resolve({ code, signal, timedOut, output: Buffer.concat(chunks).toString('utf8') + extra, ms: performance.now() - started, cpuSeconds });
    };
    child.on('error', (err) => done(null, null, `\ncould not start ${argv[0]}: ${err.message}\n`));
    child.on('close', (code, signal) => done(code, signal));
  });
}

const node = (...args: string[]) => [process.execPath, ...args];

/**
 * dist/, which the tests run as the CLI (test/helpers/cli.ts, ENVPROOF_TEST_CLI): built before any file starts,
 * incrementally (tsconfig.json keeps its build info under node_modules/.cache).
 */
function build(): Promise<Finished> {
  return run(node(path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'), FILE_TIMEOUT_MS);
}

/** The type-check, incremental: its build info is kept under node_modules/.cache (tsconfig.check.json). */
function typecheck(): Promise<Finished> {
  return run(node(path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.check.json'), FILE_TIMEOUT_MS);
}

/**
 * Every ecosystem's root filesystem, built in parallel where missing (`envproof env build all`), and the derived
 * environments that repro's variations add to each (libfaketime and the locale sources).
 */
async function prepareEnvironments(): Promise<Finished> {
  const build = (...extra: string[]) => run(node('--import', 'tsx', path.join(ROOT, 'src', 'cli', 'main.ts'), 'env', 'build', 'all', ...extra), 90 * 60_000);
  const base = await build();
  if (base.code !== 0) return base;
  const derived = await build('--system-packages', 'faketime,locales');
  return { ...derived, output: base.output + derived.output, ms: base.ms + derived.ms };
}

const cpuNote = (seconds: number | undefined) => (seconds === undefined ? '' : `, ${formatSeconds(seconds * 1000)} CPU`);

function describeEnd(r: Finished): string {
  if (r.timedOut) return `timed out after ${formatSeconds(r.ms)}`;
  if (r.signal) return `killed by ${r.signal}`;
  return `exited with ${r.code}`;
}

interface FileResult {
  file: string;
  ok: boolean;
  counts?: FileCounts;
  ms: number;
  cpuSeconds?: number;
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const { files, quick } = select(o);
  const order = longestFirst(files, readTimings(ROOT));
  const started = performance.now();
  const needsEnvironments = order.some((f) => !quick.has(f));
  process.stdout.write(
    `test runner: ${order.length} files${o.quick ? ' (quick tier)' : ''}, ${o.concurrency} at a time, longest first, on ${os.availableParallelism()} cores\n`,
  );

  const environmentsWereReady = (await Promise.all(ecosystemIds().map((id) => inspectEnvironment(id)))).every((e) => e.status === 'ready');
  const checked = o.typecheck ? typecheck() : undefined;
  const built = await build();
  if (built.code !== 0) {
    process.stdout.write(`build of dist/ FAILED (${describeEnd(built)})\n${built.output}\n`);
    process.exitCode = 1;
    return;
  }
  process.env.ENVPROOF_TEST_CLI = 'dist';
  scratch = o.tmpfs ? mountScratch() : undefined;
  if (scratch) process.env.TMPDIR = scratch.dir;
  process.stdout.write(scratch ? `temporary files: a tmpfs at ${scratch.dir} (--no-tmpfs: the disk's)\n` : '');
  const prepared = o.prepare && needsEnvironments ? prepareEnvironments() : Promise.resolve(undefined);
  let ready = false;
  let prepareMs = 0;
  const preparation = prepared.then((r) => {
    ready = true;
    prepareMs = r?.ms ?? 0;
    if (r) {
      const line = `environments: ${r.code === 0 ? 'ready' : `could not be prepared (${describeEnd(r)}); the files that need them build their own`} in ${formatSeconds(r.ms)}\n`;
      process.stdout.write(r.code === 0 ? line : `${line}${r.output}\n`);
    }
  });

  const results: FileResult[] = [];
  const queue = [...order];
  /** The next file that may start: quick ones at once, the others once the environments are ready. */
  const next = async (): Promise<string | undefined> => {
    for (;;) {
      const i = queue.findIndex((f) => ready || quick.has(f));
      if (i >= 0) return queue.splice(i, 1)[0];
      if (queue.length === 0) return undefined;
      await preparation;
    }
  };
  const worker = async () => {
    for (let file = await next(); file !== undefined; file = await next()) {
      const r = await run(node('--import', 'tsx', '--test', '--test-reporter=spec', file), FILE_TIMEOUT_MS);
      const counts = countsOf(r.output);
      const ok = r.code === 0 && !r.timedOut && counts !== undefined;
      results.push({ file, ok, counts, ms: r.ms, cpuSeconds: r.cpuSeconds });
      const tally = (counts ? `${counts.pass}/${counts.tests} passed${counts.skipped ? `, ${counts.skipped} skipped` : ''}` : describeEnd(r)) + cpuNote(r.cpuSeconds);
      process.stdout.write(`${ok ? '✔' : '✖'} ${formatSeconds(r.ms).padStart(11)}  ${file}  (${tally})  [${results.length}/${order.length}]\n`);
      if (!ok) process.stdout.write(`${'─'.repeat(30)} ${file} ${describeEnd(r)}\n${r.output.trimEnd()}\n${'─'.repeat(30)}\n`);
      else for (const line of skipLines(r.output)) process.stdout.write(`      ${line}\n`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, order.length) }, worker));
  await preparation;

  const tc = checked ? await checked : undefined;
  if (tc) process.stdout.write(tc.code === 0 ? `type-check: clean (${formatSeconds(tc.ms)})\n` : `type-check: FAILED (${describeEnd(tc)})\n${tc.output}\n`);

  const sum = (k: keyof FileCounts) => results.reduce((n, r) => n + (r.counts?.[k] ?? 0), 0);
  const failedFiles = results.filter((r) => !r.ok);
  const ms = Object.fromEntries(results.map((r) => [r.file, r.ms]));
  const cpu = Object.fromEntries(results.flatMap((r) => (r.cpuSeconds === undefined ? [] : [[r.file, r.cpuSeconds]])));
  process.stdout.write(`\nslowest files:\n${slowest(ms, SLOWEST_SHOWN, cpu).join('\n')}\n`);
  const wallMs = performance.now() - started;
  const cpuTotal = Object.values(cpu).reduce((a, b) => a + b, 0);
  if (Object.keys(cpu).length > 0) {
    const busy = cpuTotal / ((wallMs / 1000) * os.availableParallelism());
    process.stdout.write(`\nCPU time of the test files: ${formatSeconds(cpuTotal * 1000)}, ${Math.round(busy * 100)} % of the ${os.availableParallelism()} cores over the run\n`);
  }
  process.stdout.write(
    `\n${sum('tests')} tests in ${results.length} files: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped, ${sum('cancelled')} cancelled; ${formatSeconds(wallMs)} in all\n`,
  );
  if (failedFiles.length) process.stdout.write(`failed: ${failedFiles.map((r) => r.file).join(', ')}\n`);
  saveTimings(ROOT, Object.fromEntries(results.map((r) => [r.file, r.ms / 1000])), o.saveTimings);
  saveRunRecord(ROOT, {
    tier: o.quick ? 'quick' : o.paths.length > 0 ? 'some' : 'full',
    endedAt: new Date().toISOString(),
    files: results.length,
    tests: sum('tests'),
    failed: failedFiles.length,
    concurrency: o.concurrency,
    wallMs: Math.round(wallMs),
    ...(Object.keys(cpu).length > 0 ? { cpuSeconds: Math.round(cpuTotal) } : {}),
    prepareMs: Math.round(prepareMs),
    environmentsWereReady,
    slowest: Object.entries(ms)
      .sort((a, b) => b[1] - a[1])
      .slice(0, SLOWEST_SHOWN)
      .map(([file, t]) => ({ file, ms: Math.round(t), ...(cpu[file] === undefined ? {} : { cpuSeconds: Math.round(cpu[file]!) }) })),
  });
  process.exitCode = failedFiles.length > 0 || (tc && tc.code !== 0) ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    scratch?.release();
    process.exit(130);
  });
}

try {
  await main();
} finally {
  scratch?.release();
}
