// For tests of one migration on a database that already has data: the migration before it, moving
// a database to a given migration (on PostgreSQL its bookkeeping lives in the test's own schema), a
// fresh database at one, and the rows every such test starts from.
/* eslint-disable @typescript-eslint/no-explicit-any -- these tests write the schema of a past migration, which tables.ts no longer describes */
import type { Kysely } from 'kysely';
import { migrate, openDatabase, type Database } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createTestDatabase, type TestDialect } from './dialects.js';

/** The name of the migration that runs just before `name`. */
export function migrationBefore(name: string): string {
  const names = Object.keys(migrations);
  const index = names.indexOf(name);
  if (index < 1) throw new Error(`no migration before ${name}`);
  return names[index - 1] as string;
}

/** Migrates up or down to `name` (inclusive). */
export async function migrateTo(db: Kysely<any>, name: string): Promise<void> {
  await migrate(db, (migrator) => migrator.migrateTo(name));
}

export interface DatabaseAt {
  database: Database;
  /** The same database, typed for the past migration's schema. */
  db: Kysely<any>;
  /** Closes the database and drops it. */
  close(): Promise<void>;
}

/** A fresh database of `dialect`, migrated up to `name` (inclusive). */
export async function openDatabaseAt(dialect: TestDialect, name: string): Promise<DatabaseAt> {
  const testDatabase = await createTestDatabase(dialect);
  const database = openDatabase(testDatabase.url);
  const db = database.db as unknown as Kysely<any>;
  await migrateTo(db, name);
  return {
    database,
    db,
    close: async () => {
      await database.close();
      await testDatabase.drop();
    },
  };
}

/** A user and their system, as the first sign-in makes them; the system's id. */
export async function insertSystem(db: Kysely<any>, userId: string, now: number): Promise<number> {
  await db.insertInto('users').values({ id: userId, username: userId, created_at: now }).execute();
  const row = await db.insertInto('systems').values({ user_id: userId, name: userId, created_at: now }).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}
