import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { EnvproofError, UsageError, errorMessage } from '../core/errors.js';
import { computeAggregate, type AggregateReport } from '../metrics/aggregate.js';
import { computeBackendReport } from '../metrics/backend.js';
import { checkClaims, readVerification, type CheckResult } from '../report/check.js';
import { writeCsvTables } from '../report/csv.js';
import { renderJson } from '../report/json.js';
import { renderMarkdown } from '../report/markdown.js';
import { DEFAULT_STORE, ResultsStore } from '../store/store.js';
import type { SetExitCode } from './commands.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';

type Format = 'md' | 'csv' | 'json' | 'html';

interface ReportOptions {
  store: string;
  format: Format;
  out?: string;
  check?: string;
}

function loadReport(storePath: string): AggregateReport {
  const store = ResultsStore.open(storePath, { mustExist: true });
  try {
    const all = store.runs();
    if (all.length === 0) {
      throw new EnvproofError(`${storePath} holds no runs`, 'Import data (envproof import envgap-csv <dir>) or run envproof run first.');
    }
    // Backend runs are another experiment: their metrics are the backend section's, not the environment-gap tables'.
    const backend = store.backendEvaluations();
    const backendRuns = new Set(backend.map((e) => `${e.key.source}|${e.key.agent}|${e.key.language}|${e.key.taskId}|${e.key.trial}`));
    const runs = all.filter((r) => !backendRuns.has(`${r.source}|${r.agent}|${r.language}|${r.taskId}|${r.trial}`));
    const backendTasks = new Set(backend.map((e) => e.key.taskId));
    const report = computeAggregate(runs, store.tasks().filter((t) => !backendTasks.has(t.id)));
    return backend.length ? { ...report, backend: computeBackendReport(backend) } : report;
  } finally {
    store.close();
  }
}

/** The HTML writer is a separate module that may not be built yet. */
async function renderHtmlReport(report: AggregateReport): Promise<string> {
  let mod: { renderHtml?: (r: AggregateReport) => string | Promise<string> };
  try {
    mod = (await import('../report/html.js')) as typeof mod;
  } catch (err) {
    throw new EnvproofError(`the HTML report is not available yet (${errorMessage(err)})`, 'Use --format md, csv or json.');
  }
  if (typeof mod.renderHtml !== 'function') throw new EnvproofError('the HTML report is not available yet', 'Use --format md, csv or json.');
  try {
    return await mod.renderHtml(report);
  } catch (err) {
    if (/not implemented/i.test(errorMessage(err))) {
      throw new EnvproofError('the HTML report is not available yet', 'Use --format md, csv or json.');
    }
    throw err;
  }
}

function writeOrPrint(text: string, out: string | undefined, fileName: string): void {
  if (out === undefined) {
    process.stdout.write(text);
    return;
  }
  mkdirSync(out, { recursive: true });
  const file = path.join(out, fileName);
  writeFileSync(file, text);
  process.stderr.write(`wrote ${file}\n`);
}

function printCheck(results: readonly CheckResult[], asJson: boolean): void {
  if (asJson) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const pw = Math.max(9, ...results.map((r) => r.published.length));
  const rw = Math.max(10, ...results.map((r) => r.recomputed.length));
  process.stdout.write(`${'ok'.padEnd(4)}${'published'.padStart(pw)}  ${'recomputed'.padStart(rw)}  claim\n`);
  for (const r of results) {
    const note = r.note ? `  (${r.note})` : '';
    process.stdout.write(`${(r.ok ? 'yes' : 'NO').padEnd(4)}${r.published.padStart(pw)}  ${r.recomputed.padStart(rw)}  ${r.claim}${note}\n`);
  }
  const matched = results.filter((r) => r.ok).length;
  process.stdout.write(`${matched} of ${results.length} claims match\n`);
}

export function registerReport(program: Command, setExitCode: SetExitCode): void {
  program
    .command('report')
    .description("Compute the paper's metrics, tables and figures from the results store")
    .option('--store <path>', 'results store (SQLite file)', DEFAULT_STORE)
    .addOption(new Option('--format <format>', 'output format').choices(['md', 'csv', 'json', 'html']).default('md'))
    .option('--out <dir>', 'write files into this folder (required for csv; md/json/html print to stdout without it)')
    .option('--check <verification.csv>', 'compare with published values (the paper\'s results/verification.csv); with --format json print the comparison as JSON')
    .addHelpText('after', '\nExit codes: 0 report written (or every checked claim matches), 1 a checked claim differs, 2 error.')
    .action(async (o: ReportOptions) => {
      // Validate the arguments before the (possibly long) computation.
      const published = o.check === undefined ? undefined : readVerification(o.check);
      if (o.format === 'csv' && o.out === undefined && published === undefined) {
        throw new UsageError('--format csv writes one file per table and needs --out <dir>');
      }
      const report = loadReport(o.store);
      if (published !== undefined) {
        const results = checkClaims(report, published);
        printCheck(results, o.format === 'json');
        setExitCode(results.every((r) => r.ok) ? EXIT_CLEAN : EXIT_FINDINGS);
        return;
      }
      switch (o.format) {
        case 'md':
          writeOrPrint(renderMarkdown(report), o.out, 'report.md');
          break;
        case 'json':
          writeOrPrint(renderJson(report), o.out, 'report.json');
          break;
        case 'html':
          writeOrPrint(await renderHtmlReport(report), o.out, 'report.html');
          break;
        case 'csv':
          for (const f of writeCsvTables(report, o.out!)) process.stderr.write(`wrote ${f}\n`);
          break;
      }
      setExitCode(EXIT_CLEAN);
    });
}
