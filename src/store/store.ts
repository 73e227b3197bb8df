/**
 * The results store: one SQLite file in WAL mode (docs/store.md). Imported runs and `envproof run`'s runs share
 * the `runs` table; `attempts` holds every round of envproof's own runs.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EnvproofError, errorMessage } from '../core/errors.js';
import type { EcosystemId } from '../core/types.js';
import { isEcosystemId } from '../ecosystems/index.js';
import type { RunSource, TaskInfo } from '../metrics/aggregate-types.js';
import { MIGRATE_V1_TO_V2, MIGRATE_V2_TO_V3, MIGRATE_V3_TO_V4, MIGRATE_V4_TO_V5, MIGRATE_V5_TO_V6, SCHEMA_V1, SCHEMA_VERSION } from './schema.js';
import { ReproTables } from './repro-tables.js';
import type { AttemptRecord, BackendEvaluationRecord, RunKey, RunStatus, StoredRun, StoredTask, TreeEntry, TreeSnapshot } from './types.js';

export const DEFAULT_STORE = 'envproof.db';

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
}

const UPSERT_RUN = `
INSERT INTO runs (source, agent, language, task_id, trial, is_primary, first_success, final_success, repair_depth,
                  initial_error_type, d1, d2, d3, claimed_count, transitive_count, raw, origin, status, updated_at)
VALUES (@source, @agent, @language, @task_id, @trial, @is_primary, @first_success, @final_success, @repair_depth,
        @initial_error_type, @d1, @d2, @d3, @claimed_count, @transitive_count, @raw, @origin, @status, @updated_at)
ON CONFLICT (source, agent, language, task_id, trial) DO UPDATE SET
  is_primary = excluded.is_primary, first_success = excluded.first_success, final_success = excluded.final_success,
  repair_depth = excluded.repair_depth, initial_error_type = excluded.initial_error_type, d1 = excluded.d1,
  d2 = excluded.d2, d3 = excluded.d3, claimed_count = excluded.claimed_count,
  transitive_count = excluded.transitive_count, raw = excluded.raw, origin = excluded.origin,
  status = excluded.status, updated_at = excluded.updated_at
RETURNING id`;

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
    d1: run.declared === null ? null : JSON.stringify(run.declared),
    d2: JSON.stringify(run.installed),
    d3: JSON.stringify(run.traced),
    claimed_count: run.claimedCount,
    transitive_count: run.transitiveCount,
    raw: run.raw ? JSON.stringify(run.raw) : null,
    origin: run.origin ?? null,
    status: run.status ?? 'done',
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
    declared: row.d1 === null ? null : (JSON.parse(row.d1) as string[]),
    installed: JSON.parse(row.d2) as string[],
    traced: JSON.parse(row.d3) as string[],
    claimedCount: row.claimed_count,
    transitiveCount: row.transitive_count,
    raw: row.raw === null ? null : (JSON.parse(row.raw) as Record<string, string>),
    origin: row.origin,
    status: row.status as RunStatus,
  };
}

export class ResultsStore {
  private constructor(
    readonly file: string,
    private readonly db: Database.Database,
  ) {}

  /**
   * Opens the store at `file`, creating it unless `mustExist` or `readonly`, and migrating an older schema
   * unless `readonly` (a read-only open of an older store is refused with a hint).
   */
  static open(file: string, opts: { readonly?: boolean; mustExist?: boolean } = {}): ResultsStore {
    const mustExist = opts.readonly === true || opts.mustExist === true;
    let db: Database.Database;
    try {
      if (!mustExist) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: mustExist });
    } catch (err) {
      throw new EnvproofError(
        `cannot open the results store ${file}: ${errorMessage(err)}`,
        mustExist ? 'Import data first (envproof import envgap-csv <dir>) or pass --store <path>.' : undefined,
      );
    }
    const store = new ResultsStore(file, db);
    store.migrate(opts.readonly ?? false, mustExist);
    return store;
  }

  private migrate(readonly: boolean, mustExist: boolean): void {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    const refuse = (message: string, hint?: string): never => {
      this.db.close();
      throw new EnvproofError(message, hint);
    };
    if (version > SCHEMA_VERSION) {
      refuse(`${this.file} has store schema version ${version}; this envproof knows up to ${SCHEMA_VERSION}`, 'Upgrade envproof.');
    }
    // A file without a schema version that has tables (or had to exist) is some other database: never add to it.
    if (version === 0 && (mustExist || this.db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get() !== undefined)) {
      refuse(`${this.file} is not an envproof results store (schema version 0)`);
    }
    if (readonly) {
      if (version < SCHEMA_VERSION) {
        refuse(
          `${this.file} has the older store schema version ${version}`,
          'Open it once for writing (envproof report or envproof import migrate it in place).',
        );
      }
      return;
    }
    this.db.pragma('journal_mode = WAL');
    if (version < SCHEMA_VERSION) {
      // Migrations may rebuild tables: with foreign keys on, dropping the old `runs` would delete every attempt.
      this.db.pragma('foreign_keys = OFF');
      this.db.transaction(() => {
        if (version < 1) this.db.exec(SCHEMA_V1);
        if (version < 2) this.db.exec(MIGRATE_V1_TO_V2);
        if (version < 3) this.db.exec(MIGRATE_V2_TO_V3);
        if (version < 4) this.db.exec(MIGRATE_V3_TO_V4);
        if (version < 5) this.db.exec(MIGRATE_V4_TO_V5);
        if (version < 6) this.db.exec(MIGRATE_V5_TO_V6);
        if ((this.db.pragma('foreign_key_check') as unknown[]).length > 0) {
          throw new EnvproofError(`${this.file}: migrating the store broke its references; it was left unchanged`);
        }
        this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
      })();
    }
    this.db.pragma('foreign_keys = ON');
  }

  /**
   * Inserts or replaces (same source, agent, language, task, trial) all runs, and the tasks of one source, in one
   * transaction. Tasks are kept per source: one source's tasks never change another's domains.
   */
  replaceRuns(runs: readonly StoredRun[], tasks?: { source: RunSource; tasks: readonly TaskInfo[] }): void {
    const upsertRun = this.db.prepare(UPSERT_RUN);
    const upsertTask = this.db.prepare(
      `INSERT INTO tasks (source, id, title, domain, complexity) VALUES (@source, @id, @title, @domain, @complexity)
       ON CONFLICT (source, id) DO UPDATE SET title = excluded.title, domain = excluded.domain, complexity = excluded.complexity`,
    );
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const t of tasks?.tasks ?? []) {
        upsertTask.run({ source: tasks!.source, id: t.id, title: t.title ?? null, domain: t.domain, complexity: t.complexity ?? null });
      }
      for (const r of runs) upsertRun.run(toRow(r, now));
    })();
  }

  /**
   * Writes (inserts or updates) one run and adds or replaces the given attempts, keeping its other attempts, so
   * that `envproof run` can record each attempt as it finishes. Returns the run's id.
   */
  putRun(run: StoredRun, attempts: readonly AttemptRecord[] = []): number {
    const insertAttempt = this.db.prepare(
      `INSERT OR REPLACE INTO attempts (run_id, attempt, tree_hash, manifest_path, manifest, success, error_class,
         error_tail, started_at, duration_ms, tokens_in, tokens_out, cost_usd, step, note, phases, sandbox)
       VALUES (@run_id, @attempt, @tree_hash, @manifest_path, @manifest, @success, @error_class, @error_tail,
         @started_at, @duration_ms, @tokens_in, @tokens_out, @cost_usd, @step, @note, @phases, @sandbox)`,
    );
    return this.db.transaction(() => {
      const { id } = this.db.prepare(UPSERT_RUN).get(toRow(run, new Date().toISOString())) as { id: number };
      for (const a of attempts) {
        insertAttempt.run({
          run_id: id,
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
          phases: a.phasesMs ? JSON.stringify(a.phasesMs) : null,
          sandbox: a.sandbox ?? null,
        });
      }
      return id;
    })();
  }

  /** The runs that have ended (status `done`): runs being recorded or lost to infrastructure are left out. */
  runs(): StoredRun[] {
    return this.runsWithStatus('done');
  }

  runsWithStatus(status: RunStatus): StoredRun[] {
    return this.selectRuns('WHERE status = ?', status);
  }

  private selectRuns(where: string, ...params: string[]): StoredRun[] {
    const rows = this.db.prepare(`SELECT * FROM runs ${where} ORDER BY source, agent, language, task_id, trial`).all(...params) as RunRow[];
    return rows.map((row) => {
      if (!isEcosystemId(row.language)) {
        throw new EnvproofError(`${this.file}: run of unknown language ${row.language}`);
      }
      return fromRow(row);
    });
  }

  attempts(key: RunKey): AttemptRecord[] {
    const rows = this.db
      .prepare(
        `SELECT a.* FROM attempts a JOIN runs r ON r.id = a.run_id
         WHERE r.source = ? AND r.agent = ? AND r.language = ? AND r.task_id = ? AND r.trial = ? ORDER BY a.attempt`,
      )
      .all(key.source, key.agent, key.language, key.taskId, key.trial) as Record<string, unknown>[];
    return rows.map((a) => ({
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
      phasesMs: a.phases === null ? null : (JSON.parse(a.phases as string) as Record<string, number>),
      sandbox: a.sandbox as string | null,
    }));
  }

  /** Removes every attempt of a run (a run restarted from scratch abandons them). */
  deleteAttempts(key: RunKey): void {
    this.db
      .prepare(
        `DELETE FROM attempts WHERE run_id = (SELECT id FROM runs
           WHERE source = ? AND agent = ? AND language = ? AND task_id = ? AND trial = ?)`,
      )
      .run(key.source, key.agent, key.language, key.taskId, key.trial);
  }

  /** Every run, whatever its status (for inspection and export). */
  allRuns(): StoredRun[] {
    return this.selectRuns('');
  }

  /** One run by its key, whatever its status. */
  run(key: RunKey): StoredRun | undefined {
    const row = this.db
      .prepare('SELECT * FROM runs WHERE source = ? AND agent = ? AND language = ? AND task_id = ? AND trial = ?')
      .get(key.source, key.agent, key.language, key.taskId, key.trial) as RunRow | undefined;
    return row && fromRow(row);
  }

  /** The status of one run, or undefined when it has not been started. */
  runStatus(key: RunKey): RunStatus | undefined {
    const row = this.db
      .prepare('SELECT status FROM runs WHERE source = ? AND agent = ? AND language = ? AND task_id = ? AND trial = ?')
      .get(key.source, key.agent, key.language, key.taskId, key.trial) as { status: RunStatus } | undefined;
    return row?.status;
  }

  /** Stores a project tree, content-addressed: a blob or tree already present is not written again. */
  putTree(snapshot: TreeSnapshot): void {
    const blob = this.db.prepare('INSERT OR IGNORE INTO blobs (hash, content) VALUES (?, ?)');
    const entry = this.db.prepare('INSERT OR IGNORE INTO tree_entries (tree_hash, path, kind, executable, blob) VALUES (?, ?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const [hash, content] of snapshot.blobs) blob.run(hash, content);
      for (const e of snapshot.entries) entry.run(snapshot.hash, e.path, e.kind, e.executable ? 1 : 0, e.blob);
    })();
  }

  /** The entries of a stored tree and a reader for its blobs. */
  tree(hash: string): { entries: TreeEntry[]; blob: (hash: string) => Buffer } {
    const rows = this.db.prepare('SELECT path, kind, executable, blob FROM tree_entries WHERE tree_hash = ? ORDER BY path').all(hash) as {
      path: string;
      kind: 'file' | 'symlink';
      executable: number;
      blob: string;
    }[];
    const get = this.db.prepare('SELECT content FROM blobs WHERE hash = ?');
    return {
      entries: rows.map((r) => ({ path: r.path, kind: r.kind, executable: r.executable === 1, blob: r.blob })),
      blob: (h) => {
        const row = get.get(h) as { content: Buffer } | undefined;
        if (!row) throw new EnvproofError(`${this.file}: blob ${h} of tree ${hash} is missing`);
        return row.content;
      },
    };
  }

  /** Stores (or replaces) the behavioural evaluation of one attempt of a backend run. */
  putEvaluation(key: RunKey, e: BackendEvaluationRecord): void {
    const run = this.db
      .prepare('SELECT id FROM runs WHERE source = ? AND agent = ? AND language = ? AND task_id = ? AND trial = ?')
      .get(key.source, key.agent, key.language, key.taskId, key.trial) as { id: number } | undefined;
    if (!run) throw new EnvproofError(`${this.file}: no run ${key.agent} ${key.taskId} ${key.language} #${key.trial} to attach an evaluation to`);
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
    this.db
      .prepare(
        `INSERT OR REPLACE INTO backend_evaluations (run_id, attempt, framework, level, constraints, passed, failure_class, root_cause,
           root_cause_note, a_lenient, a_strict, postman_pct, verifiers, assertions, postman, startup, server_log)
         VALUES (@run_id, @attempt, @framework, @level, @constraints, @passed, @failure_class, @root_cause, @root_cause_note, @a_lenient,
           @a_strict, @postman_pct, @verifiers, @assertions, @postman, @startup, @server_log)`,
      )
      .run({
        run_id: run.id,
        attempt: e.attempt,
        framework: e.framework,
        level: e.level,
        constraints: JSON.stringify(e.constraints),
        passed: e.passed ? 1 : 0,
        failure_class: e.failureClass ?? null,
        root_cause: e.rootCause ?? null,
        root_cause_note: e.rootCauseNote ?? null,
        a_lenient: e.aLenient,
        a_strict: e.aStrict,
        postman_pct: e.postmanPct ?? null,
        verifiers: json(e.verifiers),
        assertions: JSON.stringify(e.assertions),
        postman: json(e.postman),
        startup: JSON.stringify(e.startup),
        server_log: e.serverLog ?? null,
      });
  }

  /**
   * The final evaluation of every finished backend run (its last evaluated attempt), with the run's key: what the
   * backend metrics are computed from.
   */
  backendEvaluations(): (BackendEvaluationRecord & { key: RunKey })[] {
    const rows = this.db
      .prepare(
        `SELECT r.source, r.agent, r.language, r.task_id, r.trial, e.* FROM backend_evaluations e JOIN runs r ON r.id = e.run_id
         WHERE r.status = 'done' AND e.attempt = (SELECT MAX(attempt) FROM backend_evaluations x WHERE x.run_id = e.run_id)
         ORDER BY r.agent, r.task_id, r.trial`,
      )
      .all() as Record<string, unknown>[];
    const parse = (v: unknown) => (v === null ? undefined : JSON.parse(v as string));
    return rows.map((r) => ({
      key: { source: r.source as RunSource, agent: r.agent as string, language: r.language as EcosystemId, taskId: r.task_id as string, trial: r.trial as number },
      attempt: r.attempt as number,
      framework: r.framework as string,
      level: r.level as number,
      constraints: JSON.parse(r.constraints as string),
      passed: r.passed === 1,
      ...(r.failure_class === null ? {} : { failureClass: r.failure_class as string }),
      ...(r.root_cause === null ? {} : { rootCause: r.root_cause as string }),
      ...(r.root_cause_note === null ? {} : { rootCauseNote: r.root_cause_note as string }),
      aLenient: r.a_lenient as number,
      aStrict: r.a_strict as number,
      ...(r.postman_pct === null ? {} : { postmanPct: r.postman_pct as number }),
      verifiers: parse(r.verifiers),
      assertions: JSON.parse(r.assertions as string),
      postman: parse(r.postman),
      startup: JSON.parse(r.startup as string),
      ...(r.server_log === null ? {} : { serverLog: r.server_log as string }),
    }));
  }

  /** Records the judged root cause of a backend run's final evaluation. */
  setRootCause(key: RunKey, attempt: number, rootCause: string, note: string): void {
    this.db
      .prepare(
        `UPDATE backend_evaluations SET root_cause = ?, root_cause_note = ? WHERE attempt = ? AND run_id =
           (SELECT id FROM runs WHERE source = ? AND agent = ? AND language = ? AND task_id = ? AND trial = ?)`,
      )
      .run(rootCause, note, attempt, key.source, key.agent, key.language, key.taskId, key.trial);
  }

  /** The tasks of one source, or of every source. */
  tasks(source?: RunSource): StoredTask[] {
    const where = source === undefined ? '' : 'WHERE source = ?';
    const rows = this.db.prepare(`SELECT source, id, title, domain, complexity FROM tasks ${where} ORDER BY source, id`).all(...(source === undefined ? [] : [source])) as {
      source: RunSource;
      id: string;
      title: string | null;
      domain: string;
      complexity: string | null;
    }[];
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

  close(): void {
    this.db.close();
  }
}
