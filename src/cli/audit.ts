import type { Command } from 'commander';
import { runAudit } from '../audit/audit.js';
import { failingKinds } from '../audit/findings.js';
import { AUDIT_SCHEMA_VERSION, type AuditReport, type PartialAudit } from '../audit/report.js';
import { isDirectory } from '../core/fs.js';
import { TOOL_VERSION } from '../core/version.js';
import { EnvproofError, StepFailedError, UsageError } from '../core/errors.js';
import { renderAuditMarkdown } from '../report/audit-markdown.js';
import { renderAuditText } from '../report/audit-text.js';
import { renderGithubAnnotations } from '../report/github-annotations.js';
import { renderSarif } from '../report/sarif.js';
import { renderCycloneDx } from '../report/sbom-cyclonedx.js';
import { renderSpdx } from '../report/sbom-spdx.js';
import { addSharedOptions, CONFIG_HELP, DEFAULT_FAIL_ON, FAIL_ON_KINDS, parseFailOn, resolveSettings, type SharedOptions } from './audit-settings.js';
import { formatOption } from './format-option.js';
import { readSavedAudit } from './saved-report.js';
import { renderFailedAuditMarkdown, renderFailedAuditText, type FailedAuditReport } from '../report/failed-audit.js';
import { EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, type SetExitCode } from './exit-codes.js';
import { writeOutputFile } from '../core/safe-write.js';

const FORMATS = ['text', 'json', 'sarif', 'github', 'markdown'] as const;
type Format = (typeof FORMATS)[number];
const SBOM_FORMATS = ['cyclonedx', 'spdx'] as const;
type SbomFormat = (typeof SBOM_FORMATS)[number];

interface AuditCliOptions extends SharedOptions {
  failOn: string;
  overhead?: number;
  verbose?: boolean;
  format: Format;
  json?: boolean;
  sbom?: SbomRequest[];
  sarif?: boolean | string;
  out?: string;
  from?: string;
  keep?: boolean;
}

function render(format: Format | SbomFormat, report: AuditReport, failOn: readonly string[], verbose: boolean): string {
  const opts = { baseDir: process.cwd(), failOn };
  switch (format) {
    case 'json':
      return `${JSON.stringify(report, null, 2)}\n`;
    case 'sarif':
      return renderSarif(report, opts);
    case 'github':
      return renderGithubAnnotations(report, opts);
    case 'markdown':
      return renderAuditMarkdown(report);
    case 'cyclonedx':
      return renderCycloneDx(report);
    case 'spdx':
      return renderSpdx(report);
    default:
      return renderAuditText(report, { verbose });
  }
}

/**
 * Renders the saved report of an audit that failed, then fails as that audit did (exit 2). Its error has no
 * findings or components, so SARIF, annotations and SBOMs are refused rather than written empty.
 */
async function renderFailedAudit(file: string, failed: FailedAuditReport, format: Format | SbomFormat, out: string | undefined): Promise<never> {
  const text =
    format === 'json' ? `${JSON.stringify(failed, null, 2)}\n` : format === 'markdown' ? renderFailedAuditMarkdown(failed) : format === 'text' ? renderFailedAuditText(failed) : undefined;
  if (text === undefined) {
    throw new EnvproofError(`${file} is the report of an audit that failed: it has no findings or components to write as ${format}`, 'render it with --format text, markdown or json');
  }
  if (out) await writeOutputFile(out, text);
  else process.stdout.write(text);
  throw new EnvproofError(`the saved audit failed: ${failed.error.message}`, failed.error.hint);
}

/** One `--sbom` value: `cyclonedx`, or `cyclonedx=<file>` (as syft's `-o format=file`). */
interface SbomRequest {
  format: SbomFormat;
  file?: string;
}

function parseSbom(value: string, previous: SbomRequest[] = []): SbomRequest[] {
  const at = value.indexOf('=');
  const format = at < 0 ? value : value.slice(0, at);
  const file = at < 0 ? undefined : value.slice(at + 1);
  if (!(SBOM_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--sbom takes ${SBOM_FORMATS.join(' or ')}, optionally with =<file>, not "${value}"`);
  if (file === '') throw new UsageError(`--sbom ${format}= names no file`);
  return [...previous, { format: format as SbomFormat, ...(file ? { file } : {}) }];
}

/** A document the audit writes besides --format: where it goes (its own file, else --out or standard output). */
interface DocumentRequest {
  kind: SbomFormat | 'sarif';
  file?: string;
  flag: string;
}

/**
 * The documents asked for. Each names its file (`--sbom spdx=sbom.json`, `--sarif envproof.sarif`), except at most
 * one, which takes --out or standard output as a single document always did.
 */
async function documentRequests(o: AuditCliOptions): Promise<{ documents: DocumentRequest[]; unnamed?: DocumentRequest }> {
  const documents: DocumentRequest[] = [
    ...(o.sbom ?? []).map((s) => ({ kind: s.format, ...(s.file ? { file: s.file } : {}), flag: `--sbom ${s.format}` })),
    ...(o.sarif ? [{ kind: 'sarif' as const, ...(typeof o.sarif === 'string' ? { file: o.sarif } : {}), flag: '--sarif' }] : []),
  ];
  if (typeof o.sarif === 'string' && (await isDirectory(o.sarif))) {
    throw new UsageError(`--sarif ${o.sarif}: that is a directory; --sarif takes the file to write`, `put the directory to audit first: envproof audit ${o.sarif} --sarif envproof.sarif`);
  }
  const unnamed = documents.filter((d) => !d.file);
  if (unnamed.length > 1) {
    throw new UsageError(`${unnamed.map((d) => d.flag).join(' and ')} cannot all go to one place`, 'name a file for each: --sbom cyclonedx=sbom.cdx.json --sbom spdx=sbom.spdx.json --sarif envproof.sarif');
  }
  return { documents, ...(unnamed[0] ? { unnamed: unnamed[0] } : {}) };
}

function parseRuns(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new UsageError(`--overhead must be a whole number of runs from 1 to 1000, not "${value}"`);
  return n;
}

/**
 * The exit code: a report where no traced command started is an error (2) whatever --fail-on says — without D3
 * there is nothing to judge, and "run" in --fail-on is about programs that ran and failed; else 1 with findings.
 */
export function auditExitCode(report: AuditReport, failOn: readonly string[]): number {
  if (!report.runs.some((r) => r.started)) return EXIT_ERROR;
  return failingKinds(report.findings, report.runs.every((r) => r.success), failOn).length ? EXIT_FINDINGS : EXIT_CLEAN;
}

/** The JSON of a failed audit: what it had computed (D1, D2 when the install got through, ...) and the error. */
function failedAuditJson(err: EnvproofError, partial: PartialAudit | undefined): string {
  const step = err instanceof StepFailedError ? { step: err.step, class: err.failureClass, output: err.output } : {};
  const doc = { schemaVersion: AUDIT_SCHEMA_VERSION, tool: { name: 'envproof', version: TOOL_VERSION }, ...partial, error: { message: err.message, hint: err.hint, ...step } };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

export function registerAudit(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('audit')
    .description('Audit one project: declared (D1), installed (D2) and runtime-traced (D3) dependencies, their gaps and metrics')
    .argument('[dir]', 'the project directory');
  addSharedOptions(command)
    .option('--fail-on <kinds>', `which findings make the exit code 1 (${FAIL_ON_KINDS.join(',')})`, DEFAULT_FAIL_ON.join(','))
    .addOption(formatOption('what to print (markdown and md are the same)', FORMATS, 'text'))
    .option('--json', 'the same as --format json (schema: docs/audit-json.md)')
    .option('--sbom <format[=file]>', `write a runtime-verified SBOM: ${SBOM_FORMATS.join(' or ')}, to its own file with =file; repeatable (docs/sbom.md)`, parseSbom)
    .option('--sarif [file]', 'write SARIF 2.1.0 for code scanning, to the file if given (docs/sarif.md)')
    .option('--out <file>', 'where the one --sbom or --sarif without a file goes (else standard output); without one, where --format goes')
    .option('--from <report.json>', 'render a report saved with --json instead of auditing again')
    .option('--overhead <n>', 'after the traced run, run the program n times untraced and n times traced, alternating, and report what tracing costs', parseRuns)
    .option('--keep', 'keep the work directory and print its path')
    .option('--verbose', 'also show the full command line that was traced')
    .addHelpText('after', `\nExit codes: 0 no findings, 1 findings (see --fail-on), 2 error (also when no traced program started).${CONFIG_HELP}`)
    .action(async (dir: string | undefined, o: AuditCliOptions, cmd: Command) => {
      const format: Format = o.json ? 'json' : o.format;
      const { documents, unnamed } = await documentRequests(o);
      if (unnamed && !o.out && cmd.getOptionValueSource('format') === 'cli') {
        throw new UsageError(`${unnamed.flag} without a file takes standard output; --format needs it too`, `write the document to a file: ${unnamed.flag}${unnamed.kind === 'sarif' ? ' <file>' : '=<file>'} (or --out)`);
      }
      if (!dir && !o.from) throw new UsageError('give the project directory to audit (or --from <report.json>)');
      let report: AuditReport;
      let failOn = parseFailOn(o.failOn);
      if (o.from) {
        const saved = await readSavedAudit(o.from);
        if ('failed' in saved) return renderFailedAudit(o.from, saved.failed, documents[0]?.kind ?? format, o.out);
        report = saved.complete;
      } else {
        const settings = await resolveSettings(dir!, o, cmd);
        if (settings.failOn && cmd.getOptionValueSource('failOn') !== 'cli') failOn = settings.failOn;
        const partial: PartialAudit = {};
        try {
          report = await runAudit({
            ...settings.audit,
            keep: Boolean(o.keep),
            ...(o.overhead ? { overhead: o.overhead } : {}),
            partial,
            progress: settings.progress,
            warn: (m) => process.stderr.write(`envproof: ${m}\n`),
          });
        } catch (err) {
          if (format === 'json' && err instanceof EnvproofError) {
            const text = failedAuditJson(err, partial);
            if (o.out && !unnamed) await writeOutputFile(o.out, text);
            else process.stdout.write(text);
          }
          if (err instanceof StepFailedError) {
            throw new EnvproofError(`${err.step} failed (${err.failureClass}): ${err.message}`, err.hint, err.output);
          }
          throw err;
        }
      }
      for (const d of documents) {
        const text = render(d.kind, report, failOn, Boolean(o.verbose));
        const file = d.file ?? o.out;
        if (file) await writeOutputFile(file, text);
        else process.stdout.write(text);
      }
      if (!unnamed || o.out) {
        const text = render(format, report, failOn, Boolean(o.verbose));
        if (!unnamed && o.out) await writeOutputFile(o.out, text);
        else process.stdout.write(text);
      }
      for (const run of report.runs.filter((r) => !r.started)) {
        process.stderr.write(`envproof: the traced program never started (${run.notStarted}); D3 is unknown\nhint: check the command${run.reason === '--run' ? ' given with --run' : ''}: ${run.command}\n`);
      }
      setExitCode(auditExitCode(report, failOn));
    });
}
