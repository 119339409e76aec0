// Migrations run per schema: two deployments (or test runs) sharing one PostgreSQL database in
// different schemas each get their own bookkeeping and tables.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { DIALECTS, createTestDatabase, underMigrationLock } from '../support/dialects.js';

describe.each(DIALECTS)('migrations (%s)', (dialect) => {
  it('bring two databases (schemas) to the latest version independently', async () => {
    const first = await createTestDatabase(dialect);
    const second = await createTestDatabase(dialect);
    const a = openDatabase(first.url);
    const b = openDatabase(second.url);
    try {
      const ranA = await migrateToLatest(a.db);
      const ranB = await migrateToLatest(b.db);
      expect(ranA.results?.map((r) => r.migrationName)).toEqual(Object.keys(migrations));
      expect(ranB.results?.map((r) => r.migrationName)).toEqual(Object.keys(migrations));
      expect((await migrateToLatest(a.db)).results).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await first.drop();
      await second.drop();
    }
  });
});

describe.skipIf(!DIALECTS.includes('postgres'))('migrations beside other schemas (postgres)', () => {
  // Kysely's Migrator lists the tables of every schema before it takes its own lock, and that
  // listing fails when another session changes tables meanwhile: "schema … does not exist",
  // "relation … does not exist", "column … of relation … does not exist". Here two lanes change
  // other schemas without pause while three fresh databases migrate one after the other.
  async function migrateBesideChurn(churn: (client: pg.Client) => Promise<void>): Promise<number> {
    const fresh = await Promise.all([1, 2, 3].map(() => createTestDatabase('postgres')));
    const clients = await Promise.all([1, 2].map(async () => {
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      return client;
    }));
    let migrating = true;
    let churned = 0;
    const lanes = clients.map(async (client) => {
      while (migrating) {
        await churn(client);
        churned += 1;
      }
    });
    try {
      for (const test of fresh) {
        const database = openDatabase(test.url);
        try {
          const ran = await migrateToLatest(database.db);
          expect(ran.results?.map((r) => r.migrationName)).toEqual(Object.keys(migrations));
        } finally {
          await database.close();
        }
      }
      migrating = false;
      await Promise.all(lanes);
      return churned;
    } finally {
      migrating = false;
      await Promise.allSettled(lanes);
      await Promise.all(clients.map((client) => client.end()));
      await Promise.all(fresh.map((test) => test.drop()));
    }
  }

  const tables = (schema: string) => Array.from({ length: 8 }, (_, n) => `create table ${schema}.t${n} (id serial primary key, a text, b text, c text);`).join(' ');
  const newSchema = () => `test_churn_${randomBytes(6).toString('hex')}`;

  it('wait for tools that take the migration lock, whatever those change', async () => {
    const schemas = new Map<pg.Client, string>();
    const churned = await migrateBesideChurn(async (client) => {
      let schema = schemas.get(client);
      if (schema === undefined) {
        schema = newSchema();
        schemas.set(client, schema);
        await underMigrationLock(client, `create schema ${schema}; ${tables(schema)}`);
      }
      // Columns that come and go, as in a migration (no schema is dropped: nothing to try again for).
      await underMigrationLock(client, Array.from({ length: 8 }, (_, n) => `alter table ${schema}.t${n} rename column a to z;`).join(' '));
      await underMigrationLock(client, Array.from({ length: 8 }, (_, n) => `alter table ${schema}.t${n} rename column z to a;`).join(' '));
    }).finally(async () => {
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      for (const schema of schemas.values()) await underMigrationLock(admin, `drop schema ${schema} cascade`);
      await admin.end();
    });
    expect(churned).toBeGreaterThan(0);
  });

  it('try again when another tenant of the database drops its schema', async () => {
    const churned = await migrateBesideChurn(async (client) => {
      const schema = newSchema();
      await client.query(`create schema ${schema}; ${tables(schema)}`);
      await client.query(`drop schema ${schema} cascade`);
    });
    expect(churned).toBeGreaterThan(0);
  });

  // Processes of one deployment starting together: one migrates, the others find nothing to do.
  it('run once when several processes migrate the same database at once', async () => {
    const shared = await createTestDatabase('postgres');
    const opened = [1, 2, 3].map(() => openDatabase(shared.url));
    try {
      const counts = (await Promise.all(opened.map((database) => migrateToLatest(database.db)))).map((result) => result.results?.length ?? 0);
      expect(counts.sort((a, b) => a - b)).toEqual([0, 0, Object.keys(migrations).length]);
    } finally {
      await Promise.all(opened.map((database) => database.close()));
      await shared.drop();
    }
  });
});
