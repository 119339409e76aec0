// Autoproxy settings: one entry per scope (everywhere, one server, one channel), what each mode
// means, and the two ways an entry changes: the owner's edits, and the small state changes the
// proxy engine decides (latch moved or cleared, autoproxy turned off by an escape).
import { z } from 'zod';
import { EntityId, EntityIdString, IsoDateTime, UserId } from './values.js';

/** The engine's modes. Stored entries may also hold an integration's client id (see below). */
export const AUTOPROXY_MODES = ['off', 'front', 'latch', 'alter'] as const;
export type AutoproxyMode = (typeof AUTOPROXY_MODES)[number];

export const GLOBAL_SCOPE = '@global';
export const MAX_AUTOPROXY_ENTRIES = 1000;

const snowflake = '[1-9][0-9]{16,19}';
const SCOPE_PATTERN = new RegExp(`^(@global|${snowflake}|${snowflake}/${snowflake})$`);

/** `@global`, `<guildId>` or `<guildId>/<channelId>`, as the origin labels them. */
export const AutoproxyScope = z
  .string()
  .regex(SCOPE_PATTERN, 'must be @global, a server id, or <server id>/<channel id>')
  .describe('@global, <guildId> or <guildId>/<channelId>. In a thread or forum post the channel is its parent channel.');

export type ScopeKind = 'global' | 'server' | 'channel';

export function scopeKind(serverId: string): ScopeKind {
  if (serverId === GLOBAL_SCOPE) return 'global';
  return serverId.includes('/') ? 'channel' : 'server';
}

/** The stored labels of the entries that can be in effect in one channel, most specific first. */
export function scopeLabels(guildId: string, channelId: string): { channel: string; server: string; global: string } {
  return { channel: `${guildId}/${channelId}`, server: guildId, global: GLOBAL_SCOPE };
}

/**
 * A stored mode as the engine reads it. `front` follows the system's current front (the newest
 * push); any other value than the four modes is an integration's client id (the origin's AI/AP
 * form, checked when it was set) and follows that client's own pushes. A client that was deleted
 * or never pushed leaves nobody to speak as: no proxy, and the entry still shadows broader scopes.
 */
export function engineMode(stored: string): { mode: AutoproxyMode; frontClient: string | null } {
  if ((AUTOPROXY_MODES as readonly string[]).includes(stored)) return { mode: stored as AutoproxyMode, frontClient: null };
  return { mode: 'front', frontClient: stored };
}

const AccountRef = UserId.describe('One account of the system (the owning account or another): the entry is for that account alone. Default: every account.');

const AlterRef = z.union([EntityIdString, EntityId]).describe('An alter id of your system, as a string (the origin’s form) or a number.');

export const Autoproxy = z
  .strictObject({
    autoproxyMode: z.string().describe('off, front, latch, alter, or the client id of an integration whose front pushes it follows.'),
    autoproxyAlter: z.string().nullable().describe('alter mode: the alter; latch mode: the latched alter, if any.'),
    serverId: z.string().describe('@global, <guildId> or <guildId>/<channelId>.'),
    lastLatchTimestamp: IsoDateTime.nullable().describe('latch mode: when the latch was last set or used.'),
    revision: z.number().int().describe('Changes when the owner edits the entry; engine state changes name the revision they were decided on.'),
    account: z
      .string()
      .nullable()
      .describe('null: the entry of every account of the system; a Discord id: that account’s own entry, which wins over the system’s of the same scope for it.'),
  })
  .meta({ id: 'Autoproxy' });
export type Autoproxy = z.infer<typeof Autoproxy>;

/** The owner sets (creates or replaces) the entry of one scope. */
export const SetAutoproxyBody = z
  .strictObject({
    serverId: AutoproxyScope,
    account: AccountRef.optional(),
    autoproxyMode: z
      .string()
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters')
      .describe('off, front, latch, alter, or the client id of an integration that pushes fronters (its pushes then decide).'),
    autoproxyAlter: AlterRef.nullable().optional().describe('Required in alter mode; in latch mode, starts the latch on this alter.'),
    lastLatchTimestamp: IsoDateTime.nullable().optional().describe('latch mode only, with autoproxyAlter: when the latch was set (default: now).'),
  })
  .superRefine((body, ctx) => {
    const alter = body.autoproxyAlter ?? null;
    if (body.autoproxyMode === 'alter' && alter === null) {
      ctx.addIssue({ code: 'custom', path: ['autoproxyAlter'], message: 'alter mode needs the alter to proxy as' });
    }
    if (body.autoproxyMode !== 'alter' && body.autoproxyMode !== 'latch' && alter !== null) {
      ctx.addIssue({ code: 'custom', path: ['autoproxyAlter'], message: `${body.autoproxyMode} mode takes no alter` });
    }
    if ((body.lastLatchTimestamp ?? null) !== null && (body.autoproxyMode !== 'latch' || alter === null)) {
      ctx.addIssue({ code: 'custom', path: ['lastLatchTimestamp'], message: 'only a latch-mode entry with an alter has a latch timestamp' });
    }
  });
export type SetAutoproxyInput = z.infer<typeof SetAutoproxyBody>;

export const RemoveAutoproxyBody = z.strictObject({ serverId: AutoproxyScope, account: AccountRef.optional() });

/**
 * One engine state change (proxy-rules.md R1's `state`), applied to the entry it was decided on.
 * Conditional, so nothing newer is undone: it is dropped when the owner edited the entry since
 * (`revision`), and a latch never moves back in time (a decision taken before the latch was last
 * set neither moves nor clears it).
 */
export const AutoproxyStateChange = z
  .strictObject({
    serverId: AutoproxyScope,
    revision: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe('The entry’s revision the engine saw (from the proxy profile).'),
    account: UserId.nullable().optional().describe('The entry’s `account` (from the proxy profile); null or absent: the entry of every account.'),
    at: IsoDateTime.describe('When the engine decided (its `now`); a set latch gets this time.'),
    latch: z
      .strictObject({ alterId: EntityId })
      .nullable()
      .optional()
      .describe('Latch onto this alter, or null to clear the latch.'),
    mode: z.literal('off').optional().describe('Turn this entry off (an escape of three backslashes).'),
  })
  .refine((change) => (change.latch !== undefined) !== (change.mode !== undefined), 'give exactly one of latch or mode')
  .meta({ id: 'AutoproxyStateChange' });
export type AutoproxyStateChange = z.infer<typeof AutoproxyStateChange>;

/** The answer to a state change: `applied` false when the condition dropped it. */
export const AutoproxyStateAnswer = z.strictObject({ applied: z.boolean(), revision: z.number().int() });
export type AutoproxyStateAnswer = z.infer<typeof AutoproxyStateAnswer>;

/** An autoproxy entry as stored. */
export interface AutoproxyRecord {
  scope: string;
  /** null: every account of the system; else the one account. */
  accountId: string | null;
  mode: string;
  alterId: number | null;
  lastLatchAt: number | null;
  revision: number;
}

export function toAutoproxy(entry: AutoproxyRecord): Autoproxy {
  return {
    autoproxyMode: entry.mode,
    autoproxyAlter: entry.alterId === null ? null : String(entry.alterId),
    serverId: entry.scope,
    lastLatchTimestamp: entry.lastLatchAt === null ? null : new Date(entry.lastLatchAt).toISOString(),
    revision: entry.revision,
    account: entry.accountId,
  };
}
