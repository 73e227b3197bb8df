/**
 * The `backend_evaluations` table (schema v4, docs/store.md): one behavioural evaluation per executed attempt of a
 * backend run, written with the attempt and read back for the report's backend section and the judge.
 */
import type { RunSource } from '../metrics/aggregate-types.js';
import type { EcosystemId } from '../core/types.js';
import { insertStatement, jsonOrNull, parseJson, type Queryable, type SqlValue } from './sql.js';
import type { BackendEvaluationRecord, RunKey } from './types.js';

const COLUMNS = [
  'run_id', 'attempt', 'framework', 'level', 'constraints', 'passed', 'failure_class', 'root_cause', 'root_cause_note',
  'a_lenient', 'a_strict', 'postman_pct', 'verifiers', 'assertions', 'postman', 'startup', 'server_log',
] as const;

const PUT = insertStatement('backend_evaluations', COLUMNS, ['run_id', 'attempt']);

/** Adds or replaces the evaluation of one attempt of the run `runId`. */
export function putEvaluation(q: Queryable, runId: number, e: BackendEvaluationRecord): Promise<void> {
  const row: Record<(typeof COLUMNS)[number], SqlValue> = {
    run_id: runId,
    attempt: e.attempt,
    framework: e.framework,
    level: e.level,
    constraints: JSON.stringify(e.constraints),
    passed: e.passed ? 1 : 0,
    failure_class: e.failureClass ?? null,
    root_cause: e.rootCause ?? null,
    root_cause_note: e.rootCauseNote ?? null,
    a_lenient: e.aLenient,
    a_strict: e.aStrict,
    postman_pct: e.postmanPct ?? null,
    verifiers: jsonOrNull(e.verifiers),
    assertions: JSON.stringify(e.assertions),
    postman: jsonOrNull(e.postman),
    startup: JSON.stringify(e.startup),
    server_log: e.serverLog ?? null,
  };
  return q.run(PUT, COLUMNS.map((c) => row[c]));
}

/** The last evaluated attempt of every finished run, with the run's key. */
export const FINAL_EVALUATIONS = `
SELECT r.source, r.agent, r.language, r.task_id, r.trial, e.* FROM backend_evaluations e JOIN runs r ON r.id = e.run_id
WHERE r.status = 'done' AND e.attempt = (SELECT MAX(attempt) FROM backend_evaluations x WHERE x.run_id = e.run_id)
ORDER BY r.agent, r.task_id, r.trial`;

/** Every evaluation of one run (by its key), attempt by attempt. */
export const RUN_EVALUATIONS = `
SELECT r.source, r.agent, r.language, r.task_id, r.trial, e.* FROM backend_evaluations e JOIN runs r ON r.id = e.run_id
WHERE r.source = ? AND r.agent = ? AND r.language = ? AND r.task_id = ? AND r.trial = ? ORDER BY e.attempt`;

export function evaluationFromRow(r: Record<string, unknown>): BackendEvaluationRecord & { key: RunKey } {
  return {
    key: { source: r.source as RunSource, agent: r.agent as string, language: r.language as EcosystemId, taskId: r.task_id as string, trial: r.trial as number },
    attempt: r.attempt as number,
    framework: r.framework as string,
    level: r.level as number,
    constraints: parseJson(r.constraints),
    passed: r.passed === 1,
    ...(r.failure_class === null ? {} : { failureClass: r.failure_class as string }),
    ...(r.root_cause === null ? {} : { rootCause: r.root_cause as string }),
    ...(r.root_cause_note === null ? {} : { rootCauseNote: r.root_cause_note as string }),
    aLenient: r.a_lenient as number,
    aStrict: r.a_strict as number,
    ...(r.postman_pct === null ? {} : { postmanPct: r.postman_pct as number }),
    verifiers: parseJson(r.verifiers) ?? undefined,
    assertions: parseJson(r.assertions),
    postman: parseJson(r.postman) ?? undefined,
    startup: parseJson(r.startup),
    ...(r.server_log === null ? {} : { serverLog: r.server_log as string }),
  };
}
