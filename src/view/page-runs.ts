/** The runs table: one source at a time, filters with their counts, sortable columns, one page of rows. */
import type { RunSource } from '../metrics/aggregate-types.js';
import { num, yesNo, type Page } from './layout.js';
import { runHref } from './routes.js';
import { COLUMN_IDS, COLUMNS, FILTER_IDS, FILTERS, PAGE_SIZE, queryParams, tablePage, type ColumnId, type RunRow, type TableQuery } from './run-table.js';
import { html, type SafeHtml } from './safe-html.js';
import type { Snapshot } from './store-view.js';

export const SOURCE_NAMES: Record<RunSource, string> = {
  envproof: 'envproof run',
  'envgap-csv': 'imported (EnvGap paper)',
};

const COUNT = new Intl.NumberFormat('en-US');
const count = (n: number) => COUNT.format(n);

function href(path: string, q: TableQuery, change: Partial<TableQuery> = {}): string {
  const params = queryParams(q, change).toString();
  return params ? `${path}?${params}` : path;
}

function withFilter(q: TableQuery, id: string, value: string | undefined): Partial<TableQuery> {
  return { filters: { ...q.filters, [id]: value }, page: 1 };
}

/** Source tabs and filter values, each with its count; a value chosen is chosen again to drop it. */
export function filterBar(path: string, q: TableQuery, page: ReturnType<typeof tablePage>): SafeHtml {
  const tabs = page.sources.map(([s, n]) => html`<a class="${s === q.source ? 'on' : ''}" href="${href(path, { source: s, filters: {}, descending: false, page: 1 })}">${SOURCE_NAMES[s]} (${count(n)})</a>`);
  const facets = FILTER_IDS.map((id) => {
    const chosen = q.filters[id];
    const values = page.facets[id].map(([value, n]) => {
      const on = value === chosen;
      return html`<a class="${on ? 'on' : ''}" data-filter="${id}" href="${href(path, q, withFilter(q, id, on ? undefined : value))}">${value} (${count(n)})</a>`;
    });
    return html`<dt>${FILTERS[id].title}</dt><dd class="facet">${values}</dd>`;
  });
  return html`<div class="tabs">${tabs}</div><dl class="facets">${facets}</dl>`;
}

function cell(row: RunRow, id: ColumnId): SafeHtml {
  const value = COLUMNS[id].of(row);
  const text = typeof value === 'boolean' ? yesNo(value) : typeof value === 'number' ? num(value) : (value ?? '—');
  const cls = typeof value === 'number' || value === null ? 'num' : '';
  if (id === 'agent' || id === 'task') return html`<td class="${cls}"><a href="${runHref(row.run)}">${text}</a></td>`;
  return html`<td class="${cls}">${text}</td>`;
}

function header(q: TableQuery, id: ColumnId): SafeHtml {
  const on = q.sort === id;
  const arrow = on ? (q.descending ? ' ▼' : ' ▲') : '';
  return html`<th><a href="${href('/', q, { sort: id, descending: on && !q.descending, page: 1 })}">${COLUMNS[id].title}${arrow}</a></th>`;
}

function pager(q: TableQuery, page: ReturnType<typeof tablePage>): SafeHtml {
  const first = page.total === 0 ? 0 : (page.page - 1) * PAGE_SIZE + 1;
  const last = Math.min(page.total, page.page * PAGE_SIZE);
  return html`<p class="pager" data-total="${page.total}">rows ${count(first)}–${count(last)} of ${count(page.total)} · page ${page.page} of ${page.pages}
${page.page > 1 && html`<a rel="prev" href="${href('/', q, { page: page.page - 1 })}">‹ previous</a>`}
${page.page < page.pages && html`<a rel="next" href="${href('/', q, { page: page.page + 1 })}">next ›</a>`}</p>`;
}

export function runsPage(snapshot: Snapshot, q: TableQuery): Page {
  const page = tablePage(snapshot.rows, q);
  const table = page.rows.length === 0
    ? html`<p class="empty">No run matches these filters.</p>`
    : html`<table data-table="runs"><thead><tr>${COLUMN_IDS.map((id) => header(q, id))}</tr></thead>
<tbody>${page.rows.map((r) => html`<tr data-run="${runHref(r.run)}">${COLUMN_IDS.map((id) => cell(r, id))}</tr>\n`)}</tbody></table>`;
  const body = snapshot.rows.length === 0
    ? html`<h1>Runs</h1><p class="empty">The store holds no runs yet: they appear here as envproof run, import or worker write them.</p>`
    : html`<h1>Runs</h1>${filterBar('/', q, page)}
<p><a href="${href('/figures', q, { page: 1 })}">Figures for these runs</a></p>
${pager(q, page)}${table}`;
  return { title: 'Runs', body, stamp: snapshot.stamp };
}

