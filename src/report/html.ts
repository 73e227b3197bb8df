/**
 * The self-contained HTML report: one file with inline CSS and inline SVG figures (Vega-Lite rendered at
 * generation time), the paper's tables with CSV downloads as data: URIs, no script and nothing fetched.
 * Async because Vega renders its scenegraph asynchronously.
 */
import type { AggregateReport, RunSource } from '../metrics/aggregate.js';
import { buildFigures, languageLabel } from './charts.js';
import type { Figure } from './figure.js';
import { renderSvg } from './charts-render.js';
import { allTables, setAsideSentence, type ReportTable } from './csv-tables.js';
import { tableToCsv } from './csv.js';
import { escapeHtml } from './html-escape.js';
import { REPORT_CSS } from './html-style.js';
import { renderTable } from './html-tables.js';
import { labelledTable } from './labels.js';

interface Section {
  id: string;
  title: string;
  /** Figure ids (`fig4`) and table names (`convergence`), in reading order. */
  items: string[];
}

/** The paper's order (§6.1–6.5, then the appendix). */
const SECTIONS: Section[] = [
  { id: 'summary', title: 'Summary', items: ['summary', 'set_aside', 'set_aside_runs'] },
  {
    id: 'convergence',
    title: '1. Convergence under self-repair',
    items: ['fig4', 'fig5', 'fig6', 'convergence', 'convergence_pooled', 'repair_buckets'],
  },
  {
    id: 'misspecification',
    title: '2. Environment growth and manifest misspecification',
    items: ['fig7', 'mismatch_rates', 'mismatch_by_agent', 'fig8', 'inflation', 'inflation_by_agent', 'inflation_paper_compatible', 'table4_manifest_accuracy'],
  },
  {
    id: 'agreement',
    title: '3. Agreement across agents and across trials',
    items: ['fig9', 'cross_agent_agreement', 'table5_stochastic', 'table5_by_agent'],
  },
  { id: 'syslib', title: '4. C++ system-library assumptions', items: ['table6_cpp_syslib'] },
  {
    id: 'domains',
    title: '5. Task domains and unnecessary dependencies',
    items: ['fig10', 'domains', 'domains_pooled', 'fig11', 'unnecessary_dependency_rate', 'udr_pooled'],
  },
  { id: 'appendix', title: 'Appendix: manifest size and the most frequent gaps', items: ['tableA1_spearman', 'tableB4_phantom', 'tableB5_hidden'] },
];

/** Only when the store holds backend runs. */
const BACKEND_SECTION: Section = {
  id: 'backend',
  title: 'Backend generation under constraints',
  items: ['figB1', 'backend_levels', 'backend_decay', 'backend_marginal_effects', 'backend_pass_at_k', 'figB2', 'backend_frameworks', 'backend_taxonomy'],
};

const SOURCE_LABELS: Record<RunSource, string> = {
  'envgap-csv': 'imported from the EnvGap paper’s per-run CSVs',
  envproof: 'recorded by envproof run',
};

/** A figure as the report shows it: the chart's SVG with its caption, or the sentence that says why it is missing. */
export function renderFigure(figure: Figure, svg: string | undefined): string {
  const title = `<h3 id="${escapeHtml(figure.id)}">${escapeHtml(figure.title)}</h3>`;
  if (figure.kind === 'missing') {
    return `<figure class="missing" data-figure="${escapeHtml(figure.id)}">${title}<p>${escapeHtml(figure.reason)}</p></figure>`;
  }
  // Vega's SVG writer escapes the text and attribute values it takes from the data.
  return (
    `<figure data-figure="${escapeHtml(figure.id)}">${title}<div class="chart">${svg ?? ''}</div>` +
    `<figcaption>${escapeHtml(figure.caption)}</figcaption></figure>`
  );
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function renderHeader(report: AggregateReport): string {
  const sources = (Object.entries(report.counts.sources) as [RunSource, number][])
    .map(([source, n]) => `${count(n)} ${SOURCE_LABELS[source] ?? source}`)
    .join('; ');
  const facts: [string, string][] = [
    ['Runs', `${count(report.counts.totalRuns)} (${count(report.counts.primaryRuns)} primary)${sources ? ` — ${sources}` : ''}`],
    ['Agents', report.agents.join(', ') || '—'],
    ['Languages', report.languages.map(languageLabel).join(', ') || '—'],
    ['Task domains', report.domains.length > 0 ? `${report.domains.length}: ${report.domains.join(', ')}` : '—'],
    ...(setAsideSentence(report) ? [['Left out', setAsideSentence(report)] as [string, string]] : []),
  ];
  return (
    '<header><h1>envproof report</h1>' +
    '<p class="lead">Declared (D1), installed (D2) and runtime-traced (D3) dependencies of agent-generated projects, ' +
    'with the metrics, tables and figures of “Code That Works, Environments That Don’t”. Primary runs are the first trial ' +
    'of every agent; dependency-set metrics use the successful ones whose first manifest could be read.</p>' +
    `<dl class="facts">${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl></header>`
  );
}

function renderToc(sections: { id: string; title: string }[]): string {
  const items = sections.map((s) => `<li><a href="#${escapeHtml(s.id)}">${escapeHtml(s.title)}</a></li>`).join('');
  return `<nav class="toc"><ol>${items}</ol></nav>`;
}

export async function renderHtml(report: AggregateReport): Promise<string> {
  const figures = new Map(buildFigures(report).map((f) => [f.id, f]));
  const svgs = new Map<string, string>();
  for (const f of figures.values()) if (f.kind === 'chart') svgs.set(f.id, await renderSvg(f.spec));
  const tables = new Map<string, ReportTable>(allTables(report).map((t) => [t.name, t]));

  const known = report.backend ? [...SECTIONS, BACKEND_SECTION] : SECTIONS;
  const placed = new Set(known.flatMap((s) => s.items));
  const leftover = [...figures.keys(), ...tables.keys()].filter((id) => !placed.has(id));
  const sections = leftover.length > 0 ? [...known, { id: 'other', title: 'Other tables', items: leftover }] : known;

  const body = sections.map((s) => {
    const parts = s.items.flatMap((id) => {
      const figure = figures.get(id);
      if (figure) return [renderFigure(figure, svgs.get(id))];
      const table = tables.get(id);
      return table ? [renderTable(labelledTable(table), tableToCsv(table))] : [];
    });
    return `<section id="${escapeHtml(s.id)}"><h2>${escapeHtml(s.title)}</h2>\n${parts.join('\n')}</section>`;
  });

  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Belt and braces: even if a later change let a URL slip in, the browser would not fetch it.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    '<title>envproof report</title>',
    `<style>${REPORT_CSS}</style></head><body>`,
    renderHeader(report),
    renderToc(sections),
    ...body,
    '</body></html>',
    '',
  ].join('\n');
}
