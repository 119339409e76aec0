// prepareQuery (src/db/prepared.ts), on every dialect: a query is built once per dialect, each
// run puts its own values in the slots' positions, and values the builder wrote itself stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../../src/db/database.js';
import { prepareQuery } from '../../src/db/prepared.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';

describe.each(DIALECTS)('prepareQuery (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
    for (const [id, username] of [
      ['900', 'ash'],
      ['901', 'birch'],
      ['902', 'cedar'],
    ] as const) {
      await database.db.insertInto('users').values({ id, username, created_at: Number(id), last_sign_in_at: null }).execute();
    }
  });
  afterAll(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  it('builds once and runs with each call’s values, keeping the constants the builder wrote', async () => {
    let builds = 0;
    const usersBetween = prepareQuery((db, p: { from: number; to: number }) => {
      builds++;
      return db
        .selectFrom('users')
        .select(['id', 'username'])
        .where('created_at', '>=', p.from)
        .where('created_at', '<=', p.to)
        .where('username', '!=', 'birch') // a constant, not a slot
        .orderBy('id');
    });
    expect(await usersBetween(database.db, { from: 900, to: 901 })).toEqual([{ id: '900', username: 'ash' }]);
    expect(await usersBetween(database.db, { from: 901, to: 902 })).toEqual([{ id: '902', username: 'cedar' }]);
    expect(await usersBetween(database.db, { from: 0, to: 10_000 })).toEqual([
      { id: '900', username: 'ash' },
      { id: '902', username: 'cedar' },
    ]);
    // Inside a transaction too, on the same compilation.
    await database.db.transaction().execute(async (trx) => {
      expect(await usersBetween(trx, { from: 902, to: 902 })).toEqual([{ id: '902', username: 'cedar' }]);
    });
    expect(builds).toBe(1);
  });
});
