/**
 * The jobs of the queue, described by what a worker on any machine needs to rebuild them (specs and absolute
 * paths, not objects), told apart by `kind`: one whole run of the protocol (agent, task, language, trial), one
 * instance of a repro corpus, or one evaluation of a backend. A job's id is derived from what identifies its result
 * (a run's or an instance's key in the store, an evaluation's inputs), so enqueuing the same work twice adds one
 * job (BullMQ ignores an id it already holds).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { JobsOptions } from 'bullmq';
import { agentFromSpec } from '../agents/spec.js';
import { EnvproofError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import type { ProtocolOptions, RunOutcome, RunPlan } from '../protocol/run-one.js';
import type { CorpusInstance, InstanceOptions } from '../repro/corpus.js';
import type { Verdict } from '../repro/types.js';
import type { Evaluation, EvaluationOptions } from '../verify/evaluate.js';
import type { BackendChoice, EnvironmentChoice } from '../sandbox/index.js';
import type { RunKey } from '../store/types.js';
import { resolveSuite } from '../tasks/resolve.js';
import type { PromptVariant, TaskSuite } from '../tasks/types.js';

/**
 * The protocol's options a job carries (the sandbox as chosen: `auto` is resolved on the worker's machine; a
 * backend task's contract and collection as absolute paths).
 */
export type JobProtocolOptions = Pick<ProtocolOptions, 'repairs' | 'runTimeoutSec' | 'installTimeoutSec' | 'agentTimeoutSec' | 'requestTimeoutSec' | 'tracedView' | 'infraRetries' | 'retryDelaySec' | 'tracer' | 'backend'> & {
  sandbox: BackendChoice;
  environment: EnvironmentChoice;
};

export interface RunJob {
  kind: 'run';
  /** The agent's spec as `--agent` takes it, file paths made absolute. */
  agent: string;
  /** Its name: the run's key in the store. */
  agentName: string;
  suite: string;
  taskId: string;
  language: EcosystemId;
  trial: number;
  variant: PromptVariant;
  protocol: JobProtocolOptions;
}

export function runKeyOf(job: RunJob): RunKey {
  return { source: 'envproof', agent: job.agentName, language: job.language, taskId: job.taskId, trial: job.trial };
}

/** One instance of a corpus file (`envproof repro --corpus --queue`), recorded in the store's repro tables. */
export interface ReproJob {
  kind: 'repro';
  /** The corpus's name in the store: its file's absolute path. */
  corpus: string;
  /** The instance as read from its line, paths absolute, `recordedAt` in ISO 8601. */
  instance: Omit<CorpusInstance, 'recordedAt'> & { recordedAt: string };
  options: Omit<InstanceOptions, 'progress'>;
}

/** One evaluation of a backend (`envproof evaluate --queue`): its result is the job's return value. */
export interface EvaluateJob {
  kind: 'evaluate';
  /** `evaluate`'s options, paths absolute. */
  options: Omit<EvaluationOptions, 'progress'>;
  /** The hash of the project's files (as the store hashes a tree): a changed project is a new job. */
  treeHash: string;
}

export type QueueJob = RunJob | ReproJob | EvaluateJob;

/** What a repro job returns: the instance's verdicts, as recorded (`skipped`: it was already done in the store). */
export interface ReproJobResult {
  skipped: boolean;
  verdict: Verdict | null;
  shimVerdict: Verdict | null;
  baselineVerdict: Verdict | null;
}

/** What each kind of job returns (BullMQ keeps it with the completed job). */
export interface JobResults {
  run: RunOutcome;
  repro: ReproJobResult;
  evaluate: Evaluation;
}

export type JobResult = JobResults[QueueJob['kind']];

const digest = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);

/** The job id: a hash of what identifies the job's result (BullMQ ids may not contain ":"; agent names and task ids may). */
export function jobIdOf(job: QueueJob): string {
  switch (job.kind) {
    case 'run': {
      const key = runKeyOf(job);
      return `run-${digest([key.source, key.agent, key.language, key.taskId, key.trial])}`;
    }
    case 'repro':
      return `repro-${digest([job.corpus, job.instance.id])}`;
    case 'evaluate':
      return `evaluate-${digest([job.options, job.treeHash])}`;
  }
}

/** A readable name for `queue status` and progress lines. */
export function jobLabel(job: QueueJob): string {
  switch (job.kind) {
    case 'run':
      return `${job.agentName} ${job.taskId} ${job.language} #${job.trial}`;
    case 'repro':
      return `repro ${path.basename(job.corpus)} ${job.instance.id}`;
    case 'evaluate':
      return `evaluate ${job.options.dir}`;
  }
}

/** A job's result in a progress line. */
export function resultLabel(job: QueueJob, result: JobResult): string {
  if (job.kind === 'run') return result as RunOutcome;
  if (job.kind === 'repro') {
    const r = result as ReproJobResult;
    return `${r.skipped ? 'already done, ' : ''}${r.verdict} (with the shim ${r.shimVerdict}, baseline ${r.baselineVerdict})`;
  }
  const e = result as Evaluation;
  return e.passed ? 'passed' : `failed (${e.failureClass})`;
}

/**
 * Retries of a repro or evaluate job that failed with an error (a sandbox that could not start, a lost store), and
 * the first wait between them (doubling). A run's come from its `--retries` and `--retry-delay`.
 */
const OTHER_JOB_RETRIES = 2;
const OTHER_JOB_RETRY_DELAY_SEC = 30;

/**
 * Infrastructure failures are retried by the queue too, by any worker, waiting `retryDelaySec` doubling; a job
 * that still fails ends in the failed list, the queue's dead letters. Ended jobs are kept: their ids make
 * enqueuing idempotent.
 */
export function jobOptions(job: QueueJob): JobsOptions {
  const [retries, delaySec] = job.kind === 'run' ? [job.protocol.infraRetries, job.protocol.retryDelaySec] : [OTHER_JOB_RETRIES, OTHER_JOB_RETRY_DELAY_SEC];
  return {
    jobId: jobIdOf(job),
    attempts: retries + 1,
    backoff: { type: 'exponential', delay: delaySec * 1000 },
    removeOnComplete: false,
    removeOnFail: false,
  };
}

const PATH_AGENTS = /^((?:[A-Za-z0-9_.-]+@)?(?:scripted|replay):)(.+)$/;

/** The agent spec with its script or recordings path made absolute, for workers started in other folders. */
export function absoluteAgentSpec(spec: string): string {
  const m = PATH_AGENTS.exec(spec);
  return m ? `${m[1]}${path.resolve(m[2]!)}` : spec;
}

/** The suite spec with its file or folder made absolute. */
export function absoluteSuiteSpec(spec: string): string {
  if (spec === 'bundled' || spec === 'backend') return spec;
  const prefix = 'envgap-prompts:';
  return spec.startsWith(prefix) ? `${prefix}${path.resolve(spec.slice(prefix.length))}` : path.resolve(spec);
}

/** Rebuilds runs from jobs, loading each suite and agent once. */
export class PlanBuilder {
  private readonly suites = new Map<string, TaskSuite>();
  private readonly agents = new Map<string, ReturnType<typeof agentFromSpec>>();

  plan(job: RunJob): RunPlan {
    // The backend suite's prompts carry its contract.
    const contract = job.protocol.backend?.spec;
    const suiteKey = JSON.stringify([job.suite, contract]);
    let suite = this.suites.get(suiteKey);
    if (!suite) this.suites.set(suiteKey, (suite = resolveSuite(job.suite, { contract })));
    let agent = this.agents.get(job.agent);
    if (!agent) this.agents.set(job.agent, (agent = agentFromSpec(job.agent)));
    const task = suite.tasks.find((t) => t.id === job.taskId);
    if (!task) throw new EnvproofError(`the suite ${job.suite} has no task ${job.taskId}`);
    return { agent, suite, task, language: job.language, trial: job.trial, variant: job.variant };
  }
}
