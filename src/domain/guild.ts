// A Discord server's settings for the bot: the one schema that validation, types, storage and the
// OpenAPI reference follow. Every setting and every list entry carries who changed it last (a
// Discord user id, as the bot vouched) and when; a setting never changed has null for both.
//
// Caps keep a settings document small enough to be read on every revision change and to be shown
// by `/server show` (and they are far above what a server needs: the bench's busy server has 100
// blacklisted channels and 20 blocked roles):
// - blacklist, log-ignored channels: 500 each (Discord allows 500 channels in a server);
// - blocks: 1,000 (users and roles together); a reason is at most 300 characters;
// - manager roles: 25; log-cleanup bots: 25.
import { z } from 'zod';
import { Problem } from './problems.js';
import { UserId, text } from './values.js';

export const MAX_BLACKLIST = 500;
export const MAX_LOG_IGNORED = 500;
export const MAX_BLOCKS = 1000;
export const MAX_BLOCK_REASON = 300;
export const MAX_MANAGER_ROLES = 25;
export const MAX_LOG_CLEANUP_BOTS = 25;
export const MAX_PROXY_DELAY_MS = 3000;

/** A channel, category, role or user id: a snowflake, as a string. */
export const DiscordId = z.string().regex(/^[1-9][0-9]{16,19}$/, 'must be a Discord id (17 to 20 digits)');

const stamp = {
  changedBy: z.string().nullable().describe('The Discord user who changed it last (as the bot vouched); null when never changed.'),
  changedAt: z.string().nullable().describe('When it was changed last (ISO 8601); null when never changed.'),
};

const ListEntry = z.strictObject({ id: z.string(), ...stamp }).meta({ id: 'GuildListEntry' });
export type GuildListEntry = z.infer<typeof ListEntry>;

export const BLOCK_KINDS = ['user', 'role'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

const BlockEntry = z
  .strictObject({ id: z.string(), kind: z.enum(BLOCK_KINDS), reason: z.string().nullable(), ...stamp })
  .meta({ id: 'GuildBlock' });
export type GuildBlock = z.infer<typeof BlockEntry>;

/** What is stored per server (the API adds the server's id and the revision). */
export const GuildSettingsDocument = z.strictObject({
  logChannel: z.strictObject({ channelId: z.string().nullable(), ...stamp }).describe('Where proxied messages, their edits and deletions are logged; null: no logging.'),
  logIgnored: z.array(ListEntry).describe(`Channels (or categories) whose messages are not logged. At most ${MAX_LOG_IGNORED}.`),
  blacklist: z.array(ListEntry).describe(`Channels and categories where nothing is proxied (threads and forum posts follow their parent, a category covers its channels). At most ${MAX_BLACKLIST}.`),
  blocks: z.array(BlockEntry).describe(`Users, and holders of roles, who do not proxy in this server. At most ${MAX_BLOCKS}.`),
  requireTag: z.strictObject({ enabled: z.boolean(), ...stamp }).describe('Proxied names must carry the system’s display tag.'),
  managerRoles: z.array(ListEntry).describe(`Roles whose holders may change these settings besides members with Manage Server. At most ${MAX_MANAGER_ROLES}.`),
  proxyDelay: z.strictObject({ milliseconds: z.number().int(), ...stamp }).describe(`How long the bot waits before proxying, so that filter bots act first (0 to ${MAX_PROXY_DELAY_MS}).`),
  logCleanupBots: z.array(ListEntry).describe(`Logging bots whose "message deleted" entries for originals the bot deleted are removed. At most ${MAX_LOG_CLEANUP_BOTS}.`),
});
export type GuildSettingsDocument = z.infer<typeof GuildSettingsDocument>;

export const GuildSettings = z
  .strictObject({
    guildId: z.string(),
    revision: z.number().int().describe('Changes with every change of these settings; the ETag carries it. 0: never changed.'),
    ...GuildSettingsDocument.shape,
  })
  .meta({ id: 'GuildSettings' });
export type GuildSettings = z.infer<typeof GuildSettings>;

/** The stored part of the settings (without the server's id and the revision). */
export function documentOf(settings: GuildSettings): GuildSettingsDocument {
  const { logChannel, logIgnored, blacklist, blocks, requireTag, managerRoles, proxyDelay, logCleanupBots } = settings;
  return { logChannel, logIgnored, blacklist, blocks, requireTag, managerRoles, proxyDelay, logCleanupBots };
}

export function defaultGuildSettings(): GuildSettingsDocument {
  const never = { changedBy: null, changedAt: null };
  return {
    logChannel: { channelId: null, ...never },
    logIgnored: [],
    blacklist: [],
    blocks: [],
    requireTag: { enabled: false, ...never },
    managerRoles: [],
    proxyDelay: { milliseconds: 0, ...never },
    logCleanupBots: [],
  };
}

/** On every proxy profile answer (200 and 304): the server's settings revision, so the bot knows whether its copy is current. */
export const GUILD_REVISION_HEADER = 'switchboard-guild-settings-revision';

/** The ETag of a server's settings: its revision (the server is in the URL). */
export function guildSettingsETag(revision: number): string {
  return `"g1-${revision}"`;
}

export const ACTOR_PERMISSIONS = ['manage-guild', 'manager-role'] as const;
export type ActorPermission = (typeof ACTOR_PERMISSIONS)[number];

export const GuildActor = z
  .strictObject({
    userId: UserId.describe('The Discord user making the change.'),
    permission: z.enum(ACTOR_PERMISSIONS).describe('What the bot checked: they have Manage Server, or hold one of the manager roles.'),
  })
  .meta({ id: 'GuildActor' });
export type GuildActor = z.infer<typeof GuildActor>;

function idList(what: string, max: number) {
  return z
    .array(DiscordId)
    .max(max, `must have at most ${max} ${what}`)
    .refine((ids) => new Set(ids).size === ids.length, `must not repeat a ${what.replace(/s$/, '')}`);
}

function listEdit(what: string, max: number) {
  return z
    .strictObject({
      add: idList(what, max).optional().describe('Ids to add (ids already there are left as they are).'),
      remove: idList(what, max).optional().describe('Ids to remove (ids not there are ignored).'),
    })
    .refine((edit) => !(edit.add ?? []).some((id) => (edit.remove ?? []).includes(id)), { message: 'must not name an id that add also names', path: ['remove'] });
}

const BlockAdd = z.strictObject({
  id: DiscordId,
  kind: z.enum(BLOCK_KINDS),
  reason: text(MAX_BLOCK_REASON).trim().nullable().optional().describe(`Told to the blocked member. At most ${MAX_BLOCK_REASON} characters.`),
});

const editable = {
  logChannel: DiscordId.nullable().describe('A channel id; null stops logging.'),
  logIgnored: listEdit('channels', MAX_LOG_IGNORED),
  blacklist: listEdit('channels', MAX_BLACKLIST),
  blocks: z
    .strictObject({
      add: z
        .array(BlockAdd)
        .max(MAX_BLOCKS, `must have at most ${MAX_BLOCKS} blocks`)
        .refine((blocks) => new Set(blocks.map((block) => block.id)).size === blocks.length, 'must not repeat an id')
        .optional()
        .describe('Blocks to add; one already there gets the new reason.'),
      remove: idList('ids', MAX_BLOCKS).optional().describe('User or role ids to unblock.'),
    })
    .refine((edit) => !(edit.add ?? []).some((block) => (edit.remove ?? []).includes(block.id)), { message: 'must not name an id that add also names', path: ['remove'] }),
  requireTag: z.boolean(),
  managerRoles: listEdit('roles', MAX_MANAGER_ROLES),
  proxyDelayMs: z.number().int('must be a whole number').min(0, 'must not be negative').max(MAX_PROXY_DELAY_MS, `must be at most ${MAX_PROXY_DELAY_MS}`).describe(`Milliseconds, 0 to ${MAX_PROXY_DELAY_MS}.`),
  logCleanupBots: listEdit('bots', MAX_LOG_CLEANUP_BOTS),
};

export const SETTING_KEYS = Object.keys(editable) as Array<keyof typeof editable>;

export const EditGuildSettingsBody = z
  .strictObject({
    actor: GuildActor.optional().describe('Who makes the change and which permission the bot checked; required when anything else is given.'),
    ...z.strictObject(editable).partial().shape,
  })
  .refine((body) => body.actor !== undefined || SETTING_KEYS.every((key) => body[key] === undefined), { message: 'is required when a setting changes: name the Discord user and the permission checked', path: ['actor'] })
  .meta({ id: 'EditGuildSettingsBody' });
export type EditGuildSettingsInput = z.infer<typeof EditGuildSettingsBody>;

export interface AppliedEdit {
  settings: GuildSettingsDocument;
  /** One line per change, for the audit log ("blacklist +123", "proxyDelayMs 0 → 500"). Empty: nothing changed. */
  changes: string[];
}

/**
 * Applies a partial edit to the stored settings, stamping what changes with `actor` and `at`.
 * Adding what is already there and removing what is not change nothing (a block added again takes
 * the new reason). Throws `too-many-entries` naming the list when a cap would be passed.
 */
export function applyGuildEdit(current: GuildSettingsDocument, edit: EditGuildSettingsInput, actorId: string, at: Date): AppliedEdit {
  const changedAt = at.toISOString();
  const stamped = { changedBy: actorId, changedAt };
  const next: GuildSettingsDocument = structuredClone(current);
  const changes: string[] = [];

  if (edit.logChannel !== undefined && edit.logChannel !== current.logChannel.channelId) {
    next.logChannel = { channelId: edit.logChannel, ...stamped };
    changes.push(`logChannel ${current.logChannel.channelId ?? 'none'} → ${edit.logChannel ?? 'none'}`);
  }
  if (edit.requireTag !== undefined && edit.requireTag !== current.requireTag.enabled) {
    next.requireTag = { enabled: edit.requireTag, ...stamped };
    changes.push(`requireTag ${edit.requireTag ? 'on' : 'off'}`);
  }
  if (edit.proxyDelayMs !== undefined && edit.proxyDelayMs !== current.proxyDelay.milliseconds) {
    next.proxyDelay = { milliseconds: edit.proxyDelayMs, ...stamped };
    changes.push(`proxyDelayMs ${current.proxyDelay.milliseconds} → ${edit.proxyDelayMs}`);
  }
  const lists = [
    ['logIgnored', MAX_LOG_IGNORED],
    ['blacklist', MAX_BLACKLIST],
    ['managerRoles', MAX_MANAGER_ROLES],
    ['logCleanupBots', MAX_LOG_CLEANUP_BOTS],
  ] as const;
  for (const [key, max] of lists) {
    const change = edit[key];
    if (!change) continue;
    const removed = new Set(change.remove ?? []);
    let entries = next[key].filter((entry) => {
      if (!removed.has(entry.id)) return true;
      changes.push(`${key} -${entry.id}`);
      return false;
    });
    for (const id of change.add ?? []) {
      if (entries.some((entry) => entry.id === id)) continue;
      entries = [...entries, { id, ...stamped }];
      changes.push(`${key} +${id}`);
    }
    if (entries.length > max) throw new Problem('too-many-entries', `${key} can have at most ${max} entries`, key);
    next[key] = entries;
  }
  if (edit.blocks) {
    const removed = new Set(edit.blocks.remove ?? []);
    const blocks = next.blocks.filter((entry) => {
      if (!removed.has(entry.id)) return true;
      changes.push(`blocks -${entry.kind}:${entry.id}`);
      return false;
    });
    for (const add of edit.blocks.add ?? []) {
      const reason = add.reason ? add.reason : null;
      const index = blocks.findIndex((entry) => entry.id === add.id);
      const existing = blocks[index];
      if (existing && existing.kind === add.kind && existing.reason === reason) continue;
      const entry: GuildBlock = { id: add.id, kind: add.kind, reason, ...stamped };
      if (existing) blocks[index] = entry;
      else blocks.push(entry);
      changes.push(`blocks +${add.kind}:${add.id}${reason === null ? '' : ` (${reason})`}`);
    }
    if (blocks.length > MAX_BLOCKS) throw new Problem('too-many-entries', `blocks can have at most ${MAX_BLOCKS} entries`, 'blocks');
    next.blocks = blocks;
  }
  return { settings: changes.length === 0 ? current : next, changes };
}
