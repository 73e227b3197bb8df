import { EnvproofError, UsageError } from '../core/errors.js';
import { ResultsStore } from '../store/store.js';
import { corpusFigures, renderCorpusMarkdown } from './corpus-stats.js';

/** `envproof report --repro`: the corpus figures of every finished instance in the store. */
export function writeReproReport(storePath: string, format: string): void {
  if (format !== 'md' && format !== 'json') throw new UsageError(`--repro writes md or json, not ${format}`);
  const store = ResultsStore.open(storePath, { mustExist: true });
  try {
    const rows = store.repro().instances();
    if (rows.length === 0) throw new EnvproofError(`${storePath} holds no finished repro instances`, 'run envproof repro --corpus <file.jsonl> --store <path> first');
    const figures = corpusFigures(rows);
    process.stdout.write(format === 'json' ? `${JSON.stringify(figures, null, 2)}\n` : renderCorpusMarkdown(figures));
  } finally {
    store.close();
  }
}
