/**
 * What the view reads from the store, read-only. The runs (what the table, its counts and the figures need) are
 * read once and kept until the store's change stamp moves; a run's attempts, trees and evaluations are read when
 * its page is asked for.
 */
import { sourcesOf } from '../metrics/aggregate-sources.js';
import type { RunSource } from '../metrics/aggregate-types.js';
import { runInstanceId } from '../repro/final-projects.js';
import { readReportInput, runKeyText, type ReportInput } from '../report/source-report.js';
import { RUN_CORPUS, type ReproInstanceRow } from '../store/repro-tables.js';
import type { ResultsStore } from '../store/store.js';
import type { AttemptRecord, BackendEvaluationRecord, RunKey, StoredRun, StoredTask } from '../store/types.js';
import { runRow, type RunRow } from './run-table.js';
import type { StoredTree } from './tree-diff.js';

export interface Snapshot {
  stamp: string;
  /** Every run, whatever its status, in the store's order. */
  rows: RunRow[];
  /** The sources present, envproof's own first. */
  sources: RunSource[];
  input: ReportInput;
}

export interface RunDetail {
  run: StoredRun;
  task: StoredTask | undefined;
  attempts: AttemptRecord[];
  evaluations: BackendEvaluationRecord[];
  /** The re-runs of its final project (`run --repro`), when it had them. */
  repro: ReproInstanceRow | undefined;
}

const byStoreOrder = (a: StoredRun, b: StoredRun) => {
  const x = [a.source, a.agent, a.language, a.taskId];
  const y = [b.source, b.agent, b.language, b.taskId];
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return a.trial - b.trial;
};

export class StoreView {
  private current: Promise<Snapshot> | undefined;

  constructor(private readonly store: ResultsStore) {}

  get location(): string {
    return this.store.location;
  }

  stamp(): Promise<string> {
    return this.store.changeStamp();
  }

  /** The runs as they are now: read again only when the store changed since the last read. */
  async snapshot(): Promise<Snapshot> {
    const stamp = await this.stamp();
    const kept = this.current && (await this.current.catch(() => undefined));
    if (kept?.stamp === stamp) return kept;
    this.current = this.read(stamp);
    return this.current;
  }

  private async read(stamp: string): Promise<Snapshot> {
    const input = await readReportInput(this.store);
    const backend = new Set(input.backend.map((e) => runKeyText(e.key)));
    const runs = [...input.done, ...input.infrastructureFailed, ...input.unfinished].sort(byStoreOrder);
    const sources = sourcesOf(runs).sort((a, b) => (a === 'envproof' ? -1 : b === 'envproof' ? 1 : 0));
    return { stamp, rows: runs.map((r) => runRow(r, backend.has(runKeyText(r)))), sources, input };
  }

  async run(key: RunKey): Promise<RunDetail | undefined> {
    const run = await this.store.run(key);
    if (!run) return undefined;
    const tasks = await this.store.tasks(key.source);
    return {
      run,
      task: tasks.find((t) => t.id === key.taskId),
      attempts: await this.store.attempts(key),
      evaluations: await this.store.evaluations(key),
      repro: key.source === 'envproof' ? await this.store.repro().instance(RUN_CORPUS, runInstanceId(key)) : undefined,
    };
  }

  /** A stored tree; undefined when the store has no tree of that hash. */
  async tree(hash: string): Promise<StoredTree | undefined> {
    const tree = await this.store.tree(hash);
    return tree.entries.length ? tree : undefined;
  }

  /** Finished re-run instances: of corpus files, then of `envproof run --repro`. */
  async instances(): Promise<ReproInstanceRow[]> {
    return [...(await this.store.repro().instances()), ...(await this.store.repro().instances(RUN_CORPUS))];
  }

  instance(corpus: string, instanceId: string): Promise<ReproInstanceRow | undefined> {
    return this.store.repro().instance(corpus, instanceId);
  }
}
