import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { formatOption } from './format-option.js';
import { EnvproofError, UsageError } from '../core/errors.js';
import type { AggregateReport, ReportSource } from '../metrics/aggregate.js';
import { sourcesOf } from '../metrics/aggregate-sources.js';
import { checkClaims, readVerification, type CheckOutcome, type CheckResult } from '../report/check.js';
import { leftOutPhrase } from '../report/csv-tables.js';
import { renderHtml } from '../report/html.js';
import { writeCsvTables } from '../report/csv.js';
import { renderJson } from '../report/json.js';
import { renderMarkdown } from '../report/markdown.js';
import { readReportInput, sourceReport } from '../report/source-report.js';
import { DEFAULT_STORE, ResultsStore, STORE_OPTION_HELP } from '../store/store.js';
import type { StoredRun } from '../store/types.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';
import { writeOutputFile } from '../core/safe-write.js';

type Format = 'md' | 'csv' | 'json' | 'html';

const SOURCE_CHOICES: readonly ReportSource[] = ['envgap-csv', 'envproof', 'all'];

/** The runs imported from the paper's data: what `--check` compares with the paper's published values by default. */
const PAPER_SOURCE: ReportSource = 'envgap-csv';

interface ReportOptions {
  store: string;
  format: Format;
  out?: string;
  check?: string;
  source?: ReportSource;
}

/**
 * The reports to write: one per source present (the default; sources are never mixed), the one asked for, or all
 * sources pooled with agents and tasks keyed by source. Each counts the runs it leaves out.
 */
async function loadReports(spec: string, choice: ReportSource | undefined): Promise<AggregateReport[]> {
  const store = await ResultsStore.open(spec, { readonly: true });
  const storePath = store.location;
  try {
    const input = await readReportInput(store);
    const present = sourcesOf([...input.done, ...input.infrastructureFailed, ...input.unfinished]);
    if (present.length === 0) {
      throw new EnvproofError(`${storePath} holds no runs`, 'Import data (envproof import envgap-csv <dir>) or run envproof run first.');
    }
    const wanted: ReportSource[] = choice ? [choice] : present;
    const reports: AggregateReport[] = [];
    for (const source of wanted) {
      const report = sourceReport(source, input);
      if (report) {
        reports.push(report);
        continue;
      }
      const of = (runs: StoredRun[]) => runs.filter((r) => source === 'all' || r.source === source);
      const leftOut = leftOutPhrase(of(input.infrastructureFailed).length, of(input.unfinished).length);
      const message = `${storePath} holds no finished runs${source === 'all' ? '' : ` of source ${source}`}${leftOut && ` (${leftOut})`}`;
      if (choice || present.length === 1) {
        const elsewhere = present.length > 1 || (choice !== undefined && choice !== 'all' && !present.includes(choice));
        throw new EnvproofError(message, elsewhere ? `It holds runs of ${present.join(', ')}: choose one with --source.` : 'Runs set aside after infrastructure failures are tried again by the next envproof run.');
      }
      process.stderr.write(`envproof: ${message}; no report for it\n`);
    }
    if (reports.length === 0) throw new EnvproofError(`${storePath} holds no finished runs`, 'Runs set aside after infrastructure failures are tried again by the next envproof run.');
    return reports;
  } finally {
    await store.close();
  }
}

/** Into `dir` when there is one, else to standard output. */
async function emit(text: string, dir: string | undefined, fileName: string): Promise<void> {
  if (dir) await writeFile(text, dir, fileName);
  else process.stdout.write(text);
}

async function writeFile(text: string, dir: string, fileName: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, fileName);
  await writeOutputFile(file, text);
  process.stderr.write(`wrote ${file}\n`);
}

function printCheck(outcome: CheckOutcome, file: string): void {
  const { results, missing } = outcome;
  const pw = Math.max(9, ...results.map((r) => r.published.length));
  const rw = Math.max(10, ...results.map((r) => r.recomputed.length));
  const line = (r: CheckResult) => `${(r.ok ? 'yes' : 'NO').padEnd(4)}${r.published.padStart(pw)}  ${r.recomputed.padStart(rw)}  ${r.claim}${r.note ? `  (${r.note})` : ''}\n`;
  const values = results.filter((r) => r.kind === 'metric' || r.kind === 'unknown');
  const inputs = results.filter((r) => r.kind === 'input' || r.kind === 'threshold');
  process.stdout.write(`${'ok'.padEnd(4)}${'published'.padStart(pw)}  ${'recomputed'.padStart(rw)}  claim\n`);
  for (const r of values) process.stdout.write(line(r));
  if (inputs.length > 0) {
    process.stdout.write('\nInput counts and thresholds (what the metrics were computed from, not metric values):\n');
    for (const r of inputs) process.stdout.write(line(r));
  }
  const matched = (rs: CheckResult[]) => rs.filter((r) => r.ok).length;
  process.stdout.write(
    `\n${matched(results)} of ${results.length} claims match: ${matched(values)} of ${values.length} metric values, ` +
      `${matched(inputs)} of ${inputs.length} input counts and thresholds\n`,
  );
  if (missing.length > 0) {
    process.stdout.write(`${missing.length} claims envproof recomputes are not in ${file}:\n`);
    for (const m of missing) process.stdout.write(`  ${m.recomputed.padStart(rw)}  ${m.claim}\n`);
  }
}

/** One output per report; with several (one per source), each under a heading or in a folder named after its source. */
async function writeReports(reports: readonly AggregateReport[], format: Format, out: string | undefined): Promise<void> {
  const several = reports.length > 1;
  if (several && out === undefined && format === 'html') {
    throw new UsageError(`the store holds runs of ${reports.map((r) => r.source).join(' and ')}: one HTML file each needs --out <dir>`, 'Or choose one with --source.');
  }
  if (format === 'json' && out === undefined) {
    const doc = several ? { bySource: Object.fromEntries(reports.map((r) => [r.source, r])) } : reports[0];
    process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return;
  }
  for (const report of reports) {
    const dir = out === undefined ? undefined : several ? path.join(out, report.source) : out;
    switch (format) {
      case 'md':
        await emit(renderMarkdown(report), dir, 'report.md');
        break;
      case 'json':
        await emit(renderJson(report), dir, 'report.json');
        break;
      case 'html':
        await emit(await renderHtml(report), dir, 'report.html');
        break;
      case 'csv':
        for (const f of await writeCsvTables(report, dir!)) process.stderr.write(`wrote ${f}\n`);
        break;
    }
  }
}

export function registerReport(program: Command, setExitCode: SetExitCode): void {
  program
    .command('report')
    .description("Compute the paper's metrics, tables and figures from the results store")
    .option('--store <path|url>', STORE_OPTION_HELP, DEFAULT_STORE)
    .addOption(formatOption('output format (md and markdown are the same)', ['md', 'csv', 'json', 'html'], 'md'))
    .option('--json', 'the same as --format json')
    .option('--out <dir>', 'write files into this folder (required for csv; md/json/html print to stdout without it)')
    .option('--check <verification.csv>', 'compare with published values (the paper\'s results/verification.csv), over the paper\'s own runs (source envgap-csv) unless --source says otherwise; with --format json print the comparison as JSON')
    .addOption(new Option('--source <source>', 'which runs: envgap-csv (imported), envproof (envproof run) or all (pooled, agents and tasks keyed by source); default: each source present, reported apart (with --check: envgap-csv)').choices([...SOURCE_CHOICES]))
    .option('--repro', 'the reproducibility tables of `envproof repro --corpus` (md or json) instead of the paper\'s')
    .addHelpText('after', '\nExit codes: 0 report written (or every checked claim matches), 1 a checked claim differs, 2 error.')
    .action(async (flags: ReportOptions & { repro?: boolean; json?: boolean }) => {
      const o = { ...flags, format: flags.json ? 'json' : flags.format } as const;
      if (o.repro) {
        const { writeReproReport } = await import('../repro/corpus-report.js');
        await writeReproReport(o.store, o.format);
        setExitCode(EXIT_CLEAN);
        return;
      }
      // Validate the arguments before the (possibly long) computation.
      const published = o.check === undefined ? undefined : readVerification(o.check);
      if (o.format === 'csv' && o.out === undefined && published === undefined) {
        throw new UsageError('--format csv writes one file per table and needs --out <dir>');
      }
      // The published claims are about the paper's runs: a store that also holds one's own is checked on the paper's.
      const reports = await loadReports(o.store, o.source ?? (published === undefined ? undefined : PAPER_SOURCE));
      if (published !== undefined) {
        const outcomes = reports.map((report) => ({ source: report.source, ...checkClaims(report, published) }));
        if (o.format === 'json') {
          process.stdout.write(`${JSON.stringify(outcomes.length === 1 ? outcomes[0] : { bySource: Object.fromEntries(outcomes.map((c) => [c.source, c])) }, null, 2)}\n`);
        } else {
          for (const outcome of outcomes) {
            if (outcomes.length > 1) process.stdout.write(`== source ${outcome.source} ==\n`);
            printCheck(outcome, o.check!);
          }
        }
        setExitCode(outcomes.every((c) => c.results.every((r) => r.ok)) ? EXIT_CLEAN : EXIT_FINDINGS);
        return;
      }
      await writeReports(reports, o.format, o.out);
      setExitCode(EXIT_CLEAN);
    });
}
