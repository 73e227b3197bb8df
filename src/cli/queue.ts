import type { Command } from 'commander';
import { drainQueue, queueStatus, retryDeadLetters, withQueue } from '../queue/client.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN, EXIT_FINDINGS } from './exit-codes.js';

export function registerQueue(program: Command, setExitCode: SetExitCode): void {
  const queue = program.command('queue').description('Inspect and manage the job queue of envproof run --queue and envproof worker');
  queue
    .command('status')
    .description('Jobs waiting, running, delayed (an infrastructure retry), completed and failed, and the failed ones (dead letters) with why')
    .requiredOption('--queue <url>', 'the Redis job queue, redis://host:port')
    .option('--json', 'print the status as JSON')
    .addHelpText('after', '\nExit codes: 0 no dead letters, 1 some jobs are dead-lettered, 2 error.')
    .action(async (o: { queue: string; json?: boolean }) => {
      const status = await withQueue(o.queue, queueStatus);
      if (o.json) process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      else {
        const c = status.counts;
        process.stdout.write(`${c.waiting} waiting, ${c.active} running, ${c.delayed} delayed, ${c.completed} completed, ${c.failed} dead-lettered\n`);
        for (const d of status.deadLetters) process.stdout.write(`dead letter ${d.name} (${d.deliveries} deliveries, ${d.failedAt ?? 'time unknown'}): ${d.reason}\n`);
      }
      setExitCode(status.deadLetters.length > 0 ? EXIT_FINDINGS : EXIT_CLEAN);
    });
  queue
    .command('retry')
    .description('Put the dead-lettered jobs back in the queue (after fixing what failed)')
    .requiredOption('--queue <url>', 'the Redis job queue, redis://host:port')
    .action(async (o: { queue: string }) => {
      const n = await withQueue(o.queue, retryDeadLetters);
      process.stdout.write(`${n} dead-lettered jobs back in the queue\n`);
      setExitCode(EXIT_CLEAN);
    });
  queue
    .command('drain')
    .description('Remove the jobs not started yet; with --all every job, so that the same runs can be enqueued again')
    .requiredOption('--queue <url>', 'the Redis job queue, redis://host:port')
    .option('--all', 'also remove running, completed and dead-lettered jobs (runs done in the store are still skipped)')
    .action(async (o: { queue: string; all?: boolean }) => {
      const n = await withQueue(o.queue, (q) => drainQueue(q, o.all === true));
      process.stdout.write(`removed ${n} jobs\n`);
      setExitCode(EXIT_CLEAN);
    });
}
