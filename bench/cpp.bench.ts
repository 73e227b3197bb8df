/**
 * Tracing overhead of a C++ run: the zlib + nlohmann_json fixture program, run untraced and traced (the default
 * tracer; tracers.bench.ts compares both)
 * (median of 7 each, wall time as measured around the sandbox call), plus configure, build and
 * attribution times once.
 */
import { cppEcosystem } from '../src/ecosystems/cpp/index.js';
import { traceRun } from '../src/trace/index.js';
import { fixtureContext, removeTempDirs } from '../test/ecosystems/cpp/helpers.js';

const RUNS = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const value = await f();
  return [value, performance.now() - t];
}

const ctx = await fixtureContext('zlib-json');
try {
  const [install, configureMs] = await timed(() => cppEcosystem.install(ctx));
  const [, buildMs] = await timed(async () => cppEcosystem.build?.(ctx, install));
  const run = await cppEcosystem.defaultRun(ctx, install);
  const req = { argv: run.argv, cwd: ctx.projectDir, env: run.env, timeoutMs: 60_000, network: false };

  const plain: number[] = [];
  const traced: number[] = [];
  let files = new Set<string>();
  for (let i = 0; i < RUNS; i++) {
    const [r, ms] = await timed(() => ctx.sandbox.exec(req));
    if (r.exitCode !== 0) throw new Error(`untraced run failed: ${r.stderr}`);
    plain.push(ms);
    const [t, tms] = await timed(() => traceRun(ctx.sandbox, req));
    if (t.run.exitCode !== 0) throw new Error(`traced run failed: ${t.run.stderr}`);
    traced.push(tms);
    files = t.files;
  }
  const [attribution, attributeMs] = await timed(() => cppEcosystem.attribute(files, ctx, install));

  const p = median(plain);
  const t = median(traced);
  console.log(`C++ fixture zlib-json: configure ${configureMs.toFixed(0)} ms, build ${buildMs.toFixed(0)} ms, attribute ${attributeMs.toFixed(0)} ms`);
  console.log(`  D3 runtime ${attribution.traced.map((d) => d.name).join(',')}; build-time ${(attribution.alternatives?.buildTime ?? []).map((d) => d.name).join(',')}`);
  console.log(`  run, median of ${RUNS}: untraced ${p.toFixed(1)} ms, traced ${t.toFixed(1)} ms, traced ÷ untraced = ${(t / p).toFixed(2)}`);
} finally {
  await removeTempDirs();
}
