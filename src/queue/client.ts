/**
 * The producer's and the operator's side of the queue: enqueue runs, wait for them, and `queue status|retry|drain`.
 */
import { Queue, type Job } from 'bullmq';
import { emptyCounts, type MatrixSummary } from '../protocol/matrix.js';
import type { RunOutcome } from '../protocol/run-one.js';
import { jobIdOf, jobLabel, jobOptions, type JobResult, type JobResults, type QueueJob, type RunJob } from './jobs.js';
import { checkRedis, QUEUE_NAME, redisConnection } from './redis.js';

export type JobQueue = Queue<QueueJob, JobResult>;

/** Runs `work` on the queue at `url` (checked reachable first), then closes the queue and its connection. */
export async function withQueue<T>(url: string, work: (queue: JobQueue) => Promise<T>): Promise<T> {
  await checkRedis(url);
  const connection = redisConnection(url);
  const queue: JobQueue = new Queue(QUEUE_NAME, { connection });
  try {
    return await work(queue);
  } finally {
    await queue.close();
    // BullMQ leaves a connection it was given open.
    connection.disconnect();
  }
}

/**
 * Adds the jobs; those already queued or ended are left as they are. Returns how many were new, and the ids of
 * those that had already completed.
 */
export async function enqueueJobs(queue: JobQueue, jobs: readonly QueueJob[]): Promise<{ added: number; completed: Set<string> }> {
  const ids = jobs.map(jobIdOf);
  const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
  await queue.addBulk(jobs.map((j) => ({ name: jobLabel(j), data: j, opts: jobOptions(j) })));
  return { added: states.filter((s) => s === 'unknown').length, completed: new Set(ids.filter((_, i) => states[i] === 'completed')) };
}

/** A job that ended: completed with its result, or failed for good (dead-lettered) with the reason. */
export type JobEnd<J extends QueueJob> = { job: J; done: number; total: number } & (
  | { result: JobResults[J['kind']]; alreadyDone: boolean }
  | { reason: string }
);

/**
 * Waits until every job has ended, across all workers: completed (its result; `alreadyDone` when it had completed
 * before it was enqueued again) or failed for good (dead-lettered).
 */
export async function waitForJobs<J extends QueueJob>(
  queue: JobQueue,
  jobs: readonly J[],
  opts: { alreadyDone: ReadonlySet<string>; pollMs: number; onEnd(e: JobEnd<J>): void },
): Promise<void> {
  const pending = new Map(jobs.map((j) => [jobIdOf(j), j]));
  let done = 0;
  const total = jobs.length;
  while (pending.size > 0) {
    const ids = [...pending.keys()];
    const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
    for (const [i, state] of states.entries()) {
      if (state !== 'completed' && state !== 'failed') continue;
      const id = ids[i]!;
      const job = pending.get(id)!;
      pending.delete(id);
      const found: Job<QueueJob, JobResult> | undefined = await queue.getJob(id);
      done++;
      if (state === 'completed') opts.onEnd({ job, done, total, result: found?.returnvalue as JobResults[J['kind']], alreadyDone: opts.alreadyDone.has(id) });
      else opts.onEnd({ job, done, total, reason: found?.failedReason ?? 'failed' });
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, opts.pollMs));
  }
}

/**
 * Waits for run jobs and counts their outcomes: runs already completed before they were enqueued again count as
 * `skipped` (their run was done), dead-lettered ones as set aside after infrastructure failures.
 */
export async function waitForRuns(
  queue: JobQueue,
  jobs: readonly RunJob[],
  opts: { alreadyDone: ReadonlySet<string>; pollMs: number; onEnd(e: JobEnd<RunJob>, outcome: RunOutcome): void },
): Promise<MatrixSummary> {
  const started = Date.now();
  const counts = emptyCounts();
  await waitForJobs(queue, jobs, {
    ...opts,
    onEnd: (e) => {
      const outcome = 'reason' in e ? 'infrastructure-failed' : e.alreadyDone ? 'skipped' : e.result;
      counts[outcome]++;
      opts.onEnd(e, outcome);
    },
  });
  return { total: jobs.length, counts, durationMs: Date.now() - started };
}

export interface DeadLetter {
  id: string;
  name: string;
  deliveries: number;
  reason: string;
  failedAt: string | null;
}

export interface QueueStatus {
  counts: { waiting: number; active: number; delayed: number; completed: number; failed: number };
  deadLetters: DeadLetter[];
}

export async function queueStatus(queue: JobQueue): Promise<QueueStatus> {
  const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
  const failed = await queue.getFailed(0, -1);
  return {
    counts: { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0, delayed: c.delayed ?? 0, completed: c.completed ?? 0, failed: c.failed ?? 0 },
    deadLetters: failed.map((j) => ({
      id: j.id ?? '',
      name: j.name,
      deliveries: j.attemptsMade,
      reason: j.failedReason,
      failedAt: j.finishedOn ? new Date(j.finishedOn).toISOString() : null,
    })),
  };
}

/** Puts every dead-lettered job back in the queue; returns how many. */
export async function retryDeadLetters(queue: JobQueue): Promise<number> {
  const n = await queue.getFailedCount();
  await queue.retryJobs({ state: 'failed' });
  return n;
}

/**
 * Removes the jobs not started yet (waiting, and delayed for a retry); with `all`, every job, ended ones too, so
 * that the same runs can be enqueued again (runs `done` in the store are still skipped by the workers).
 */
export async function drainQueue(queue: JobQueue, all: boolean): Promise<number> {
  const c = await queue.getJobCounts('waiting', 'delayed', 'prioritized', 'completed', 'failed', 'active');
  if (all) {
    await queue.obliterate({ force: true });
    return Object.values(c).reduce((a, b) => a + b, 0);
  }
  await queue.drain(true);
  return (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
}
