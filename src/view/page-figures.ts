/**
 * The report's figures for the runs the current filter keeps: the same Vega-Lite specifications and the same
 * figure markup as the HTML report, drawn as SVG on the server (the page runs no chart code).
 */
import type { Figure } from '../report/figure.js';
import { buildFigures } from '../report/charts.js';
import { renderSvg } from '../report/charts-render.js';
import { renderFigure } from '../report/html.js';
import { runKeyText, sourceReport, type ReportInput } from '../report/source-report.js';
import type { Page } from './layout.js';
import { filterBar } from './page-runs.js';
import { matches, tablePage, type TableQuery } from './run-table.js';
import { html, trusted } from './safe-html.js';
import type { Snapshot } from './store-view.js';

/** The store's report input narrowed to the runs the query keeps (whatever their status). */
export function filteredInput(snapshot: Snapshot, q: TableQuery): ReportInput {
  const kept = new Set(snapshot.rows.filter((r) => matches(r, q)).map((r) => runKeyText(r.run)));
  const keep = <T>(items: readonly T[], key: (t: T) => string) => items.filter((t) => kept.has(key(t)));
  const { input } = snapshot;
  return {
    done: keep(input.done, runKeyText),
    infrastructureFailed: keep(input.infrastructureFailed, runKeyText),
    unfinished: keep(input.unfinished, runKeyText),
    backend: keep(input.backend, (e) => runKeyText(e.key)),
    tasks: input.tasks,
    reproduced: keep(input.reproduced, (r) => runKeyText(r.key)),
  };
}

async function drawn(figures: readonly Figure[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of figures) out.push(renderFigure(f, f.kind === 'chart' ? await renderSvg(f.spec) : undefined));
  return out;
}

export async function figuresPage(snapshot: Snapshot, q: TableQuery): Promise<Page> {
  const report = sourceReport(q.source, filteredInput(snapshot, q));
  const figures = report ? await drawn(buildFigures(report)) : [];
  const body = html`<h1>Figures</h1>${filterBar('/figures', q, tablePage(snapshot.rows, q))}
${report
    ? html`<p class="meta">From ${report.counts.totalRuns} finished run${report.counts.totalRuns === 1 ? '' : 's'} (${report.counts.primaryRuns} primary) that these filters keep.</p>${figures.map(trusted)}`
    : html`<p class="empty">No finished run matches these filters, so there is nothing to draw.</p>`}`;
  return { title: 'Figures', body, stamp: snapshot.stamp };
}
