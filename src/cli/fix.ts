import type { Command } from 'commander';
import { failingKinds } from '../audit/findings.js';
import { FINDING_KINDS, type AuditReport } from '../audit/report.js';
import type { FixResult } from '../fix/fix.js';
import type { ManifestEdit } from '../ecosystems/outputs.js';
import { addSharedOptions, CONFIG_HELP, DEFAULT_FAIL_ON, resolveSettings, type SharedOptions } from './audit-settings.js';
import { UsageError } from '../core/errors.js';
import { readSavedReport } from './saved-report.js';
import { EXIT_CLEAN, EXIT_FINDINGS, type SetExitCode } from './exit-codes.js';

interface FixCliOptions extends SharedOptions {
  from?: string;
  dryRun?: boolean;
  pin?: boolean;
  removePhantom?: boolean;
  json?: boolean;
}

function describeEdit(e: ManifestEdit): string {
  if (e.kind === 'add') return `declare ${e.name} ${e.version} (hidden)`;
  if (e.kind === 'pin') return `pin ${e.dependency.name} to ${e.version} (unpinned)`;
  return `remove ${e.dependency.name} (phantom, nothing imports it)`;
}

/** One line per kind and reason, naming every package it applies to, so that no reason is printed twice. */
function keptByReason(kept: FixResult['plan']['kept']): { names: string[]; kind: string; reason: string }[] {
  const groups = new Map<string, { names: string[]; kind: string; reason: string }>();
  for (const k of kept) {
    const key = `${k.kind}\0${k.reason}`;
    const group = groups.get(key) ?? { names: [], kind: k.kind, reason: k.reason };
    group.names.push(k.name);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** Open findings per kind, the before → after line of the summary. */
function counts(report: AuditReport): Record<string, number> {
  return Object.fromEntries(FINDING_KINDS.map((k) => [k, report.findings.filter((f) => f.kind === k && !f.ignored).length]));
}

function summary(r: FixResult, dryRun: boolean): string {
  const out: string[] = [];
  for (const e of r.outcome.applied) out.push(`${dryRun ? 'would ' : ''}${describeEdit(e)}`);
  for (const { edit, reason } of r.outcome.refused) out.push(`not done: ${describeEdit(edit)}: ${reason}`);
  for (const { names, kind, reason } of keptByReason(r.plan.kept)) out.push(`left alone: ${names.join(', ')} (${kind}): ${reason}`);
  if (r.outcome.applied.length === 0) out.push('nothing to change in the manifest');
  if (r.refreshed.length) out.push(`refreshed by the package manager: ${r.refreshed.join(', ')}`);
  if (r.after) {
    const before = counts(r.before);
    const after = counts(r.after);
    out.push('', 'gaps before → after the fix:');
    for (const k of FINDING_KINDS) if (before[k] || after[k]) out.push(`  ${k.padEnd(11)} ${String(before[k]).padStart(3)} → ${after[k]}`);
  }
  return `${out.join('\n')}\n`;
}

export function registerFix(program: Command, setExitCode: SetExitCode): void {
  const command = program
    .command('fix')
    .description('Rewrite the manifest from an audit: declare hidden dependencies, pin (--pin), remove unused phantoms (--remove-phantom); then audit again')
    .argument('[dir]', 'the project directory (default with --from: the one the report is of)');
  addSharedOptions(command)
    .option('--from <report.json>', 'plan the edits from a report saved with envproof audit --json instead of auditing first')
    .option('--dry-run', 'print the unified diff and change nothing')
    .option('--pin', 'pin unpinned dependencies to the version each declaration resolved to (npm: the top-level copy; Go: go.mod versions are exact already; only a branch, commit or other non-canonical version is replaced by the one the go command resolved)')
    .option('--remove-phantom', 'remove phantom dependencies that nothing in the code imports')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', `\nComments, order and formatting outside the changed lines are kept byte for byte (docs/fix.md).\nDerived files are refreshed by their package manager in the sandbox: npm's lockfile, Go's go.sum.\nExit codes: 0 no failing finding remains (or a dry run), 1 some remain, 2 error.${CONFIG_HELP}`)
    .action(async (dirArg: string | undefined, o: FixCliOptions, cmd: Command) => {
      const before = o.from ? await readSavedReport(o.from) : undefined;
      const dir = dirArg ?? before?.project;
      if (!dir) throw new UsageError('give the project directory to fix (or --from <report.json>)');
      const settings = await resolveSettings(dir, o, cmd);
      const { runFix } = await import('../fix/fix.js');
      const dryRun = Boolean(o.dryRun);
      const result = await runFix({
        audit: { ...settings.audit, keep: false, progress: settings.progress },
        dryRun,
        pin: Boolean(o.pin),
        removePhantom: Boolean(o.removePhantom),
        ...(before ? { before } : {}),
      });
      if (o.json) {
        const { outcome, plan, ...rest } = result;
        const json = { applied: outcome.applied, refused: outcome.refused, kept: plan.kept, files: outcome.changes.map((c) => c.file), ...rest };
        process.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
      } else {
        process.stdout.write(result.diff);
        process.stderr.write(summary(result, dryRun));
      }
      const failOn = settings.failOn ?? DEFAULT_FAIL_ON;
      // When nothing changed, the audit before is the state after: its findings still count.
      const final = dryRun ? undefined : (result.after ?? result.before);
      const remaining = final && failingKinds(final.findings, final.runs.every((r) => r.success), failOn);
      setExitCode(remaining?.length ? EXIT_FINDINGS : EXIT_CLEAN);
    });
}
