/** A report table as an HTML table with a "download CSV" link carrying the same table as a data: URI. */
import type { ReportTable } from './csv-tables.js';
import { escapeHtml } from './html-escape.js';

const NUMBER = /^-?\d+(\.\d+)?(e[+-]\d+)?$/;

function cell(tag: 'th' | 'td', text: string): string {
  // An empty data cell is an undefined value (e.g. EGAR without system-library failures); the CSV keeps it empty.
  if (tag === 'td' && text === '') return '<td class="na" title="undefined">—</td>';
  const cls = tag === 'td' && NUMBER.test(text) ? ' class="num"' : '';
  return `<${tag}${cls}>${escapeHtml(text)}</${tag}>`;
}

export function tableId(table: ReportTable): string {
  return `table-${table.name}`;
}

/** `csv` is the table as the CSV writer writes it. */
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
