import { Command, Option } from 'commander';
import { AUDIT_SCHEMA_VERSION, type AuditReport } from '../audit/report.js';
import { EnvproofError, StepFailedError, UsageError } from '../core/errors.js';
import { ECOSYSTEM_IDS } from '../core/types.js';
import { renderAuditText } from '../report/audit-text.js';
import { BACKEND_CHOICES, type BackendChoice } from '../sandbox/index.js';
import type { SetExitCode } from './commands.js';
import { addEnvironmentOptions, environmentChoice, type EnvironmentFlags } from './environment-options.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';

const FINDING_KINDS = ['phantom', 'hidden', 'bloat', 'transitive', 'run'] as const;
type FindingKind = (typeof FINDING_KINDS)[number];

function parseFailOn(value: string): FindingKind[] {
  const kinds = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const k of kinds) {
    if (!FINDING_KINDS.includes(k as FindingKind)) throw new UsageError(`--fail-on: unknown kind "${k}"`, `use a comma-separated list of ${FINDING_KINDS.join(', ')}`);
  }
  return kinds as FindingKind[];
}

function parseTimeout(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--timeout must be a positive number of seconds, not "${value}"`);
  return n;
}

/** The findings that make the exit code 1. */
export function findings(report: AuditReport, failOn: readonly FindingKind[]): string[] {
  return failOn.filter((k) => (k === 'run' ? !report.run.success : report.gaps[k].length > 0));
}

export function registerAudit(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('audit')
    .description('Audit one project: declared (D1), installed (D2) and runtime-traced (D3) dependencies, their gaps and metrics')
    .argument('<dir>', 'the project directory')
    .addOption(new Option('--ecosystem <name>', 'the project\'s ecosystem').choices(['auto', ...ECOSYSTEM_IDS]).default('auto'))
    .option('--run <command>', 'shell command to trace instead of the detected entry point')
    .option('--timeout <seconds>', 'time limit of the traced run', '120')
    .addOption(new Option('--sandbox <backend>', 'where installs and the traced run happen').choices([...BACKEND_CHOICES]).default('auto'))
    .option('--fail-on <kinds>', `which findings make the exit code 1 (${FINDING_KINDS.join(',')})`, 'phantom,hidden,run')
    .addOption(new Option('--java-attribution <how>', 'Java D3: jars classes were loaded from, or (as the paper) jars opened').choices(['loaded', 'opened']).default('loaded'))
    .option('--json', 'print the report as JSON (schema: docs/audit-json.md)')
    .option('--keep', 'keep the work directory and print its path')
    .option('-q, --quiet', 'no progress messages')
    .addHelpText('after', '\nExit codes: 0 no findings, 1 findings (see --fail-on), 2 error.');
  addEnvironmentOptions(command).action(
    async (dir: string, o: EnvironmentFlags & { ecosystem: string; run?: string; timeout: string; sandbox: BackendChoice; failOn: string; javaAttribution: 'loaded' | 'opened'; json?: boolean; keep?: boolean; quiet?: boolean }) => {
      const failOn = parseFailOn(o.failOn);
      const environment = environmentChoice(o);
      const progress = o.quiet ? () => {} : (m: string) => process.stderr.write(`envproof: ${m}\n`);
      // Loaded on use, so other commands start without the audit machinery.
      const { runAudit } = await import('../audit/audit.js');
      let report: AuditReport;
      try {
        report = await runAudit({
          dir,
          ecosystem: o.ecosystem as never,
          run: o.run,
          timeoutSec: parseTimeout(o.timeout),
          keep: Boolean(o.keep),
          sandbox: o.sandbox,
          environment,
          // An audit may run on the host where bwrap cannot, saying so on stderr and in the report; `run` may not.
          allowHostFallback: true,
          tracedView: o.javaAttribution === 'opened' ? { java: 'opened' } : {},
          progress,
          warn: (m) => process.stderr.write(`envproof: ${m}\n`),
        });
      } catch (err) {
        if (o.json && err instanceof EnvproofError) {
          const step = err instanceof StepFailedError ? { step: err.step, class: err.failureClass, output: err.output } : {};
          process.stdout.write(`${JSON.stringify({ schemaVersion: AUDIT_SCHEMA_VERSION, error: { message: err.message, hint: err.hint, ...step } }, null, 2)}\n`);
        }
        if (err instanceof StepFailedError) {
          throw new EnvproofError(`${err.step} failed (${err.failureClass}): ${err.message}`, err.hint, err.output);
        }
        throw err;
      }
      process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : renderAuditText(report));
      setExitCode(findings(report, failOn).length ? EXIT_FINDINGS : EXIT_CLEAN);
    },
  );
}
