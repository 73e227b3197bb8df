/**
 * `envproof worker`: takes jobs from the queue and dispatches them by kind. A run job runs with the protocol,
 * recording attempt by attempt in the store; a repro job reproduces one corpus instance into the store's repro
 * tables; an evaluate job evaluates a backend and returns the evaluation. Delivery is at least once (BullMQ);
 * recording is exactly once because the store is keyed by run and by instance: a redelivered job finds its run
 * `done` (skipped) or `running` (resumed after its last recorded attempt), its instance `done` (skipped) or
 * `running` (started over, as `repro --corpus` does).
 */
import { UnrecoverableError, Worker, WaitingError, type Job } from 'bullmq';
import { AgentMisconfigured } from '../agents/misconfigured.js';
import { errorMessage } from '../core/errors.js';
import { runProtocol, type RunOutcome } from '../protocol/run-one.js';
import { reproduceInstance } from '../repro/corpus.js';
import { evaluateBackend } from '../verify/evaluate.js';
import { prepareEnvironment, resolveBackend } from '../sandbox/index.js';
import type { SandboxBackend } from '../sandbox/types.js';
import type { ResultsStore } from '../store/store.js';
import { jobLabel, PlanBuilder, resultLabel, type EvaluateJob, type JobResult, type QueueJob, type ReproJob, type ReproJobResult, type RunJob } from './jobs.js';
import { QUEUE_NAME, redisConnection } from './redis.js';

export interface WorkerOptions {
  queueUrl: string;
  store: ResultsStore;
  concurrency: number;
  /** Seconds without a lock renewal after which a job counts as stalled (its worker died) and is handed out again. */
  lockSec: number;
  workRoot?: string;
  log(message: string): void;
}

/** Thrown for a run set aside after infrastructure failures: the queue retries it, then dead-letters it. */
class InfrastructureFailure extends Error {}

export interface RunningWorker {
  /** Stops taking jobs; runs in progress stop after their current attempt and go back to the queue. */
  stop(): Promise<void>;
  /** Settles when the worker has stopped. */
  stopped: Promise<void>;
  /** How many jobs are in progress. */
  active(): number;
}

export function startWorker(opts: WorkerOptions): RunningWorker {
  const plans = new PlanBuilder();
  const environments = new Map<string, Promise<void>>();
  let stopping = false;

  const prepare = (backend: SandboxBackend, job: RunJob): Promise<void> => {
    const key = JSON.stringify([backend, job.language, job.protocol.environment]);
    let ready = environments.get(key);
    if (!ready) {
      ready = prepareEnvironment(backend, job.language, job.protocol.environment, opts.log);
      environments.set(key, ready);
      ready.catch(() => environments.delete(key)); // tried again by the next job
    }
    return ready;
  };

  const processRun = async (job: Job<QueueJob>, data: RunJob, token?: string): Promise<RunOutcome> => {
    const plan = plans.plan(data);
    const { backend } = resolveBackend(data.protocol.sandbox);
    await prepare(backend, data);
    // The store holding a run holds its task, whichever machine enqueued it.
    const { id, title, domain, complexity } = plan.task;
    await opts.store.replaceRuns([], { source: 'envproof', tasks: [{ id, title, domain, complexity }] });
    const outcome = await runProtocol(plan, opts.store, {
      ...data.protocol,
      sandbox: backend,
      ...(opts.workRoot ? { workRoot: opts.workRoot } : {}),
      progress: (phase) => void job.updateProgress({ phase }).catch(() => {}),
      shouldStop: () => stopping,
    }).catch((err: unknown) => {
      // Refused credentials do not get better by delivering the job again: it fails for good, with the message and hint.
      if (err instanceof AgentMisconfigured) throw new UnrecoverableError(`${err.message}${err.hint ? ` (${err.hint})` : ''}`);
      throw err;
    });
    if (outcome === 'interrupted') {
      // Handed back at once, not counted as an attempt of the job: the next worker resumes the run.
      await job.moveToWait(token);
      throw new WaitingError();
    }
    if (outcome === 'infrastructure-failed') {
      throw new InfrastructureFailure(`${jobLabel(data)}: set aside after infrastructure failures (sandbox, registry or model API)`);
    }
    return outcome;
  };

  // Runs to the end once started: a repro instance or an evaluation has no attempts to stop between.
  const processRepro = async (data: ReproJob): Promise<ReproJobResult> => {
    const { instance, options } = data;
    const log = (m: string) => opts.log(`${jobLabel(data)}: ${m}`);
    const skipped = !(await reproduceInstance({ ...instance, recordedAt: new Date(instance.recordedAt) }, { ...options, store: opts.store, name: data.corpus, progress: log }));
    const row = await opts.store.repro().instance(data.corpus, instance.id);
    return { skipped, verdict: row?.verdict ?? null, shimVerdict: row?.shimVerdict ?? null, baselineVerdict: row?.baselineVerdict ?? null };
  };

  const processEvaluate = (data: EvaluateJob) => evaluateBackend({ ...data.options, progress: () => {} });

  let active = 0;
  const processJob = async (job: Job<QueueJob>, token?: string): Promise<JobResult> => {
    active++;
    try {
      return await processKind(job, token);
    } finally {
      active--;
    }
  };

  const processKind = (job: Job<QueueJob>, token?: string): Promise<JobResult> => {
    const data = job.data;
    switch (data.kind) {
      case 'run':
        return processRun(job, data, token);
      case 'repro':
        return processRepro(data);
      case 'evaluate':
        return processEvaluate(data);
    }
  };

  const connection = redisConnection(opts.queueUrl);
  const worker = new Worker<QueueJob, JobResult>(QUEUE_NAME, processJob, {
    connection,
    concurrency: opts.concurrency,
    lockDuration: opts.lockSec * 1000,
    stalledInterval: opts.lockSec * 1000,
    // A job whose workers keep dying is not retried for ever.
    maxStalledCount: 5,
  });
  let lastError = '';
  worker.on('error', (err) => {
    const message = errorMessage(err);
    if (message !== lastError) opts.log(`queue: ${message}`);
    lastError = message;
  });
  worker.on('ready', () => {
    if (lastError) opts.log('queue: connected again');
    lastError = '';
  });
  worker.on('active', (job) => opts.log(`${jobLabel(job.data)}: started`));
  worker.on('completed', (job, result) => opts.log(`${jobLabel(job.data)}: ${resultLabel(job.data, result)}`));
  worker.on('failed', (job, err) => {
    if (job && !(err instanceof WaitingError)) opts.log(`${jobLabel(job.data)}: failed (delivery ${job.attemptsMade} of ${job.opts.attempts ?? 1}): ${err.message}`);
  });

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  return {
    stopped,
    active: () => active,
    stop: async () => {
      if (stopping) return stopped;
      stopping = true;
      await worker.close();
      connection.disconnect(); // BullMQ leaves a connection it was given open
      resolveStopped();
    },
  };
}
