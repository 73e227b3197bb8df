/** A report table as an HTML table with a "download CSV" link carrying the same table as a data: URI. */
import type { ReportTable } from './csv-tables.js';
import { escapeHtml } from './html-escape.js';
import { NO_VALUE } from './labels.js';

const NUMBER = /^-?\d+(\.\d+)?(e[+-]\d+)?$/;

function cell(tag: 'th' | 'td', text: string): string {
  // No value: undefined (EGAR without system-library failures) or an empty stratum's; the CSV keeps it empty or as computed.
  if (tag === 'td' && text === NO_VALUE) return `<td class="na" title="no value">${NO_VALUE}</td>`;
  const cls = tag === 'td' && NUMBER.test(text) ? ' class="num"' : '';
  return `<${tag}${cls}>${escapeHtml(text)}</${tag}>`;
}

export function tableId(table: ReportTable): string {
  return `table-${table.name}`;
}

/** `table` as labelled for reading (labels.ts); `csv` the table as the CSV writer writes it. */
export function renderTable(table: ReportTable, csv: string): string {
  const id = escapeHtml(tableId(table));
  const title = `<h3 id="${id}">${escapeHtml(table.title)}</h3>`;
  if (table.rows.length === 0) return `<div class="table-block">${title}<p class="empty">No data for this table.</p></div>`;
  const href = `data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`;
  const head = `<thead><tr>${table.header.map((h) => cell('th', h)).join('')}</tr></thead>`;
  const body = table.rows.map((row) => `<tr>${row.map((v) => cell('td', v)).join('')}</tr>`).join('\n');
  return (
    `<div class="table-block">${title}` +
    `<table data-table="${escapeHtml(table.name)}">${head}<tbody>\n${body}\n</tbody></table>` +
    `<a class="csv" download="${escapeHtml(table.name)}.csv" href="${escapeHtml(href)}">download CSV (${escapeHtml(table.name)}.csv)</a></div>`
  );
}
