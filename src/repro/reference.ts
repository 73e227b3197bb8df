import { readFile } from 'node:fs/promises';
import { EnvproofError } from '../core/errors.js';
import type { Outcome, OutcomeStatus, TestResult } from './types.js';

const STATUSES: readonly OutcomeStatus[] = ['pass', 'fail', 'timeout', 'not-started', 'install-failed'];
const RESULTS: readonly TestResult[] = ['passed', 'failed', 'skipped'];

/** A recorded outcome: `{status, tests?}`, checked field by field; `where` names it in errors. */
export function parseOutcome(value: unknown, where: string): Outcome {
  const o = value as { status?: unknown; tests?: unknown; exitCode?: unknown } | null;
  if (typeof o !== 'object' || o === null) throw new EnvproofError(`${where}: the outcome must be an object with a "status"`);
  if (!STATUSES.includes(o.status as OutcomeStatus)) throw new EnvproofError(`${where}: "status" must be one of ${STATUSES.join(', ')}, not ${JSON.stringify(o.status)}`);
  const outcome: Outcome = { status: o.status as OutcomeStatus, exitCode: typeof o.exitCode === 'number' ? o.exitCode : null };
  if (o.tests !== undefined) {
    if (typeof o.tests !== 'object' || o.tests === null) throw new EnvproofError(`${where}: "tests" must map test ids to passed, failed or skipped`);
    for (const [id, r] of Object.entries(o.tests)) {
      if (!RESULTS.includes(r as TestResult)) throw new EnvproofError(`${where}: test "${id}" has result ${JSON.stringify(r)}; use passed, failed or skipped`);
    }
    outcome.tests = o.tests as Record<string, TestResult>;
  }
  return outcome;
}

export function parseDate(value: unknown, where: string): Date {
  const d = typeof value === 'string' ? new Date(value) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw new EnvproofError(`${where}: ${JSON.stringify(value)} is not a date`, 'write it as an ISO 8601 date, e.g. 2024-03-01 or 2024-03-01T12:00:00Z');
  return d;
}

/**
 * A reference recorded earlier: the JSON `envproof repro --json` printed (its reference is taken), or
 * `{ "recordedAt": "<date>", "outcome": { "status": "pass", "tests": { ... } } }`.
 */
export async function readReferenceFile(file: string): Promise<{ recordedAt: Date; outcome: Outcome }> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new EnvproofError(`cannot read the reference ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  let doc: { recordedAt?: unknown; outcome?: unknown; reference?: { recordedAt?: unknown; outcome?: unknown } };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch (err) {
    throw new EnvproofError(`the reference ${file} is not JSON: ${(err as Error).message}`);
  }
  const ref = doc.reference ?? doc;
  if (ref.recordedAt === undefined) throw new EnvproofError(`the reference ${file} has no "recordedAt"`, 'give the date the outcome was recorded');
  return { recordedAt: parseDate(ref.recordedAt, `${file}: recordedAt`), outcome: parseOutcome(ref.outcome, `${file}: outcome`) };
}
