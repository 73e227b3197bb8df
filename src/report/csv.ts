/** CSV writer: one file per table of the report. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AggregateReport } from '../metrics/aggregate.js';
import { allTables, type ReportTable } from './csv-tables.js';

function csvCell(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** RFC 4180 text with LF line endings (as the paper's stored tables). */
export function tableToCsv(table: ReportTable): string {
  return [table.header, ...table.rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

/** Writes `<dir>/<table>.csv` for every table; returns the paths written. */
export function writeCsvTables(report: AggregateReport, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  return allTables(report).map((t) => {
    const file = path.join(dir, `${t.name}.csv`);
    writeFileSync(file, tableToCsv(t));
    return file;
  });
}
