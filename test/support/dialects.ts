// The databases every storage-touching suite runs against: SQLite always, PostgreSQL when
// TEST_DATABASE_URL is set (CI sets it). Each test database is fresh: a temporary SQLite file or
// a new PostgreSQL schema, dropped afterwards, since CI shares the server with development.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MIGRATION_LOCK, migrateToLatest, openDatabase, type Database } from '../../src/db/database.js';

export type TestDialect = 'sqlite' | 'postgres';

export const DIALECTS: TestDialect[] = process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export interface TestDatabase {
  dialect: TestDialect;
  url: string;
  drop(): Promise<void>;
}

/** `postgresUrl` names the server for PostgreSQL schemas (default: TEST_DATABASE_URL). */
export async function createTestDatabase(dialect: TestDialect, postgresUrl = process.env.TEST_DATABASE_URL): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
    return { dialect, url: `sqlite:${join(dir, 'test.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (!postgresUrl) throw new Error('TEST_DATABASE_URL is not set');
  const base = postgresUrl;
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    dialect,
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      // Not while a migration lists every schema's tables (migrate in database.ts).
      await underMigrationLock(client, `drop schema if exists ${schema} cascade`);
      await client.end();
    },
  };
}

/** Runs `statement` holding the advisory lock every switchboard migration holds on PostgreSQL. */
export async function underMigrationLock(client: pg.Client, statement: string): Promise<void> {
  await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    await client.query(statement);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
  }
}

/** A fresh test database of `dialect`, opened and migrated: for storage suites without a server. */
export async function openMigratedTestDatabase(dialect: TestDialect): Promise<{ testDatabase: TestDatabase; database: Database }> {
  const testDatabase = await createTestDatabase(dialect);
  const database = openDatabase(testDatabase.url);
  await migrateToLatest(database.db);
  return { testDatabase, database };
}

/** Closes and drops what openMigratedTestDatabase opened (either may be missing after a failed start). */
export async function closeTestDatabase(opened: { testDatabase?: TestDatabase; database?: Database }): Promise<void> {
  await opened.database?.close();
  await opened.testDatabase?.drop();
}
