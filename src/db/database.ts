// Opens the database named by DATABASE_URL: embedded SQLite (better-sqlite3, WAL, sqlite-driver.ts) by default or
// PostgreSQL (pg pool). Everything above this module talks Kysely and never asks which it got,
// except where a dialect difference is a fact of life (error codes, see errors.ts).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, sql, type MigrationResultSet, type PostgresCursor, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { withChangeNotes } from './changes/dialect.js';
import { PostgresListenerWatch, SqliteDataVersionWatch, type ChangeWatch, type ListenerLog } from './changes/remote.js';
import { migrations } from './migrations/index.js';
import { loadPg } from './pg.js';
import { openSqliteDialect, type CommitCounts } from './sqlite-driver.js';
import { isSchemaChange } from './schema-change.js';
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
  /** SQLite: physical commits and the transactions they carried (group commit; sqlite-driver.ts). */
  commits?: CommitCounts;
  close(): Promise<void>;
}

export function openDatabase(url: string): Database {
  return url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length)) : openPostgres(url);
}

/**
 * The Database around a Kysely instance: its change watch created on first use (`createWatch`)
 * and closed with it.
 */
function databaseOver(db: Kysely<Schema>, dialect: Dialect, createWatch: (log?: ListenerLog) => ChangeWatch, commits?: CommitCounts): Database {
  let watch: ChangeWatch | undefined;
  return {
    db,
    dialect,
    ...(commits ? { commits } : {}),
    async ping() {
      await sql`select 1`.execute(db);
    },
    changes: (log?: ListenerLog) => (watch ??= createWatch(log)),
    async close() {
      await watch?.close();
      await db.destroy();
    },
  };
}

function openSqlite(path: string): Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const { dialect, connections } = openSqliteDialect(path);
  const db = new Kysely<Schema>({ dialect: withChangeNotes(dialect, { sendToDatabase: false }) });
  return databaseOver(db, 'sqlite', () => new SqliteDataVersionWatch(connections.writer), connections.commits);
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
  const db = new Kysely<Schema>({ dialect: withChangeNotes(new PostgresDialect({ pool: preparingPool(pool) }), { sendToDatabase: true }) });
  return databaseOver(db, 'postgres', (log) => new PostgresListenerWatch(url, log));
}

/** Distinct statements prepared by name on each connection; later ones run unnamed. */
const MAX_NAMED_STATEMENTS = 1000;
/** Statements with more parameters are mostly `in (…)` lists of varying length: each length would be a statement of its own. */
const MAX_NAMED_PARAMETERS = 32;

/**
 * Named prepared statements on PostgreSQL: a statement is parsed and planned once per connection,
 * then only bound and run (Kysely sends every query as text with parameters, which PostgreSQL
 * parses and plans each time). Names come from the SQL text. A schema change made through this
 * pool starts a new generation of names, so no statement runs on a plan of the old schema;
 * statements without parameters (begin, commit, DDL) stay unnamed.
 */
function preparingPool(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  let generation = 0;
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED_STATEMENTS) names.set(text, (name = `sb${generation}_${names.size}`));
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      return {
        query(query: string | PostgresCursor<unknown>, parameters?: ReadonlyArray<unknown>) {
          if (typeof query !== 'string') return client.query(query as unknown as pg.Submittable);
          if (isSchemaChange(query)) {
            generation++;
            names.clear();
          }
          const values = parameters ? [...parameters] : [];
          const name = values.length > 0 && values.length <= MAX_NAMED_PARAMETERS ? nameOf(query) : undefined;
          return client.query(name ? { name, text: query, values } : { text: query, values });
        },
        release: () => client.release(),
        // One function behind Kysely's two overloads (text and parameters, or a cursor), as pg's own client has.
      } as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}

export async function migrateToLatest(db: Kysely<Schema>): Promise<MigrationResultSet> {
  return migrate(db, (migrator) => migrator.migrateToLatest());
}

/**
 * Runs `step` with a Migrator for this database, and throws what it failed with. On PostgreSQL:
 * - the migration bookkeeping's schema is named explicitly: without it Kysely looks for its tables
 *   in every schema and is fooled by another schema's (another deployment or test run);
 * - the step holds an advisory lock of the whole database (MIGRATION_LOCK). Before it takes its own
 *   lock, Kysely's Migrator lists the tables of every schema, and that listing fails when another
 *   process changes them meanwhile ("column … does not exist" while a migration alters a table,
 *   "schema … does not exist" while a schema is dropped). So migrations of every switchboard
 *   process, of this deployment or another, run one at a time (and tools that drop schemas can
 *   take the lock too, as the tests do);
 * - a listing upset by a schema that something else dropped is tried again.
 */
export async function migrate(db: Kysely<Schema>, step: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return succeeded(await step(new Migrator({ db, provider: MIGRATIONS })));
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(connection);
    try {
      const schema = (await sql<{ schema: string }>`select current_schema() as schema`.execute(connection)).rows[0]?.schema;
      // Start-up names DATABASE_URL for this one (config/startup-errors.ts).
      if (!schema) throw Object.assign(new Error('the search_path names no schema that exists'), { code: NO_CURRENT_SCHEMA });
      const migrator = new Migrator({ db: connection, provider: MIGRATIONS, migrationTableSchema: schema });
      for (let attempt = 1; ; attempt += 1) {
        const result = await step(migrator);
        if (attempt < MIGRATION_ATTEMPTS && isOtherSchemaDropped(result.error, schema)) continue;
        return succeeded(result);
      }
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK})`.execute(connection);
    }
  });
}

/** The code of the error migrate throws when PostgreSQL's search_path names no existing schema. */
const NO_CURRENT_SCHEMA = 'NO_CURRENT_SCHEMA';

const MIGRATIONS = { getMigrations: async () => migrations };

/** The advisory lock key every switchboard migration holds on PostgreSQL ("swbd" "migr" in ASCII). */
export const MIGRATION_LOCK = 0x73776264_6d696772n;

/** With two lanes dropping schemas without pause (the test), about one listing in three failed. */
const MIGRATION_ATTEMPTS = 10;

function succeeded(result: MigrationResultSet): MigrationResultSet {
  if (result.error) throw result.error;
  return result;
}

/**
 * The listing fails naming the dropped schema (SQLSTATE 3F000) or one of its tables (42P01).
 * Nothing was written yet, so trying again is safe.
 */
function isOtherSchemaDropped(error: unknown, ownSchema: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  const named = code === '3F000' ? /^schema "([^"]+)" does not exist/.exec(error.message) : code === '42P01' ? /^relation "([^".]+)\./.exec(error.message) : null;
  return named !== null && named[1] !== ownSchema;
}
