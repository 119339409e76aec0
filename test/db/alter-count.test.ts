// The systems' alter counts (migration 2026-11-27T00-alter-count), on every dialect: backfilled from
// the alters a database already has, then kept by triggers through every kind of write to the
// table: one-row and many-row inserts and deletes, an alter moved to another system, and the
// cascade from a deleted system. After each step every count equals a count(*) of the rows.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest, type Database } from '../../src/db/database.js';
import { DIALECTS } from '../support/dialects.js';
import { insertSystem, migrateTo, migrationBefore, openDatabaseAt, type DatabaseAt } from '../support/migrations.js';

const PREVIOUS = migrationBefore('2026-11-27T00-alter-count');

describe.each(DIALECTS)('alter counts (%s)', (dialect) => {
  let opened: DatabaseAt | undefined;
  let database: Database;
  let db: Kysely<any>;
  const now = Date.now();
  let serial = 0;

  beforeEach(async () => {
    opened = await openDatabaseAt(dialect, PREVIOUS);
    ({ database, db } = opened);
  });
  afterEach(async () => opened?.close());

  const system = (userId: string) => insertSystem(db, userId, now);

  /** `count` alters of the system in one statement; their ids. */
  async function alters(systemId: number, count: number): Promise<number[]> {
    const rows = Array.from({ length: count }, () => {
      const name = `a${serial++}`;
      return { system_id: systemId, username: name, username_key: name, display_name: name, created_at: now };
    });
    return (await db.insertInto('alters').values(rows).returning('id').execute()).map((row) => Number(row.id));
  }

  /** Each system's stored count beside a count of its rows. */
  async function counts(): Promise<Array<{ id: number; stored: number; actual: number }>> {
    const rows = await db
      .selectFrom('systems')
      .select(['id', 'alter_count', (eb) => eb.selectFrom('alters').select((inner) => inner.fn.countAll().as('n')).whereRef('alters.system_id', '=', 'systems.id').as('actual')])
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ id: Number(row.id), stored: Number(row.alter_count), actual: Number(row.actual) }));
  }

  async function expectCounts(expected: Record<number, number>): Promise<void> {
    const rows = await counts();
    for (const row of rows) expect(row.stored, `system ${row.id}`).toBe(row.actual);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.stored]))).toEqual(expected);
  }

  it('backfills the counts of a database that already has alters', async () => {
    const busy = await system('610000000000000001');
    const empty = await system('610000000000000002');
    await alters(busy, 3);
    await alters(busy, 1);

    await migrateToLatest(database.db);
    await expectCounts({ [busy]: 4, [empty]: 0 });
  });

  it('keeps the counts through inserts, deletes, moves and a deleted system', async () => {
    await migrateToLatest(database.db);
    const first = await system('610000000000000011');
    const second = await system('610000000000000012');
    const third = await system('610000000000000013');

    const [one] = await alters(first, 1);
    const many = await alters(second, 25);
    await alters(third, 2);
    await expectCounts({ [first]: 1, [second]: 25, [third]: 2 });

    await db.deleteFrom('alters').where('id', 'in', many.slice(0, 10)).execute();
    await db.deleteFrom('alters').where('id', '=', one).execute();
    await expectCounts({ [first]: 0, [second]: 15, [third]: 2 });

    // An edit that keeps the system leaves the counts; one that moves the alter moves its count.
    await db.updateTable('alters').set({ display_name: 'renamed' }).where('id', 'in', many.slice(10)).execute();
    await db.updateTable('alters').set({ system_id: first }).where('id', 'in', many.slice(10, 13)).execute();
    await expectCounts({ [first]: 3, [second]: 12, [third]: 2 });

    // Deleting a system deletes its alters by cascade: the other systems' counts stay right.
    await db.deleteFrom('alter_fields').execute();
    await db.deleteFrom('systems').where('id', '=', second).execute();
    await expectCounts({ [first]: 3, [third]: 2 });
  });

  it('is undone by the migration down', async () => {
    await migrateToLatest(database.db);
    await migrateTo(db, PREVIOUS);
    const systemId = await system('610000000000000021');
    await alters(systemId, 2);
    // Asked of this database alone (Kysely's introspection would list every PostgreSQL schema's tables).
    await expect(db.selectFrom('systems').select('alter_count').execute()).rejects.toThrow(/alter_count/);
  });
});
