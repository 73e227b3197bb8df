/** JSON writer: the AggregateReport as it is, unrounded. */
import type { AggregateReport } from '../metrics/aggregate.js';

export function renderJson(report: AggregateReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
