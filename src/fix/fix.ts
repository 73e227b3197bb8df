/**
 * `envproof fix`: audit, plan the manifest edits from the findings, let the ecosystem's editor make them surgically,
 * then (unless it is a dry run) write them, bring derived files up to date in a sandbox (npm's lockfile), and audit
 * again to show which gaps closed.
 */
import { createTwoFilesPatch } from 'diff';
import { installTimeoutMs, runAudit, type AuditOptions } from '../audit/audit.js';
import type { AuditReport } from '../audit/report.js';
import { checkProjectDir, createWorkDir, removeWorkDir } from '../audit/workspace.js';
import { EnvproofError, InfrastructureError } from '../core/errors.js';
import { readProjectFile } from '../core/safe-read.js';
import { writeProjectFile } from '../core/safe-write.js';
import { ecosystemById } from '../ecosystems/index.js';
import type { EditOutcome, FileChange, ManifestEditor } from '../ecosystems/outputs.js';
import type { EcosystemModule } from '../ecosystems/types.js';
import { createSandbox } from '../sandbox/index.js';
import { auditContext } from '../ecosystems/context.js';
import { planFix, type FixFlags, type FixPlan } from './plan.js';

export interface FixOptions extends FixFlags {
  audit: AuditOptions;
  dryRun: boolean;
  /** An audit of this project already made (`fix --from`): planned from, instead of auditing again first. */
  before?: AuditReport;
}

export interface FixResult {
  before: AuditReport;
  plan: FixPlan;
  outcome: EditOutcome;
  /** The unified diff of the manifest changes (empty when nothing changes). */
  diff: string;
  /** Files the ecosystem's refresh rewrote after the edit (npm's lockfile). */
  refreshed: string[];
  /** The audit after the edits; absent on a dry run or when nothing changed. */
  after?: AuditReport;
}

export function unifiedDiff(changes: readonly FileChange[]): string {
  return changes.map((c) => createTwoFilesPatch(`a/${c.file}`, `b/${c.file}`, c.before, c.after, undefined, undefined, { context: 3 }).replace(/^=+\n/, '')).join('');
}

/** Runs the editor's refresh on a sandboxed copy of the edited project and copies back what it rewrote. */
async function refreshInSandbox(module: EcosystemModule, editor: ManifestEditor, projectDir: string, opts: AuditOptions): Promise<string[]> {
  if (!editor.refresh) return [];
  const work = await createWorkDir(projectDir);
  try {
    const sandbox = await createSandbox({ backend: opts.sandbox, language: module.id, hostWorkDir: work.root, progress: opts.progress }).catch((err: unknown) => {
      throw err instanceof EnvproofError ? new InfrastructureError(err.message, err.hint, err.details) : err;
    });
    try {
      const ctx = auditContext(sandbox, { timeoutMs: opts.timeoutSec * 1000, installTimeoutMs: installTimeoutMs(opts), progress: opts.progress });
      const files = await editor.refresh(ctx);
      // The sandboxed refresh could have left a link where the lockfile was: read it as a file of the copy.
      for (const f of files) await writeProjectFile(projectDir, f, await readProjectFile(work.project, f));
      return files;
    } finally {
      await sandbox.dispose();
    }
  } finally {
    await removeWorkDir(work);
  }
}

export async function runFix(opts: FixOptions): Promise<FixResult> {
  const projectDir = await checkProjectDir(opts.audit.dir);
  if (opts.before && opts.before.project !== projectDir) {
    throw new EnvproofError(`the saved report is of ${opts.before.project}, not of ${projectDir}`, 'fix the directory that was audited, or audit this one');
  }
  if (!opts.before) opts.audit.progress('auditing before the fix');
  const before = opts.before ?? (await runAudit({ ...opts.audit, keep: false }));
  const module = ecosystemById(before.ecosystem)!;
  const editor = module.manifestEditor;
  if (!editor) throw new EnvproofError(`envproof fix cannot edit ${module.projectKind} manifests yet`);
  const declared = await module.extractDeclared(projectDir);
  const plan = planFix(before, declared, opts);
  const outcome = await editor.apply(projectDir, declared, plan.edits);
  const result: FixResult = { before, plan, outcome, diff: unifiedDiff(outcome.changes), refreshed: [] };
  if (opts.dryRun || outcome.changes.length === 0) return result;

  // Through an exclusive temporary file and a rename: an interrupted fix never leaves half a manifest.
  for (const change of outcome.changes) await writeProjectFile(projectDir, change.file, change.after);
  result.refreshed = await refreshInSandbox(module, editor, projectDir, opts.audit);
  opts.audit.progress('auditing again after the fix');
  result.after = await runAudit({ ...opts.audit, ecosystem: module.id, keep: false });
  return result;
}
