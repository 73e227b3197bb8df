/**
 * `envproof repro` figures: the cost of k fresh re-runs against one run (installs draw on the shared package
 * caches), the shim's overhead ratio on the fixtures (the seed's anchor: 6.8% median), and attribution cost per
 * factor. Fixtures from test/repro/fixtures, bwrap sandbox.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from '../src/repro/compare.js';
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

const started = performance.now();
const a = await runRepro({ dir: path.join(FIXTURES, 'py-timezone'), command: 'pytest -q', k: 1, vary: [...FACTORS], attribute: true, shim: false, ecosystem: 'auto', backend: 'auto', timeoutSec: 600, progress: () => {} });
const attributionRuns = a.attributionRuns ?? [];
console.log(`attribution over ${FACTORS.length} factors (py-timezone): ${attributionRuns.length} runs, ${((performance.now() - started) / 1000).toFixed(0)} s in all, ${(total(attributionRuns) / Math.max(1, attributionRuns.length) / 1000).toFixed(1)} s per factor run; causes ${a.causes?.map((c) => c.factor).join(', ')}`);
