/** The results store's tables of `envproof repro --corpus` (schema v6, docs/store.md). */
import type Database from 'better-sqlite3';
import type { Cause, RunRecord, Verdict } from '../repro/types.js';

export interface ReproInstanceRow {
  corpus: string;
  instanceId: string;
  repo: string;
  commit: string;
  command: string;
  kind: string | null;
  recordedAt: string;
  rerunAt: string;
  status: 'running' | 'done';
  k: number;
  verdict: Verdict | null;
  rate: number | null;
  shimVerdict: Verdict | null;
  shimRate: number | null;
  overheadRatio: number | null;
  baselineVerdict: Verdict | null;
  baselineRate: number | null;
  causes: Cause[] | null;
}

/**
 * `patched`: the project as the evaluation recorded it (a corpus's patched checkout, or the final project of an
 * `envproof run`); `baseline`: a corpus instance's unpatched checkout.
 */
export type ReproArm = 'patched' | 'baseline';

/**
 * The corpus name of `envproof run --repro`: one instance per run key (instance id `JSON.stringify([agent,
 * language, taskId, trial])`), its commit the final attempt's tree hash. A corpus file's name is an absolute path,
 * so it never collides.
 */
export const RUN_CORPUS = 'envproof run';

function rowOf(r: Record<string, unknown>): ReproInstanceRow {
  return {
    corpus: r.corpus as string,
    instanceId: r.instance_id as string,
    repo: r.repo as string,
    commit: r.commit_id as string,
    command: r.command as string,
    kind: r.kind as string | null,
    recordedAt: r.recorded_at as string,
    rerunAt: r.rerun_at as string,
    status: r.status as 'running' | 'done',
    k: r.k as number,
    verdict: r.verdict as Verdict | null,
    rate: r.rate as number | null,
    shimVerdict: r.shim_verdict as Verdict | null,
    shimRate: r.shim_rate as number | null,
    overheadRatio: r.overhead_ratio as number | null,
    baselineVerdict: r.baseline_verdict as Verdict | null,
    baselineRate: r.baseline_rate as number | null,
    causes: r.causes === null ? null : (JSON.parse(r.causes as string) as Cause[]),
  };
}

export class ReproTables {
  constructor(private readonly db: Database.Database) {}

  /** Starts (or starts again) an instance: its earlier runs, from a run that was stopped, are removed. */
  begin(row: Pick<ReproInstanceRow, 'corpus' | 'instanceId' | 'repo' | 'commit' | 'command' | 'recordedAt' | 'rerunAt' | 'k'>): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM repro_instances WHERE corpus = ? AND instance_id = ?').run(row.corpus, row.instanceId);
      this.db
        .prepare(
          `INSERT INTO repro_instances (corpus, instance_id, repo, commit_id, command, recorded_at, rerun_at, status, k, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)`,
        )
        .run(row.corpus, row.instanceId, row.repo, row.commit, row.command, row.recordedAt, row.rerunAt, row.k, new Date().toISOString());
    })();
  }

  /** Removes an instance and its runs (one that failed with an error: nothing of it stays half recorded). */
  discard(corpus: string, instanceId: string): void {
    this.db.prepare('DELETE FROM repro_instances WHERE corpus = ? AND instance_id = ?').run(corpus, instanceId);
  }

  addRun(corpus: string, instanceId: string, arm: ReproArm, run: RunRecord): void {
    const seq = (this.db.prepare('SELECT COUNT(*) AS n FROM repro_runs WHERE corpus = ? AND instance_id = ?').get(corpus, instanceId) as { n: number }).n;
    this.db
      .prepare(
        `INSERT INTO repro_runs (corpus, instance_id, seq, arm, role, variation, outcome, matches, duration_ms, install_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(corpus, instanceId, seq, arm, run.role, JSON.stringify(run.variation), JSON.stringify(run.outcome), run.matches ? 1 : 0, run.durationMs, run.installMs);
  }

  /** `command`: the command that ran, when it was known only once the runs had started (an entry point). */
  finish(corpus: string, instanceId: string, r: Pick<ReproInstanceRow, 'kind' | 'verdict' | 'rate' | 'shimVerdict' | 'shimRate' | 'overheadRatio' | 'baselineVerdict' | 'baselineRate' | 'causes'> & { command?: string }): void {
    this.db
      .prepare(
        `UPDATE repro_instances SET status = 'done', kind = ?, verdict = ?, rate = ?, shim_verdict = ?, shim_rate = ?, overhead_ratio = ?,
           baseline_verdict = ?, baseline_rate = ?, causes = ?, command = COALESCE(?, command), updated_at = ? WHERE corpus = ? AND instance_id = ?`,
      )
      .run(r.kind, r.verdict, r.rate, r.shimVerdict, r.shimRate, r.overheadRatio, r.baselineVerdict, r.baselineRate, JSON.stringify(r.causes ?? []), r.command ?? null, new Date().toISOString(), corpus, instanceId);
  }

  status(corpus: string, instanceId: string): 'running' | 'done' | undefined {
    const row = this.db.prepare('SELECT status FROM repro_instances WHERE corpus = ? AND instance_id = ?').get(corpus, instanceId) as { status: 'running' | 'done' } | undefined;
    return row?.status;
  }

  /** One instance, whatever its status. */
  instance(corpus: string, instanceId: string): ReproInstanceRow | undefined {
    const row = this.db.prepare('SELECT * FROM repro_instances WHERE corpus = ? AND instance_id = ?').get(corpus, instanceId) as Record<string, unknown> | undefined;
    return row && rowOf(row);
  }

  /** Finished instances: of one corpus, or of every corpus file (not `envproof run`'s, which are runs, not patches). */
  instances(corpus?: string): ReproInstanceRow[] {
    const rows = (corpus
      ? this.db.prepare("SELECT * FROM repro_instances WHERE status = 'done' AND corpus = ? ORDER BY corpus, instance_id").all(corpus)
      : this.db.prepare("SELECT * FROM repro_instances WHERE status = 'done' AND corpus <> ? ORDER BY corpus, instance_id").all(RUN_CORPUS)) as Record<string, unknown>[];
    return rows.map(rowOf);
  }

  runCount(corpus: string, instanceId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM repro_runs WHERE corpus = ? AND instance_id = ?').get(corpus, instanceId) as { n: number }).n;
  }
}
