// tier: quick
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildFigures,
  convergenceByDomain,
  crossAgentAgreement,
  firstAttemptGrid,
  inflationDistribution,
  logTicks,
  MAX_DOTS_PER_STRATUM,
  mismatchRates,
  repairDepth,
  unnecessaryDependencies,
  convergenceByLanguage,
} from '../../../src/report/charts.js';
import type { ChartFigure, Figure } from '../../../src/report/figure.js';
import * as vega from 'vega';
import { compile } from 'vega-lite';
import { renderSvg } from '../../../src/report/charts-render.js';
import { evenSample } from '../../../src/report/charts-stats.js';
import { quantile } from '../../../src/metrics/stats.js';
import { smallReport } from './fixtures/small-report.js';

function asChart(f: Figure): ChartFigure {
  assert.equal(f.kind, 'chart', f.kind === 'missing' ? f.reason : '');
  return f as ChartFigure;
}

/** Items of the first Vega mark group of `type` (`rect`, `symbol`, `text`, ...): its child elements. */
function markItems(svg: string, type: string): number {
  let total = 0;
  const open = new RegExp(`<g class="mark-${type} role-mark[^"]*"[^>]*>`, 'g');
  for (let m = open.exec(svg); m; m = open.exec(svg)) {
    const body = svg.slice(m.index + m[0].length, svg.indexOf('</g>', m.index));
    total += (body.match(/<(path|text|line)\b/g) ?? []).length;
  }
  return total;
}

interface SceneItem {
  role: string;
  marktype: string;
  text?: string;
  x1: number;
  x2: number;
  fill?: string;
  opacity?: number;
  shape?: string;
}

/** Every item Vega lays out for a spec (axis labels, legend swatches, marks), with its role and its bounds. */
async function scene(spec: ChartFigure['spec']): Promise<SceneItem[]> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  await view.runAsync();
  const items: SceneItem[] = [];
  const walk = (node: any) => {
    for (const item of node.items ?? []) {
      if (item.mark) {
        const { role, marktype } = item.mark;
        items.push({ role, marktype, text: item.text, x1: item.bounds.x1, x2: item.bounds.x2, fill: item.fill, opacity: item.opacity, shape: item.shape });
      }
      walk(item);
    }
  };
  walk((view.scenegraph() as unknown as { root: unknown }).root);
  view.finalize();
  return items;
}

type Values = { values: Record<string, unknown>[] };
type Y = { scale: { type: string }; axis: { values: number[] } };

function dataValues(f: ChartFigure): Record<string, unknown>[] {
  return (f.spec as { data: { values: Record<string, unknown>[] } }).data.values;
}

describe('figure specs', () => {
  const report = smallReport();

  it('lists figures 4 to 11 in the paper order', () => {
    assert.deepEqual(
      buildFigures(report).map((f) => f.id),
      ['fig4', 'fig5', 'fig6', 'fig7', 'fig8', 'fig9', 'fig10', 'fig11'],
    );
  });

  it('Figure 11 draws the unnecessary dependency rate per agent and language, leaving out strata without such tasks', async () => {
    const fig = asChart(unnecessaryDependencies(report));
    // claude: Python 1 task (100 %), C++ none (left out); the macro row is not a language.
    assert.deepEqual(dataValues(fig), [{ language: 'Python', agent: 'claude', udr: 100, n: 1 }]);
    assert.equal(markItems(await renderSvg(fig.spec), 'rect'), 1);
    assert.equal(unnecessaryDependencies({ ...report, udr: report.udr.filter((r) => r.language === 'macro') }).kind, 'missing');
  });

  it('with one agent, the language labels of Figures 6 and 11 do not run into each other', async () => {
    const languages = ['python', 'javascript', 'java', 'cpp', 'go'] as const;
    const one = {
      ...report,
      agents: ['claude'],
      languages: [...languages],
      convergence: languages.map((language) => ({ ...report.convergence[0]!, language })),
      udr: languages.map((language) => ({ agent: 'claude', language, nTasks: 2, withExternalDep: 1, udrPct: 50 })),
    };
    for (const fig of [convergenceByLanguage(one), unnecessaryDependencies(one)]) {
      const labels = (await scene(asChart(fig).spec)).filter((i) => i.role === 'axis-label' && ['Python', 'JavaScript', 'Java', 'C++', 'Go'].includes(i.text!));
      assert.equal(labels.length, 5, fig.id);
      const sorted = labels.sort((a, b) => a.x1 - b.x1);
      for (let i = 1; i < sorted.length; i++) {
        assert.ok(sorted[i - 1]!.x2 <= sorted[i]!.x1, `${fig.id}: "${sorted[i - 1]!.text}" (${sorted[i - 1]!.x1}–${sorted[i - 1]!.x2}) overlaps "${sorted[i]!.text}" (${sorted[i]!.x1}–${sorted[i]!.x2})`);
      }
    }
  });

  it("every bar's colour is a swatch of its legend, drawn as a square", async () => {
    for (const fig of [repairDepth(report), convergenceByLanguage(report), mismatchRates(report), convergenceByDomain(report), unnecessaryDependencies(report)]) {
      const items = await scene(asChart(fig).spec);
      const look = (i: SceneItem) => `${i.fill} at ${i.opacity ?? 1}`;
      const swatches = items.filter((i) => i.role === 'legend-symbol');
      const bars = new Set(items.filter((i) => i.role === 'mark' && i.marktype === 'rect').map(look));
      assert.ok(bars.size > 0, fig.id);
      for (const s of swatches) assert.equal(s.shape, 'square', `${fig.id} swatch ${look(s)}`);
      const shown = new Set(swatches.map(look));
      for (const bar of bars) assert.ok(shown.has(bar), `${fig.id}: bars in ${bar} have no swatch (swatches: ${[...shown].join(', ')})`);
    }
  });

  it('Figure 8 plots per-project ρ on a log axis with 1-2-5 ticks, leaving out ρ = 0', async () => {
    const fig = asChart(inflationDistribution(report));
    const spec = fig.spec as unknown as { layer: [{ data: Values; layer: { encoding: { y: Y } }[] }, { data: Values; encoding: { y: Y } }] };
    const [boxes, dots] = spec.layer;
    for (const y of [...boxes.layer.map((l) => l.encoding.y), dots.encoding.y]) {
      assert.equal(y.scale.type, 'log');
      assert.deepEqual(y.axis.values, [1, 2, 5, 10, 20, 50]);
    }
    // Positive ratios: claude Python 2, 3 and C++ 1 (its 0 cannot sit on a log scale), r&d Python 40.
    assert.deepEqual(
      dots.data.values.map((v) => [v.agent, v.rho]),
      [['claude', 2], ['claude', 3], ['claude', 1], ['r&d "<bot>"', 40]],
    );
    // Python [2, 3, 40]: quartiles at ranks 0.5 and 1.5 (linear interpolation) are 2.5 and 21.5.
    assert.deepEqual(boxes.data.values, [
      { language: 'Python', min: 2, q1: 2.5, median: 3, q3: 21.5, max: 40 },
      { language: 'C++', min: 1, q1: 1, median: 1, q3: 1, max: 1 },
    ]);
    assert.match(fig.caption, /1 project\(s\) with ρ = 0/);
    const svg = await renderSvg(fig.spec);
    assert.equal(markItems(svg, 'symbol'), 4, 'one dot per project');
    assert.equal(markItems(svg, 'rect'), 4, 'a box and a median tick per language');
    assert.equal(markItems(svg, 'rule'), 2, 'one whisker per language');
    assert.match(svg, /Inflation ratio ρ \(log scale\)/);
  });

  it('Figure 8 samples the dots of a large stratum but keeps its box exact', () => {
    const big = smallReport();
    const ratios = Array.from({ length: 1001 }, (_, i) => i + 1); // 1 … 1001
    big.inflation = [{ agent: 'claude', language: 'python', n: ratios.length, ratios, mean: 501, median: 501 }];
    const fig = asChart(inflationDistribution(big));
    const [boxes, dots] = (fig.spec as unknown as { layer: [{ data: Values }, { data: Values }] }).layer;
    assert.equal(dots.data.values.length, MAX_DOTS_PER_STRATUM);
    assert.deepEqual([dots.data.values[0]!.rho, dots.data.values.at(-1)!.rho], [1, 1001]);
    assert.deepEqual(boxes.data.values, [{ language: 'Python', min: 1, q1: 251, median: 501, q3: 751, max: 1001 }]);
    assert.match(fig.caption, new RegExp(`${MAX_DOTS_PER_STRATUM} of 1001 projects`));
  });

  it('log ticks cover the ratios with the fewest 1-2-5 steps, below 1 too', () => {
    assert.deepEqual(logTicks([0.5, 37]), [0.5, 1, 2, 5, 10, 20, 50]);
    assert.deepEqual(logTicks([0.3, 80]), [0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]);
    assert.deepEqual(logTicks([1, 1]), [1]);
  });

  it('even samples keep both ends and evenly spaced ranks', () => {
    assert.deepEqual(evenSample([1, 2, 3, 4, 5, 6, 7, 8, 9], 3), [1, 5, 9]);
    assert.deepEqual(evenSample([1, 2], 5), [1, 2]);
    assert.equal(quantile([1, 2, 3, 4], 0.25), 1.75);
  });

  it('Figure 4 draws one cell per agent and language, with the value in it', async () => {
    const svg = await renderSvg(asChart(firstAttemptGrid(report)).spec);
    assert.equal(markItems(svg, 'rect'), 4);
    assert.equal(markItems(svg, 'text'), 4);
    const cellTexts = [...svg.matchAll(/<text[^>]*>(\d+)<\/text>/g)].map((m) => m[1]);
    for (const v of ['100', '50', '0']) assert.ok(cellTexts.includes(v), `cell ${v} in ${cellTexts.join(',')}`);
    assert.match(svg, /role-legend/);
    assert.match(svg, />Language</);
    assert.match(svg, />Agent</);
  });

  it('Figure 5 stacks one bar segment per non-empty repair bucket', async () => {
    const fig = asChart(repairDepth(report));
    // claude: Python {0}, C++ {0, 1-3}; r&d: Python {0, failed}, C++ {4-7, failed}.
    assert.equal(dataValues(fig).length, 7);
    assert.equal(markItems(await renderSvg(fig.spec), 'rect'), 7);
  });

  it('Figure 5 gives way to a sentence when no repair depth is recorded', () => {
    const r = smallReport();
    for (const row of r.repairBuckets) {
      row.counts.unknown += row.counts['1-3'] + row.counts['4-7'];
      row.counts['1-3'] = 0;
      row.counts['4-7'] = 0;
    }
    const fig = repairDepth(r);
    assert.equal(fig.kind, 'missing');
    assert.match(fig.kind === 'missing' ? fig.reason : '', /2 repaired runs of unknown depth/);
  });

  it('Figure 7 has one bar per language and rate, and Figure 9 one cell per pair and language', async () => {
    assert.equal(markItems(await renderSvg(asChart(mismatchRates(report)).spec), 'rect'), 6);
    assert.equal(markItems(await renderSvg(asChart(crossAgentAgreement(report)).spec), 'rect'), 4);
  });

  it('Figure 10 has an SR(0) and a gain segment per agent and domain, or a sentence without domains', async () => {
    assert.equal(markItems(await renderSvg(asChart(convergenceByDomain(report)).spec), 'rect'), 8);
    const fig = convergenceByDomain({ ...report, domainConvergence: [] });
    assert.equal(fig.kind, 'missing');
  });

  it('the renderer refuses a spec that would load data from a URL', async () => {
    let fetched = 0;
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((...args: Parameters<typeof fetch>) => {
      fetched++;
      return realFetch(...args);
    }) as typeof fetch;
    try {
      const spec = { data: { url: 'http://127.0.0.1:9/values.json' }, mark: 'bar', encoding: { x: { field: 'a', type: 'nominal' } } };
      await assert.rejects(renderSvg(spec as ChartFigure['spec']), /external resources \(http:\/\/127\.0\.0\.1:9\/values\.json\)/);
    } finally {
      globalThis.fetch = realFetch;
    }
    assert.equal(fetched, 0);
  });

  it('every figure of an empty report is a sentence, never an empty chart', () => {
    const empty = {
      ...report,
      convergence: [],
      repairBuckets: [],
      inflation: [],
      mismatch: [],
      crossAgent: [],
      domainConvergence: [],
      udr: [],
    };
    for (const f of buildFigures(empty)) assert.equal(f.kind, 'missing', f.id);
  });
});
