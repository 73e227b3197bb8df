/**
 * One behavioural evaluation of a generated backend: the static verifiers the task's constraints call for,
 * then the server's lifecycle with envproof's contract suite (and the Postman collection when given), the
 * scores (A% strict and lenient), the coarse failure class, and the server's environment layers.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AuditReport } from '../audit/report.js';
import { EnvproofError, InfrastructureError, NoEntryPointError, StepFailedError } from '../core/errors.js';
import { ecosystemById } from '../ecosystems/index.js';
import type { StartupOutcome } from './contract/client-types.js';
import type { PostmanRun } from './contract/postman.js';
import { assertionIds } from './contract/suite.js';
import type { SuiteRun } from './contract/run-suite.js';
import { POSTGRES_FAILURE } from './postgres.js';
import { checkSuiteInputs, serveAndTest, type ServeOptions } from './serve.js';
import { coarseClass, type CoarseClass } from './taxonomy.js';
import type { Constraints, VerifyReport } from './types.js';
import { allHold, verifyProject } from './verify.js';

export const EVALUATION_SCHEMA_VERSION = 1;

export interface EvaluationOptions extends ServeOptions {
  /** What the verifiers check; `database` is also the database started for the server, unless given apart. */
  constraints: Constraints;
}

export interface Evaluation {
  schemaVersion: typeof EVALUATION_SCHEMA_VERSION;
  project: string;
  language: 'python' | 'javascript';
  constraints: Constraints;
  /** Success: every assertion of envproof's suite passes and every applicable verifier holds (paper rules). */
  passed: boolean;
  failureClass?: CoarseClass;
  /**
   * A% of envproof's suite, 0–100, over its fixed list of assertions. `lenient` ignores the verifiers; `strict`
   * is 0 when a verifier does not hold (the paper's convention).
   */
  aPct: { lenient: number; strict: number };
  /** A% of the Postman collection (passed over what Newman ran plus what scripts that threw never reached), when one was given. */
  postmanPct?: number;
  startup: StartupOutcome;
  install?: { failed: true; message: string; class: string };
  verifiers?: VerifyReport;
  contract?: SuiteRun;
  postman?: PostmanRun;
  /** The server's audit while it served: D1/D2/D3, gaps, metrics, phases (without the package manager's details). */
  environment?: AuditReport;
  serverLog: string;
  durationMs: number;
}

export async function evaluateBackend(opts: EvaluationOptions): Promise<Evaluation> {
  const started = performance.now();
  checkSuiteInputs(opts);
  const hasConstraints = Boolean(opts.constraints.architecture || opts.constraints.database || opts.constraints.orm);
  const verifiers = hasConstraints ? await verifyProject(opts.dir, opts.constraints) : undefined;
  const verifiersHold = verifiers ? allHold(verifiers) : true;
  const total = assertionIds().length;
  const base = { schemaVersion: EVALUATION_SCHEMA_VERSION, project: opts.dir, language: opts.language, constraints: opts.constraints, ...(verifiers ? { verifiers } : {}) } as const;
  const notStarted = (reason: string, extra: Partial<Evaluation>, submitted: boolean): Evaluation => ({
    ...base,
    passed: false,
    failureClass: coarseClass({ submitted, installFailed: extra.install !== undefined, started: false, verifiersHold })!,
    aPct: { lenient: 0, strict: 0 },
    startup: { started: false, reason },
    serverLog: '',
    durationMs: Math.round(performance.now() - started),
    ...extra,
  });

  const manifests = ecosystemById(opts.language)!.manifestFiles;
  if (!manifests.some((m) => existsSync(path.join(opts.dir, m)))) return notStarted(`no ${manifests.join(' or ')} in the project`, {}, false);
  let served;
  try {
    served = await serveAndTest({ ...opts, database: opts.database ?? opts.constraints.database });
  } catch (err) {
    if (err instanceof StepFailedError) {
      return notStarted(`the install failed: ${err.message}`, { install: { failed: true, message: err.message, class: err.failureClass }, serverLog: err.output }, true);
    }
    if (err instanceof NoEntryPointError) return notStarted(err.message, {}, false);
    // The project's own input is unusable (a malformed manifest): the dependencies cannot be installed.
    if (err instanceof EnvproofError && !(err instanceof InfrastructureError)) {
      return notStarted(`the install failed: ${err.message}`, { install: { failed: true, message: err.message, class: 'manifest' }, serverLog: err.details ?? '' }, true);
    }
    throw err;
  }
  const log = served.audit.run.outputTail;
  if (!served.startup.started && log.includes(POSTGRES_FAILURE)) {
    throw new InfrastructureError(`envproof's PostgreSQL did not start for the evaluation`, 'the environment needs Debian\'s postgresql package (see docs/backend.md)', log.slice(-2000));
  }
  const contract = served.contract;
  const lenient = contract ? (100 * contract.passed) / total : 0;
  const passed = contract !== undefined && contract.passed === total && verifiersHold;
  const failureClass = coarseClass({ submitted: true, installFailed: false, started: served.startup.started, contract, verifiersHold });
  return {
    ...base,
    passed,
    ...(failureClass ? { failureClass } : {}),
    aPct: { lenient, strict: verifiersHold ? lenient : 0 },
    ...(served.postman ? { postmanPct: served.postman.total ? (100 * served.postman.passed) / served.postman.total : 0 } : {}),
    startup: served.startup,
    ...(contract ? { contract } : {}),
    ...(served.postman ? { postman: served.postman } : {}),
    environment: { ...served.audit, install: { commands: served.audit.install.commands } },
    serverLog: log,
    durationMs: Math.round(performance.now() - started),
  };
}
