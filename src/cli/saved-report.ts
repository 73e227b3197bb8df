/** A report saved with `envproof audit --json`, read back to render it again (`audit --from`) or to fix from it (`fix --from`). */
import { readFile } from 'node:fs/promises';
import { AUDIT_SCHEMA_VERSION, type AuditReport } from '../audit/report.js';
import { EnvproofError, errorMessage } from '../core/errors.js';
import type { FailedAuditReport } from '../report/failed-audit.js';

export type SavedAudit = { complete: AuditReport } | { failed: FailedAuditReport };

/** A complete report, or the report of a failed audit (with `error`): both are what `audit --json` writes. */
export async function readSavedAudit(file: string): Promise<SavedAudit> {
  const text = await readFile(file, 'utf8').catch((err: unknown) => {
    throw new EnvproofError(`cannot read the saved report ${file}: ${errorMessage(err)}`, 'give a file written by envproof audit --json');
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EnvproofError(`the saved report ${file} is not JSON`, 'give a file written by envproof audit --json');
  }
  const report = value as (Partial<AuditReport> & { error?: { message?: unknown } }) | null;
  if (report?.schemaVersion === AUDIT_SCHEMA_VERSION && typeof report.error?.message === 'string') {
    return { failed: report as unknown as FailedAuditReport };
  }
  if (
    report?.schemaVersion !== AUDIT_SCHEMA_VERSION ||
    typeof report.project !== 'string' ||
    !Array.isArray(report.components) ||
    !Array.isArray(report.findings) ||
    !Array.isArray(report.runs)
  ) {
    throw new EnvproofError(`${file} is not a complete envproof audit report (schema version ${AUDIT_SCHEMA_VERSION})`, 'write it again with envproof audit <dir> --json');
  }
  return { complete: report as AuditReport };
}

/** A complete report; a failed audit's has nothing to fix from. */
export async function readSavedReport(file: string): Promise<AuditReport> {
  const saved = await readSavedAudit(file);
  if ('failed' in saved) {
    throw new EnvproofError(
      `${file} is not a complete envproof audit report: it is the report of an audit that failed (${saved.failed.error.message})`,
      `see it with envproof audit --from ${file}; once what failed is fixed, audit again with --json`,
    );
  }
  return saved.complete;
}
