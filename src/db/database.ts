// Opens the database named by DATABASE_URL: embedded SQLite (better-sqlite3, WAL) by default or
// PostgreSQL (pg pool). Everything above this module talks Kysely and never asks which it got,
// except where a dialect difference is a fact of life (error codes, see errors.ts).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, SqliteDialect, sql, type MigrationResultSet } from 'kysely';
import type pg from 'pg';
import { withChangeNotes } from './changes/dialect.js';
import { PostgresListenerWatch, SqliteDataVersionWatch, type ChangeWatch, type ListenerLog } from './changes/remote.js';
import { migrations } from './migrations/index.js';
import { loadPg } from './pg.js';
import type { Schema } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<Schema>;
  dialect: Dialect;
  /** Runs a trivial query; rejects when the database cannot be reached. */
  ping(): Promise<void>;
  /**
   * What caches need to stay exact across processes (changes/remote.ts), started on first use so
   * that short-lived processes (the CLI) open no listener they would never read. `log` (first call
   * only) hears the PostgreSQL listener losing and regaining its connection.
   */
  changes(log?: ListenerLog): ChangeWatch;
  close(): Promise<void>;
}

export function openDatabase(url: string): Database {
  return url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length)) : openPostgres(url);
}

/** The watch, created on first use and closed with the database. */
function lazyWatch(create: (log?: ListenerLog) => ChangeWatch) {
  let watch: ChangeWatch | undefined;
  return {
    get: (log?: ListenerLog) => (watch ??= create(log)),
    close: async () => watch?.close(),
  };
}

function openSqlite(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new SqliteDatabase(path);
  connection.pragma('journal_mode = WAL');
  // FULL: a commit that was acknowledged survives power loss, not only a process crash.
  connection.pragma('synchronous = FULL');
  connection.pragma('foreign_keys = ON');
  connection.pragma('busy_timeout = 5000');
  const db = new Kysely<Schema>({
    dialect: withChangeNotes(new SqliteDialect({ database: withStatementCache(connection) }), { sendToDatabase: false }),
  });
  const watch = lazyWatch(() => new SqliteDataVersionWatch(connection));
  return {
    db,
    dialect: 'sqlite',
    async ping() {
      await sql`select 1`.execute(db);
    },
    changes: watch.get,
    async close() {
      await watch.close();
      await db.destroy();
    },
  };
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely prepares every query anew; compiling SQL was the largest single cost of a request in a
 * CPU profile of the point-read benchmark. The app issues a few dozen distinct queries, so prepared statements
 * are kept by SQL text (better-sqlite3 statements are reusable; Kysely only calls all/run on them).
 */
function withStatementCache(connection: SqliteDatabase.Database) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => connection.close(),
    prepare(query: string) {
      let statement = statements.get(query);
      if (!statement) {
        statement = connection.prepare(query);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
        statements.set(query, statement);
      }
      return statement;
    },
  };
}

// int8 and numeric columns hold epoch milliseconds, counts and ids, all far below 2^53: read
// them as numbers rather than pg's default strings.
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    const { types } = loadPg();
    if (oid === types.builtins.INT8) return (value: string) => Number(value);
    return types.getTypeParser(oid, format);
  },
};

function openPostgres(url: string): Database {
  const pool = new (loadPg().Pool)({ connectionString: url, max: 10, types: pgTypes as pg.CustomTypesConfig });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const db = new Kysely<Schema>({ dialect: withChangeNotes(new PostgresDialect({ pool }), { sendToDatabase: true }) });
  const watch = lazyWatch((log) => new PostgresListenerWatch(url, log));
  return {
    db,
    dialect: 'postgres',
    async ping() {
      await sql`select 1`.execute(db);
    },
    changes: watch.get,
    async close() {
      await watch.close();
      await db.destroy();
    },
  };
}

export async function migrateToLatest(db: Kysely<Schema>): Promise<MigrationResultSet> {
  // On PostgreSQL, name the schema of the migration bookkeeping explicitly: without it Kysely
  // looks for its tables in every schema and is fooled by another schema's (another deployment
  // or test run in the same database).
  const schema = db.getExecutor().adapter instanceof PostgresAdapter ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations }, ...(schema ? { migrationTableSchema: schema } : {}) });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
