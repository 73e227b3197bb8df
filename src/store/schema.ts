/** The results store's SQLite schema (documented in docs/store.md). Bump SCHEMA_VERSION on any change and migrate. */

export const SCHEMA_VERSION = 1;

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
