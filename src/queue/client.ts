/**
 * The producer's and the operator's side of the queue: enqueue runs, wait for them, and `queue status|retry|drain`.
 */
import { Queue, type Job } from 'bullmq';
import { emptyCounts, type MatrixSummary } from '../protocol/matrix.js';
import type { RunOutcome } from '../protocol/run-one.js';
import { jobIdOf, jobLabel, jobOptions, type RunJob } from './jobs.js';
import { checkRedis, QUEUE_NAME, redisConnection } from './redis.js';

export type RunQueue = Queue<RunJob, RunOutcome>;

/** Runs `work` on the queue at `url` (checked reachable first), then closes the queue and its connection. */
export async function withQueue<T>(url: string, work: (queue: RunQueue) => Promise<T>): Promise<T> {
  await checkRedis(url);
  const connection = redisConnection(url);
  const queue: RunQueue = new Queue(QUEUE_NAME, { connection });
  try {
    return await work(queue);
  } finally {
    await queue.close();
    // BullMQ leaves a connection it was given open.
    connection.disconnect();
  }
}

/**
 * Adds the jobs; those whose run is already queued or ended are left as they are. Returns how many were new, and
 * the ids of those that had already completed.
 */
export async function enqueueRuns(queue: RunQueue, jobs: readonly RunJob[]): Promise<{ added: number; completed: Set<string> }> {
  const ids = jobs.map(jobIdOf);
  const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
  await queue.addBulk(jobs.map((j) => ({ name: jobLabel(j), data: j, opts: jobOptions(j) })));
  return { added: states.filter((s) => s === 'unknown').length, completed: new Set(ids.filter((_, i) => states[i] === 'completed')) };
}

export interface JobEnd {
  job: RunJob;
  outcome: RunOutcome;
  /** Why a dead-lettered job failed. */
  reason?: string;
  done: number;
  total: number;
}

/**
 * Waits until every job has ended, across all workers: completed (its outcome) or failed for good (dead-lettered,
 * counted as set aside after infrastructure failures). Jobs already completed before they were enqueued again
 * count as `skipped` (their run was done).
 */
export async function waitForJobs(
  queue: RunQueue,
  jobs: readonly RunJob[],
  opts: { alreadyDone: ReadonlySet<string>; pollMs: number; onEnd(e: JobEnd): void },
): Promise<MatrixSummary> {
  const started = Date.now();
  const counts = emptyCounts();
  const pending = new Map(jobs.map((j) => [jobIdOf(j), j]));
  let done = 0;
  const end = (job: RunJob, outcome: RunOutcome, reason?: string) => {
    counts[outcome]++;
    done++;
    opts.onEnd({ job, outcome, done, total: jobs.length, ...(reason ? { reason } : {}) });
  };
  for (const [id, job] of pending) {
    if (opts.alreadyDone.has(id)) {
      pending.delete(id);
      end(job, 'skipped');
    }
  }
  while (pending.size > 0) {
    const ids = [...pending.keys()];
    const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
    for (const [i, state] of states.entries()) {
      if (state !== 'completed' && state !== 'failed') continue;
      const id = ids[i]!;
      const job = pending.get(id)!;
      pending.delete(id);
      const found: Job<RunJob, RunOutcome> | undefined = await queue.getJob(id);
      if (state === 'completed') end(job, found?.returnvalue ?? 'succeeded');
      else end(job, 'infrastructure-failed', found?.failedReason);
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, opts.pollMs));
  }
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

export async function queueStatus(queue: RunQueue): Promise<QueueStatus> {
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
export async function retryDeadLetters(queue: RunQueue): Promise<number> {
  const n = await queue.getFailedCount();
  await queue.retryJobs({ state: 'failed' });
  return n;
}

/**
 * Removes the jobs not started yet (waiting, and delayed for a retry); with `all`, every job, ended ones too, so
 * that the same runs can be enqueued again (runs `done` in the store are still skipped by the workers).
 */
export async function drainQueue(queue: RunQueue, all: boolean): Promise<number> {
  const c = await queue.getJobCounts('waiting', 'delayed', 'prioritized', 'completed', 'failed', 'active');
  if (all) {
    await queue.obliterate({ force: true });
    return Object.values(c).reduce((a, b) => a + b, 0);
  }
  await queue.drain(true);
  return (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
}
