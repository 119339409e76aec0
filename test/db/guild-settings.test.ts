// Server settings in the database: defaults without a row, one revision per change moved inside
// the change's transaction, the audit entry beside it, concurrent edits that all land, and the
// revision cache that every change empties; on every dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../../src/db/database.js';
import { listAuditEntries } from '../../src/db/repositories/audit-log.js';
import { createGuildRevisions, editGuildSettings, readGuildRevision, readGuildSettings } from '../../src/db/repositories/guilds.js';
import { EditGuildSettingsBody, defaultGuildSettings } from '../../src/domain/guild.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';

const GUILD = '110000000000000001';
const ADMIN = '310000000000000001';
const context = { actor: { userId: ADMIN, permission: 'manage-guild' as const }, clientId: 'switchboard-bot' };
const edit = (body: unknown) => EditGuildSettingsBody.parse({ actor: context.actor, ...(body as object) });

describe.each(DIALECTS)('server settings storage (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
  });
  afterAll(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  it('has the defaults at revision 0 until something changes, and an empty edit writes nothing', async () => {
    expect(await readGuildSettings(database.db, GUILD)).toEqual({ guildId: GUILD, revision: 0, ...defaultGuildSettings() });
    expect(await editGuildSettings(database.db, GUILD, EditGuildSettingsBody.parse({}), undefined, Date.now())).toMatchObject({ revision: 0 });
    expect(await database.db.selectFrom('guild_settings').selectAll().execute()).toEqual([]);
  });

  it('moves the revision with each change and writes who, what and when to the audit log', async () => {
    const at = Date.parse('2026-11-27T10:00:00Z');
    const first = await editGuildSettings(database.db, GUILD, edit({ blacklist: { add: ['210000000000000001'] }, proxyDelayMs: 250 }), context, at);
    expect(first.revision).toBe(1);
    expect(first.blacklist).toEqual([{ id: '210000000000000001', changedBy: ADMIN, changedAt: '2026-11-27T10:00:00.000Z' }]);
    // Restating what is stored changes nothing: same revision, no entry.
    const same = await editGuildSettings(database.db, GUILD, edit({ proxyDelayMs: 250 }), context, at + 1000);
    expect(same.revision).toBe(1);
    expect(await readGuildRevision(database.db, GUILD)).toBe(1);
    const entries = await listAuditEntries(database.db, { kinds: ['guild-settings-changed'], limit: 10 });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ at, userId: ADMIN, clientId: 'switchboard-bot', details: { guild: GUILD, permission: 'manage-guild', revision: 1, changes: ['proxyDelayMs 0 → 250', 'blacklist +210000000000000001'] } });
    expect(await readGuildSettings(database.db, GUILD)).toEqual(first);
  });

  it('applies concurrent edits one after the other: none is lost, each has its revision', async () => {
    const guild = '110000000000000002';
    const ids = Array.from({ length: 8 }, (_, i) => `22000000000000000${i}`);
    const results = await Promise.all(ids.map((id) => editGuildSettings(database.db, guild, edit({ blacklist: { add: [id] } }), context, Date.now())));
    expect(results.map((r) => r.revision).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const stored = await readGuildSettings(database.db, guild);
    expect(stored.revision).toBe(8);
    expect(stored.blacklist.map((entry) => entry.id).sort()).toEqual(ids);
  });

  it('keeps a failed edit out entirely (cap): no revision, no entry', async () => {
    const guild = '110000000000000003';
    const roles = Array.from({ length: 25 }, (_, i) => `2300000000000000${String(i).padStart(2, '0')}`);
    await editGuildSettings(database.db, guild, edit({ managerRoles: { add: roles } }), context, Date.now());
    const before = await listAuditEntries(database.db, { kinds: ['guild-settings-changed'], limit: 100 });
    await expect(editGuildSettings(database.db, guild, edit({ managerRoles: { add: ['240000000000000001'] }, requireTag: true }), context, Date.now())).rejects.toThrow(/at most 25/);
    expect((await readGuildSettings(database.db, guild)).requireTag.enabled).toBe(false);
    expect(await readGuildRevision(database.db, guild)).toBe(1);
    expect(await listAuditEntries(database.db, { kinds: ['guild-settings-changed'], limit: 100 })).toHaveLength(before.length);
  });

  it('answers revisions from memory until a change, then the new one', async () => {
    const guild = '110000000000000004';
    const revisions = createGuildRevisions(database.db, database.changes());
    try {
      expect(await revisions.get(guild)).toBe(0);
      await editGuildSettings(database.db, guild, edit({ requireTag: true }), context, Date.now());
      expect(await revisions.get(guild)).toBe(1);
      await editGuildSettings(database.db, guild, edit({ requireTag: false }), context, Date.now());
      expect(await revisions.get(guild)).toBe(2);
    } finally {
      revisions.close();
    }
  });
});
