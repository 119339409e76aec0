// Discord servers' settings. A server's row is created by its first change; until then it has the
// defaults at revision 0. Every change runs in one transaction that takes the row's lock, applies
// the edit to what is stored, moves the revision, writes the audit log entry and notes the change
// for the revision caches of every process (db/changes/).
import type { Kysely } from 'kysely';
import type { AuditEvent } from '../../domain/audit.js';
import { applyGuildEdit, defaultGuildSettings, documentOf, GuildSettingsDocument, SETTING_KEYS, type EditGuildSettingsInput, type GuildActor, type GuildSettings } from '../../domain/guild.js';
import { ExactCache } from '../changes/exact-cache.js';
import { noteChange } from '../changes/notes.js';
import type { ChangeWatch } from '../changes/remote.js';
import { guildTopic } from '../changes/topics.js';
import type { Schema } from '../tables.js';
import { insertAuditEntry } from './audit-log.js';

type Db = Kysely<Schema>;

function toSettings(guildId: string, row: { revision: number | string; settings: string } | undefined): GuildSettings {
  if (!row) return { guildId, revision: 0, ...defaultGuildSettings() };
  // Written only by editGuildSettings from a parsed document; parsed again so a hand-edited row
  // that no longer fits fails here, loudly, instead of reaching the bot.
  return { guildId, revision: Number(row.revision), ...GuildSettingsDocument.parse(JSON.parse(row.settings)) };
}

export async function readGuildSettings(db: Db, guildId: string): Promise<GuildSettings> {
  const row = await db.selectFrom('guild_settings').select(['revision', 'settings']).where('guild_id', '=', guildId).executeTakeFirst();
  return toSettings(guildId, row);
}

export async function readGuildRevision(db: Db, guildId: string): Promise<number> {
  const row = await db.selectFrom('guild_settings').select('revision').where('guild_id', '=', guildId).executeTakeFirst();
  return row ? Number(row.revision) : 0;
}

export interface GuildEditContext {
  actor: GuildActor;
  /** The client that made the request (the bot's own). */
  clientId: string;
  ip?: string | undefined;
}

/**
 * Applies a partial edit. An edit that changes nothing (`{}`, or restating what is stored) moves
 * no revision and writes no audit entry.
 */
export async function editGuildSettings(
  db: Db,
  guildId: string,
  edit: EditGuildSettingsInput,
  context: GuildEditContext | undefined,
  now: number,
): Promise<GuildSettings> {
  if (!context || SETTING_KEYS.every((key) => edit[key] === undefined)) return readGuildSettings(db, guildId);
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('guild_settings')
      .values({ guild_id: guildId, revision: 0, settings: JSON.stringify(defaultGuildSettings()), updated_at: now })
      .onConflict((oc) => oc.column('guild_id').doNothing())
      .execute();
    // A write that changes nothing takes the row's lock (PostgreSQL; SQLite has one writer), so
    // concurrent edits apply one after the other to what the previous one stored.
    const row = await trx
      .updateTable('guild_settings')
      .set((eb) => ({ revision: eb.ref('revision') }))
      .where('guild_id', '=', guildId)
      .returning(['revision', 'settings'])
      .executeTakeFirstOrThrow();
    const current = toSettings(guildId, row);
    const { revision } = current;
    const document = documentOf(current);
    const applied = applyGuildEdit(document, edit, context.actor.userId, new Date(now));
    if (applied.changes.length === 0) return current;
    const next = revision + 1;
    await trx
      .updateTable('guild_settings')
      .set({ settings: JSON.stringify(applied.settings), revision: next, updated_at: now })
      .where('guild_id', '=', guildId)
      .execute();
    const event: AuditEvent = {
      kind: 'guild-settings-changed',
      userId: context.actor.userId,
      clientId: context.clientId,
      ip: context.ip,
      details: { guild: guildId, permission: context.actor.permission, revision: next, changes: applied.changes },
    };
    await insertAuditEntry(trx, event, now);
    await noteChange(trx, [guildTopic(guildId)]);
    return { guildId, revision: next, ...applied.settings };
  });
}

/** Each server's settings revision, from memory when it can be (exact: dropped by every change). */
export interface GuildRevisions {
  get(guildId: string): Promise<number>;
  close(): void;
}

const MAX_GUILDS = 50_000;

export function createGuildRevisions(db: Db, changes: ChangeWatch): GuildRevisions {
  const cache = new ExactCache<string, number>(changes, { maxEntries: MAX_GUILDS, topicsOf: (guildId) => [guildTopic(guildId)] });
  return {
    async get(guildId) {
      const known = cache.get(guildId);
      if (known !== undefined) return known;
      const ticket = cache.ticket();
      const revision = await readGuildRevision(db, guildId);
      cache.fill(guildId, revision, ticket);
      return revision;
    },
    close: () => cache.close(),
  };
}
