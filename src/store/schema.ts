/**
 * The results store's schema (documented in docs/store.md), as migrations that both backends apply: each is written
 * in the SQL that SQLite and PostgreSQL share, with the few type names that differ translated by `ddlFor`
 * (src/store/sql.ts); a step that PostgreSQL must do differently says so in `postgres`. Any change to the tables
 * appends a migration; the schema version is the last migration's.
 */

export const SCHEMA_V1 = `
CREATE TABLE runs (
  id                 INTEGER PRIMARY KEY,
  source             TEXT    NOT NULL CHECK (source IN ('envgap-csv', 'envproof')),
  agent              TEXT    NOT NULL,
  language           TEXT    NOT NULL CHECK (language IN ('python', 'java', 'javascript', 'cpp')),
  task_id            TEXT    NOT NULL,
  trial              INTEGER NOT NULL CHECK (trial >= 1),
  is_primary         INTEGER NOT NULL CHECK (is_primary IN (0, 1)),
  first_success      INTEGER NOT NULL CHECK (first_success IN (0, 1)),
  final_success      INTEGER NOT NULL CHECK (final_success IN (0, 1)),
  repair_depth       INTEGER,
  initial_error_type TEXT,
  d1                 TEXT    NOT NULL,
  d2                 TEXT    NOT NULL,
  d3                 TEXT    NOT NULL,
  claimed_count      INTEGER,
  transitive_count   INTEGER,
  raw                TEXT,
  origin             TEXT,
  updated_at         TEXT    NOT NULL,
  UNIQUE (source, agent, language, task_id, trial)
);

CREATE TABLE attempts (
  run_id        INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  attempt       INTEGER NOT NULL CHECK (attempt >= 0),
  tree_hash     TEXT,
  manifest_path TEXT,
  manifest      TEXT,
  success       INTEGER NOT NULL CHECK (success IN (0, 1)),
  error_class   TEXT,
  error_tail    TEXT,
  started_at    TEXT,
  duration_ms   INTEGER,
  tokens_in     INTEGER,
  tokens_out    INTEGER,
  cost_usd      REAL,
  PRIMARY KEY (run_id, attempt)
);

CREATE TABLE tasks (
  id         TEXT PRIMARY KEY,
  title      TEXT,
  domain     TEXT NOT NULL,
  complexity TEXT
);
`;

/**
 * Version 2, for `envproof run`: a run's status (a run being recorded is `running` until it ends; only `done`
 * runs enter the metrics; `infrastructure-failed` runs are never the agent's), the failing step and the agent's
 * note per attempt, and the content-addressed project trees of the attempts.
 */
export const MIGRATE_V1_TO_V2 = `
ALTER TABLE runs ADD COLUMN status TEXT NOT NULL DEFAULT 'done' CHECK (status IN ('running', 'done', 'infrastructure-failed'));
ALTER TABLE attempts ADD COLUMN step TEXT;
ALTER TABLE attempts ADD COLUMN note TEXT;
ALTER TABLE attempts ADD COLUMN phases TEXT;

CREATE TABLE blobs (
  hash    TEXT PRIMARY KEY,
  content BLOB NOT NULL
);

CREATE TABLE tree_entries (
  tree_hash  TEXT    NOT NULL,
  path       TEXT    NOT NULL,
  kind       TEXT    NOT NULL CHECK (kind IN ('file', 'symlink')),
  executable INTEGER NOT NULL CHECK (executable IN (0, 1)),
  blob       TEXT    NOT NULL REFERENCES blobs (hash),
  PRIMARY KEY (tree_hash, path)
);
`;

const LANGUAGE_CHECK_V1 = "CHECK (language IN ('python', 'java', 'javascript', 'cpp'))";

/**
 * SQLite can drop neither a NOT NULL nor a CHECK: `runs` is rebuilt as `runs_<version>` (d1 nullable, the language
 * column as given, the same ids, so that attempts keep their run) and renamed back.
 */
function rebuildRuns(version: number, languageCheck: string): string {
  const table = `runs_v${version}`;
  const columns = `id, source, agent, language, task_id, trial, is_primary, first_success, final_success, repair_depth,
  initial_error_type, d1, d2, d3, claimed_count, transitive_count, raw, origin, updated_at, status`;
  return `
CREATE TABLE ${table} (
  id                 INTEGER PRIMARY KEY,
  source             TEXT    NOT NULL CHECK (source IN ('envgap-csv', 'envproof')),
  agent              TEXT    NOT NULL,
  language           TEXT    NOT NULL${languageCheck && ` ${languageCheck}`},
  task_id            TEXT    NOT NULL,
  trial              INTEGER NOT NULL CHECK (trial >= 1),
  is_primary         INTEGER NOT NULL CHECK (is_primary IN (0, 1)),
  first_success      INTEGER NOT NULL CHECK (first_success IN (0, 1)),
  final_success      INTEGER NOT NULL CHECK (final_success IN (0, 1)),
  repair_depth       INTEGER,
  initial_error_type TEXT,
  d1                 TEXT,
  d2                 TEXT    NOT NULL,
  d3                 TEXT    NOT NULL,
  claimed_count      INTEGER,
  transitive_count   INTEGER,
  raw                TEXT,
  origin             TEXT,
  updated_at         TEXT    NOT NULL,
  status             TEXT    NOT NULL DEFAULT 'done' CHECK (status IN ('running', 'done', 'infrastructure-failed')),
  UNIQUE (source, agent, language, task_id, trial)
);
INSERT INTO ${table} (${columns}) SELECT ${columns} FROM runs;
DROP TABLE runs;
ALTER TABLE ${table} RENAME TO runs;
`;
}

/**
 * Version 3, honest accounting (issue 9):
 * - `runs.d1` may be null: the first manifest M(0) could not be read, so what was declared is unknown (not empty);
 *   SQLite cannot drop a NOT NULL constraint, so the table is rebuilt (same ids, so attempts keep their run);
 * - `attempts.sandbox`: the backend the attempt ran in;
 * - `tasks` keyed by source, so that importing one source's tasks never changes another's domains. A v2 store did
 *   not record whose tasks it held: they are given to both sources.
 * Run with foreign keys off (the rebuild drops `runs`, which would otherwise cascade to `attempts`).
 */
const MIGRATE_V2_TO_V3 = `
ALTER TABLE attempts ADD COLUMN sandbox TEXT;

CREATE TABLE tasks_v3 (
  source     TEXT NOT NULL CHECK (source IN ('envgap-csv', 'envproof')),
  id         TEXT NOT NULL,
  title      TEXT,
  domain     TEXT NOT NULL,
  complexity TEXT,
  PRIMARY KEY (source, id)
);
INSERT INTO tasks_v3 (source, id, title, domain, complexity)
  SELECT s.source, t.id, t.title, t.domain, t.complexity
  FROM tasks t CROSS JOIN (SELECT 'envgap-csv' AS source UNION ALL SELECT 'envproof') s;
DROP TABLE tasks;
ALTER TABLE tasks_v3 RENAME TO tasks;
`;

/**
 * Version 4, for the `backend` suite: one behavioural evaluation per executed attempt of a backend task — the
 * task's framework, level and constraints, the verdicts, the scores (A% lenient and strict, the Postman share),
 * the coarse failure class and the judged root cause, every assertion's result, the server's log.
 */
const MIGRATE_V3_TO_V4 = `
CREATE TABLE backend_evaluations (
  run_id        INTEGER NOT NULL,
  attempt       INTEGER NOT NULL CHECK (attempt >= 0),
  framework     TEXT    NOT NULL,
  level         INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3),
  constraints   TEXT    NOT NULL,
  passed        INTEGER NOT NULL CHECK (passed IN (0, 1)),
  failure_class TEXT,
  root_cause    TEXT,
  root_cause_note TEXT,
  a_lenient     REAL    NOT NULL,
  a_strict      REAL    NOT NULL,
  postman_pct   REAL,
  verifiers     TEXT,
  assertions    TEXT    NOT NULL,
  postman       TEXT,
  startup       TEXT    NOT NULL,
  server_log    TEXT,
  PRIMARY KEY (run_id, attempt),
  FOREIGN KEY (run_id, attempt) REFERENCES attempts (run_id, attempt) ON DELETE CASCADE
);
`;

/**
 * Version 6, `envproof repro --corpus` (issue 12): one row per corpus instance (a patch re-run k times with and
 * without the shim, and its unpatched baseline), and every run it made. An instance is `running` until all its runs
 * are recorded; a resumed corpus run starts a `running` instance again from scratch.
 */
const MIGRATE_V5_TO_V6 = `
CREATE TABLE repro_instances (
  corpus            TEXT    NOT NULL,
  instance_id       TEXT    NOT NULL,
  repo              TEXT    NOT NULL,
  commit_id         TEXT    NOT NULL,
  command           TEXT    NOT NULL,
  kind              TEXT,
  recorded_at       TEXT    NOT NULL,
  rerun_at          TEXT    NOT NULL,
  status            TEXT    NOT NULL CHECK (status IN ('running', 'done')),
  k                 INTEGER NOT NULL CHECK (k >= 1),
  verdict           TEXT    CHECK (verdict IN ('reproducible', 'flaky', 'broken')),
  rate              REAL,
  shim_verdict      TEXT    CHECK (shim_verdict IN ('reproducible', 'flaky', 'broken')),
  shim_rate         REAL,
  overhead_ratio    REAL,
  baseline_verdict  TEXT    CHECK (baseline_verdict IN ('reproducible', 'flaky', 'broken')),
  baseline_rate     REAL,
  causes            TEXT,
  updated_at        TEXT    NOT NULL,
  PRIMARY KEY (corpus, instance_id)
);

CREATE TABLE repro_runs (
  corpus       TEXT    NOT NULL,
  instance_id  TEXT    NOT NULL,
  seq          INTEGER NOT NULL CHECK (seq >= 0),
  arm          TEXT    NOT NULL CHECK (arm IN ('patched', 'baseline')),
  role         TEXT    NOT NULL,
  variation    TEXT    NOT NULL,
  outcome      TEXT    NOT NULL,
  matches      INTEGER NOT NULL CHECK (matches IN (0, 1)),
  duration_ms  INTEGER NOT NULL,
  install_ms   INTEGER NOT NULL,
  PRIMARY KEY (corpus, instance_id, seq),
  FOREIGN KEY (corpus, instance_id) REFERENCES repro_instances (corpus, instance_id) ON DELETE CASCADE
);
`;

/**
 * Version 7, a run you can follow (issue 23): why a run was set aside (`runs.status_reason`: the last infrastructure
 * failure, e.g. "the chat-completions endpoint answered HTTP 503 …"), and each attempt's transcript: what the agent
 * said (`agent_output`: a command-line agent's standard output, an HTTP agent's reply text), a command-line agent's
 * standard error (`agent_stderr`), and what the program printed when it ran (`program_output`), successful or not.
 */
const MIGRATE_V6_TO_V7 = `
ALTER TABLE runs ADD COLUMN status_reason TEXT;
ALTER TABLE attempts ADD COLUMN agent_output TEXT;
ALTER TABLE attempts ADD COLUMN agent_stderr TEXT;
ALTER TABLE attempts ADD COLUMN program_output TEXT;
`;

/** Version 8, `envproof view` (issue 25): the prompt each attempt's agent was sent (the task, or the repair prompt), bounded. */
const MIGRATE_V7_TO_V8 = `
ALTER TABLE attempts ADD COLUMN prompt TEXT;
`;

export interface Migration {
  /** The schema version this migration leads to. */
  version: number;
  /** Statements in the SQL both backends share (type names translated for PostgreSQL). */
  sql: string;
  /** What PostgreSQL runs instead, where it must differ. */
  postgres?: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, sql: SCHEMA_V1 },
  { version: 2, sql: MIGRATE_V1_TO_V2 },
  // PostgreSQL can drop a NOT NULL constraint; rebuilding `runs` there would drop the attempts' foreign key with it.
  { version: 3, sql: rebuildRuns(3, LANGUAGE_CHECK_V1) + MIGRATE_V2_TO_V3, postgres: 'ALTER TABLE runs ALTER COLUMN d1 DROP NOT NULL;\n' + MIGRATE_V2_TO_V3 },
  { version: 4, sql: MIGRATE_V3_TO_V4 },
  // Version 5: `runs.language` loses its CHECK of four language names, so that runs of any registered ecosystem (Go,
  // the fifth) can be stored; envproof checks the language before it stores a run. PostgreSQL drops the CHECK by its
  // name (a column constraint's default name) instead of rebuilding.
  { version: 5, sql: rebuildRuns(5, ''), postgres: 'ALTER TABLE runs DROP CONSTRAINT runs_language_check;\n' },
  { version: 6, sql: MIGRATE_V5_TO_V6 },
  { version: 7, sql: MIGRATE_V6_TO_V7 },
  { version: 8, sql: MIGRATE_V7_TO_V8 },
];

export const SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;
