/** `verifyProject`: the static verifiers a task's constraints call for, over one project tree. */
import { checkProjectDir } from '../audit/workspace.js';
import { UsageError } from '../core/errors.js';
import { verifyArchitecture } from './architecture.js';
import { verifyDatabase } from './database.js';
import { verifyOrm } from './orm.js';
import { listProjectFiles, parseSources } from './project-files.js';
import type { Constraints, VerifierResult, VerifyReport } from './types.js';

export const VERIFY_SCHEMA_VERSION = 1;

export async function verifyProject(dir: string, constraints: Constraints): Promise<VerifyReport> {
  if (!constraints.architecture && !constraints.database && !constraints.orm) {
    throw new UsageError('nothing to verify', 'give at least one of --architecture clean, --database postgresql|sqlite, --orm sqlalchemy|sequelize');
  }
  const root = await checkProjectDir(dir);
  const files = await listProjectFiles(root);
  const input = { files, sources: await parseSources(files) };
  const verifiers: VerifierResult[] = [];
  if (constraints.architecture) verifiers.push(verifyArchitecture(input));
  if (constraints.database) verifiers.push(await verifyDatabase(input, constraints.database));
  if (constraints.orm) verifiers.push(await verifyOrm(input, constraints.orm));
  return {
    schemaVersion: VERIFY_SCHEMA_VERSION,
    project: root,
    verifiers,
    unparsed: input.sources.filter((s) => s.parseError).map((s) => ({ file: s.file, reason: s.parseError! })),
  };
}

/** Whether every verifier holds; `strict` judges the ORM by its strict rule instead of the paper's. */
export function allHold(report: VerifyReport, strict = false): boolean {
  return report.verifiers.every((v) => (strict && v.strict ? v.strict.passed : v.passed));
}
