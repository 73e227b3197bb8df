/**
 * What the results store needs of a SQL database, met by SQLite (src/store/sqlite-db.ts) and PostgreSQL
 * (src/store/postgres-db.ts). Statements are written once, in the SQL both understand, with `?` placeholders;
 * the differences between the two dialects are translated here and nowhere else.
 */
import type { Migration } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export type SqlValue = string | number | null | Buffer;

export interface Queryable {
  /** Rows of a statement (a SELECT, or a write with RETURNING). */
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** A statement whose rows are not wanted. */
  run(sql: string, params?: readonly SqlValue[]): Promise<void>;
  /** Several statements without parameters (DDL). */
  exec(script: string): Promise<void>;
}

export interface SqlDatabase extends Queryable {
  readonly dialect: Dialect;
  /** Where the store is, for messages (a PostgreSQL URL without its password). */
  readonly location: string;
  /** Runs `work` in one transaction: all of its writes or none. */
  transaction<T>(work: (q: Queryable) => Promise<T>): Promise<T>;
  /** The schema version recorded in the database; 0 when it has none. */
  schemaVersion(): Promise<number>;
  /** Whether the database holds any table (a version-0 database that does is something else's). */
  hasTables(): Promise<boolean>;
  /**
   * Brings the schema from the version it has (read again under the migration's lock: another process may have
   * migrated meanwhile) to `target`, applying `steps(from)` and recording the version, in one transaction.
   */
  migrate(target: number, steps: (from: number) => readonly Migration[]): Promise<void>;
  close(): Promise<void>;
}

/** The type names PostgreSQL spells differently from SQLite. */
const POSTGRES_TYPES: readonly [RegExp, string][] = [
  [/\bINTEGER PRIMARY KEY\b/g, 'SERIAL PRIMARY KEY'],
  [/\bBLOB\b/g, 'BYTEA'],
  [/\bREAL\b/g, 'DOUBLE PRECISION'],
];

/** A migration's statements for one dialect. */
export function ddlFor(dialect: Dialect, m: Migration): string {
  if (dialect === 'sqlite') return m.sql;
  return POSTGRES_TYPES.reduce((sql, [from, to]) => sql.replace(from, to), m.postgres ?? m.sql);
}

/** `?` placeholders as PostgreSQL's `$1, $2, …` (the store's statements hold no `?` inside literals). */
export function postgresPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
