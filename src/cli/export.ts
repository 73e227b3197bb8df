import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_STORE, ResultsStore } from '../store/store.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN } from './exit-codes.js';

/**
 * Version of the `envproof export` document. 2: a run's `declared` may be null (its first manifest could not be
 * read), attempts carry their `sandbox`, tasks their `source`.
 */
export const EXPORT_SCHEMA_VERSION = 2;

export function registerExport(program: Command, setExitCode: SetExitCode): void {
  program
    .command('export')
    .description('Export every run of the results store, with its attempts, as JSON (project trees are referred to by hash)')
    .option('--store <path>', 'results store (SQLite file)', DEFAULT_STORE)
    .option('--out <file>', 'write to a file instead of standard output')
    .action((o: { store: string; out?: string }) => {
      const store = ResultsStore.open(o.store, { readonly: true });
      let doc: string;
      try {
        const runs = store.allRuns().map((run) => ({ ...run, attempts: run.source === 'envproof' ? store.attempts(run) : [] }));
        doc = `${JSON.stringify({ schemaVersion: EXPORT_SCHEMA_VERSION, store: o.store, tasks: store.tasks(), runs }, null, 2)}\n`;
      } finally {
        store.close();
      }
      if (o.out) writeFileSync(o.out, doc);
      else process.stdout.write(doc);
      setExitCode(EXIT_CLEAN);
    });
}
