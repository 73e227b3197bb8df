import type { Command } from 'commander';
import { writeOutputFile } from '../core/safe-write.js';
import { DEFAULT_STORE, ResultsStore, STORE_OPTION_HELP } from '../store/store.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN } from './exit-codes.js';

/**
 * Version of the `envproof export` document. 2: a run's `declared` may be null (its first manifest could not be
 * read), attempts carry their `sandbox`, tasks their `source`. 3: a run carries `statusReason` (why it was set
 * aside), attempts their transcripts (`agentOutput`, `agentStderr`, `programOutput`) and may be `interrupted`.
 */
export const EXPORT_SCHEMA_VERSION = 3;

export function registerExport(program: Command, setExitCode: SetExitCode): void {
  program
    .command('export')
    .description('Export every run of the results store, with its attempts, as JSON (project trees are referred to by hash)')
    .option('--store <path|url>', STORE_OPTION_HELP, DEFAULT_STORE)
    .option('--out <file>', 'write to a file instead of standard output')
    .action(async (o: { store: string; out?: string }) => {
      const store = await ResultsStore.open(o.store, { readonly: true });
      let doc: string;
      try {
        const runs = [];
        for (const run of await store.allRuns()) runs.push({ ...run, attempts: run.source === 'envproof' ? await store.attempts(run) : [] });
        doc = `${JSON.stringify({ schemaVersion: EXPORT_SCHEMA_VERSION, store: store.location, tasks: await store.tasks(), runs }, null, 2)}\n`;
      } finally {
        await store.close();
      }
      if (o.out) await writeOutputFile(o.out, doc);
      else process.stdout.write(doc);
      setExitCode(EXIT_CLEAN);
    });
}
