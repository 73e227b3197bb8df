/** The table of `envproof run --repro`: how many successful final projects reproduce, per agent and language. */
import type { RunReproducibility } from '../repro/run-stats.js';
import { formatNumber } from './csv-number.js';
import type { ReportTable } from './csv-tables.js';

export function reproducibilityTable(r: RunReproducibility): ReportTable {
  const pct = (x: number) => formatNumber(x * 100, 1);
  return {
    name: 'reproducibility',
    title: 'Reproducibility of successful final projects (envproof run --repro): fresh re-runs per agent and language',
    header: ['agent', 'language', 'projects', 'k', 'reproducible %', 'flaky %', 'broken %', 'mean r', 'causes'],
    rows: r.rows.map((row) => [
      row.agent,
      row.language,
      String(row.projects),
      row.k.join(', '),
      pct(row.shares.reproducible),
      pct(row.shares.flaky),
      pct(row.shares.broken),
      formatNumber(row.meanRate, 2),
      Object.entries(row.causes)
        .map(([category, n]) => `${category} ${n}`)
        .join(', '),
    ]),
  };
}
