/**
 * The results store on PostgreSQL (node-postgres), shared by workers on any number of machines. The schema version
 * is kept in `envproof_schema`; migrations take an advisory lock, so that workers starting together migrate once.
 * A connection lost after the store was opened is waited for: each call (a whole transaction, so nothing is
 * recorded half) is tried again until the server is back or `reconnectSec` have passed.
 */
import pg from 'pg';
import { EnvproofError, errorMessage } from '../core/errors.js';
import type { Migration } from './schema.js';
import { ddlFor, postgresPlaceholders, type Queryable, type SqlDatabase, type SqlValue } from './sql.js';

/** Any number, as long as every envproof uses the same one. */
const MIGRATION_LOCK = 0x656e7670;

/** node-postgres and server error codes that mean the server went away or is not accepting connections yet. */
const CONNECTION_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001']);

function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  if (code !== undefined) return CONNECTION_ERRORS.has(code);
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(errorMessage(err));
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

function queryable(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    all: async <T>(sql: string, params: readonly SqlValue[] = []) => (await client.query(postgresPlaceholders(sql), params as SqlValue[])).rows as T[],
    run: async (sql: string, params: readonly SqlValue[] = []) => void (await client.query(postgresPlaceholders(sql), params as SqlValue[])),
    exec: async (script: string) => void (await client.query(script)),
  };
}

export interface PostgresOptions {
  /** How long a lost connection is waited for before a call fails, seconds. */
  reconnectSec: number;
  /** Called when the server is lost and when it is back. */
  onConnection?(message: string): void;
  /** Every session read-only (the server refuses any write), for readers such as `envproof view`. */
  readonly?: boolean;
}

export class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly location: string;
  private readonly direct: Queryable;

  private constructor(
    url: string,
    private readonly pool: pg.Pool,
    private readonly opts: PostgresOptions,
  ) {
    this.location = redactUrl(url);
    this.direct = queryable(pool);
  }

  /** Connects once to check that the server is there: an unreachable store is an error at start, not later. */
  static async open(url: string, opts: PostgresOptions): Promise<PostgresDatabase> {
    const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 10_000, ...(opts.readonly ? { options: '-c default_transaction_read_only=on' } : {}) });
    // An idle connection the server drops must not crash the process; the next call reconnects.
    pool.on('error', () => {});
    try {
      await pool.query('SELECT 1');
    } catch (err) {
      await pool.end().catch(() => {});
      throw new EnvproofError(`cannot reach the PostgreSQL results store ${redactUrl(url)}: ${errorMessage(err)}`, 'Check that the server runs and the URL (postgres://user@host:port/database) is right.');
    }
    return new PostgresDatabase(url, pool, opts);
  }

  /** Runs `call`, waiting for the server and trying again while its connection is lost. */
  private async retrying<T>(call: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.opts.reconnectSec * 1000;
    let delayMs = 250;
    let lost = false;
    for (;;) {
      try {
        const value = await call();
        if (lost) this.opts.onConnection?.(`the results store ${this.location} is back`);
        return value;
      } catch (err) {
        if (!isConnectionError(err) || Date.now() > deadline) throw err;
        if (!lost) this.opts.onConnection?.(`lost the results store ${this.location} (${errorMessage(err)}); waiting for it`);
        lost = true;
        await new Promise((r) => setTimeout(r, delayMs));
        delayMs = Math.min(delayMs * 2, 5000);
      }
    }
  }

  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]> {
    return this.retrying(() => this.direct.all<T>(sql, params));
  }

  run(sql: string, params?: readonly SqlValue[]): Promise<void> {
    return this.retrying(() => this.direct.run(sql, params));
  }

  exec(script: string): Promise<void> {
    return this.retrying(() => this.direct.exec(script));
  }

  /** The whole transaction is tried again after a lost connection: the store's writes are idempotent upserts. */
  transaction<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    return this.retrying(async () => {
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const value = await work(queryable(client));
        await client.query('COMMIT');
        return value;
      } catch (err) {
        broken = isConnectionError(err);
        if (!broken) await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release(broken);
      }
    });
  }

  schemaVersion(): Promise<number> {
    return this.retrying(() => versionOf(this.direct));
  }

  async hasTables(): Promise<boolean> {
    return (await this.all(`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() LIMIT 1`)).length > 0;
  }

  async migrate(target: number, steps: (from: number) => readonly Migration[]): Promise<void> {
    await this.transaction(async (q) => {
      await q.run('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK]);
      const from = await versionOf(q);
      if (from >= target) return;
      for (const m of steps(from)) await q.exec(ddlFor('postgres', m));
      await q.exec('CREATE TABLE IF NOT EXISTS envproof_schema (version INTEGER NOT NULL); DELETE FROM envproof_schema;');
      await q.run('INSERT INTO envproof_schema (version) VALUES (?)', [target]);
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

async function versionOf(q: Queryable): Promise<number> {
  const table = await q.all(`SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'envproof_schema'`);
  if (table.length === 0) return 0;
  const rows = await q.all<{ version: number }>('SELECT version FROM envproof_schema');
  return rows[0]?.version ?? 0;
}
