/**
 * The report's tables as people read them (HTML and Markdown): column labels instead of the CSV's keys, language
 * names as the figures write them, and "–" for a value that is undefined or whose stratum is empty. The CSV
 * writer keeps the keys and the paper's cells (its tables must match the published files byte for byte).
 */
import type { EcosystemId } from '../core/types.js';
import { isEcosystemId } from '../ecosystems/index.js';
import { ALL_AGENTS } from '../metrics/aggregate.js';
import { languageLabel } from './charts.js';
import type { ReportTable } from './csv-tables.js';

/** What a table shows for a value that is undefined, or that an empty stratum has none of. */
export const NO_VALUE = '–';

const COLUMN_LABELS: Record<string, string> = {
  agent: 'Agent',
  language: 'Language',
  n: 'Runs',
  n_successful: 'Successful runs',
  n_tasks: 'Tasks',
  sr0_pct: 'SR(0) %',
  final_sr_pct: 'SR(≤k) %',
  first_attempt_failures: 'First-attempt failures',
  repaired_pct: 'Repaired %',
  rho_mean: 'Mean ρ',
  rho_median: 'Median ρ',
  phantom: 'Phantom φ',
  hidden: 'Hidden η',
  bloat: 'Bloat β',
  precision: 'Precision',
  recall: 'Recall',
  f1: 'F1',
  pair: 'Agent pair',
  mean_jaccard: 'Mean Jaccard',
  median_jaccard: 'Median Jaccard',
  cdr_pct: 'Complete disjointness %',
  unanimous: 'Unanimous tasks',
  mean_union: 'Mean union',
  mean_core: 'Mean core',
  syslib: 'System-library failures',
  slar_pct: 'SLAR %',
  recovered: 'Recovered',
  egar_pct: 'EGAR %',
  domain: 'Task domain',
  with_external_dep: 'With an external dependency',
  udr_pct: 'UDR %',
  metric: 'Figure',
  value: 'Value',
  counted: 'Counted',
  infrastructure_failed: 'Set aside (infrastructure)',
  unfinished: 'Unfinished',
  task: 'Task',
  trial: 'Trial',
  reason: 'Reason',
  depth_0: 'k = 0',
  depth_1_3: 'k = 1–3',
  depth_4_7: 'k = 4–7',
  depth_8_10: 'k = 8–10',
  depth_over_10: 'k > 10',
  failed: 'Not converged',
  unknown: 'Repaired, depth unknown',
  trials: 'Trials',
  ucr_pct: 'UCR %',
  rho: 'Spearman ρ',
  p_value: 'p',
  rank: 'Rank',
  package: 'Package',
  runs: 'Runs',
  tied: 'Tied',
  level: 'Level',
  tasks: 'Tasks',
  a_strict_pct: 'A% strict',
  a_lenient_pct: 'A% lenient',
  pass1_pct: 'pass@1 %',
  k: 'k',
  pass_at_k_pct: 'pass@k %',
  framework: 'Framework',
  constraint: 'Constraint',
  pairs: 'Pairs',
  delta_pct: 'Δ %',
  std_err: 'Standard error',
  l0_pct: 'Level 0 %',
  l3_pct: 'Level 3 %',
  drop_pts: 'Drop (points)',
  relative_pct: 'Relative drop %',
  kind: 'Kind',
  category: 'Category',
  count: 'Count',
  share_pct: 'Share %',
};

/** The summary table's keys (`metric` column), the per-agent and per-domain ones by their prefix. */
const SUMMARY_LABELS: Record<string, string> = {
  total_runs: 'Runs',
  primary_runs: 'Primary runs',
  cdr_macro_pct: 'Complete disjointness of declared sets, mean over languages (%)',
  cpp_successful_manifests_declaring_nlohmann_json: 'Successful C++ manifests declaring nlohmann-json',
};

function summaryLabel(key: string): string {
  if (SUMMARY_LABELS[key]) return SUMMARY_LABELS[key];
  if (key.startsWith('weakest_domain_')) return `Weakest domain of ${key.slice('weakest_domain_'.length)} (its SR(0) %)`;
  if (key.startsWith('tasks_in_domain ')) return `Tasks in the domain ${key.slice('tasks_in_domain '.length)}`;
  return key;
}

/** The column whose count says whether a row's stratum has anything in it. */
const COUNT_COLUMNS = ['n', 'n_successful', 'n_tasks'];

function cellLabel(column: string, cell: string): string {
  if (column === 'language') return isEcosystemId(cell) ? languageLabel(cell as EcosystemId) : cell === 'macro' ? 'mean over languages' : cell;
  if (column === 'agent' && cell === ALL_AGENTS) return 'all agents';
  return cell;
}

/**
 * `table` for reading: labelled columns and cells; every value after the count column of a row whose count is 0
 * (an empty stratum: no successful run, no task) and every undefined value is "–".
 */
export function labelledTable(table: ReportTable): ReportTable {
  const countAt = table.header.findIndex((h) => COUNT_COLUMNS.includes(h));
  return {
    ...table,
    header: table.header.map((h) => COLUMN_LABELS[h] ?? h),
    rows: table.rows.map((row) =>
      row.map((cell, i) => {
        const column = table.header[i]!;
        if (table.name === 'summary' && column === 'metric') return summaryLabel(cell);
        if (countAt >= 0 && i > countAt && row[countAt] === '0') return NO_VALUE;
        return cell === '' ? NO_VALUE : cellLabel(column, cell);
      }),
    ),
  };
}
