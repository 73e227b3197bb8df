import { EnvproofError, UsageError } from '../core/errors.js';
import { ResultsStore } from '../store/store.js';
import { corpusFigures, renderCorpusMarkdown } from './corpus-stats.js';

/** `envproof report --repro`: the corpus figures of every finished instance in the store. */
export async function writeReproReport(spec: string, format: string): Promise<void> {
  if (format !== 'md' && format !== 'json') throw new UsageError(`--repro writes md or json, not ${format}`);
  const store = await ResultsStore.open(spec, { mustExist: true });
  try {
    const rows = await store.repro().instances();
    if (rows.length === 0) throw new EnvproofError(`${store.location} holds no finished repro instances`, 'run envproof repro --corpus <file.jsonl> --store <path> first');
    const figures = corpusFigures(rows);
    process.stdout.write(format === 'json' ? `${JSON.stringify(figures, null, 2)}\n` : renderCorpusMarkdown(figures));
  } finally {
    await store.close();
  }
}
