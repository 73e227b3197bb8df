/**
 * The results store (docs/store.md): a SQLite file (the default, one machine) or a PostgreSQL database (shared by
 * workers anywhere), the same schema and statements on both. Imported runs and `envproof run`'s runs share the
 * `runs` table; `attempts` holds every round of envproof's own runs.
 */
import { EnvproofError } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { isEcosystemId } from '../ecosystems/index.js';
import type { RunSource, TaskInfo } from '../metrics/aggregate-types.js';
import { evaluationFromRow, FINAL_EVALUATIONS, putEvaluation, RUN_EVALUATIONS } from './evaluations.js';
import { PostgresDatabase } from './postgres-db.js';
import { ReproTables } from './repro-tables.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
import { insertNew, insertStatement, jsonOrNull, parseJson, type SqlDatabase, type SqlValue } from './sql.js';
import { SqliteDatabase } from './sqlite-db.js';
import type { AttemptRecord, BackendEvaluationRecord, RunKey, RunStatus, StoredRun, StoredTask, TreeEntry, TreeSnapshot } from './types.js';

export const DEFAULT_STORE = 'envproof.db';

/** The `--store` option's help, the same for every command. */
export const STORE_OPTION_HELP = 'results store: a SQLite file, or a PostgreSQL database (postgres://user@host:port/db)';

/** A `--store` value naming a PostgreSQL database rather than a SQLite file. */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(ql)?:\/\//i.test(spec);
}

export interface OpenOptions {
  /** Never write (no migration; an older schema is refused with a hint; PostgreSQL sessions are read-only). */
  readonly?: boolean;
  /** Refuse to create the store. */
  mustExist?: boolean;
  /** PostgreSQL: how long a lost connection is waited for, seconds (default 300). */
  reconnectSec?: number;
  /** PostgreSQL: told when the connection is lost and back. */
  onConnection?(message: string): void;
}

interface RunRow {
  source: string;
  agent: string;
  language: string;
  task_id: string;
  trial: number;
  is_primary: number;
  first_success: number;
  final_success: number;
  repair_depth: number | null;
  initial_error_type: string | null;
  d1: string | null;
  d2: string;
  d3: string;
  claimed_count: number | null;
  transitive_count: number | null;
  raw: string | null;
  origin: string | null;
  status: string;
  status_reason: string | null;
}

const RUN_COLUMNS = [
  'source', 'agent', 'language', 'task_id', 'trial', 'is_primary', 'first_success', 'final_success', 'repair_depth',
  'initial_error_type', 'd1', 'd2', 'd3', 'claimed_count', 'transitive_count', 'raw', 'origin', 'status', 'status_reason', 'updated_at',
] as const;

const RUN_KEY_COLUMNS = ['source', 'agent', 'language', 'task_id', 'trial'];

const UPSERT_RUN = `${insertStatement('runs', RUN_COLUMNS, RUN_KEY_COLUMNS)} RETURNING id`;

const ATTEMPT_COLUMNS = [
  'run_id', 'attempt', 'tree_hash', 'manifest_path', 'manifest', 'success', 'error_class', 'error_tail', 'started_at',
  'duration_ms', 'tokens_in', 'tokens_out', 'cost_usd', 'step', 'note', 'phases', 'sandbox', 'agent_output', 'agent_stderr',
  'program_output', 'prompt',
] as const;

const PUT_ATTEMPT = insertStatement('attempts', ATTEMPT_COLUMNS, ['run_id', 'attempt']);

const KEY_WHERE = RUN_KEY_COLUMNS.map((c) => `${c} = ?`).join(' AND ');
const keyParams = (key: RunKey): SqlValue[] => [key.source, key.agent, key.language, key.taskId, key.trial];

function runParams(run: StoredRun, now: string): SqlValue[] {
  const row = toRow(run, now);
  return RUN_COLUMNS.map((c) => row[c]);
}

function attemptParams(runId: number, a: AttemptRecord): SqlValue[] {
  const row: Record<(typeof ATTEMPT_COLUMNS)[number], SqlValue> = {
    run_id: runId,
    attempt: a.attempt,
    tree_hash: a.treeHash,
    manifest_path: a.manifestPath,
    manifest: a.manifest,
    success: a.success ? 1 : 0,
    error_class: a.errorClass,
    error_tail: a.errorTail,
    started_at: a.startedAt,
    duration_ms: a.durationMs,
    tokens_in: a.tokensIn,
    tokens_out: a.tokensOut,
    cost_usd: a.costUsd,
    step: a.step ?? null,
    note: a.note ?? null,
    phases: jsonOrNull(a.phasesMs),
    sandbox: a.sandbox ?? null,
    agent_output: a.agentOutput ?? null,
    agent_stderr: a.agentStderr ?? null,
    program_output: a.programOutput ?? null,
    prompt: a.prompt ?? null,
  };
  return ATTEMPT_COLUMNS.map((c) => row[c]);
}

function attemptFromRow(a: Record<string, unknown>): AttemptRecord {
  return {
    attempt: a.attempt as number,
    treeHash: a.tree_hash as string | null,
    manifestPath: a.manifest_path as string | null,
    manifest: a.manifest as string | null,
    success: a.success === 1,
    errorClass: a.error_class as string | null,
    errorTail: a.error_tail as string | null,
    startedAt: a.started_at as string | null,
    durationMs: a.duration_ms as number | null,
    tokensIn: a.tokens_in as number | null,
    tokensOut: a.tokens_out as number | null,
    costUsd: a.cost_usd as number | null,
    step: a.step as string | null,
    note: a.note as string | null,
    phasesMs: parseJson(a.phases),
    sandbox: a.sandbox as string | null,
    agentOutput: a.agent_output as string | null,
    agentStderr: a.agent_stderr as string | null,
    programOutput: a.program_output as string | null,
    prompt: a.prompt as string | null,
  };
}

function toRow(run: StoredRun, now: string): RunRow & { updated_at: string } {
  return {
    source: run.source,
    agent: run.agent,
    language: run.language,
    task_id: run.taskId,
    trial: run.trial,
    is_primary: run.primary ? 1 : 0,
    first_success: run.firstSuccess ? 1 : 0,
    final_success: run.finalSuccess ? 1 : 0,
    repair_depth: run.repairDepth,
    initial_error_type: run.initialErrorType,
    d1: jsonOrNull(run.declared),
    d2: JSON.stringify(run.installed),
    d3: JSON.stringify(run.traced),
    claimed_count: run.claimedCount,
    transitive_count: run.transitiveCount,
    raw: jsonOrNull(run.raw),
    origin: run.origin ?? null,
    status: run.status ?? 'done',
    status_reason: run.statusReason ?? null,
    updated_at: now,
  };
}

function fromRow(row: RunRow): StoredRun {
  return {
    source: row.source as RunSource,
    agent: row.agent,
    language: row.language as EcosystemId,
    taskId: row.task_id,
    trial: row.trial,
    primary: row.is_primary === 1,
    firstSuccess: row.first_success === 1,
    finalSuccess: row.final_success === 1,
    repairDepth: row.repair_depth,
    initialErrorType: row.initial_error_type,
    declared: parseJson(row.d1),
    installed: parseJson(row.d2),
    traced: parseJson(row.d3),
    claimedCount: row.claimed_count,
    transitiveCount: row.transitive_count,
    raw: parseJson(row.raw),
    origin: row.origin,
    status: row.status as RunStatus,
    statusReason: row.status_reason,
  };
}

export class ResultsStore {
  private constructor(private readonly db: SqlDatabase) {}

  /** Where the store is: the SQLite file, or the PostgreSQL URL without its password. */
  get location(): string {
    return this.db.location;
  }

  /**
   * Opens the store `spec` (a SQLite file, or a postgres:// URL), creating it unless `mustExist` or `readonly`, and
   * migrating an older schema unless `readonly` (a read-only open of an older store is refused with a hint).
   */
  static async open(spec: string, opts: OpenOptions = {}): Promise<ResultsStore> {
    const readonly = opts.readonly ?? false;
    const mustExist = readonly || opts.mustExist === true;
    const db = isPostgresUrl(spec)
      ? await PostgresDatabase.open(spec, { reconnectSec: opts.reconnectSec ?? 300, readonly, ...(opts.onConnection ? { onConnection: opts.onConnection } : {}) })
      : SqliteDatabase.open(spec, { readonly, mustExist: mustExist });
    return ResultsStore.over(db, { readonly, mustExist });
  }

  /** The store in an open database, checked and migrated as `open` does; the database is closed if that fails. */
  static async over(db: SqlDatabase, opts: { readonly: boolean; mustExist: boolean }): Promise<ResultsStore> {
    try {
      await ResultsStore.migrate(db, opts.readonly, opts.mustExist);
    } catch (err) {
      await db.close();
      throw err;
    }
    return new ResultsStore(db);
  }

  private static async migrate(db: SqlDatabase, readonly: boolean, mustExist: boolean): Promise<void> {
    // Tables before the version: another envproof creating this store right now commits its tables and its version
    // together, so once its tables are seen here, its version is too (read the other way round, a store created
    // between the two reads looked like a foreign database).
    const hasTables = await db.hasTables();
    const version = await db.schemaVersion();
    if (version > SCHEMA_VERSION) {
      throw new EnvproofError(`${db.location} has store schema version ${version}; this envproof knows up to ${SCHEMA_VERSION}`, 'Upgrade envproof.');
    }
    // A database without a schema version that has tables (or had to exist) is some other database: never add to it.
    if (version === 0 && (mustExist || hasTables)) {
      throw new EnvproofError(`${db.location} is not an envproof results store (schema version 0)`);
    }
    if (version === SCHEMA_VERSION) return;
    if (readonly) {
      throw new EnvproofError(`${db.location} has the older store schema version ${version}`, 'Reading commands never change a store: a command that writes to it (envproof import, envproof run) migrates it in place.');
    }
    await db.migrate(SCHEMA_VERSION, (from) => MIGRATIONS.filter((m) => m.version > from));
  }

  /**
   * Inserts or replaces (same source, agent, language, task, trial) all runs, and the tasks of one source, in one
   * transaction. Tasks are kept per source: one source's tasks never change another's domains.
   */
  async replaceRuns(runs: readonly StoredRun[], tasks?: { source: RunSource; tasks: readonly TaskInfo[] }): Promise<void> {
    const now = new Date().toISOString();
    await this.db.transaction(async (q) => {
      for (const t of tasks?.tasks ?? []) {
        await q.run(
          `INSERT INTO tasks (source, id, title, domain, complexity) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (source, id) DO UPDATE SET title = excluded.title, domain = excluded.domain, complexity = excluded.complexity`,
          [tasks!.source, t.id, t.title ?? null, t.domain, t.complexity ?? null],
        );
      }
      for (const r of runs) await q.run(UPSERT_RUN, runParams(r, now));
    });
  }

  /**
   * Writes (inserts or updates) one run and adds or replaces the given attempts and their backend evaluations,
   * keeping its other attempts, so that `envproof run` can record each attempt as it finishes. With
   * `replaceAttempts`, the run's other attempts are deleted in the same transaction: a run redone from scratch
   * (`run --rerun`, a run set aside) never holds a mix of its old and new attempts. Returns the run's id.
   */
  putRun(run: StoredRun, attempts: readonly AttemptRecord[] = [], evaluations: readonly BackendEvaluationRecord[] = [], opts: { replaceAttempts?: boolean } = {}): Promise<number> {
    return this.db.transaction(async (q) => {
      const [{ id }] = (await q.all<{ id: number }>(UPSERT_RUN, runParams(run, new Date().toISOString()))) as [{ id: number }];
      if (opts.replaceAttempts) await q.run('DELETE FROM attempts WHERE run_id = ?', [id]);
      for (const a of attempts) await q.run(PUT_ATTEMPT, attemptParams(id, a));
      for (const e of evaluations) await putEvaluation(q, id, e);
      return id;
    });
  }

  /** The runs that have ended (status `done`): runs being recorded or lost to infrastructure are left out. */
  runs(): Promise<StoredRun[]> {
    return this.runsWithStatus('done');
  }

  runsWithStatus(status: RunStatus): Promise<StoredRun[]> {
    return this.selectRuns('WHERE status = ?', status);
  }

  private async selectRuns(where: string, ...params: string[]): Promise<StoredRun[]> {
    const rows = await this.db.all<RunRow>(`SELECT * FROM runs ${where} ORDER BY source, agent, language, task_id, trial`, params);
    return rows.map((row) => {
      if (!isEcosystemId(row.language)) {
        throw new EnvproofError(`${this.location}: run of unknown language ${row.language}`);
      }
      return fromRow(row);
    });
  }

  async attempts(key: RunKey): Promise<AttemptRecord[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT a.* FROM attempts a JOIN runs r ON r.id = a.run_id
       WHERE r.source = ? AND r.agent = ? AND r.language = ? AND r.task_id = ? AND r.trial = ? ORDER BY a.attempt`,
      keyParams(key),
    );
    return rows.map(attemptFromRow);
  }

  /** Every run, whatever its status (for inspection and export). */
  allRuns(): Promise<StoredRun[]> {
    return this.selectRuns('');
  }

  /** The runs written at or after `since` (ISO 8601, as `updated_at`), whatever their status. */
  runsWrittenSince(since: string): Promise<StoredRun[]> {
    return this.selectRuns('WHERE updated_at >= ?', since);
  }

  async runCount(): Promise<number> {
    const [row] = await this.db.all<{ n: number | string }>('SELECT COUNT(*) AS n FROM runs');
    return Number(row!.n);
  }

  /** One run by its key, whatever its status. */
  async run(key: RunKey): Promise<StoredRun | undefined> {
    const [row] = await this.db.all<RunRow>(`SELECT * FROM runs WHERE ${KEY_WHERE}`, keyParams(key));
    return row && fromRow(row);
  }

  /** The status of one run, or undefined when it has not been started. */
  async runStatus(key: RunKey): Promise<RunStatus | undefined> {
    const [row] = await this.db.all<{ status: RunStatus }>(`SELECT status FROM runs WHERE ${KEY_WHERE}`, keyParams(key));
    return row?.status;
  }

  /** Stores a project tree, content-addressed: a blob or tree already present is not written again. */
  putTree(snapshot: TreeSnapshot): Promise<void> {
    return this.db.transaction(async (q) => {
      // A tree is written whole in one transaction: one already there has all its blobs too.
      if ((await q.all('SELECT 1 FROM tree_entries WHERE tree_hash = ? LIMIT 1', [snapshot.hash])).length > 0) return;
      await insertNew(q, 'blobs', ['hash', 'content'], [...snapshot.blobs].map(([hash, content]) => [hash, content]));
      await insertNew(q, 'tree_entries', ['tree_hash', 'path', 'kind', 'executable', 'blob'], snapshot.entries.map((e) => [snapshot.hash, e.path, e.kind, e.executable ? 1 : 0, e.blob]));
    });
  }

  /** The entries of a stored tree and a reader for its blobs (read with it). */
  async tree(hash: string): Promise<{ entries: TreeEntry[]; blob: (hash: string) => Buffer }> {
    const rows = await this.db.all<{ path: string; kind: 'file' | 'symlink'; executable: number; blob: string; content: Buffer | null }>(
      `SELECT e.path, e.kind, e.executable, e.blob, b.content FROM tree_entries e LEFT JOIN blobs b ON b.hash = e.blob
       WHERE e.tree_hash = ? ORDER BY e.path`,
      [hash],
    );
    const contents = new Map(rows.map((r) => [r.blob, r.content]));
    return {
      entries: rows.map((r) => ({ path: r.path, kind: r.kind, executable: r.executable === 1, blob: r.blob })),
      blob: (h) => {
        const content = contents.get(h);
        if (!content) throw new EnvproofError(`${this.location}: blob ${h} of tree ${hash} is missing`);
        return content;
      },
    };
  }

  /** Stores (or replaces) the behavioural evaluation of one attempt of a backend run. */
  putEvaluation(key: RunKey, e: BackendEvaluationRecord): Promise<void> {
    return this.db.transaction(async (q) => {
      const [run] = await q.all<{ id: number }>(`SELECT id FROM runs WHERE ${KEY_WHERE}`, keyParams(key));
      if (!run) throw new EnvproofError(`${this.location}: no run ${key.agent} ${key.taskId} ${key.language} #${key.trial} to attach an evaluation to`);
      await putEvaluation(q, run.id, e);
    });
  }

  /**
   * The final evaluation of every finished backend run (its last evaluated attempt), with the run's key: what the
   * backend metrics are computed from.
   */
  async backendEvaluations(): Promise<(BackendEvaluationRecord & { key: RunKey })[]> {
    return (await this.db.all<Record<string, unknown>>(FINAL_EVALUATIONS)).map(evaluationFromRow);
  }

  /** Every evaluation of one run, attempt by attempt. */
  async evaluations(key: RunKey): Promise<BackendEvaluationRecord[]> {
    const rows = await this.db.all<Record<string, unknown>>(RUN_EVALUATIONS, keyParams(key));
    return rows.map((row) => {
      const { key: _, ...evaluation } = evaluationFromRow(row);
      return evaluation;
    });
  }

  /** Records the judged root cause of a backend run's final evaluation. */
  setRootCause(key: RunKey, attempt: number, rootCause: string, note: string): Promise<void> {
    return this.db.run(
      `UPDATE backend_evaluations SET root_cause = ?, root_cause_note = ? WHERE attempt = ? AND run_id = (SELECT id FROM runs WHERE ${KEY_WHERE})`,
      [rootCause, note, attempt, ...keyParams(key)],
    );
  }

  /**
   * A value that changes whenever a run, an attempt, an evaluation or a re-run is written or removed: readers that
   * keep a copy (envproof view) compare it to know when to read again.
   */
  async changeStamp(): Promise<string> {
    const [row] = await this.db.all<Record<string, unknown>>(
      `SELECT (SELECT COUNT(*) FROM runs) AS runs, (SELECT MAX(updated_at) FROM runs) AS runs_at,
       (SELECT COUNT(*) FROM attempts) AS attempts, (SELECT COUNT(*) FROM backend_evaluations) AS evaluations,
       (SELECT COUNT(root_cause) FROM backend_evaluations) AS judged, (SELECT COUNT(*) FROM repro_instances) AS instances,
       (SELECT MAX(updated_at) FROM repro_instances) AS instances_at, (SELECT COUNT(*) FROM repro_runs) AS repro_runs,
       (SELECT COUNT(*) FROM tasks) AS tasks`,
    );
    return Object.values(row!).map((v) => String(v ?? '')).join('|');
  }

  /** The tasks of one source, or of every source. */
  async tasks(source?: RunSource): Promise<StoredTask[]> {
    const where = source === undefined ? '' : 'WHERE source = ?';
    const rows = await this.db.all<{ source: RunSource; id: string; title: string | null; domain: string; complexity: string | null }>(
      `SELECT source, id, title, domain, complexity FROM tasks ${where} ORDER BY source, id`,
      source === undefined ? [] : [source],
    );
    return rows.map((t) => ({
      source: t.source,
      id: t.id,
      domain: t.domain,
      ...(t.title === null ? {} : { title: t.title }),
      ...(t.complexity === null ? {} : { complexity: t.complexity }),
    }));
  }

  /** The tables of `envproof repro --corpus` (v6). */
  repro(): ReproTables {
    return new ReproTables(this.db);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
