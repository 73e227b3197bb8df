/**
 * Execute of the protocol for backend tasks: the behavioural evaluation of the agent's tree in a pristine
 * sandbox, turned into the protocol's outcome (success = every assertion passes and every verifier holds) and
 * into the store's evaluation record.
 */
import { InfrastructureError } from '../core/errors.js';
import { tail } from '../core/process.js';
import type { AttemptFailure, ExecuteOutcome } from '../protocol/execute.js';
import type { BackendEvaluationRecord } from '../store/types.js';
import type { BackendTaskInfo } from '../tasks/backend.js';
import { evaluateBackend, type Evaluation } from './evaluate.js';
import type { ServingOptions } from './serve.js';
import { COARSE_MEANING } from './taxonomy.js';
import type { Evidence, VerifierResult } from './types.js';

export type BackendExecuteOptions = ServingOptions;

const FAILED_SHOWN = 25;
/** Evidence items kept per verifier in the store (the view shows them with their file and line). */
const STORED_EVIDENCE = 20;

/** What the agent is told in a repair round: the class, the failed assertions, the verifiers, the log's tail. */
function failureOf(e: Evaluation): AttemptFailure {
  const lines = [`${e.failureClass}: ${COARSE_MEANING[e.failureClass!]}`];
  if (!e.startup.started) lines.push(e.startup.reason);
  const failed = (e.contract?.assertions ?? []).filter((a) => !a.passed);
  if (failed.length) lines.push(`${failed.length} of ${e.contract!.total} assertions failed:`, ...failed.slice(0, FAILED_SHOWN).map((a) => `- ${a.id}: ${a.description} — ${a.message}`));
  for (const v of e.verifiers?.verifiers ?? []) if (!v.passed) lines.push(`verifier ${v.name} does not hold:`, ...v.evidence.slice(0, 5).map((x) => `- ${x.file}:${x.line} ${x.message}`));
  if (e.serverLog) lines.push('', 'server log (last lines):', tail(e.serverLog, 30));
  const errorClass = e.failureClass === 'incomplete-submission' ? 'no-entry-point' : e.failureClass === 'install-failure' ? 'fetch-failure' : 'code-bug';
  return { class: errorClass, step: e.install ? 'install' : 'run', tail: lines.join('\n') };
}

export async function executeBackendAttempt(workspace: string, task: BackendTaskInfo, opts: BackendExecuteOptions): Promise<ExecuteOutcome> {
  let evaluation: Evaluation;
  try {
    evaluation = await evaluateBackend({ dir: workspace, language: task.language, constraints: task.constraints, port: task.port, ...opts });
  } catch (err) {
    if (err instanceof InfrastructureError) return { success: false, sandbox: opts.sandbox, failure: { class: 'infrastructure', step: 'sandbox', tail: `${err.message}${err.details ? `\n${tail(err.details, 20)}` : ''}` } };
    throw err;
  }
  const report = evaluation.environment;
  const sandbox = report?.sandbox.backend ?? opts.sandbox;
  return evaluation.passed
    ? { success: true, sandbox, report: report!, evaluation }
    : { success: false, sandbox, failure: failureOf(evaluation), ...(report ? { report } : {}), evaluation };
}

/** A verifier's evidence as the store keeps it: its own, then the strict verdict's when that fails, marked so. */
function storedEvidence(v: VerifierResult): Evidence[] {
  const strict = v.strict && !v.strict.passed ? v.strict.evidence.map((x) => ({ ...x, message: `strict: ${x.message}` })) : [];
  return [...v.evidence, ...strict].slice(0, STORED_EVIDENCE);
}

/** The store's record of an evaluation. */
export function evaluationRecord(attempt: number, task: BackendTaskInfo, e: Evaluation): BackendEvaluationRecord {
  return {
    attempt,
    framework: task.framework,
    level: task.level,
    constraints: task.constraints,
    passed: e.passed,
    ...(e.failureClass ? { failureClass: e.failureClass } : {}),
    aLenient: e.aPct.lenient,
    aStrict: e.aPct.strict,
    ...(e.postmanPct !== undefined ? { postmanPct: e.postmanPct } : {}),
    ...(e.verifiers ? { verifiers: e.verifiers.verifiers.map((v) => ({ name: v.name, rules: v.rules, passed: v.passed, ...(v.strict ? { strict: v.strict.passed } : {}), evidence: storedEvidence(v) })) } : {}),
    assertions: (e.contract?.assertions ?? []).map((a) => ({ id: a.id, passed: a.passed, ...(a.message ? { message: a.message } : {}) })),
    ...(e.postman ? { postman: { passed: e.postman.passed, total: e.postman.total } } : {}),
    startup: e.startup,
    serverLog: e.serverLog,
  };
}
