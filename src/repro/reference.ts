import { readFile } from 'node:fs/promises';
import { EnvproofError } from '../core/errors.js';
import type { FactorId, Outcome, OutcomeStatus, ReferenceEnvironment, TestResult } from './types.js';

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

/** The factors whose value is a seed. */
const SEEDED: readonly FactorId[] = ['hash-seed', 'test-order'];

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A reference's `environment`, checked field by field; `where` names it in errors. */
export function parseEnvironment(value: unknown, where: string): ReferenceEnvironment {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new EnvproofError(`${where}: "environment" must be an object`, 'e.g. { "timezone": "Asia/Shanghai", "locale": "C.UTF-8", "seeds": { "hash-seed": 42 } }');
  const e = value as Record<string, unknown>;
  const env: ReferenceEnvironment = {};
  for (const field of ['timezone', 'locale', 'date', 'platform'] as const) {
    if (e[field] === undefined) continue;
    if (typeof e[field] !== 'string' || !e[field]) throw new EnvproofError(`${where}: environment.${field} must be a non-empty string`);
    env[field] = e[field];
  }
  if (env.timezone !== undefined && !isTimeZone(env.timezone)) throw new EnvproofError(`${where}: environment.timezone "${env.timezone}" is not a time zone`, 'give an IANA name, e.g. Asia/Shanghai or UTC');
  if (env.date !== undefined) env.date = parseDate(env.date, `${where}: environment.date`).toISOString();
  if (e.seeds !== undefined) {
    if (typeof e.seeds !== 'object' || e.seeds === null) throw new EnvproofError(`${where}: environment.seeds must map factors to seeds`);
    env.seeds = {};
    for (const [factor, seed] of Object.entries(e.seeds)) {
      if (!SEEDED.includes(factor as FactorId)) throw new EnvproofError(`${where}: environment.seeds names "${factor}", which takes no seed`, `seeds are kept for ${SEEDED.join(' and ')}`);
      if (!Number.isSafeInteger(seed) || (seed as number) < 0) throw new EnvproofError(`${where}: environment.seeds.${factor} must be a whole number, not ${JSON.stringify(seed)}`);
      env.seeds[factor as FactorId] = seed as number;
    }
  }
  return env;
}

/**
 * A reference recorded earlier: the JSON `envproof repro --json` printed (its reference is taken), or
 * `{ "recordedAt": "<date>", "outcome": { "status": "pass", "tests": { ... } }, "environment"?: { ... } }`.
 */
export async function readReferenceFile(file: string): Promise<{ recordedAt: Date; outcome: Outcome; environment?: ReferenceEnvironment }> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new EnvproofError(`cannot read the reference ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  type Doc = { recordedAt?: unknown; outcome?: unknown; environment?: unknown };
  let doc: Doc & { reference?: Doc };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch (err) {
    throw new EnvproofError(`the reference ${file} is not JSON: ${(err as Error).message}`);
  }
  const ref = doc.reference ?? doc;
  if (ref.recordedAt === undefined) throw new EnvproofError(`the reference ${file} has no "recordedAt"`, 'give the date the outcome was recorded');
  return {
    recordedAt: parseDate(ref.recordedAt, `${file}: recordedAt`),
    outcome: parseOutcome(ref.outcome, `${file}: outcome`),
    ...(ref.environment !== undefined ? { environment: parseEnvironment(ref.environment, file) } : {}),
  };
}
