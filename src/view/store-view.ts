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

/**
 * Writers' clocks may differ a little from this one (workers on several machines): the runs written since the last
 * read are asked for from this long before it, so that a write stamped a little in the past is not missed.
 */
export const CLOCK_MARGIN_MS = 5000;

interface Kept {
  stamp: string;
  /** When the read began, by this machine's clock. */
  readAt: number;
  /** Every run by its key. */
  runs: Map<string, StoredRun>;
  snapshot: Snapshot;
}

export class StoreView {
  private kept: Promise<Kept> | undefined;
  /** Each run's row, computed once per run read. */
  private readonly rows = new WeakMap<StoredRun, RunRow>();

  constructor(private readonly store: ResultsStore) {}

  get location(): string {
    return this.store.location;
  }

  stamp(): Promise<string> {
    return this.store.changeStamp();
  }

  /**
   * The runs as they are now. When the store changed since the last read, only the runs written since then are read
   * again (a store of 10,000 runs that `run` writes to is not read whole at every attempt); the small tables
   * (evaluations, tasks, re-runs) are read again whole.
   */
  async snapshot(): Promise<Snapshot> {
    const stamp = await this.stamp();
    const previous = this.kept && (await this.kept.catch(() => undefined));
    if (previous?.stamp === stamp) return previous.snapshot;
    this.kept = this.read(stamp, previous);
    return (await this.kept).snapshot;
  }

  private async read(stamp: string, previous: Kept | undefined): Promise<Kept> {
    const readAt = Date.now();
    const written = previous ? await this.store.runsWrittenSince(new Date(previous.readAt - CLOCK_MARGIN_MS).toISOString()) : await this.store.allRuns();
    const runs = new Map(previous?.runs);
    for (const r of written) runs.set(runKeyText(r), r);
    // Runs are never removed one by one; should a store lose some (rebuilt, restored), everything is read again.
    if (previous && runs.size !== (await this.store.runCount())) return this.read(stamp, undefined);
    const all = [...runs.values()].sort(byStoreOrder);
    const input = await readReportInput(this.store, all);
    const backend = new Set(input.backend.map((e) => runKeyText(e.key)));
    const sources = sourcesOf(all).sort((a, b) => (a === 'envproof' ? -1 : b === 'envproof' ? 1 : 0));
    const rows = all.map((r) => {
      const isBackend = backend.has(runKeyText(r));
      const cached = this.rows.get(r);
      if (cached?.backend === isBackend) return cached;
      const row = runRow(r, isBackend);
      this.rows.set(r, row);
      return row;
    });
    return { stamp, readAt, runs, snapshot: { stamp, rows, sources, input } };
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
