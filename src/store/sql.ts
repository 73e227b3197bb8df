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

/**
 * `INSERT INTO table (columns) VALUES (?, …)`, updating the other columns of a row whose `key` columns are taken:
 * the one upsert both dialects understand. Parameters are positional, in the order of `columns`.
 */
export function insertStatement(table: string, columns: readonly string[], key: readonly string[]): string {
  const others = columns.filter((c) => !key.includes(c));
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
ON CONFLICT (${key.join(', ')}) DO ${others.length ? `UPDATE SET ${others.map((c) => `${c} = excluded.${c}`).join(', ')}` : 'NOTHING'}`;
}

/** A value as a JSON text column; null and undefined as NULL. */
export function jsonOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** A JSON text column's value; NULL as null. */
export function parseJson<T>(value: unknown): T {
  return (value === null ? null : JSON.parse(value as string)) as T;
}

/** Rows per multi-row INSERT: few round trips, and well under both databases' limits on parameters. */
const ROWS_PER_INSERT = 200;

/**
 * Inserts many rows, skipping those whose key is taken, in multi-row statements (one round trip per
 * `ROWS_PER_INSERT` rows rather than per row, which is what PostgreSQL over a network needs).
 */
export async function insertNew(q: Queryable, table: string, columns: readonly string[], rows: readonly SqlValue[][]): Promise<void> {
  const row = `(${columns.map(() => '?').join(', ')})`;
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    await q.run(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${chunk.map(() => row).join(', ')} ON CONFLICT DO NOTHING`, chunk.flat());
  }
}
