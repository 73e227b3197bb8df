/** Markdown writer: every table of the report as a GitHub-flavoured table under a heading. */
import type { AggregateReport } from '../metrics/aggregate.js';
import { languageLabel } from './charts.js';
import { allTables, setAsideSentence, type ReportTable } from './csv-tables.js';
import { labelledTable } from './labels.js';

export function mdCell(cell: string): string {
  return cell === '' ? ' ' : cell.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function tableToMarkdown(table: ReportTable): string {
  const line = (cells: readonly string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  const rows = table.rows.length === 0 ? ['_(no rows)_'] : table.rows.map(line);
  return [`## ${table.title}`, '', line(table.header), line(table.header.map(() => '---')), ...rows, ''].join('\n');
}

export function renderMarkdown(report: AggregateReport): string {
  const sources = Object.entries(report.counts.sources)
    .map(([s, n]) => `${n} ${s}`)
    .join(', ');
  const intro = [
    `# envproof report (${report.source === 'all' ? 'all sources, agents and tasks keyed by source' : `source ${report.source}`})`,
    '',
    `${report.counts.totalRuns} runs (${report.counts.primaryRuns} primary; ${sources}); agents ${report.agents.join(', ')}; ` +
      `languages ${report.languages.map(languageLabel).join(', ')}.`,
    'Dependency-set metrics are over successful primary runs whose first manifest could be read; rates 0–1, percentages 0–100.',
    ...(setAsideSentence(report) ? [setAsideSentence(report)] : []),
    '',
  ].join('\n');
  return [intro, ...allTables(report).map((t) => tableToMarkdown(labelledTable(t)))].join('\n');
}
