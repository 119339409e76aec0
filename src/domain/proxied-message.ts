// Proxied messages: what the bot records after it re-sent a message as an alter, and what "message
// info" shows. The sending Discord account is always shown (moderators must be able to tell who
// sent a proxied message, as on PluralKit); the system and alter go through the privacy rules.
import { z } from 'zod';
import { Alter } from './alter.js';
import { AutoproxyStateChange } from './autoproxy.js';
import { EntityId, IsoDateTime } from './values.js';

/** Discord's epoch (2015-01-01T00:00:00Z): snowflakes count milliseconds from it. */
const DISCORD_EPOCH = 1_420_070_400_000n;

/**
 * Discord limits a webhook message's name to 80 characters; counted in UTF-16 units (as zod
 * counts) an 80-character name of emoji and joiners is longer, and a record must never be refused
 * for the name Discord itself accepted, so the bound is that of the worst case, not 80.
 */
export const MAX_PROXIED_NAME = 320;

/** The name a message was sent under: shown by message info to everyone, as the channel saw it. */
export const ProxiedName = z.string().min(1).max(MAX_PROXIED_NAME, `must be at most ${MAX_PROXIED_NAME} UTF-16 units (Discord allows a webhook 80 characters)`);

/** A Discord snowflake (message, channel, server or user id), as a string. */
export const Snowflake = z.string().regex(/^[1-9][0-9]{16,19}$/, 'must be a Discord id (17 to 20 digits)');

/** When Discord created the object the snowflake names, in epoch milliseconds. */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}

export const RecordMessageBody = z
  .strictObject({
    messageId: Snowflake.describe('The message the webhook sent.'),
    originalMessageId: Snowflake.describe('The member’s message that was replaced (deleted).'),
    channelId: Snowflake.describe('Where the message is (a thread’s own id inside a thread).'),
    guildId: Snowflake,
    alterId: EntityId.describe('The alter the message was sent as.'),
    proxiedName: ProxiedName.optional().describe('The name the webhook sent it under (the alter’s name with tag and pronouns as the channel saw it). Public: message info shows it to everyone.'),
    autoproxyState: AutoproxyStateChange.optional().describe('The engine’s state change for this message, applied in the same transaction.'),
  })
  .refine((body) => body.messageId !== body.originalMessageId, { message: 'must differ from originalMessageId', path: ['messageId'] })
  .meta({ id: 'RecordMessageBody' });
export type RecordMessageInput = z.infer<typeof RecordMessageBody>;

export const ProxiedMessage = z
  .strictObject({
    messageId: z.string(),
    originalMessageId: z.string(),
    channelId: z.string(),
    guildId: z.string(),
    senderId: z.string().describe('The Discord account that sent the original message. Always shown.'),
    proxiedName: z.string().nullable().describe('The name the message was sent under, as everyone in the channel saw it. Always shown; null for records made before it was kept.'),
    timestamp: IsoDateTime.describe('When Discord created the proxied message (from its id).'),
  })
  .meta({ id: 'ProxiedMessage' });
export type ProxiedMessage = z.infer<typeof ProxiedMessage>;

export const RecordMessageResponse = z.strictObject({
  data: ProxiedMessage,
  autoproxyStateApplied: z.boolean().nullable().describe('Whether the state change applied (false: the owner changed the entry meanwhile); null without one.'),
  revision: z.number().int().describe('The system’s proxy-profile revision after this write.'),
});
export type RecordMessageAnswer = z.infer<typeof RecordMessageResponse>;

export const SystemSummary = z
  .strictObject({
    associatedUserId: z.string(),
    systemName: z.string().nullable(),
    systemDisplayTag: z.string().nullable(),
    systemAvatar: z.string().nullable(),
    systemPronouns: z.string().nullable(),
    redacted: z.array(z.string()),
  })
  .meta({ id: 'SystemSummary' });
export type SystemSummary = z.infer<typeof SystemSummary>;

export const MessageInfo = z
  .strictObject({
    ...ProxiedMessage.shape,
    system: SystemSummary.nullable().describe('The sending system’s profile as its privacy allows; null without the `system:read` scope.'),
    alterId: z.number().int().nullable().describe('The alter the message was sent as, when it exists for the viewer (always for its owner); null when it is hidden from the viewer or was deleted.'),
    alter: Alter.nullable().describe('null when the alter is hidden from the viewer or was deleted, or without the `alters:read` scope (then `alterId` names it).'),
    alterDeleted: z.boolean().nullable().describe('The alter no longer exists. Only its owner learns this; others get null whenever `alterId` is null.'),
    systemDeleted: z.boolean().describe('The system that sent it was deleted (POST …/system/delete): the record keeps who sent it, where and under which name; `system`, `alterId` and `alter` are then null.'),
    redacted: z.array(z.string()).describe('What the token’s scopes leave out: `system` without `system:read`, `alter` without `alters:read`.'),
  })
  .meta({ id: 'MessageInfo' });
export type MessageInfo = z.infer<typeof MessageInfo>;

/** A proxied message as stored. */
export interface ProxiedMessageRecord {
  messageId: string;
  originalMessageId: string;
  channelId: string;
  guildId: string;
  systemId: number;
  alterId: number;
  senderId: string;
  createdAt: number;
  proxiedName: string | null;
}

export function toProxiedMessage(record: ProxiedMessageRecord): ProxiedMessage {
  return {
    messageId: record.messageId,
    originalMessageId: record.originalMessageId,
    channelId: record.channelId,
    guildId: record.guildId,
    senderId: record.senderId,
    proxiedName: record.proxiedName,
    timestamp: new Date(record.createdAt).toISOString(),
  };
}

export const ReproxyBody = z
  .strictObject({
    messageId: Snowflake.describe('The new webhook message, sent as the new alter.'),
    alterId: EntityId.describe('The alter the message is now sent as.'),
    proxiedName: ProxiedName.optional().describe('The name the new message was sent under.'),
  })
  .meta({ id: 'ReproxyBody' });

export const MessageParams = z.strictObject({ message: Snowflake.describe('The proxied message’s id or the original message’s id.') });
