import type { Command } from 'commander';
import { startWorker } from '../queue/worker.js';
import { checkRedis } from '../queue/redis.js';
import { redactUrl } from '../store/postgres-db.js';
import { ResultsStore, STORE_OPTION_HELP } from '../store/store.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN, EXIT_ERROR } from './exit-codes.js';
import { positiveInt } from './number-options.js';

export function registerWorker(program: Command, setExitCode: SetExitCode): void {
  program
    .command('worker')
    .description('Take run jobs from the queue (envproof run --queue) and run them, recording every attempt in the store; on any number of machines')
    .requiredOption('--queue <url>', 'the Redis job queue, redis://host:port')
    .requiredOption('--store <path|url>', STORE_OPTION_HELP)
    .option('--concurrency <n>', 'runs in parallel in this worker', positiveInt('--concurrency', 1), 1)
    .option('--lock-timeout <seconds>', 'a job whose worker has not renewed its lock for this long (the worker died) is handed to another', positiveInt('--lock-timeout', 1), 30)
    .option('--reconnect-timeout <seconds>', 'how long a lost PostgreSQL store is waited for before the store call (and the job) fails', positiveInt('--reconnect-timeout', 1), 300)
    .option('--shutdown-timeout <seconds>', 'after SIGTERM or SIGINT, how long the current attempts are waited for; then the worker exits, leaving its jobs to the lock timeout', positiveInt('--shutdown-timeout', 1), 30)
    .option('-q, --quiet', 'no progress lines')
    .addHelpText(
      'after',
      '\nRuns until SIGTERM or SIGINT: then it takes no more jobs, stops each run after its current attempt and hands it back to the queue (a second signal stops at once).\n' +
        'A lost queue or store is waited for, except when stopping: after --shutdown-timeout the worker exits anyway (exit 2), and a job it still held goes to another worker once its lock times out.\n' +
        'Exit codes: 0 stopped, 2 error or stopped by the shutdown timeout.',
    )
    .action(async (o: { queue: string; store: string; concurrency: number; lockTimeout: number; reconnectTimeout: number; shutdownTimeout: number; quiet?: boolean }) => {
      const log = o.quiet ? () => {} : (m: string) => process.stderr.write(`envproof worker: ${m}\n`);
      await checkRedis(o.queue);
      const store = await ResultsStore.open(o.store, { onConnection: log, reconnectSec: o.reconnectTimeout });
      // The TypeScript compiler (which reads JavaScript projects' imports) is loaded on first use and takes seconds to
      // compile: loaded now, before the first job, because a job's lock is not renewed while the event loop is busy,
      // and a lapsed lock hands the job to a second worker.
      await import('typescript');
      const worker = startWorker({ queueUrl: o.queue, store, concurrency: o.concurrency, lockSec: o.lockTimeout, log });
      let signals = 0;
      const onSignal = (signal: NodeJS.Signals) => {
        if (++signals > 1) process.exit(EXIT_ERROR);
        log(`${signal}: finishing the current attempts, then stopping (at most ${o.shutdownTimeout} s)`);
        void worker.stop();
        // worker.stop() waits for the queue; with Redis unreachable it would wait for ever.
        setTimeout(() => {
          const held = worker.active();
          const jobs = held === 0 ? 'no job was in progress' : `${held} job(s) in progress are left to the lock timeout (${o.lockTimeout} s), then another worker takes them`;
          log(`not stopped after ${o.shutdownTimeout} s (is the queue reachable?): exiting now; ${jobs}`);
          process.exit(EXIT_ERROR);
        }, o.shutdownTimeout * 1000).unref();
      };
      process.on('SIGTERM', onSignal);
      process.on('SIGINT', onSignal);
      log(`waiting for jobs on ${redactUrl(o.queue)}, recording in ${store.location}`);
      await worker.stopped;
      await store.close();
      log('stopped');
      setExitCode(EXIT_CLEAN);
    });
}
