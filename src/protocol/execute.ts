import { runAudit, type AuditOptions } from '../audit/audit.js';
import type { AuditReport } from '../audit/report.js';
import { EnvproofError, InfrastructureError, NoEntryPointError, StepFailedError } from '../core/errors.js';
import { tail } from '../core/process.js';
import type { DeclaredResult, EcosystemId } from '../core/types.js';
import { toolsLabel } from '../ecosystems/promise.js';
import type { BackendChoice, EnvironmentChoice } from '../sandbox/index.js';
import type { TracerChoice } from '../trace/index.js';
import type { Evaluation } from '../verify/evaluate.js';
import { classifyRunFailure, classifyStepFailure, type ErrorClass } from './classify.js';
import { TRANSCRIPT_BYTES } from './transcript.js';

export interface ExecuteOptions {
  language: EcosystemId;
  sandbox: BackendChoice;
  environment?: EnvironmentChoice;
  tracer?: TracerChoice;
  timeoutSec: number;
  /** Limit of each install and build step (--install-timeout). */
  installTimeoutSec?: number;
  /** Which view of D3 the metrics use per ecosystem (java: `loaded` or `opened`), as `audit --java-attribution`. */
  tracedView?: AuditOptions['tracedView'];
  /** D1 as the caller already parsed it from the attempt's manifest (the audit then does not parse it again). */
  declared?: DeclaredResult;
  progress(message: string): void;
}

export interface AttemptFailure {
  class: ErrorClass;
  step: 'manifest' | 'install' | 'build' | 'configure' | 'entry' | 'run' | 'sandbox';
  tail: string;
}

/** `sandbox`: the backend the attempt ran in, or the one requested when it failed before a sandbox existed. */
export type ExecuteOutcome = (
  | { success: true; report: AuditReport }
  /** `report` is there when the program was installed and run but failed. */
  | { success: false; failure: AttemptFailure; report?: AuditReport }
) & {
  sandbox: BackendChoice;
  /** Backend tasks: the behavioural evaluation the outcome was decided by. */
  evaluation?: Evaluation;
};

/**
 * What an attempt's store row says of where it ran: the backend, and when the audit got as far as reporting them, the
 * versions of the environment's promised tools ("bwrap (node 20.20.2, npm 10.8.2)"), so a store says which Node ran.
 */
export function sandboxLabel(backend: BackendChoice, report: AuditReport | undefined): string {
  return report?.sandbox.tools ? `${backend} (${toolsLabel(report.sandbox.tools)})` : backend;
}

const TAIL_LINES = 60;

/**
 * Execute of the protocol: install, build and run the project in a fresh sandbox, with the audit machinery,
 * so a successful attempt already carries its three layers.
 */
export async function executeAttempt(projectDir: string, opts: ExecuteOptions): Promise<ExecuteOutcome> {
  let sandbox: BackendChoice = opts.sandbox;
  const failed = (failure: AttemptFailure, report?: AuditReport): ExecuteOutcome => ({ success: false, sandbox, failure, ...(report ? { report } : {}) });
  try {
    const report = await runAudit({
      dir: projectDir,
      ecosystem: opts.language,
      timeoutSec: opts.timeoutSec,
      ...(opts.installTimeoutSec !== undefined ? { installTimeoutSec: opts.installTimeoutSec } : {}),
      // The program's output is kept with the attempt (as much as a transcript holds), whether it succeeded or not.
      outputTailBytes: TRANSCRIPT_BYTES,
      keep: false,
      sandbox: opts.sandbox,
      ...(opts.tracedView ? { tracedView: opts.tracedView } : {}),
      ...(opts.declared ? { declared: opts.declared } : {}),
      environment: opts.environment,
      tracer: opts.tracer,
      progress: opts.progress,
      onSandbox: (backend) => {
        sandbox = backend;
      },
    });
    if (report.run.success) return { success: true, sandbox, report };
    const output = report.run.outputTail;
    return failed({ class: classifyRunFailure(output, report.run.timedOut), step: 'run', tail: tail(output || `exit code ${report.run.exitCode}`, TAIL_LINES) }, report);
  } catch (err) {
    if (err instanceof StepFailedError) {
      return failed({ class: classifyStepFailure(err.step, err.failureClass, err.output), step: err.step, tail: tail(`${err.message}\n${err.output}`, TAIL_LINES) });
    }
    if (err instanceof NoEntryPointError) {
      return failed({ class: 'no-entry-point', step: 'entry', tail: `${err.message}${err.hint ? `\n${err.hint}` : ''}` });
    }
    if (err instanceof InfrastructureError) {
      return failed({ class: 'infrastructure', step: 'sandbox', tail: err.message });
    }
    if (err instanceof EnvproofError) {
      // The project itself is unusable: no manifest, a malformed one, ...
      return failed({ class: 'build-configuration', step: 'manifest', tail: `${err.message}${err.details ? `\n${tail(err.details, TAIL_LINES)}` : ''}` });
    }
    throw err;
  }
}
