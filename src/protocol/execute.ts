import { runAudit } from '../audit/audit.js';
import type { AuditReport } from '../audit/report.js';
import { EnvproofError, InfrastructureError, NoEntryPointError, StepFailedError } from '../core/errors.js';
import { tail } from '../core/process.js';
import type { EcosystemId } from '../core/types.js';
import type { BackendChoice, EnvironmentChoice } from '../sandbox/index.js';
import type { Evaluation } from '../verify/evaluate.js';
import { classifyRunFailure, classifyStepFailure, type ErrorClass } from './classify.js';

export interface ExecuteOptions {
  language: EcosystemId;
  sandbox: BackendChoice;
  environment?: EnvironmentChoice;
  timeoutSec: number;
  progress(message: string): void;
}

export interface AttemptFailure {
  class: ErrorClass;
  step: 'manifest' | 'install' | 'build' | 'configure' | 'entry' | 'run' | 'sandbox';
  tail: string;
}

export type ExecuteOutcome = (
  | { success: true; report: AuditReport }
  /** `report` is there when the program was installed and run but failed. */
  | { success: false; failure: AttemptFailure; report?: AuditReport }
) & {
  /** Backend tasks: the behavioural evaluation the outcome was decided by. */
  evaluation?: Evaluation;
};

const TAIL_LINES = 60;

/**
 * Execute of the protocol: install, build and run the project in a fresh sandbox, with the audit machinery,
 * so a successful attempt already carries its three layers.
 */
export async function executeAttempt(projectDir: string, opts: ExecuteOptions): Promise<ExecuteOutcome> {
  try {
    const report = await runAudit({
      dir: projectDir,
      ecosystem: opts.language,
      timeoutSec: opts.timeoutSec,
      keep: false,
      sandbox: opts.sandbox,
      environment: opts.environment,
      progress: opts.progress,
    });
    if (report.run.success) return { success: true, report };
    const output = report.run.outputTail;
    return {
      success: false,
      report,
      failure: { class: classifyRunFailure(output, report.run.timedOut), step: 'run', tail: tail(output || `exit code ${report.run.exitCode}`, TAIL_LINES) },
    };
  } catch (err) {
    if (err instanceof StepFailedError) {
      return { success: false, failure: { class: classifyStepFailure(err.step, err.failureClass, err.output), step: err.step, tail: tail(`${err.message}\n${err.output}`, TAIL_LINES) } };
    }
    if (err instanceof NoEntryPointError) {
      return { success: false, failure: { class: 'no-entry-point', step: 'entry', tail: `${err.message}${err.hint ? `\n${err.hint}` : ''}` } };
    }
    if (err instanceof InfrastructureError) {
      return { success: false, failure: { class: 'infrastructure', step: 'sandbox', tail: err.message } };
    }
    if (err instanceof EnvproofError) {
      // The project itself is unusable: no manifest, a malformed one, ...
      return { success: false, failure: { class: 'build-configuration', step: 'manifest', tail: `${err.message}${err.details ? `\n${tail(err.details, TAIL_LINES)}` : ''}` } };
    }
    throw err;
  }
}
