/**
 * The report's tables as rows of text cells, shared by the CSV and Markdown writers. The nine tables named
 * after the paper's `results/*.csv` have exactly its columns, rows and number formatting (docs/paper-data.md §4); the
 * others carry what the paper did not publish (per-agent strata, pooled rows, repair depth, Tables A1/B4/B5).
 */
import { ALL_AGENTS, REPAIR_BUCKETS, type AggregateReport } from '../metrics/aggregate.js';
import { backendTables } from './backend-tables.js';
import { reproducibilityTable } from './reproducibility-table.js';
import { formatNumber, formatSignificant } from './csv-number.js';

export interface ReportTable {
  /** File name without `.csv`. */
  name: string;
  title: string;
  header: string[];
  rows: string[][];
}

const f = formatNumber;
const isAgent = (r: { agent: string }) => r.agent !== ALL_AGENTS;
const isPooled = (r: { agent: string }) => r.agent === ALL_AGENTS;

function convergenceTable(report: AggregateReport, name: string, title: string, pick: (r: { agent: string }) => boolean): ReportTable {
  return {
    name,
    title,
    header: ['agent', 'language', 'n', 'sr0_pct', 'final_sr_pct', 'first_attempt_failures', 'repaired_pct'],
    rows: report.convergence
      .filter(pick)
      .map((r) => [r.agent, r.language, String(r.n), f(r.sr0Pct, 1), f(r.finalSrPct, 1), String(r.firstAttemptFailures), f(r.repairedPct, 1)]),
  };
}

function inflationRows(report: AggregateReport, pick: (r: { agent: string }) => boolean, withAgent: boolean): string[][] {
  return report.inflation
    .filter(pick)
    .map((r) => [...(withAgent ? [r.agent] : []), r.language, String(r.n), f(r.mean, 2), f(r.median, 2)]);
}

function mismatchRows(report: AggregateReport, pick: (r: { agent: string }) => boolean, withAgent: boolean): string[][] {
  return report.mismatch
    .filter(pick)
    .map((r) => [...(withAgent ? [r.agent] : []), r.language, String(r.n), f(r.phantom, 3), f(r.hidden, 3), f(r.bloat, 3)]);
}

function domainTable(report: AggregateReport, name: string, title: string, pick: (r: { agent: string }) => boolean): ReportTable {
  return {
    name,
    title,
    header: ['agent', 'domain', 'n', 'sr0_pct', 'final_sr_pct'],
    rows: report.domainConvergence.filter(pick).map((r) => [r.agent, r.domain, String(r.n), f(r.sr0Pct, 1), f(r.finalSrPct, 1)]),
  };
}

function udrTable(report: AggregateReport, name: string, title: string, pick: (r: { agent: string }) => boolean): ReportTable {
  return {
    name,
    title,
    header: ['agent', 'language', 'n_tasks', 'with_external_dep', 'udr_pct'],
    rows: report.udr
      .filter(pick)
      .map((r) => [r.agent, r.language, r.nTasks === null ? '' : String(r.nTasks), r.withExternalDep === null ? '' : String(r.withExternalDep), f(r.udrPct, 1)]),
  };
}

/** The nine tables of the paper's `results/` folder. */
export function paperTables(report: AggregateReport): ReportTable[] {
  return [
    convergenceTable(report, 'convergence', 'Convergence per agent and language (Figs. 4–6)', isAgent),
    {
      name: 'inflation',
      title: 'Inflation ρ = |D2|/|D1| per language (Fig. 8)',
      header: ['language', 'n_successful', 'rho_mean', 'rho_median'],
      rows: inflationRows(report, isPooled, false),
    },
    {
      name: 'mismatch_rates',
      title: 'Phantom, hidden and bloat rates per language (Fig. 7)',
      header: ['language', 'n_successful', 'phantom', 'hidden', 'bloat'],
      rows: mismatchRows(report, isPooled, false),
    },
    {
      name: 'table4_manifest_accuracy',
      title: 'Table 4: manifest precision, recall and F1 against the runtime trace',
      header: ['agent', 'language', 'n', 'precision', 'recall', 'f1'],
      rows: report.manifestAccuracy.map((r) => [r.agent, r.language, String(r.n), f(r.precision, 3), f(r.recall, 3), f(r.f1, 3)]),
    },
    {
      name: 'cross_agent_agreement',
      title: 'Cross-agent agreement of declared sets (Fig. 9)',
      header: ['language', 'pair', 'n_tasks', 'mean_jaccard', 'cdr_pct'],
      rows: report.crossAgent.map((r) => [r.language, r.pair, String(r.nTasks), f(r.meanJaccard, 3), f(r.cdrPct, 1)]),
    },
    {
      name: 'table5_stochastic',
      title: 'Table 5: stability of declared sets across repeated trials (pooled over agents with repeated trials)',
      header: ['language', 'n_tasks', 'mean_jaccard', 'median_jaccard', 'unanimous', 'mean_union', 'mean_core'],
      rows: report.stability
        .filter(isPooled)
        .map((r) => [r.language, String(r.nTasks), f(r.meanJaccard, 3), f(r.medianJaccard, 3), String(r.unanimous), f(r.meanUnion, 1, { int: true }), f(r.meanCore, 1, { int: true })]),
    },
    {
      name: 'table6_cpp_syslib',
      title: 'Table 6: C++ system-library assumption (SLAR) and environment-gap recovery (EGAR)',
      header: ['agent', 'first_attempt_failures', 'syslib', 'slar_pct', 'recovered', 'egar_pct'],
      rows: report.syslib.map((r) => [r.agent, String(r.firstAttemptFailures), String(r.syslib), f(r.slarPct, 1), String(r.recovered), f(r.egarPct, 1)]),
    },
    domainTable(report, 'domains', 'Convergence per task domain, pooled over languages (Fig. 10)', isAgent),
    udrTable(report, 'unnecessary_dependency_rate', 'Unnecessary dependency rate on standard-library-sufficient tasks (Fig. 11)', isAgent),
  ];
}

/** What the paper did not publish as a table. */
export function extendedTables(report: AggregateReport): ReportTable[] {
  return [
    {
      name: 'summary',
      title: 'Headline figures',
      header: ['metric', 'value'],
      rows: [
        ['total_runs', String(report.counts.totalRuns)],
        ['primary_runs', String(report.counts.primaryRuns)],
        ['cdr_macro_pct', f(report.cdrMacroPct, 1)],
        ['cpp_successful_manifests_declaring_nlohmann_json', String(report.counts.cppNlohmannJson)],
        ...report.weakestDomains.map((w) => [`weakest_domain_${w.agent}`, `${w.domain} (${f(w.sr0Pct, 1)})`]),
        ...report.counts.tasksPerDomain.map((d) => [`tasks_in_domain ${d.domain}`, String(d.tasks)]),
      ],
    },
    convergenceTable(report, 'convergence_pooled', 'Convergence per language, pooled over agents', isPooled),
    {
      name: 'set_aside',
      title: 'Runs counted, and runs left out of every metric: infrastructure failures (sandbox, registry, model API) and unfinished runs',
      header: ['agent', 'language', 'counted', 'infrastructure_failed', 'unfinished'],
      rows: report.setAside.map((r) => [r.agent, r.language, String(r.counted), String(r.infrastructureFailed), String(r.unfinished)]),
    },
    {
      name: 'set_aside_runs',
      title: 'Runs set aside after infrastructure failures, and why (the last failure, after the retries)',
      header: ['agent', 'language', 'task', 'trial', 'reason'],
      rows: report.setAsideRuns.map((r) => [r.agent, r.language, r.taskId, String(r.trial), r.reason ?? '']),
    },
    {
      name: 'repair_buckets',
      title: 'Repair depth (Fig. 5): runs per bucket; "unknown" = repaired, depth not recorded',
      header: ['agent', 'language', 'n', 'depth_0', 'depth_1_3', 'depth_4_7', 'depth_8_10', 'depth_over_10', 'failed', 'unknown'],
      rows: report.repairBuckets.map((r) => [
        r.agent,
        r.language,
        String(r.n),
        ...REPAIR_BUCKETS.map((b) => String(r.counts[b])),
      ]),
    },
    {
      name: 'inflation_paper_compatible',
      title: 'Inflation ρ with the paper\'s D2 := D1 for C++ (beside the inflation tables, which use D2 as recorded: for envproof\'s runs, what CMake configure found)',
      header: ['agent', 'language', 'n_successful', 'rho_mean', 'rho_median'],
      rows: report.inflationPaperCompatible.map((r) => [r.agent, r.language, String(r.n), f(r.mean, 2), f(r.median, 2)]),
    },
    {
      name: 'inflation_by_agent',
      title: 'Inflation ρ per agent and language',
      header: ['agent', 'language', 'n_successful', 'rho_mean', 'rho_median'],
      rows: inflationRows(report, isAgent, true),
    },
    {
      name: 'mismatch_by_agent',
      title: 'Phantom, hidden and bloat rates per agent and language',
      header: ['agent', 'language', 'n_successful', 'phantom', 'hidden', 'bloat'],
      rows: mismatchRows(report, isAgent, true),
    },
    {
      name: 'table5_by_agent',
      title: 'Stability across repeated trials per agent (UCR = unanimous consensus rate)',
      header: ['agent', 'language', 'trials', 'n_tasks', 'mean_jaccard', 'median_jaccard', 'unanimous', 'ucr_pct', 'mean_union', 'mean_core'],
      rows: report.stability.map((r) => [
        r.agent,
        r.language,
        r.trials.join(' '),
        String(r.nTasks),
        f(r.meanJaccard, 3),
        f(r.medianJaccard, 3),
        String(r.unanimous),
        f(r.ucrPct, 1),
        f(r.meanUnion, 1),
        f(r.meanCore, 1),
      ]),
    },
    domainTable(report, 'domains_pooled', 'Convergence per task domain, pooled over agents', isPooled),
    udrTable(report, 'udr_pooled', 'Unnecessary dependency rate, pooled over agents', isPooled),
    {
      name: 'tableA1_spearman',
      title: 'Table A1: Spearman correlation of |D1| with first-attempt success (two-sided p, t approximation, 3 significant digits)',
      header: ['agent', 'language', 'n', 'rho', 'p_value'],
      rows: report.spearman.map((r) => [r.agent, r.language, String(r.n), f(r.rho, 3), formatSignificant(r.pValue, 3)]),
    },
    ...(['phantom', 'hidden'] as const).map((kind) => ({
      name: kind === 'phantom' ? 'tableB4_phantom' : 'tableB5_hidden',
      title:
        kind === 'phantom'
          ? 'Table B4: most frequent phantom packages (declared, never loaded) per language; equal counts share a rank, "tied" = packages with that count'
          : 'Table B5: most frequent hidden packages (loaded, never declared) per language; equal counts share a rank, "tied" = packages with that count',
      header: ['language', 'rank', 'package', 'runs', 'tied'],
      rows: report.frequentGaps.filter((g) => g.kind === kind).map((g) => [g.language, String(g.rank), g.name, String(g.runs), String(g.tied)]),
    })),
  ];
}

/** "3 set aside as infrastructure failures, 1 unfinished", or empty when nothing was left out. */
export function leftOutPhrase(infrastructureFailed: number, unfinished: number): string {
  return [
    ...(infrastructureFailed > 0 ? [`${infrastructureFailed} set aside as infrastructure failures`] : []),
    ...(unfinished > 0 ? [`${unfinished} unfinished`] : []),
  ].join(', ');
}

/** Runs left out of the metrics, in words, for the writers' introductions; empty when none was. */
export function setAsideSentence(report: AggregateReport): string {
  const pooled = report.setAside.filter(isPooled);
  const phrase = leftOutPhrase(
    pooled.reduce((s, r) => s + r.infrastructureFailed, 0),
    pooled.reduce((s, r) => s + r.unfinished, 0),
  );
  return phrase && `Not counted in any metric: ${phrase} (table "set_aside", per agent and language).`;
}

export function allTables(report: AggregateReport): ReportTable[] {
  return [
    ...paperTables(report),
    ...extendedTables(report),
    ...(report.backend ? backendTables(report.backend) : []),
    ...(report.reproducibility ? [reproducibilityTable(report.reproducibility)] : []),
  ];
}
