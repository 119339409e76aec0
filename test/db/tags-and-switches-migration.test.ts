// The tags-and-switches migration on a database that already has data, on every dialect: tags
// written before it get a key (later duplicates renamed, as usernames were), each old front
// record becomes a switch of one alter with its time, client and order, ids keep counting after
// the migrated ones, and going down restores the records.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/db/errors.js';
import { usernameKey } from '../../src/domain/username-key.js';
import { DIALECTS } from '../support/dialects.js';
import { insertSystem, migrateTo, migrationBefore, openDatabaseAt, type DatabaseAt } from '../support/migrations.js';

const MIGRATION = '2026-11-23T02-tags-and-switches';
const PREVIOUS = migrationBefore(MIGRATION);

describe.each(DIALECTS)('tags-and-switches migration (%s)', (dialect) => {
  let opened: DatabaseAt | undefined;
  let db: Kysely<any>;
  const now = Date.UTC(2026, 10, 1);

  beforeEach(async () => {
    opened = await openDatabaseAt(dialect, PREVIOUS);
    ({ db } = opened);
  });
  afterEach(async () => opened?.close());

  const system = (userId: string) => insertSystem(db, userId, now);

  async function alter(systemId: number, username: string): Promise<number> {
    const row = await db
      .insertInto('alters')
      .values({ system_id: systemId, username, username_key: usernameKey(username), display_name: username, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  it('keys old tags and renames later duplicates within a system only', async () => {
    const first = await system('700000000000000001');
    const second = await system('700000000000000002');
    for (const [systemId, name] of [[first, 'Friends'], [first, 'FRIENDS'], [first, 'ｆｒｉｅｎｄｓ'], [second, 'friends']] as const) {
      await db.insertInto('tags').values({ system_id: systemId, name, created_at: now }).execute();
    }
    await migrateTo(db, MIGRATION);

    const rows = await db.selectFrom('tags').select(['system_id', 'name', 'name_key', 'public']).orderBy('id').execute();
    expect(rows.map((row) => [Number(row.system_id), row.name, row.name_key, Number(row.public)])).toEqual([
      [first, 'Friends', 'friends', 0],
      [first, 'FRIENDS-2', 'friends-2', 0],
      [first, 'ｆｒｉｅｎｄｓ-3', 'friends-3', 0],
      [second, 'friends', 'friends', 0],
    ]);
    const duplicate = db.insertInto('tags').values({ system_id: second, name: 'FRIENDS', name_key: 'friends', created_at: now });
    await expect(duplicate.execute()).rejects.toSatisfy(isUniqueViolation);
    const unkeyed = db.insertInto('tags').values({ system_id: second, name: 'unkeyed', created_at: now });
    await expect(unkeyed.execute()).rejects.toThrow(/null/i);
  });

  it('turns each front record into a switch of one alter, in order, and keeps counting ids after them', async () => {
    const systemId = await system('700000000000000003');
    const ash = await alter(systemId, 'ash');
    const birch = await alter(systemId, 'birch');
    const records = [
      [ash, 'bot', now + 1000],
      [birch, 'app', now + 2000],
      [ash, 'app', now + 2000], // same time: the id decides the order
    ] as const;
    for (const [alterId, clientId, pushedAt] of records) {
      await db.insertInto('front_records').values({ system_id: systemId, alter_id: alterId, client_id: clientId, pushed_at: pushedAt }).execute();
    }
    await migrateTo(db, MIGRATION);

    const switches = await db
      .selectFrom('switches as s')
      .innerJoin('switch_members as m', 'm.switch_id', 's.id')
      .select(['s.id', 's.client_id', 's.switched_at', 'm.alter_id', 'm.position'])
      .where('s.system_id', '=', systemId)
      .orderBy('s.switched_at')
      .orderBy('s.id')
      .execute();
    expect(switches.map((row) => [Number(row.alter_id), row.client_id, Number(row.switched_at), Number(row.position)])).toEqual(
      records.map(([alterId, clientId, pushedAt]) => [alterId, clientId, pushedAt, 0]),
    );
    const fresh = await db.insertInto('switches').values({ system_id: systemId, client_id: 'bot', switched_at: now + 3000 }).returning('id').executeTakeFirstOrThrow();
    expect(Number(fresh.id)).toBeGreaterThan(Math.max(...switches.map((row) => Number(row.id))));

    // Deleting an alter takes it out of the switches it was in.
    await db.deleteFrom('alters').where('id', '=', birch).execute();
    const left = await db.selectFrom('switch_members').select('alter_id').execute();
    expect(left.map((row) => Number(row.alter_id))).toEqual([ash, ash]);
  });

  it('goes down to front records (primary fronters) and up again', async () => {
    const systemId = await system('700000000000000004');
    const ash = await alter(systemId, 'ash');
    await db.insertInto('front_records').values({ system_id: systemId, alter_id: ash, client_id: 'bot', pushed_at: now }).execute();
    await migrateTo(db, MIGRATION);
    await migrateTo(db, PREVIOUS);
    const back = await db.selectFrom('front_records').select(['alter_id', 'client_id', 'pushed_at']).execute();
    expect(back.map((row) => [Number(row.alter_id), row.client_id, Number(row.pushed_at)])).toEqual([[ash, 'bot', now]]);
    await migrateTo(db, MIGRATION);
    expect(await db.selectFrom('switches').select('id').execute()).toHaveLength(1);
  });
});
