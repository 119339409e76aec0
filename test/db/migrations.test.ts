// Migrations run per schema: two deployments (or test runs) sharing one PostgreSQL database in
// different schemas each get their own bookkeeping and tables.
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { DIALECTS, createTestDatabase } from '../support/dialects.js';

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
