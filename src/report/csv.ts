/** CSV writer: one file per table of the report. */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AggregateReport } from '../metrics/aggregate.js';
import { writeOutputFile } from '../core/safe-write.js';
import { allTables, type ReportTable } from './csv-tables.js';

function csvCell(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** RFC 4180 text with LF line endings (as the paper's stored tables). */
export function tableToCsv(table: ReportTable): string {
  return [table.header, ...table.rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

/** Writes `<dir>/<table>.csv` for every table; returns the paths written. */
export async function writeCsvTables(report: AggregateReport, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  for (const t of allTables(report)) {
    const file = path.join(dir, `${t.name}.csv`);
    await writeOutputFile(file, tableToCsv(t));
    written.push(file);
  }
  return written;
}
