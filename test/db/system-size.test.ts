// The systems' stored size and its cap (migration 2026-11-27T10-system-size), on every dialect:
// backfilled from the alters a database already has, kept exact by triggers through every kind of
// write to the table, and enforced by them: a write that would grow a system past
// MAX_SYSTEM_ALTER_CHARS fails whole (nothing of the statement stays), one that shrinks or keeps a
// system's size passes even when the system is over the cap.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest, type Database } from '../../src/db/database.js';
import { isSystemTooLarge } from '../../src/db/errors.js';
import { alterColumns } from '../../src/db/alter-columns.js';
import { ALTER_DEFAULTS, MAX_SYSTEM_ALTER_CHARS, storedAlterChars } from '../../src/domain/alter.js';
import { DIALECTS } from '../support/dialects.js';
import { insertSystem, migrateTo, migrationBefore, openDatabaseAt, type DatabaseAt } from '../support/migrations.js';

const PREVIOUS = migrationBefore('2026-11-27T10-system-size');
const COLUMNS = ['username', 'display_name', 'name_map', 'color', 'description', 'pronouns', 'avatar_url', 'avatar_url_map', 'webhook_avatar_url', 'banner', 'proxy_tags'];

describe.each(DIALECTS)('system sizes (%s)', (dialect) => {
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

  /** Alters of the system in one statement, each with a description of `chars` characters; their ids. */
  async function alters(systemId: number, count: number, chars = 10): Promise<number[]> {
    const rows = Array.from({ length: count }, () => {
      const name = `a${serial++}`;
      return { system_id: systemId, username: name, username_key: name, display_name: name, description: 'é'.repeat(chars), created_at: now };
    });
    return (await db.insertInto('alters').values(rows).returning('id').execute()).map((row) => Number(row.id));
  }

  /** Each system's stored size beside the size counted from its rows (in JavaScript, per character). */
  async function expectSizes(): Promise<Record<number, number>> {
    const systems = await db.selectFrom('systems').select(['id', 'alter_chars']).orderBy('id').execute();
    const rows = await db.selectFrom('alters').select(['system_id', ...COLUMNS]).execute();
    const actual = new Map<number, number>();
    for (const row of rows) {
      const size = COLUMNS.reduce((sum, column) => sum + (row[column] === null ? 0 : [...String(row[column])].length), 0);
      actual.set(Number(row.system_id), (actual.get(Number(row.system_id)) ?? 0) + size);
    }
    for (const row of systems) expect(Number(row.alter_chars), `system ${row.id}`).toBe(actual.get(Number(row.id)) ?? 0);
    return Object.fromEntries(systems.map((row) => [Number(row.id), Number(row.alter_chars)]));
  }

  async function refused(write: Promise<unknown>): Promise<void> {
    const error = await write.then(() => undefined, (e: unknown) => e);
    expect(error, 'the write was refused').toBeDefined();
    expect(isSystemTooLarge(error), String(error)).toBe(true);
  }

  it('backfills the sizes of a database that already has alters', async () => {
    const busy = await system('630000000000000001');
    const empty = await system('630000000000000002');
    await alters(busy, 3, 100);
    await migrateToLatest(database.db);
    const sizes = await expectSizes();
    expect(sizes[empty]).toBe(0);
    expect(sizes[busy]).toBeGreaterThan(300);
  });

  it('keeps the sizes through inserts, edits, deletes, moves and a deleted system', async () => {
    await migrateToLatest(database.db);
    const first = await system('630000000000000011');
    const second = await system('630000000000000012');
    const [one] = await alters(first, 1, 50);
    const many = await alters(second, 20, 30);
    await expectSizes();
    await db.updateTable('alters').set({ description: null, name_map: '[{"server":"1","name":"x"}]' }).where('id', 'in', many.slice(0, 5)).execute();
    await db.updateTable('alters').set({ message_count: 9 }).where('id', 'in', many).execute();
    await expectSizes();
    await db.updateTable('alters').set({ system_id: first }).where('id', 'in', many.slice(5, 8)).execute();
    await db.deleteFrom('alters').where('id', 'in', [one as number, ...many.slice(10, 12)]).execute();
    await expectSizes();
    await db.deleteFrom('systems').where('id', '=', second).execute();
    await expectSizes();
  });

  it('refuses a write that grows a system past the cap, whole, and lets shrinking writes through', async () => {
    await migrateToLatest(database.db);
    const full = await system('630000000000000021');
    const other = await system('630000000000000022');
    const chunk = 1024 * 1024;
    const filled = await alters(full, MAX_SYSTEM_ALTER_CHARS / chunk - 1, chunk);
    const before = (await expectSizes())[full] as number;
    expect(before).toBeGreaterThan(MAX_SYSTEM_ALTER_CHARS - chunk);
    expect(before).toBeLessThanOrEqual(MAX_SYSTEM_ALTER_CHARS);
    const room = MAX_SYSTEM_ALTER_CHARS - before;

    // An insert (alone or among others) and an edit that would pass the cap fail; nothing of them stays.
    await refused(alters(full, 1, room + 1));
    await refused(alters(full, 3, Math.ceil(room / 3) + 1));
    await refused(db.updateTable('alters').set({ pronouns: 'p'.repeat(room + 1) }).where('id', '=', filled[0]).execute());
    const [moved] = await alters(other, 1, room + 1);
    await refused(db.updateTable('alters').set({ system_id: full }).where('id', '=', moved).execute());
    expect((await expectSizes())[full]).toBe(before);
    expect(await db.selectFrom('alters').select('id').where('system_id', '=', full).execute()).toHaveLength(filled.length);

    // Up to the cap is allowed (the new row's names and its empty maps and lists count too).
    const [last] = await alters(full, 1, room - 20);
    expect((await expectSizes())[full]).toBeLessThanOrEqual(MAX_SYSTEM_ALTER_CHARS);

    // A system over the cap (from before it, or by hand) can always shrink, and edit without growing.
    await db.updateTable('systems').set({ alter_chars: MAX_SYSTEM_ALTER_CHARS + 10 }).where('id', '=', full).execute();
    await db.updateTable('alters').set({ description: 'x'.repeat(chunk) }).where('id', '=', filled[1]).execute();
    await refused(db.updateTable('alters').set({ description: 'x'.repeat(chunk + 1) }).where('id', '=', filled[3]).execute());
    await db.updateTable('alters').set({ description: 'short' }).where('id', '=', filled[2]).execute();
    await db.deleteFrom('alters').where('id', '=', last).execute();
    expect(await db.selectFrom('alters').select('description').where('id', '=', filled[3]).executeTakeFirst()).toEqual({ description: 'é'.repeat(chunk) });
  });

  it('counts as storedAlterChars does (the import’s plan checks the cap with it), astral characters as one', async () => {
    await migrateToLatest(database.db);
    const systemId = await system('630000000000000041');
    const values = {
      ...ALTER_DEFAULTS,
      username: 'ren🌸',
      displayName: 'Ren 🏮 Kōsaka',
      nameMap: [{ server: '300000000000000001', name: 'R🌸' }],
      avatarUrlMap: { '300000000000000001': 'https://example.com/é.png' },
      description: '𝔡𝔢𝔰𝔠 and e\u0301',
      proxyTags: [{ id: 'a1', prefix: '🌸', suffix: null }],
      public: 0,
      messageCount: 0,
      lastMessageAt: null,
      createdAt: now,
    };
    await db.insertInto('alters').values({ ...alterColumns(values), system_id: systemId }).execute();
    const { alter_chars: stored } = await db.selectFrom('systems').select('alter_chars').where('id', '=', systemId).executeTakeFirstOrThrow();
    expect(Number(stored)).toBe(storedAlterChars(values));
    await expectSizes();
  });

  it('is undone by the migration down', async () => {
    await migrateToLatest(database.db);
    await migrateTo(db, PREVIOUS);
    const systemId = await system('630000000000000031');
    await alters(systemId, 2);
    await expect(db.selectFrom('systems').select('alter_chars').execute()).rejects.toThrow(/alter_chars/);
  });
});
