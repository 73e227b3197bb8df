import { EnvproofError, UsageError } from '../core/errors.js';
import { ResultsStore } from '../store/store.js';
import { corpusFigures, renderCorpusMarkdown, type StoredInstance } from './corpus-stats.js';

/** The finished instances (of one corpus, or of every corpus file) with their runs. */
export async function storedInstances(store: ResultsStore, corpus?: string): Promise<StoredInstance[]> {
  const tables = store.repro();
  const rows = await tables.instances(corpus);
  return Promise.all(rows.map(async (row) => ({ row, runs: await tables.runs(row.corpus, row.instanceId) })));
}

/** `envproof report --repro`: the corpus figures of every finished instance in the store. */
export async function writeReproReport(spec: string, format: string): Promise<void> {
  if (format !== 'md' && format !== 'json') throw new UsageError(`--repro writes md or json, not ${format}`);
  const store = await ResultsStore.open(spec, { mustExist: true });
  try {
    const stored = await storedInstances(store);
    if (stored.length === 0) throw new EnvproofError(`${store.location} holds no finished repro instances`, 'run envproof repro --corpus <file.jsonl> --store <path> first');
    const figures = corpusFigures(stored);
    process.stdout.write(format === 'json' ? `${JSON.stringify(figures, null, 2)}\n` : renderCorpusMarkdown(figures));
  } finally {
    await store.close();
  }
}
