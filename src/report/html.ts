/**
 * The self-contained HTML report: the paper's figures as inline SVG and its tables with CSV downloads.
 * Async because Vega renders its scenegraph asynchronously.
 */
import type { AggregateReport } from '../metrics/aggregate.js';

export async function renderHtml(report: AggregateReport): Promise<string> {
  void report;
  throw new Error('renderHtml: not implemented yet');
}
