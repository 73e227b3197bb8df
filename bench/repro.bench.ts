/**
 * `envproof repro` figures: the cost of k fresh re-runs against one run (installs draw on the shared package
 * caches), the shim's overhead ratio on the fixtures (the seed's anchor: 6.8% median), and the wall time of `--k 5 --attribute --shim` with fresh installs and every factor against shared installs
 * stopping at the first cause. Fixtures from test/repro/fixtures, bwrap sandbox.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../src/metrics/stats.js';
import { runRepro } from '../src/repro/repro.js';
import { FACTORS, type RunRecord } from '../src/repro/types.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'test', 'repro', 'fixtures');
const K = 3;
const total = (runs: readonly RunRecord[]) => runs.reduce((s, r) => s + r.durationMs + r.installMs, 0);

const ratios: number[] = [];
for (const [fixture, cmd] of [['py-clean', 'pytest -q'], ['js-clean', 'npm test'], ['go-clean', 'go test ./...']] as const) {
  const r = await runRepro({ dir: path.join(FIXTURES, fixture), command: cmd, k: K, vary: [...FACTORS], attribute: false, shim: true, ecosystem: 'auto', backend: 'auto', timeoutSec: 600, progress: () => {} });
  const one = total(r.runs.filter((x) => x.role === 'reference'));
  const reruns = total(r.runs.filter((x) => x.role === 'rerun'));
  if (r.shim?.overheadRatio) ratios.push(r.shim.overheadRatio);
  console.log(`${fixture.padEnd(9)} one run ${(one / 1000).toFixed(1)} s (install + test); k=${K} re-runs ${(reruns / 1000).toFixed(1)} s = ${(reruns / one).toFixed(2)}x one run; shim overhead ${r.shim?.overheadRatio?.toFixed(3) ?? '-'}x (verdict ${r.verdict}, with shim ${r.shim?.verdict})`);
}
console.log(`shim overhead, median over the fixtures: ${median(ratios)?.toFixed(3) ?? '-'}x (seed: 1.068x)`);


// `repro --k 5 --attribute --shim` (the CLI's --vary all), wall time: every run installing fresh and every factor tried
// (--fresh-installs --attribute all, as repro ran before it shared installs and stopped at the first cause), then as it runs now.
for (const [fixture, cmd] of [['py-timezone', 'pytest -q'], ['js-timezone', 'npm test']] as const) {
  const wall = async (before: boolean) => {
    const started = performance.now();
    const r = await runRepro({ dir: path.join(FIXTURES, fixture), command: cmd, k: 5, vary: [...FACTORS], attribute: true, attributeAll: before, freshInstalls: before, shim: true, ecosystem: 'auto', backend: 'auto', timeoutSec: 600, progress: () => {} });
    const runs = [...r.runs, ...(r.attributionRuns ?? []), ...(r.shim?.defaultRuns ?? []), ...(r.shim?.runs ?? [])];
    return { s: (performance.now() - started) / 1000, runs: runs.length, fresh: runs.filter((x) => x.install !== 'reused').length, causes: r.causes?.map((c) => c.factor).join(', ') };
  };
  const before = await wall(true);
  const after = await wall(false);
  const line = (w: typeof before) => `${w.s.toFixed(0)} s, ${w.runs} runs (${w.fresh} fresh installs), causes ${w.causes}`;
  console.log(`${fixture.padEnd(11)} --k 5 --attribute --shim: before-style (--fresh-installs --attribute all) ${line(before)}; now ${line(after)}; ${(before.s / after.s).toFixed(2)}x faster`);
}
