// Each switch's `alter_list` (migration 2026-11-27T20l, set-based on PostgreSQL since
// 2026-11-29T00) against its members, after writes of every shape the triggers see: many switches'
// members in one statement, a switch written with its list already made (as an import writes it)
// or with a wrong one, members removed (some, then all), reordered, moved to another switch, and
// an alter deleted (its places cascading). Both databases (PostgreSQL with TEST_DATABASE_URL).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { usernameKey } from '../../src/domain/username-key.js';
import { closeTestDatabase, DIALECTS, openMigratedTestDatabase, type TestDatabase } from '../support/dialects.js';

describe.each(DIALECTS)('switch alter lists (%s)', (dialect) => {
  let opened: { testDatabase: TestDatabase; database: Database } | undefined;
  beforeAll(async () => {
    opened = await openMigratedTestDatabase(dialect);
  });
  afterAll(async () => {
    if (opened) await closeTestDatabase(opened);
  });

  /** Every switch of the system: its stored list, and the list its members make. */
  async function lists(database: Database, systemId: number): Promise<Array<{ id: number; stored: string; members: string }>> {
    const switches = await database.db.selectFrom('switches').select(['id', 'alter_list']).where('system_id', '=', systemId).orderBy('id').execute();
    const members = await database.db
      .selectFrom('switch_members as m')
      .innerJoin('switches as s', 's.id', 'm.switch_id')
      .select(['m.switch_id', 'm.alter_id'])
      .where('s.system_id', '=', systemId)
      .orderBy('m.switch_id')
      .orderBy('m.position')
      .execute();
    return switches.map((row) => ({
      id: Number(row.id),
      stored: row.alter_list,
      members: members
        .filter((member) => Number(member.switch_id) === Number(row.id))
        .map((member) => Number(member.alter_id))
        .join(','),
    }));
  }

  async function expectListsFollowMembers(database: Database, systemId: number): Promise<void> {
    const all = await lists(database, systemId);
    expect(all.length).toBeGreaterThan(0);
    for (const entry of all) expect(entry.stored, `switch ${entry.id}`).toBe(entry.members);
  }

  it('follow the members through every kind of write', async () => {
    const database = opened?.database as Database;
    const { db } = database;
    await db.insertInto('users').values({ id: '700000000000000001', username: 'lists', created_at: 0 }).execute();
    const system = await db.insertInto('systems').values({ user_id: '700000000000000001', name: 'Lists', created_at: 0 }).returning('id').executeTakeFirstOrThrow();
    const systemId = Number(system.id);
    const alterIds = (
      await db
        .insertInto('alters')
        .values(Array.from({ length: 6 }, (_, k) => ({ system_id: systemId, username: `l${k}`, username_key: usernameKey(`l${k}`), display_name: `L ${k}`, created_at: 0 })))
        .returning('id')
        .execute()
    ).map((row) => Number(row.id));
    const alter = (k: number) => alterIds[k] as number;

    // Ten switches, then all their members in one statement (PostgreSQL: one firing for all).
    const switchIds = (
      await db
        .insertInto('switches')
        .values(Array.from({ length: 10 }, (_, k) => ({ system_id: systemId, client_id: 'test', switched_at: 1000 + k })))
        .returning('id')
        .execute()
    ).map((row) => Number(row.id));
    const at = (k: number) => switchIds[k] as number;
    await db
      .insertInto('switch_members')
      .values(
        switchIds.flatMap((switchId, k) =>
          Array.from({ length: k % 4 }, (_, position) => ({ switch_id: switchId, alter_id: alter((k + position * 2) % 6), position })),
        ),
      )
      .execute();
    await expectListsFollowMembers(database, systemId);

    // Written with the list the members make (an import), and with a wrong one: both end right.
    await db.transaction().execute(async (trx) => {
      const [right, wrong] = await trx
        .insertInto('switches')
        .values([
          { system_id: systemId, client_id: 'test', switched_at: 2000, alter_list: `${alter(3)},${alter(1)}` },
          { system_id: systemId, client_id: 'test', switched_at: 2001, alter_list: `${alter(5)}` },
        ])
        .returning('id')
        .execute();
      await trx
        .insertInto('switch_members')
        .values([
          { switch_id: Number(right?.id), alter_id: alter(3), position: 0 },
          { switch_id: Number(right?.id), alter_id: alter(1), position: 1 },
          { switch_id: Number(wrong?.id), alter_id: alter(2), position: 0 },
        ])
        .execute();
    });
    await expectListsFollowMembers(database, systemId);

    // Some members removed, then a switch's last ones: an empty list.
    await db.deleteFrom('switch_members').where('switch_id', '=', at(3)).where('position', '=', 1).execute();
    await db.deleteFrom('switch_members').where('switch_id', '=', at(2)).execute();
    await expectListsFollowMembers(database, systemId);
    expect((await lists(database, systemId)).find((entry) => entry.id === at(2))?.stored).toBe('');

    // Reordered (positions swapped through a free one), and a member moved to another switch.
    await db.updateTable('switch_members').set({ position: 9 }).where('switch_id', '=', at(7)).where('position', '=', 0).execute();
    await db.updateTable('switch_members').set({ position: 0 }).where('switch_id', '=', at(7)).where('position', '=', 2).execute();
    await db.updateTable('switch_members').set({ position: 2 }).where('switch_id', '=', at(7)).where('position', '=', 9).execute();
    await db.updateTable('switch_members').set({ switch_id: at(4), position: 5 }).where('switch_id', '=', at(6)).where('position', '=', 1).execute();
    await expectListsFollowMembers(database, systemId);

    // An alter deleted: its places go with it.
    await db.deleteFrom('alters').where('id', '=', alter(0)).execute();
    await expectListsFollowMembers(database, systemId);
    const remaining = await sql<{ n: number | string }>`select count(*) as n from switch_members where alter_id = ${alter(0)}`.execute(db);
    expect(Number(remaining.rows[0]?.n)).toBe(0);
  });
});
