// The username-key migration on a database that already has alters, on every dialect: the old
// schema (up to the migration before it) holds names that the old index let through but that are
// one name under the new key; migrating to the latest version backfills every key and renames the
// later duplicates deterministically instead of failing.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest, type Database } from '../../src/db/database.js';
import { isUniqueViolation } from '../../src/db/errors.js';
import { usernameKey } from '../../src/domain/username-key.js';
import { DIALECTS } from '../support/dialects.js';
import { insertSystem, migrateTo, migrationBefore, openDatabaseAt, type DatabaseAt } from '../support/migrations.js';

const MIGRATION = '2026-11-23T01-username-key';
const PREVIOUS = migrationBefore(MIGRATION);

describe.each(DIALECTS)('username-key migration (%s)', (dialect) => {
  let opened: DatabaseAt | undefined;
  let database: Database;
  let db: Kysely<any>;
  let now: number;

  beforeEach(async () => {
    opened = await openDatabaseAt(dialect, PREVIOUS);
    ({ database, db } = opened);
    now = Date.now();
  });
  afterEach(async () => opened?.close());

  const system = (userId: string) => insertSystem(db, userId, now);

  /** Inserts alters the old schema's way (no key), in order; their ids ascend with it. */
  async function oldAlters(systemId: number, usernames: string[]): Promise<void> {
    for (const username of usernames) {
      await db.insertInto('alters').values({ system_id: systemId, username, display_name: username, created_at: now }).execute();
    }
  }

  const usernamesOf = async (systemId: number) =>
    (await db.selectFrom('alters').select('username').where('system_id', '=', systemId).orderBy('id').execute()).map((row) => row.username as string);

  it('keeps the oldest of each colliding group, renames the later ones with -2, -3… past names already taken, and keys every row', async () => {
    const first = await system('600000000000000001');
    const second = await system('600000000000000002');
    const long = 'z'.repeat(97);
    // Every pair below is distinct under both old indexes (lower() on SQLite and PostgreSQL).
    const before = [
      'strasse', // keeps its name
      'ash',
      'ash-2', // not a collision, but takes the first suffix of the next
      '\u00e9lan', // precomposed é
      'stra\u00dfe', // ß: second of the strasse group
      '\uff41\uff53\uff48', // fullwidth ａｓｈ: second of the ash group; ash-2 is taken
      '\u017ftrasse', // long s: third of the strasse group
      'e\u0301lan', // decomposed é
      '\u03c3\u03bf\u03c6\u03b9\u03b1', // σοφια
      '\u03c2\u03bf\u03c6\u03b9\u03b1', // final sigma: the same name
      `${long}a`,
      `${long}\u{1d400}`, // mathematical bold A (two UTF-16 units): at 99 units a suffix must cut it whole
      'Kestrel',
    ];
    await oldAlters(first, before);
    await oldAlters(second, ['ash', '\uff41\uff53\uff48', 'Kestrel']);

    const third = await system('600000000000000007');
    await oldAlters(third, ['ash', 'birch']);

    const ran = await migrateToLatest(database.db);
    expect(ran.results?.map((r) => [r.migrationName, r.status])).toContainEqual([MIGRATION, 'Success']);

    expect(await usernamesOf(first)).toEqual([
      'strasse',
      'ash',
      'ash-2',
      '\u00e9lan',
      'stra\u00dfe-2',
      '\uff41\uff53\uff48-3',
      '\u017ftrasse-3',
      'e\u0301lan-2',
      '\u03c3\u03bf\u03c6\u03b9\u03b1',
      '\u03c2\u03bf\u03c6\u03b9\u03b1-2',
      `${long}a`,
      `${long}-2`,
      'Kestrel',
    ]);
    expect(await usernamesOf(second)).toEqual(['ash', '\uff41\uff53\uff48-2', 'Kestrel']);
    expect(await usernamesOf(third)).toEqual(['ash', 'birch']);
    // The bot's cached proxy profiles show usernames: the revision (their ETag) moves where names changed.
    const revisions = await db.selectFrom('systems').select(['id', 'revision']).orderBy('id').execute();
    expect(revisions.map((row) => [Number(row.id), Number(row.revision)])).toEqual([[first, 1], [second, 1], [third, 0]]);

    const rows = await db.selectFrom('alters').select(['system_id', 'username', 'username_key']).execute();
    for (const row of rows) expect(row.username_key, row.username).toBe(usernameKey(row.username));
    expect(new Set(rows.map((row) => `${row.system_id}:${row.username_key}`)).size).toBe(rows.length);
  });

  it('keys more rows than one batch, and finds a collision between the first and the last', async () => {
    const systemId = await system('600000000000000003');
    await oldAlters(systemId, ['\u00f1and\u00fa']);
    const rows = Array.from({ length: 1200 }, (_, i) => ({ system_id: systemId, username: `n${i}`, display_name: `N ${i}`, created_at: now }));
    for (let i = 0; i < rows.length; i += 400) await db.insertInto('alters').values(rows.slice(i, i + 400)).execute();
    await oldAlters(systemId, ['n\u0303andu\u0301']);

    await migrateToLatest(database.db);

    const after = await usernamesOf(systemId);
    expect(after).toHaveLength(1202);
    expect(after[0]).toBe('\u00f1and\u00fa');
    expect(after[1201]).toBe('n\u0303andu\u0301-2');
    const unkeyed = await db.selectFrom('alters').select('id').where('username_key', 'is', null).execute();
    expect(unkeyed).toEqual([]);
    expect(await db.selectFrom('alters').select('username_key').where('username', '=', 'n1199').executeTakeFirst()).toEqual({ username_key: 'n1199' });
  });

  it('leaves a unique index on (system_id, username_key) and refuses rows without a key', async () => {
    const systemId = await system('600000000000000004');
    await oldAlters(systemId, ['Ash']);
    await migrateToLatest(database.db);

    const lookAlike = db.insertInto('alters').values({ system_id: systemId, username: '\uff21\uff53\uff48', username_key: usernameKey('\uff21\uff53\uff48'), display_name: 'A', created_at: now });
    await expect(lookAlike.execute()).rejects.toSatisfy(isUniqueViolation);

    const unkeyed = db.insertInto('alters').values({ system_id: systemId, username: 'birch', display_name: 'B', created_at: now });
    await expect(unkeyed.execute()).rejects.toThrow(/username_key/);
    const cleared = db.updateTable('alters').set({ username_key: null }).where('system_id', '=', systemId);
    await expect(cleared.execute()).rejects.toThrow(/username_key/);
  });

  it('is all or nothing: a failure during the backfill leaves the old schema, and a second run succeeds', async () => {
    const systemId = await system('600000000000000006');
    await oldAlters(systemId, ['stra\u00dfe', 'strasse']);
    // A trigger that refuses every update makes the backfill fail after the column was added and
    // the old index dropped.
    if (dialect === 'postgres') {
      await sql`create function refuse_update() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(db);
      await sql`create trigger refuse_update before update on alters for each row execute function refuse_update()`.execute(db);
    } else {
      await sql`create trigger refuse_update before update on alters begin select raise(abort, 'refused'); end`.execute(db);
    }
    await expect(migrateToLatest(database.db)).rejects.toThrow(/refused/);

    const columns = await db.selectFrom('alters').selectAll().where('system_id', '=', systemId).orderBy('id').execute();
    expect(columns.map((row) => row.username)).toEqual(['stra\u00dfe', 'strasse']);
    expect(columns[0]).not.toHaveProperty('username_key');
    const recased = db.insertInto('alters').values({ system_id: systemId, username: 'STRASSE', display_name: 'S', created_at: now });
    await expect(recased.execute()).rejects.toSatisfy(isUniqueViolation); // the old index is still there

    await sql`drop trigger refuse_update${sql.raw(dialect === 'postgres' ? ' on alters' : '')}`.execute(db);
    const ran = await migrateToLatest(database.db);
    expect(ran.results?.map((r) => r.migrationName)[0]).toBe(MIGRATION); // it runs again, first
    expect(await usernamesOf(systemId)).toEqual(['stra\u00dfe', 'strasse-2']);
  });

  it('goes down to the old index and up again', async () => {
    const systemId = await system('600000000000000005');
    await oldAlters(systemId, ['stra\u00dfe', 'strasse']);
    await migrateToLatest(database.db);
    await migrateTo(db, PREVIOUS);

    const columns = await db.selectFrom('alters').selectAll().where('system_id', '=', systemId).orderBy('id').execute();
    expect(columns.map((row) => row.username)).toEqual(['stra\u00dfe', 'strasse-2']); // renames stay
    expect(columns[0]).not.toHaveProperty('username_key');
    const recased = db.insertInto('alters').values({ system_id: systemId, username: 'STRASSE-2', display_name: 'S', created_at: now });
    await expect(recased.execute()).rejects.toSatisfy(isUniqueViolation);

    await migrateToLatest(database.db);
    expect(await usernamesOf(systemId)).toEqual(['stra\u00dfe', 'strasse-2']);
  });
});
