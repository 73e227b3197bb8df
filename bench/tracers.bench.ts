/**
 * What tracing costs, per tracer, measured side by side in one run: for one fixture of each ecosystem, an
 * open-heavy Python program and the tiny C++ program, the program untraced, under strace and under the fast
 * tracer, interleaved round by round so that a change of machine load hits all three alike.
 *
 * Times are wall times around the call, end to end for the traced runs (tracer setup, the run, reading the
 * trace). Goals (issue 14): fast ≤ 1.10× on the ecosystems' fixtures, ≤ 1.20× on the open-heavy case, a fixed
 * cost ≤ 2 ms (traced − untraced on the tiny program).
 *
 *   BENCH_ROUNDS=n (default 11)   BENCH_SANDBOX=host|bwrap (default host)   BENCH_CASES=name,name
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareAudit, type PreparedAudit } from '../src/audit/audit.js';
import type { EcosystemId } from '../src/core/types.js';
import { median } from '../src/metrics/stats.js';
import type { BackendChoice } from '../src/sandbox/index.js';
import { traceRun } from '../src/trace/index.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 11);
const SANDBOX = (process.env.BENCH_SANDBOX ?? 'host') as BackendChoice;
const TEST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test');

/** The program of the first audit issue's 1.83×: a spread of the standard library and 400 small files. */
const STDLIB_AND_FILES = `
import argparse, asyncio, csv, decimal, email.parser, hashlib, http.client, json, logging, sqlite3
import tempfile, unittest, xml.etree.ElementTree as ET, zipfile, statistics, fractions, pathlib
root = pathlib.Path('io'); root.mkdir(exist_ok=True)
for i in range(400):
    p = root / f'f{i}.json'
    p.write_text(json.dumps({'i': i, 'sq': [j * j for j in range(50)]}))
    json.loads(p.read_text())
total = 0
for i in range(100000):
    total += hashlib.sha1(str(i).encode()).digest()[0]
with zipfile.ZipFile('io/a.zip', 'w') as z:
    for i in range(50): z.writestr(f'm{i}.txt', 'x' * 1000)
db = sqlite3.connect(':memory:'); db.execute('create table t(x)'); db.executemany('insert into t values (?)', [(i,) for i in range(20000)])
print(total, db.execute('select count(*) from t').fetchone()[0])
`;

/** Nothing but opens: 20,000 of 2,000 files. */
const OPENS_ONLY = `
import pathlib
root = pathlib.Path('many'); root.mkdir(exist_ok=True)
names = [root / f'f{i}' for i in range(2000)]
for p in names: p.write_text('x')
for _ in range(10):
    for p in names:
        with open(p) as f: f.read()
`;

interface Case {
  name: string;
  ecosystem: EcosystemId;
  dir: string;
  run?: string;
  /** Which goal applies. */
  goal: 'fixture' | 'open-heavy';
}

const scratch = mkdtempSync(path.join(tmpdir(), 'envproof-bench-tracers-'));

/** A Python project without dependencies whose main.py is `code`. */
function pythonProgram(name: string, code: string): string {
  const dir = path.join(scratch, name);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'requirements.txt'), '');
  writeFileSync(path.join(dir, 'main.py'), code);
  return dir;
}

const CASES: Case[] = [
  { name: 'python: py-pandas', ecosystem: 'python', dir: path.join(TEST, 'audit/fixtures/py-pandas'), goal: 'fixture' },
  { name: 'javascript: chalk-hidden', ecosystem: 'javascript', dir: path.join(TEST, 'ecosystems/javascript/fixtures/chalk-hidden'), goal: 'fixture' },
  { name: 'java: gson-jackson', ecosystem: 'java', dir: path.join(TEST, 'ecosystems/java/fixtures/gson-jackson'), goal: 'fixture' },
  { name: 'cpp: zlib-json (the tiny C++ case)', ecosystem: 'cpp', dir: path.join(TEST, 'ecosystems/cpp/fixtures/zlib-json'), goal: 'fixture' },
  { name: 'go: modules', ecosystem: 'go', dir: path.join(TEST, 'ecosystems/go/fixtures/modules'), goal: 'fixture' },
  { name: 'python: stdlib + 400 files', ecosystem: 'python', dir: pythonProgram('stdlib', STDLIB_AND_FILES), goal: 'open-heavy' },
  { name: 'python: 20,000 opens', ecosystem: 'python', dir: pythonProgram('opens', OPENS_ONLY), goal: 'open-heavy' },
];

type Mode = 'native' | 'strace' | 'fast';
const MODES: readonly Mode[] = ['native', 'strace', 'fast'];

async function once(p: PreparedAudit, mode: Mode): Promise<number> {
  const t0 = performance.now();
  const r = mode === 'native' ? await p.sandbox.exec(p.requests[0]!) : (await traceRun(p.sandbox, p.requests[0]!, mode)).run;
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${mode} run failed (${r.exitCode}): ${r.stderr.slice(-2000)}`);
  return ms;
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)).padStart(7);

async function measure(c: Case): Promise<void> {
  const p = await prepareAudit({ dir: c.dir, ecosystem: c.ecosystem, sandbox: SANDBOX, timeoutSec: 300, keep: false, progress: () => {} });
  try {
    for (const mode of MODES) await once(p, mode); // warm the page cache, the JIT caches, the fast tracer's loader
    const times: Record<Mode, number[]> = { native: [], strace: [], fast: [] };
    for (let i = 0; i < ROUNDS; i++) for (const mode of MODES) times[mode].push(await once(p, mode));
    const m = (mode: Mode) => median(times[mode])!;
    const pairwise = (mode: Mode) => median(times[mode].map((t, i) => t / times.native[i]!))!;
    const goal = c.goal === 'fixture' ? 1.1 : 1.2;
    const fast = pairwise('fast');
    const min = (mode: Mode) => Math.min(...times[mode]);
    console.log(
      `${c.name.padEnd(36)} native ${fmt(m('native'))} ms  strace ${fmt(m('strace'))} ms ×${pairwise('strace').toFixed(2)}  ` +
        `fast ${fmt(m('fast'))} ms ×${fast.toFixed(3)} (+${(m('fast') - m('native')).toFixed(1)} ms)  ${fast <= goal ? 'met' : 'MISSED'} ≤ ${goal.toFixed(2)}`,
    );
    // On a busy machine the fastest of each kind is the least disturbed.
    console.log(
      `${''.padEnd(36)} minima: native ${fmt(min('native'))} ms  strace ${fmt(min('strace'))} ms ×${(min('strace') / min('native')).toFixed(2)}  ` +
        `fast ${fmt(min('fast'))} ms ×${(min('fast') / min('native')).toFixed(3)} (+${(min('fast') - min('native')).toFixed(1)} ms)`,
    );
  } finally {
    await p.close();
  }
}

const wanted = process.env.BENCH_CASES?.split(',');
console.log(`tracers: medians of ${ROUNDS} interleaved rounds (native, strace, fast), ratios = median of the pairwise ratios, sandbox ${SANDBOX}`);
console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} cores: wall times suffer when it exceeds the cores`);
try {
  for (const c of CASES) if (!wanted || wanted.some((w) => c.name.includes(w))) await measure(c);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
console.log(`load average afterwards ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
