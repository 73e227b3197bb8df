/** The results store's tables of `envproof repro --corpus` (schema v6, docs/store.md), on SQLite or PostgreSQL. */
import type { Cause, FactorSetting, RunRecord, Verdict } from '../repro/types.js';
import { jsonOrNull, parseJson, type SqlDatabase, type SqlValue } from './sql.js';

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

/** What the report needs of a stored run. */
export interface StoredRun {
  arm: ReproArm;
  role: RunRecord['role'];
  variation: FactorSetting[];
}

type InstanceStart = Pick<ReproInstanceRow, 'corpus' | 'instanceId' | 'repo' | 'commit' | 'command' | 'recordedAt' | 'rerunAt' | 'k'>;
type InstanceResult = Pick<ReproInstanceRow, 'kind' | 'verdict' | 'rate' | 'shimVerdict' | 'shimRate' | 'overheadRatio' | 'baselineVerdict' | 'baselineRate' | 'causes'>;

/** Each field of an instance row and its column (the columns' order is the statements' parameters' order). */
const INSTANCE_COLUMNS = {
  corpus: 'corpus', instanceId: 'instance_id', repo: 'repo', commit: 'commit_id', command: 'command', kind: 'kind',
  recordedAt: 'recorded_at', rerunAt: 'rerun_at', status: 'status', k: 'k', verdict: 'verdict', rate: 'rate',
  shimVerdict: 'shim_verdict', shimRate: 'shim_rate', overheadRatio: 'overhead_ratio', baselineVerdict: 'baseline_verdict',
  baselineRate: 'baseline_rate', causes: 'causes',
} as const satisfies Record<keyof ReproInstanceRow, string>;

const START_FIELDS = ['corpus', 'instanceId', 'repo', 'commit', 'command', 'recordedAt', 'rerunAt', 'k'] as const satisfies readonly (keyof InstanceStart)[];
const RESULT_FIELDS = ['kind', 'verdict', 'rate', 'shimVerdict', 'shimRate', 'overheadRatio', 'baselineVerdict', 'baselineRate', 'causes'] as const satisfies readonly (keyof InstanceResult)[];

const RUN_COLUMNS = ['corpus', 'instance_id', 'seq', 'arm', 'role', 'variation', 'outcome', 'matches', 'duration_ms', 'install_ms'] as const;

const INSTANCE_WHERE = 'corpus = ? AND instance_id = ?';

/**
 * The corpus name of `envproof run --repro`: one instance per run key (instance id `JSON.stringify([agent,
 * language, taskId, trial])`), its commit the final attempt's tree hash. A corpus file's name is an absolute path,
 * so it never collides.
 */
export const RUN_CORPUS = 'envproof run';

const BEGIN = `INSERT INTO repro_instances (${START_FIELDS.map((f) => INSTANCE_COLUMNS[f]).join(', ')}, status, updated_at)
VALUES (${START_FIELDS.map(() => '?').join(', ')}, 'running', ?)`;

const FINISH = `UPDATE repro_instances SET status = 'done', ${RESULT_FIELDS.map((f) => `${INSTANCE_COLUMNS[f]} = ?`).join(', ')}, command = COALESCE(?, command), updated_at = ?
WHERE ${INSTANCE_WHERE}`;

// A run's number is the count of the instance's runs so far, counted by the statement itself.
const ADD_RUN = `INSERT INTO repro_runs (${RUN_COLUMNS.join(', ')})
VALUES (?, ?, (SELECT COUNT(*) FROM repro_runs WHERE ${INSTANCE_WHERE}), ${RUN_COLUMNS.slice(3).map(() => '?').join(', ')})`;

function instanceFromRow(r: Record<string, unknown>): ReproInstanceRow {
  const row = Object.fromEntries(Object.entries(INSTANCE_COLUMNS).map(([field, column]) => [field, r[column]])) as unknown as ReproInstanceRow;
  return { ...row, causes: parseJson(r.causes) };
}

export class ReproTables {
  constructor(private readonly db: SqlDatabase) {}

  /** Starts (or starts again) an instance: its earlier runs, from a run that was stopped, are removed. */
  begin(row: InstanceStart): Promise<void> {
    return this.db.transaction(async (q) => {
      await q.run(`DELETE FROM repro_instances WHERE ${INSTANCE_WHERE}`, [row.corpus, row.instanceId]);
      await q.run(BEGIN, [...START_FIELDS.map((f) => row[f]), new Date().toISOString()]);
    });
  }

  /** Removes an instance and its runs (one that failed with an error: nothing of it stays half recorded). */
  discard(corpus: string, instanceId: string): Promise<void> {
    return this.db.run(`DELETE FROM repro_instances WHERE ${INSTANCE_WHERE}`, [corpus, instanceId]);
  }

  addRun(corpus: string, instanceId: string, arm: ReproArm, run: RunRecord): Promise<void> {
    const params: SqlValue[] = [corpus, instanceId, corpus, instanceId, arm, run.role, JSON.stringify(run.variation), JSON.stringify(run.outcome), run.matches ? 1 : 0, run.durationMs, run.installMs];
    return this.db.run(ADD_RUN, params);
  }

  /** `command`: the command that ran, when it was known only once the runs had started (an entry point). */
  finish(corpus: string, instanceId: string, r: InstanceResult & { command?: string }): Promise<void> {
    const values: SqlValue[] = RESULT_FIELDS.map((f) => (f === 'causes' ? jsonOrNull(r.causes ?? []) : r[f]));
    return this.db.run(FINISH, [...values, r.command ?? null, new Date().toISOString(), corpus, instanceId]);
  }

  async status(corpus: string, instanceId: string): Promise<'running' | 'done' | undefined> {
    const [row] = await this.db.all<{ status: 'running' | 'done' }>(`SELECT status FROM repro_instances WHERE ${INSTANCE_WHERE}`, [corpus, instanceId]);
    return row?.status;
  }

  /** One instance, whatever its status. */
  async instance(corpus: string, instanceId: string): Promise<ReproInstanceRow | undefined> {
    const [row] = await this.db.all<Record<string, unknown>>(`SELECT * FROM repro_instances WHERE ${INSTANCE_WHERE}`, [corpus, instanceId]);
    return row && instanceFromRow(row);
  }

  /** Finished instances: of one corpus, or of every corpus file (not `envproof run`'s, which are runs, not patches). */
  async instances(corpus?: string): Promise<ReproInstanceRow[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT * FROM repro_instances WHERE status = 'done' AND corpus ${corpus === undefined ? '<>' : '='} ? ORDER BY corpus, instance_id`,
      [corpus ?? RUN_CORPUS],
    );
    return rows.map(instanceFromRow);
  }

  /** An instance's runs in the order they were recorded: each one's arm, role and what it varied. */
  async runs(corpus: string, instanceId: string): Promise<StoredRun[]> {
    const rows = await this.db.all<{ arm: ReproArm; role: RunRecord['role']; variation: string }>(`SELECT arm, role, variation FROM repro_runs WHERE ${INSTANCE_WHERE} ORDER BY seq`, [corpus, instanceId]);
    return rows.map((r) => ({ arm: r.arm, role: r.role, variation: parseJson<FactorSetting[]>(r.variation) }));
  }

  async runCount(corpus: string, instanceId: string): Promise<number> {
    const [row] = await this.db.all<{ n: number }>(`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM repro_runs WHERE ${INSTANCE_WHERE}`, [corpus, instanceId]);
    return row!.n;
  }
}
