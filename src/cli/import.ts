import type { Command } from 'commander';
import { readEnvgapDir } from '../paper-data/envgap-import.js';
import { DEFAULT_STORE, ResultsStore } from '../store/store.js';
import type { SetExitCode } from './exit-codes.js';
import { EXIT_CLEAN } from './exit-codes.js';

export function registerImport(program: Command, setExitCode: SetExitCode): void {
  const imp = program.command('import').description('Load existing results into the results store');
  imp
    .command('envgap-csv <dir>')
    .description(
      "Import the EnvGap paper's per-run tables from a copy of its repository layout (<dir>/results/raw and/or " +
        '<dir>/data/results, <dir>/data/prompts/prompt_overview.csv), normalised as the paper did',
    )
    .option('--store <path>', 'results store (SQLite file)', DEFAULT_STORE)
    .addHelpText('after', '\nRe-importing replaces runs with the same agent, language, task and trial. Exit codes: 0 imported, 2 error.')
    .action((dir: string, o: { store: string }) => {
      // Read and validate everything first, so a malformed row leaves the store untouched.
      const data = readEnvgapDir(dir);
      for (const w of data.warnings) process.stderr.write(`envproof: warning: ${w}\n`);
      const store = ResultsStore.open(o.store);
      try {
        store.replaceRuns(data.runs, { source: 'envgap-csv', tasks: data.tasks });
      } finally {
        store.close();
      }
      const primary = data.runs.filter((r) => r.primary).length;
      process.stdout.write(
        `imported ${data.runs.length} runs (${primary} primary) from ${data.files.length} files` +
          ` and ${data.tasks.length} tasks into ${o.store}\n`,
      );
      setExitCode(EXIT_CLEAN);
    });
}
