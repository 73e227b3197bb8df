import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AgentMisconfigured } from '../agents/misconfigured.js';
import type { Agent, AgentTurnResult, Usage } from '../agents/types.js';
import type { AuditReport } from '../audit/report.js';
import { errorMessage, UsageError } from '../core/errors.js';
import type { DeclaredResult, EcosystemId } from '../core/types.js';
import { ecosystem } from '../ecosystems/index.js';
import type { BackendChoice, EnvironmentChoice } from '../sandbox/index.js';
import type { TracerChoice } from '../trace/index.js';
import type { ResultsStore } from '../store/store.js';
import type { AttemptRecord, RunKey, RunStatus, StoredRun } from '../store/types.js';
import type { PromptVariant, Task, TaskSuite } from '../tasks/types.js';
import { PAPER_ERROR_TYPE, type ErrorClass } from './classify.js';
import { executeAttempt, sandboxLabel, type AttemptFailure, type ExecuteOptions, type ExecuteOutcome } from './execute.js';
import { backendRepairPrompt, repairPrompt } from './prompts.js';
import { retryingInfrastructure, type RetryOptions } from './retry.js';
import { boundedTranscript } from './transcript.js';
import { restoreTree, snapshotTree } from './tree.js';
import { evaluationRecord, executeBackendAttempt, type BackendExecuteOptions } from '../verify/protocol-step.js';

export interface RunPlan {
  agent: Agent;
  suite: TaskSuite;
  task: Task;
  language: EcosystemId;
  trial: number;
  variant: PromptVariant;
  /** Redo the run from round 0 even when the store holds it (`run --rerun`); its attempts are replaced. */
  fresh?: boolean;
}

export interface ProtocolOptions {
  /** Repair rounds after the first attempt (the paper's k). */
  repairs: number;
  sandbox: BackendChoice;
  /** Extra Debian packages, container base image. */
  environment?: EnvironmentChoice;
  /** The tracer of the program's run (default auto). */
  tracer?: TracerChoice;
  /** Time limit of the program's run, seconds. */
  runTimeoutSec: number;
  /** Time limit of each install and build step, seconds (default DEFAULT_INSTALL_TIMEOUT_SEC). */
  installTimeoutSec?: number;
  /** Time limit of one agent turn, seconds. */
  agentTimeoutSec: number;
  /** Time limit of one request of an HTTP agent, seconds (default: the turn's). */
  requestTimeoutSec?: number;
  /** Which view of D3 the metrics use per ecosystem (`--java-attribution`). */
  tracedView?: ExecuteOptions['tracedView'];
  /** How often an infrastructure failure is retried before the run is set aside. */
  infraRetries: number;
  /** Seconds to wait before the first retry; each further retry waits twice as long. */
  retryDelaySec: number;
  workRoot?: string;
  /** Backend tasks: the contract and collection their evaluation uses. */
  backend?: Pick<BackendExecuteOptions, 'spec' | 'collection' | 'startupTimeoutSec'>;
  progress(phase: string): void;
  /** Asked before each attempt: true stops the run there, left `running` to be resumed (a worker shutting down). */
  shouldStop?(): boolean;
  /**
   * Aborted when the run is being stopped (Ctrl-C, SIGTERM, a refused credential in another run): the agent's turn
   * ends at once, and the attempt in flight is recorded as interrupted, to be done again when the run resumes.
   */
  signal?: AbortSignal;
}

/**
 * `no-attempt`: the agent gave up before generating anything (e.g. a replay without recordings); nothing is stored.
 * `interrupted`: stopped on request (`shouldStop` between attempts, or `signal` during one: that attempt is recorded
 * with the error class `interrupted`); the next run resumes it.
 */
export type RunOutcome = 'skipped' | 'succeeded' | 'failed' | 'infrastructure-failed' | 'no-attempt' | 'interrupted';

const NO_ERROR_TYPE = 'None';

/** The error class of an attempt stopped half-way (Ctrl-C, SIGTERM): done again when the run resumes. */
export const INTERRUPTED = 'interrupted';

/** Characters of a set-aside run's reason kept in the store. */
const REASON_CHARS = 2000;

export function runKey(plan: RunPlan): RunKey {
  return { source: 'envproof', agent: plan.agent.name, language: plan.language, taskId: plan.task.id, trial: plan.trial };
}

/** The run row as it stands; `done` only when the run has ended. */
interface RunState {
  /** D1 = Parse(M0); null when M(0) is missing or unreadable (unknown, not empty). */
  declared: string[] | null;
  firstClass: ErrorClass | null;
  successRound: number | null;
  final?: AuditReport;
}

function runRecord(plan: RunPlan, state: RunState, status: StoredRun['status'], reason?: string): StoredRun {
  const installed = state.final?.layers.installed.map((d) => d.name) ?? [];
  const traced = state.final?.layers.traced?.map((d) => d.name) ?? [];
  const unique = (xs: string[]) => [...new Set(xs)].sort();
  return {
    ...runKey(plan),
    source: 'envproof',
    primary: plan.trial === 1,
    firstSuccess: state.successRound === 0,
    finalSuccess: state.successRound !== null,
    repairDepth: state.successRound,
    initialErrorType: state.successRound === 0 ? NO_ERROR_TYPE : state.firstClass ? PAPER_ERROR_TYPE[state.firstClass] : null,
    declared: state.declared && unique(state.declared),
    installed: unique(installed),
    traced: unique(traced),
    claimedCount: state.declared && unique(state.declared).length,
    transitiveCount: unique(installed).length,
    status,
    statusReason: reason === undefined ? null : reason.slice(0, REASON_CHARS),
  };
}

/** The manifest the attempt delivered, as stored with it (the first of the ecosystem's manifest files present). */
async function manifestOf(workspace: string, language: EcosystemId): Promise<{ path: string; content: string } | null> {
  for (const name of ecosystem(language).manifestFiles) {
    const content = await readFile(path.join(workspace, name), 'utf8').catch(() => undefined);
    if (content !== undefined) return { path: name, content };
  }
  return null;
}

/**
 * D1 of an attempt, parsed once and handed to its audit; null when the manifest is missing or unreadable (then the
 * audit reads it again, and fails with the error that tells the agent what is wrong).
 */
async function parseDeclared(workspace: string, language: EcosystemId): Promise<DeclaredResult | null> {
  try {
    return await ecosystem(language).extractDeclared(workspace);
  } catch {
    return null;
  }
}

async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

function backendOptions(opts: ProtocolOptions): NonNullable<ProtocolOptions['backend']> {
  if (!opts.backend) throw new UsageError('backend tasks need the API contract', 'pass --spec <openapi.yml>');
  return opts.backend;
}

function retryOptions(opts: ProtocolOptions): RetryOptions {
  return { retries: opts.infraRetries, delaySec: opts.retryDelaySec, progress: opts.progress, ...(opts.signal ? { signal: opts.signal } : {}) };
}

/**
 * Where a run starts: after its last recorded attempt when the store holds it half-done, else at the first.
 * `replace`: the run starts from scratch over attempts the store still holds, which its first write deletes.
 */
interface Resumed {
  state: RunState;
  round: number;
  lastFailure?: AttemptFailure;
  replace: boolean;
}

/**
 * Restores a half-done run from the store: its D1, first error class, and the last attempt's project tree. An
 * interrupted attempt is done again, from the attempt before it. A run redone on request (`fresh`) or set aside
 * after an infrastructure failure starts from scratch: its old attempts are abandoned.
 */
async function resume(store: ResultsStore, plan: RunPlan, status: RunStatus | undefined, workspace: string, opts: ProtocolOptions): Promise<Resumed> {
  const state: RunState = { declared: null, firstClass: null, successRound: null };
  if (plan.fresh || status === 'infrastructure-failed') return { state, round: 0, replace: status !== undefined };
  const recorded = status === 'running' ? await store.attempts(runKey(plan)) : [];
  const kept = recorded.at(-1)?.errorClass === INTERRUPTED ? recorded.slice(0, -1) : recorded;
  const last = kept.at(-1);
  if (!last) return { state, round: 0, replace: false };
  const firstAttempt = kept[0]!;
  state.declared = (await store.run(runKey(plan)))?.declared ?? null;
  state.firstClass = firstAttempt.success ? null : ((firstAttempt.errorClass as ErrorClass | null) ?? null);
  if (last.treeHash) {
    const tree = await store.tree(last.treeHash);
    await restoreTree(workspace, tree.entries, tree.blob);
  }
  opts.progress(`resuming after attempt ${last.attempt}`);
  return {
    state,
    round: last.attempt + 1,
    lastFailure: { class: (last.errorClass ?? 'code-bug') as ErrorClass, step: (last.step ?? 'run') as AttemptFailure['step'], tail: last.errorTail ?? '' },
    replace: false,
  };
}

/** What the agent is sent in round `round`: the task's prompt, or the repair prompt of the last failure. */
function attemptPrompt(plan: RunPlan, round: number, lastFailure: AttemptFailure | undefined): string {
  if (round === 0 || !lastFailure) return plan.suite.prompt(plan.task, plan.language, plan.variant);
  return plan.task.backend ? backendRepairPrompt(lastFailure) : repairPrompt(lastFailure, plan.language);
}

/**
 * The agent's turn of round `round`, retried while the agent is unavailable; a failed or late adapter is `failed`.
 * A misconfigured agent (refused credentials) is thrown: it stops the whole run.
 */
function agentTurn(plan: RunPlan, opts: ProtocolOptions, round: number, workspace: string, lastFailure: AttemptFailure | undefined, prompt: string): Promise<AgentTurnResult> {
  const taskPrompt = plan.suite.prompt(plan.task, plan.language, plan.variant);
  const timeoutMs = opts.agentTimeoutSec * 1000;
  const request = {
    taskId: plan.task.id, language: plan.language, trial: plan.trial, round, prompt, taskPrompt, workspace, error: lastFailure, timeoutMs,
    requestTimeoutMs: (opts.requestTimeoutSec ?? opts.agentTimeoutSec) * 1000,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  const turn = () =>
    withTimeout(
      plan.agent.turn(request).catch((err: unknown): AgentTurnResult => {
        if (err instanceof AgentMisconfigured) throw err;
        return { status: 'failed', reason: `the agent adapter failed: ${errorMessage(err)}` };
      }),
      timeoutMs,
      (): AgentTurnResult => ({ status: 'failed', reason: `the agent did not answer within ${opts.agentTimeoutSec} s and was stopped` }),
    );
  return retryingInfrastructure(retryOptions(opts), turn, (t) => (t.status === 'unavailable' ? t : undefined));
}

/** Execute of one attempt (the audit, or a backend task's evaluation), retried while the sandbox fails. */
function execute(plan: RunPlan, opts: ProtocolOptions, workspace: string, declared: DeclaredResult | null): Promise<ExecuteOutcome> {
  const once = (): Promise<ExecuteOutcome> =>
    plan.task.backend
      ? executeBackendAttempt(workspace, plan.task.backend, { ...backendOptions(opts), sandbox: opts.sandbox, timeoutSec: opts.runTimeoutSec, ...(opts.installTimeoutSec !== undefined ? { installTimeoutSec: opts.installTimeoutSec } : {}), progress: () => {} })
      : executeAttempt(workspace, {
          language: plan.language,
          sandbox: opts.sandbox,
          environment: opts.environment,
          tracer: opts.tracer,
          timeoutSec: opts.runTimeoutSec,
          ...(opts.installTimeoutSec !== undefined ? { installTimeoutSec: opts.installTimeoutSec } : {}),
          ...(opts.tracedView ? { tracedView: opts.tracedView } : {}),
          ...(declared ? { declared } : {}),
          progress: () => {},
        });
  return retryingInfrastructure(retryOptions(opts), once, (o) => (!o.success && o.failure.class === 'infrastructure' ? { cause: firstLine(o.failure.tail) } : undefined));
}

/** The first line of a text, cut to a length a progress line can carry. */
function firstLine(text: string, max = 80): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** An attempt as the store keeps it; the fields of an attempt that never got its tree or outcome are null. */
function attemptRecord(round: number, started: Date, opts: ProtocolOptions, fields: Partial<AttemptRecord>): AttemptRecord {
  return {
    attempt: round,
    treeHash: null,
    manifestPath: null,
    manifest: null,
    success: false,
    errorClass: null,
    errorTail: null,
    step: null,
    note: null,
    startedAt: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
    tokensIn: null,
    tokensOut: null,
    costUsd: null,
    sandbox: opts.sandbox,
    ...fields,
  };
}

/** What the agent was sent and what it said, bounded, for its attempt's record. */
function transcriptFields(prompt: string, turn: AgentTurnResult | undefined): Pick<AttemptRecord, 'prompt' | 'agentOutput' | 'agentStderr'> {
  const transcript = turn && (turn.status === 'ok' || turn.status === 'failed') ? turn.transcript : undefined;
  return { prompt: boundedTranscript(prompt), agentOutput: boundedTranscript(transcript?.output), agentStderr: boundedTranscript(transcript?.stderr) };
}

/**
 * One run of the protocol: Gen, Execute, then Repair up to k rounds, stopping at the first success. Every
 * attempt is written to the store as soon as it ends; a run found half-done in the store resumes after its
 * last recorded attempt, from that attempt's project tree. A run stopped during an attempt (`signal`) records
 * that attempt as interrupted.
 */
export async function runProtocol(plan: RunPlan, store: ResultsStore, opts: ProtocolOptions): Promise<RunOutcome> {
  const key = runKey(plan);
  const status = await store.runStatus(key);
  if (status === 'done' && !plan.fresh) return 'skipped';
  const dir = await mkdtemp(path.join(opts.workRoot ?? os.tmpdir(), 'envproof-run-'));
  const workspace = path.join(dir, 'workspace');
  await mkdir(workspace);
  try {
    const resumed = await resume(store, plan, status, workspace, opts);
    const { state } = resumed;
    let lastFailure = resumed.lastFailure;
    // The first write of a run started from scratch replaces the attempts the store still holds, in its transaction.
    let replace = resumed.replace;
    const put = async (run: StoredRun, attempts: AttemptRecord[] = [], evaluations: Parameters<ResultsStore['putRun']>[2] = []) => {
      await store.putRun(run, attempts, evaluations, { replaceAttempts: replace });
      replace = false;
    };
    const setAside = async (reason: string): Promise<RunOutcome> => {
      await put(runRecord(plan, state, 'infrastructure-failed', reason));
      return 'infrastructure-failed';
    };
    const interrupted = async (round: number, started: Date, step: string, prompt: string, turn?: AgentTurnResult): Promise<RunOutcome> => {
      const during = step === 'agent' ? "the agent's turn" : 'the execution of the project';
      const record = attemptRecord(round, started, opts, { errorClass: INTERRUPTED, step, errorTail: `stopped during ${during}; done again when the run resumes`, ...transcriptFields(prompt, turn) });
      await put(runRecord(plan, state, 'running'), [record]);
      return 'interrupted';
    };
    for (let round = resumed.round; round <= opts.repairs; round++) {
      if (opts.shouldStop?.() || opts.signal?.aborted) return 'interrupted';
      const started = new Date();
      opts.progress(round === 0 ? 'generating' : `repair round ${round}`);

      const agentStarted = performance.now();
      const prompt = attemptPrompt(plan, round, lastFailure);
      const turn = await agentTurn(plan, opts, round, workspace, lastFailure, prompt);
      if (opts.signal?.aborted) return interrupted(round, started, 'agent', prompt, turn);
      if (turn.status === 'unavailable') return setAside(turn.reason);
      if (turn.status === 'gave-up') {
        if (round === 0) return 'no-attempt';
        break;
      }

      const phases: Record<string, number> = { agent: Math.round(performance.now() - agentStarted) };
      let own = performance.now();
      const snapshot = await snapshotTree(workspace);
      await store.putTree(snapshot);
      const declared = await parseDeclared(workspace, plan.language);
      const manifest = await manifestOf(workspace, plan.language);
      const usage: Usage | undefined = turn.usage;
      let ownMs = performance.now() - own;

      let outcome: ExecuteOutcome | undefined;
      let failure: AttemptFailure | undefined;
      if (turn.status === 'failed') {
        failure = { class: 'agent-error', step: 'entry', tail: turn.reason };
      } else {
        opts.progress(`executing attempt ${round}`);
        // Stopping kills the commands of the execution: whatever that makes of it (a failure, an error) is not its outcome.
        outcome = await execute(plan, opts, workspace, declared).catch((err: unknown) => {
          if (opts.signal?.aborted) return undefined;
          throw err;
        });
        if (!outcome || opts.signal?.aborted) return interrupted(round, started, 'execute', prompt, turn);
        failure = outcome.success ? undefined : outcome.failure;
        if (failure?.class === 'infrastructure') return setAside(failure.tail);
      }
      if (round === 0) state.declared = declared && declared.declared.map((d) => d.name);
      const report = outcome?.report;
      if (report) Object.assign(phases, report.phasesMs);
      // The audit read M(0) for the environment's own interpreter (markers): the better D1 when it got that far.
      if (round === 0 && report) state.declared = report.layers.declared.map((d) => d.name);
      own = performance.now();
      if (round === 0) state.firstClass = failure?.class ?? null;
      if (!failure) {
        state.successRound = round;
        state.final = report;
      }
      const record = attemptRecord(round, started, opts, {
        treeHash: snapshot.hash,
        manifestPath: manifest?.path ?? null,
        manifest: manifest?.content ?? null,
        success: !failure,
        errorClass: failure?.class ?? null,
        errorTail: failure?.tail ?? null,
        step: failure?.step ?? null,
        note: turn.status === 'ok' ? (turn.note ?? null) : turn.reason,
        tokensIn: usage?.inputTokens ?? null,
        tokensOut: usage?.outputTokens ?? null,
        costUsd: usage?.costUsd ?? null,
        phasesMs: phases,
        sandbox: sandboxLabel(outcome?.sandbox ?? opts.sandbox, report),
        ...transcriptFields(prompt, turn),
        programOutput: report?.run.started ? boundedTranscript(report.run.outputTail) : null,
      });
      ownMs += performance.now() - own;
      phases.envproof = Math.round(ownMs);
      opts.progress(failure ? `attempt ${round} failed (${failure.class})` : `attempt ${round} succeeded`);
      // The attempt and its evaluation in one transaction: a run resumed after it never lacks the evaluation.
      const evaluations = outcome?.evaluation && plan.task.backend ? [evaluationRecord(round, plan.task.backend, outcome.evaluation)] : [];
      await put(runRecord(plan, state, failure ? 'running' : 'done'), [record], evaluations);
      if (!failure) return 'succeeded';
      lastFailure = failure;
    }
    await put(runRecord(plan, state, 'done'));
    return 'failed';
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
