/** A report saved with `envproof audit --json`, read back to render it again (`audit --from`) or to fix from it (`fix --from`). */
import { readFile } from 'node:fs/promises';
import { AUDIT_SCHEMA_VERSION, type AuditReport } from '../audit/report.js';
import { EnvproofError, errorMessage } from '../core/errors.js';

export async function readSavedReport(file: string): Promise<AuditReport> {
  const text = await readFile(file, 'utf8').catch((err: unknown) => {
    throw new EnvproofError(`cannot read the saved report ${file}: ${errorMessage(err)}`, 'give a file written by envproof audit --json');
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EnvproofError(`the saved report ${file} is not JSON`, 'give a file written by envproof audit --json');
  }
  const report = value as Partial<AuditReport> | null;
  if (
    report?.schemaVersion !== AUDIT_SCHEMA_VERSION ||
    typeof report.project !== 'string' ||
    !Array.isArray(report.components) ||
    !Array.isArray(report.findings) ||
    !Array.isArray(report.runs)
  ) {
    throw new EnvproofError(`${file} is not a complete envproof audit report (schema version ${AUDIT_SCHEMA_VERSION})`, 'write it again with envproof audit <dir> --json');
  }
  return report as AuditReport;
}
