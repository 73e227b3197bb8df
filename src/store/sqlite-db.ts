/**
 * The results store on one SQLite file (better-sqlite3), in WAL mode with foreign keys on. better-sqlite3 is
 * synchronous; the store's interface is asynchronous (for PostgreSQL), so a transaction here holds a lock that the
 * store's other calls wait for: concurrent runs in one process never write inside another's transaction.
 */
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EnvproofError, errorMessage } from '../core/errors.js';
import type { Migration } from './schema.js';
import { ddlFor, type Queryable, type SqlDatabase, type SqlValue } from './sql.js';

/**
 * SQLite's errors that say what is wrong with the file itself, as an error naming the file; any other unchanged.
 * A file that is not a database, one with damaged pages and one that cannot be written are the user's to fix.
 */
function fileError(file: string, err: unknown): unknown {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return err;
  if (code === 'SQLITE_NOTADB') return new EnvproofError(`${file} is not an envproof store (not a SQLite database)`, 'give the path of an envproof results store with --store');
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new EnvproofError(`${file} is damaged (${errorMessage(err)})`, `run \`sqlite3 ${file} .recover\` to save what can still be read, into a new file`);
  }
  if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM') {
    return new EnvproofError(`${file} is read-only (${errorMessage(err)})`, 'give a store envproof may write (--store), or make this one writable');
  }
  return err;
}

/** Whether the file and its directory (where SQLite puts the WAL file) can be written. */
function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    accessSync(path.dirname(path.resolve(file)), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export class SqliteDatabase implements SqlDatabase {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Database.Statement>();
  /** Set while a transaction is in progress; settles when it has ended. */
  private busy: Promise<void> | undefined;
  private readonly direct: Queryable;

  private constructor(
    readonly location: string,
    private readonly db: Database.Database,
  ) {
    this.direct = {
      all: async <T>(sql: string, params: readonly SqlValue[] = []) => this.guard(() => this.allNow<T>(sql, params)),
      run: async (sql: string, params: readonly SqlValue[] = []) => this.guard(() => void this.prepare(sql).run(...params)),
      exec: async (script: string) => this.guard(() => void this.db.exec(script)),
    };
  }

  /** Opens (creating unless `mustExist`) the file; `readonly` opens it without writing anything. */
  static open(file: string, opts: { readonly: boolean; mustExist: boolean }): SqliteDatabase {
    try {
      if (!opts.mustExist) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      const db = new Database(file, { readonly: opts.readonly, fileMustExist: opts.mustExist });
      try {
        if (!opts.readonly) {
          db.pragma('journal_mode = WAL');
          db.pragma('foreign_keys = ON');
        }
        // Reads the header: a file that is not a database is refused here, before any command uses it.
        db.pragma('schema_version');
      } catch (err) {
        db.close();
        throw err;
      }
      return new SqliteDatabase(file, db);
    } catch (err) {
      const known = fileError(file, err);
      if (known !== err) throw known;
      // On a read-only file system SQLite cannot make the WAL file: it says only "unable to open database file".
      // Reading needs it too: a WAL store is read through its -shm file, which SQLite must be able to create.
      if (existsSync(file) && !writable(file)) {
        if (opts.readonly) throw new EnvproofError(`${file} cannot be read where it is: its directory cannot be written (SQLite needs its -shm file beside it)`, 'copy the store to a writable directory and pass that copy with --store');
        throw fileError(file, Object.assign(new Error('its file system or directory cannot be written'), { code: 'SQLITE_READONLY' }));
      }
      throw new EnvproofError(
        `cannot open the results store ${file}: ${errorMessage(err)}`,
        opts.mustExist ? 'Import data first (envproof import envgap-csv <dir>) or pass --store <path>.' : undefined,
      );
    }
  }

  private guard<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      throw fileError(this.location, err);
    }
  }

  private prepare(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  private allNow<T>(sql: string, params: readonly SqlValue[]): T[] {
    const statement = this.prepare(sql);
    if (statement.reader) return statement.all(...params) as T[];
    statement.run(...params);
    return [];
  }

  /** Waits until no transaction is in progress; what follows without an await runs outside any. */
  private async idle(): Promise<void> {
    while (this.busy) await this.busy;
  }

  async all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    await this.idle();
    return this.guard(() => this.allNow<T>(sql, params));
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<void> {
    await this.idle();
    this.guard(() => this.prepare(sql).run(...params));
  }

  async exec(script: string): Promise<void> {
    await this.idle();
    this.guard(() => this.db.exec(script));
  }

  async transaction<T>(work: (q: Queryable) => Promise<T>): Promise<T> {
    await this.idle();
    let release!: () => void;
    this.busy = new Promise((resolve) => (release = resolve));
    try {
      this.db.exec('BEGIN IMMEDIATE');
      const value = await work(this.direct);
      this.db.exec('COMMIT');
      return value;
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw fileError(this.location, err);
    } finally {
      this.busy = undefined;
      release();
    }
  }

  async schemaVersion(): Promise<number> {
    await this.idle();
    return this.guard(() => this.db.pragma('user_version', { simple: true }) as number);
  }

  async hasTables(): Promise<boolean> {
    return (await this.all('SELECT 1 FROM sqlite_master LIMIT 1')).length > 0;
  }

  async migrate(target: number, steps: (from: number) => readonly Migration[]): Promise<void> {
    await this.idle();
    // Migrations may rebuild tables: with foreign keys on, dropping the old `runs` would delete every attempt.
    this.db.pragma('foreign_keys = OFF');
    try {
      this.guard(() => this.db.transaction(() => {
        for (const m of steps(this.db.pragma('user_version', { simple: true }) as number)) this.db.exec(ddlFor('sqlite', m));
        if ((this.db.pragma('foreign_key_check') as unknown[]).length > 0) {
          throw new EnvproofError(`${this.location}: migrating the store broke its references; it was left unchanged`);
        }
        this.db.pragma(`user_version = ${target}`);
      }).immediate());
    } finally {
      this.db.pragma('foreign_keys = ON');
    }
  }

  async close(): Promise<void> {
    await this.idle();
    this.db.close();
  }
}
