/**
 * A job of the queue: one whole run of the protocol (agent, task, language, trial), described by what a worker on
 * any machine needs to rebuild it (specs, not objects). Its id is derived from the run's key in the store, so
 * enqueuing the same run twice adds one job (BullMQ ignores an id it already holds).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { JobsOptions } from 'bullmq';
import { agentFromSpec } from '../agents/spec.js';
import { EnvproofError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import type { ProtocolOptions, RunPlan } from '../protocol/run-one.js';
import type { BackendChoice, EnvironmentChoice } from '../sandbox/index.js';
import type { RunKey } from '../store/types.js';
import { resolveSuite } from '../tasks/resolve.js';
import type { PromptVariant, TaskSuite } from '../tasks/types.js';

/**
 * The protocol's options a job carries (the sandbox as chosen: `auto` is resolved on the worker's machine; a
 * backend task's contract and collection as absolute paths).
 */
export type JobProtocolOptions = Pick<ProtocolOptions, 'repairs' | 'runTimeoutSec' | 'agentTimeoutSec' | 'tracedView' | 'infraRetries' | 'retryDelaySec' | 'tracer' | 'backend'> & {
  sandbox: BackendChoice;
  environment: EnvironmentChoice;
};

export interface RunJob {
  /** Room for other kinds of evaluation on the same queue. */
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

/** The job id of a run: a hash of its key (BullMQ ids may not contain ":"; agent names and task ids may). */
export function jobIdOf(job: RunJob): string {
  const key = runKeyOf(job);
  return `run-${createHash('sha256').update(JSON.stringify([key.source, key.agent, key.language, key.taskId, key.trial])).digest('hex').slice(0, 32)}`;
}

/** A readable name for `queue status` and progress lines. */
export function jobLabel(job: RunJob): string {
  return `${job.agentName} ${job.taskId} ${job.language} #${job.trial}`;
}

/**
 * Infrastructure failures are retried by the queue too, by any worker, waiting `retryDelaySec` doubling; a job
 * that still fails ends in the failed list, the queue's dead letters. Ended jobs are kept: their ids make
 * enqueuing idempotent.
 */
export function jobOptions(job: RunJob): JobsOptions {
  return {
    jobId: jobIdOf(job),
    attempts: job.protocol.infraRetries + 1,
    backoff: { type: 'exponential', delay: job.protocol.retryDelaySec * 1000 },
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
