/** What the commands that can put their work on the job queue share: the options, the checks, enqueue and wait. */
import type { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import { enqueueJobs, withQueue, type JobQueue } from '../queue/client.js';
import type { QueueJob } from '../queue/jobs.js';
import { redactUrl } from '../store/postgres-db.js';
import { EXIT_CLEAN } from './exit-codes.js';
import { positiveNumber } from './number-options.js';

export interface QueueFlags {
  queue?: string;
  wait?: boolean;
  pollInterval: number;
}

/** `--queue`, `--wait`, `--poll-interval`; `what` names the jobs (`one job per run`). */
export function addQueueOptions(command: Command, what: string): Command {
  return command
    .option('--queue <url>', `enqueue ${what} on this Redis queue (redis://host:port) for envproof worker, instead of running here`)
    .option('--wait', 'with --queue: show the jobs ending across all workers and wait for the last')
    .option('--poll-interval <seconds>', 'with --wait: how often the queue is asked about the jobs not ended yet', positiveNumber('--poll-interval'), 0.5);
}

/** `--wait` and `--poll-interval` only with what they belong to; `workers'` options (`store`, …) refused with `--queue`. */
export function checkQueueFlags(o: QueueFlags, command: Command, workers: readonly string[]): void {
  if (command.getOptionValueSource('pollInterval') === 'cli' && !o.wait) throw new UsageError('--poll-interval needs --queue --wait');
  if (o.wait && !o.queue) throw new UsageError('--wait needs --queue');
  if (!o.queue) return;
  for (const option of workers) {
    if (command.getOptionValueSource(option) === 'cli') throw new UsageError(`--${option} is the workers' with --queue`, 'pass it to envproof worker');
  }
}

/**
 * Enqueues the jobs (saying how many were new) and, with `--wait`, hands the queue to `follow`, which waits for
 * them and returns the exit code; without it, exit 0.
 */
export async function enqueueThen(
  o: QueueFlags & { queue: string; json: boolean; quiet: boolean },
  jobs: readonly QueueJob[],
  follow: (queue: JobQueue, ended: { completed: ReadonlySet<string>; where: string }) => Promise<number>,
): Promise<number> {
  const where = redactUrl(o.queue);
  return withQueue(o.queue, async (queue) => {
    const { added, completed } = await enqueueJobs(queue, jobs);
    if (!o.quiet) process.stderr.write(`envproof: enqueued ${added} jobs on ${where} (${jobs.length - added} were already there)\n`);
    if (!o.wait) {
      if (o.json) process.stdout.write(`${JSON.stringify({ queue: where, total: jobs.length, added }, null, 2)}\n`);
      return EXIT_CLEAN;
    }
    return follow(queue, { completed, where });
  });
}
