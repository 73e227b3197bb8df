/**
 * The paper's figures (Figs. 4–11) as Vega-Lite specifications built from the aggregate model. Pure: no
 * rendering here (charts-render.ts does that). A figure whose data is absent becomes a `MissingFigure` that
 * says why, so the report never shows an empty or broken chart.
 */
import type { EcosystemId } from '../core/types.js';
import { ecosystem } from '../ecosystems/index.js';
import { ALL_AGENTS, type AggregateReport, type RepairBucket } from '../metrics/aggregate.js';
import { backendFigures } from './backend-charts.js';
import { boxStats, evenSample } from './charts-stats.js';
import { chart, missing, type Figure } from './figure.js';

export function languageLabel(language: EcosystemId): string {
  return ecosystem(language).displayName;
}

const REPAIR_BUCKET_LABELS: Record<RepairBucket, string> = {
  '0': 'first attempt (k = 0)',
  '1-3': 'k = 1–3',
  '4-7': 'k = 4–7',
  '8-10': 'k = 8–10',
  '>10': 'k > 10',
  failed: 'not converged',
  unknown: 'repaired, depth unknown',
};
const REPAIR_BUCKET_COLORS: Record<RepairBucket, string> = {
  '0': '#1a9850',
  '1-3': '#91cf60',
  '4-7': '#fee08b',
  '8-10': '#fc8d59',
  '>10': '#b2182b',
  failed: '#d73027',
  unknown: '#bdbdbd',
};

/** Sort order of the language axis: the paper's order, as display labels. */
function languageSort(report: AggregateReport): string[] {
  return report.languages.map(languageLabel);
}

const FIG4 = 'Figure 4 — First-attempt success by agent and language';
const FIG5 = 'Figure 5 — Repair depth to convergence';
const FIG6 = 'Figure 6 — Protocol convergence by language';
const FIG7 = 'Figure 7 — Phantom, hidden and bloat rates';
const FIG8 = 'Figure 8 — Environment growth: inflation ratio ρ = |D2| / |D1|';
const FIG9 = 'Figure 9 — Cross-agent agreement on declared dependencies';
const FIG10 = 'Figure 10 — Protocol convergence by task domain';
const FIG11 = 'Figure 11 — Unnecessary dependencies on standard-library-sufficient tasks';

/** The agents' colours (Vega's default category palette), in the order of `report.agents`. */
const AGENT_COLORS = ['#4c78a8', '#f58518', '#e45756', '#72b7b2', '#54a24b', '#eeca3b', '#b279a2', '#ff9da6', '#9d755d', '#bab0ac'];

function agentColor(index: number): string {
  return AGENT_COLORS[index % AGENT_COLORS.length]!;
}

/** `hex` mixed with white, `share` of it kept: the pale "repair gain" part of a bar, drawn and listed in one colour. */
function pale(hex: string, share = 0.35): string {
  const channel = (i: number) => Math.round(parseInt(hex.slice(i, i + 2), 16) * share + 255 * (1 - share));
  return `#${[1, 3, 5].map((i) => channel(i).toString(16).padStart(2, '0')).join('')}`;
}

/** Pixels an axis label of `text` needs at the charts' label size, with a gap (Vega's own estimate is close to it). */
function labelWidth(text: string): number {
  return Math.ceil(text.length * 6.5) + 10;
}

/**
 * The width of each category of a grouped bar chart: one bar step per agent, and never narrower than its widest
 * horizontal label, so that the labels do not run into each other however few agents there are.
 */
function categoryStep(categories: readonly string[], groups: number, barStep: number, labelAngle: number): number {
  const bars = groups * barStep + 8;
  return labelAngle === 0 ? Math.max(bars, ...categories.map(labelWidth)) : Math.max(bars, 24);
}

/** A heatmap with the value written in each cell. */
function heatmap(opts: {
  values: Record<string, unknown>[];
  x: { field: string; title: string; sort: string[] };
  y: { field: string; title: string; sort: string[] };
  value: { field: string; title: string; domain: [number, number]; format: string };
}): Record<string, unknown> {
  const x = { field: opts.x.field, type: 'nominal', title: opts.x.title, sort: opts.x.sort, axis: { labelAngle: 0 } };
  const y = { field: opts.y.field, type: 'nominal', title: opts.y.title, sort: opts.y.sort };
  return {
    data: { values: opts.values },
    width: { step: 90 },
    height: { step: 36 },
    encoding: { x, y },
    layer: [
      {
        mark: { type: 'rect', stroke: 'white', strokeWidth: 1 },
        encoding: {
          color: {
            field: opts.value.field,
            type: 'quantitative',
            title: opts.value.title,
            scale: { domain: opts.value.domain, range: ['#e34a33', '#fee08b', '#66bd63'] },
          },
        },
      },
      {
        mark: { type: 'text', fontSize: 12 },
        encoding: { text: { field: opts.value.field, type: 'quantitative', format: opts.value.format } },
      },
    ],
  };
}

export function firstAttemptGrid(report: AggregateReport): Figure {
  const values = report.convergence
    .filter((r) => r.agent !== ALL_AGENTS && r.sr0Pct !== null)
    .map((r) => ({ agent: r.agent, language: languageLabel(r.language), sr0: r.sr0Pct, n: r.n }));
  if (values.length === 0) return missing('fig4', FIG4, 'No primary runs, so there is no first-attempt success to show.');
  return chart(
    'fig4',
    FIG4,
    'Share of primary runs whose first attempt (M(0), C(0)) installed, built and ran successfully, per agent and language.',
    heatmap({
      values,
      x: { field: 'language', title: 'Language', sort: languageSort(report) },
      y: { field: 'agent', title: 'Agent', sort: report.agents },
      value: { field: 'sr0', title: 'SR(0) %', domain: [0, 100], format: '.0f' },
    }),
  );
}

export function repairDepth(report: AggregateReport): Figure {
  const rows = report.repairBuckets.filter((r) => r.agent !== ALL_AGENTS);
  if (rows.length === 0) return missing('fig5', FIG5, 'No primary runs, so there are no repair depths to show.');
  const unknown = rows.reduce((s, r) => s + r.counts.unknown, 0);
  const known = rows.reduce((s, r) => s + r.counts['1-3'] + r.counts['4-7'] + r.counts['8-10'] + r.counts['>10'], 0);
  if (unknown > 0 && known === 0) {
    return missing(
      'fig5',
      FIG5,
      `The data does not record how many repair rounds each run needed (${unknown} repaired runs of unknown depth), ` +
        'so the repair-depth buckets cannot be drawn; Figure 6 shows first-attempt and final success instead.',
    );
  }
  const buckets = (Object.keys(REPAIR_BUCKET_LABELS) as RepairBucket[]).filter(
    (b) => b !== 'unknown' || unknown > 0,
  );
  const values = rows.flatMap((r) =>
    buckets
      .filter((b) => r.counts[b] > 0)
      .map((b) => ({
        agent: r.agent,
        language: languageLabel(r.language),
        bucket: REPAIR_BUCKET_LABELS[b],
        order: buckets.indexOf(b),
        runs: r.counts[b],
        share: (100 * r.counts[b]) / r.n,
      })),
  );
  return chart(
    'fig5',
    FIG5,
    'Per agent and language, the share of primary runs by the number of repair rounds k they needed to run successfully.',
    {
      data: { values },
      facet: { column: { field: 'agent', type: 'nominal', title: 'Agent', sort: report.agents } },
      spec: {
        width: { step: 44 },
        height: 220,
        mark: { type: 'bar' },
        encoding: {
          x: { field: 'language', type: 'nominal', title: 'Language', sort: languageSort(report), axis: { labelAngle: -30 } },
          y: { field: 'share', type: 'quantitative', title: 'Share of runs (%)', stack: 'zero', scale: { domain: [0, 100] } },
          color: {
            field: 'bucket',
            type: 'nominal',
            title: 'Repair rounds',
            sort: buckets.map((b) => REPAIR_BUCKET_LABELS[b]),
            scale: { domain: buckets.map((b) => REPAIR_BUCKET_LABELS[b]), range: buckets.map((b) => REPAIR_BUCKET_COLORS[b]) },
          },
          order: { field: 'order', type: 'quantitative' },
          tooltip: [{ field: 'runs', type: 'quantitative', title: 'runs' }],
        },
      },
    },
  );
}

interface ConvergencePoint {
  category: string;
  agent: string;
  sr0: number;
  final: number;
}

/**
 * Figs. 6 and 10: per category and agent, a solid SR(0) bar topped by a pale "repair gain" up to the final SR. One
 * colour per agent and part, so that the legend's swatches are the bars' own colours.
 */
function convergenceBars(points: ConvergencePoint[], category: { title: string; sort: string[]; labelAngle: number }, agents: string[]) {
  const series = (agent: string, gain: boolean) => `${agent}: ${gain ? 'repair gain' : 'SR(0)'}`;
  const values = points.flatMap((p) => [
    { category: p.category, agent: p.agent, series: series(p.agent, false), order: 0, value: p.sr0 },
    { category: p.category, agent: p.agent, series: series(p.agent, true), order: 1, value: Math.max(0, p.final - p.sr0) },
  ]);
  const domain = agents.flatMap((a) => [series(a, false), series(a, true)]);
  const range = agents.flatMap((_, i) => [agentColor(i), pale(agentColor(i))]);
  return {
    data: { values },
    width: { step: categoryStep(category.sort, agents.length, 22, category.labelAngle), for: 'position' },
    height: 240,
    mark: { type: 'bar' },
    encoding: {
      x: { field: 'category', type: 'nominal', title: category.title, sort: category.sort, axis: { labelAngle: category.labelAngle } },
      xOffset: { field: 'agent', type: 'nominal', sort: agents },
      y: { field: 'value', type: 'quantitative', title: 'Success rate (%)', stack: 'zero', scale: { domain: [0, 100] } },
      color: { field: 'series', type: 'nominal', title: 'Agent and bar part', sort: domain, scale: { domain, range } },
      order: { field: 'order', type: 'quantitative' },
    },
  };
}

export function convergenceByLanguage(report: AggregateReport): Figure {
  const points = report.convergence
    .filter((r) => r.agent !== ALL_AGENTS && r.sr0Pct !== null && r.finalSrPct !== null)
    .map((r) => ({ category: languageLabel(r.language), agent: r.agent, sr0: r.sr0Pct!, final: r.finalSrPct! }));
  if (points.length === 0) return missing('fig6', FIG6, 'No primary runs, so there is no convergence to show.');
  return chart(
    'fig6',
    FIG6,
    'Solid bars: first-attempt success SR(0); pale extensions: what self-repair added up to the final success rate SR(≤k).',
    convergenceBars(points, { title: 'Language', sort: languageSort(report), labelAngle: 0 }, report.agents),
  );
}

export function mismatchRates(report: AggregateReport): Figure {
  const metrics = [
    ['phantom', 'Phantom φ = |D1∖D3| / |D1|'],
    ['hidden', 'Hidden η = |D3∖D1| / |D3|'],
    ['bloat', 'Bloat β = |D2∖D3| / |D2|'],
  ] as const;
  const values = report.mismatch
    .filter((r) => r.agent === ALL_AGENTS && r.n > 0)
    .flatMap((r) =>
      metrics.flatMap(([key, label]) => {
        const rate = r[key];
        return rate === null ? [] : [{ language: languageLabel(r.language), metric: label, rate, n: r.n }];
      }),
    );
  if (values.length === 0) return missing('fig7', FIG7, 'No successful primary runs, so there are no dependency sets to compare.');
  const labels = metrics.map(([, label]) => label);
  return chart(
    'fig7',
    FIG7,
    'Mean per-project rates over successful primary runs, agents pooled; a rate whose denominator set is empty counts as 0.',
    {
      data: { values },
      width: { step: 28 },
      height: 240,
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'language', type: 'nominal', title: 'Language', sort: languageSort(report), axis: { labelAngle: 0 } },
        xOffset: { field: 'metric', type: 'nominal', sort: labels },
        y: { field: 'rate', type: 'quantitative', title: 'Mean rate', scale: { domain: [0, 1] } },
        color: {
          field: 'metric',
          type: 'nominal',
          title: 'Rate',
          sort: labels,
          scale: { domain: labels, range: ['#7570b3', '#d95f02', '#1b9e77'] },
        },
      },
    },
  );
}

/** Dots drawn per agent and language in Figure 8; beyond it, an even sample of the sorted ratios is drawn. */
export const MAX_DOTS_PER_STRATUM = 150;

export function inflationDistribution(report: AggregateReport): Figure {
  const byAgent = report.inflation.filter((r) => r.agent !== ALL_AGENTS);
  const positive = (ratios: readonly number[]) => ratios.filter((rho) => rho > 0).sort((a, b) => a - b);
  // Boxes from every ratio of a language (agents pooled), computed here so that they stay exact when dots are sampled.
  const boxes = report.languages.flatMap((language) => {
    const all = positive(byAgent.filter((r) => r.language === language).flatMap((r) => r.ratios));
    return all.length === 0 ? [] : [{ language: languageLabel(language), ...boxStats(all) }];
  });
  if (boxes.length === 0) {
    return missing(
      'fig8',
      FIG8,
      'No successful primary run has both a non-zero declared count and an installed count, so there is no inflation ratio to plot.',
    );
  }
  let total = 0;
  // A deterministic spread (golden-ratio sequence) keeps equal ratios from hiding each other.
  const dots = byAgent.flatMap((r) => {
    const ratios = positive(r.ratios);
    total += ratios.length;
    return evenSample(ratios, MAX_DOTS_PER_STRATUM).map((rho, i) => ({
      language: languageLabel(r.language),
      agent: r.agent,
      rho,
      jitter: ((i * 0.618034) % 1) * 1.2 - 0.6,
    }));
  });
  const zeros = byAgent.reduce((s, r) => s + r.ratios.length, 0) - total;
  const medians = boxes.map((b) => `${b.language} ${formatRatio(b.median)}`).join(', ');
  const x = { field: 'language', type: 'nominal', title: 'Language', sort: languageSort(report), axis: { labelAngle: 0 } };
  const ticks = logTicks([Math.min(...boxes.map((b) => b.min)), Math.max(...boxes.map((b) => b.max))]);
  const logY = (field: string, title: string) => ({
    field,
    type: 'quantitative',
    title,
    scale: { type: 'log', domain: [ticks[0], ticks.at(-1)], nice: false },
    axis: { values: ticks, labelExpr: "datum.label + '×'" },
  });
  const TITLE = 'Inflation ratio ρ (log scale)';
  return chart(
    'fig8',
    FIG8,
    'Each box spans the quartiles of the per-project ρ of a language’s successful primary runs (agents pooled), with the median ' +
      `as a black line and whiskers at min and max; each dot is one project, coloured by agent. Medians: ${medians}.` +
      (dots.length < total ? ` ${dots.length} of ${total} projects are drawn as dots (evenly spaced by rank).` : '') +
      (zeros > 0 ? ` ${zeros} project(s) with ρ = 0 cannot be shown on a log scale and are left out.` : ''),
    {
      width: { step: 90 },
      height: 260,
      encoding: { x },
      layer: [
        {
          data: { values: boxes },
          layer: [
            { mark: { type: 'rule', color: '#4c78a8' }, encoding: { y: logY('min', TITLE), y2: { field: 'max' } } },
            { mark: { type: 'bar', size: 44, color: '#4c78a8', opacity: 0.35 }, encoding: { y: logY('q1', TITLE), y2: { field: 'q3' } } },
            { mark: { type: 'tick', size: 44, thickness: 2, color: 'black' }, encoding: { y: logY('median', TITLE) } },
          ],
        },
        {
          data: { values: dots },
          mark: { type: 'point', filled: true, size: 26, opacity: 0.7 },
          encoding: {
            y: logY('rho', TITLE),
            xOffset: { field: 'jitter', type: 'quantitative', scale: { domain: [-1, 1] } },
            color: { field: 'agent', type: 'nominal', title: 'Agent', sort: report.agents },
          },
        },
      ],
    },
  );
}

/** 1-2-5 ticks (1×, 2×, 5×, 10×, …, as in the paper's Figure 8) from the last one at or below min to the first at or above max. */
export function logTicks([min, max]: [number, number]): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) ticks.push(Number((m * 10 ** e).toPrecision(1)));
  }
  const first = ticks.filter((t) => t <= min).length - 1;
  const last = ticks.findIndex((t) => t >= max);
  return ticks.slice(first, last + 1);
}

function formatRatio(value: number): string {
  return `${Number(value.toFixed(2))}×`;
}

export function crossAgentAgreement(report: AggregateReport): Figure {
  const values = report.crossAgent
    .filter((r) => r.meanJaccard !== null && r.nTasks > 0)
    .map((r) => ({ pair: r.pair, language: languageLabel(r.language), jaccard: r.meanJaccard, n: r.nTasks }));
  if (values.length === 0) {
    return missing(
      'fig9',
      FIG9,
      'No task was solved successfully by two different agents in the same language, so there is no pair to compare.',
    );
  }
  const pairs = [...new Set(values.map((v) => v.pair))];
  return chart(
    'fig9',
    FIG9,
    'Mean Jaccard similarity of two agents’ declared sets D1 for the same task and language (both runs successful); 1 = identical, 0 = disjoint.',
    heatmap({
      values,
      x: { field: 'language', title: 'Language', sort: languageSort(report) },
      y: { field: 'pair', title: 'Agent pair', sort: pairs },
      value: { field: 'jaccard', title: 'Mean Jaccard', domain: [0, 1], format: '.3f' },
    }),
  );
}

export function convergenceByDomain(report: AggregateReport): Figure {
  const points = report.domainConvergence
    .filter((r) => r.agent !== ALL_AGENTS && r.sr0Pct !== null && r.finalSrPct !== null)
    .map((r) => ({ category: r.domain, agent: r.agent, sr0: r.sr0Pct!, final: r.finalSrPct! }));
  if (points.length === 0) {
    return missing('fig10', FIG10, 'The runs’ tasks have no known domain (no task list was loaded), so convergence cannot be grouped by domain.');
  }
  return chart(
    'fig10',
    FIG10,
    'As Figure 6, per task domain, pooled over languages.',
    convergenceBars(points, { title: 'Task domain', sort: report.domains, labelAngle: -30 }, report.agents),
  );
}

export function unnecessaryDependencies(report: AggregateReport): Figure {
  const values = report.udr
    .filter((r) => r.agent !== ALL_AGENTS && r.language !== 'macro' && (r.nTasks ?? 0) > 0)
    .map((r) => ({ language: languageLabel(r.language as EcosystemId), agent: r.agent, udr: r.udrPct, n: r.nTasks }));
  if (values.length === 0) {
    return missing('fig11', FIG11, 'No successful primary run is on a task that some run solved with the standard library alone, so there is no unnecessary dependency to count.');
  }
  const languages = languageSort(report);
  return chart(
    'fig11',
    FIG11,
    'Per agent and language, the share of successful primary runs on standard-library-sufficient tasks (some run solved them declaring nothing) that declared an external dependency anyway.',
    {
      data: { values },
      width: { step: categoryStep(languages, report.agents.length, 22, 0), for: 'position' },
      height: 240,
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'language', type: 'nominal', title: 'Language', sort: languages, axis: { labelAngle: 0 } },
        xOffset: { field: 'agent', type: 'nominal', sort: report.agents },
        y: { field: 'udr', type: 'quantitative', title: 'Unnecessary dependency rate (%)', scale: { domain: [0, 100] } },
        color: { field: 'agent', type: 'nominal', title: 'Agent', sort: report.agents, scale: { domain: report.agents, range: report.agents.map((_, i) => agentColor(i)) } },
        tooltip: [{ field: 'n', type: 'quantitative', title: 'runs' }],
      },
    },
  );
}

/** Figures 4–11 in the paper's order. */
export function buildFigures(report: AggregateReport): Figure[] {
  return [
    firstAttemptGrid(report),
    repairDepth(report),
    convergenceByLanguage(report),
    mismatchRates(report),
    inflationDistribution(report),
    crossAgentAgreement(report),
    convergenceByDomain(report),
    unnecessaryDependencies(report),
    ...backendFigures(report.backend),
  ];
}
