// What `/server permissions` reports: every channel where the bot lacks a permission it needs to
// proxy, grouped by permission, each with the fix in one sentence. Pure: the bot's effective
// permissions per channel come in (bot-permissions.ts computes them from discord.js's cache), an
// embed within Discord's limits goes out.
import { PermissionFlagsBits, type APIEmbed } from 'discord.js';

/** How a channel takes messages, which decides what the bot needs there. */
export type ChannelKind = 'text' | 'forum';

export interface ChannelPermissions {
  channelId: string;
  kind: ChannelKind;
  /** The bot's effective permissions in the channel (overwrites applied). */
  permissions: bigint;
}

export interface NeededPermission {
  name: string;
  flag: bigint;
  /** Why proxying needs it and how to grant it, in one sentence. */
  fix: string;
  /** Forum and media channels take posts, not messages: the bot speaks inside their threads. */
  forForums: boolean;
}

const WHERE = 'in the channel’s settings (Permissions), or for the bot’s role in Server Settings → Roles';

/** In the order the report lists them: without View Channel nothing else matters there. */
export const NEEDED_PERMISSIONS: readonly NeededPermission[] = [
  { name: 'View Channel', flag: PermissionFlagsBits.ViewChannel, fix: `The bot cannot see these channels, so nothing sent there is proxied: allow View Channel ${WHERE}.`, forForums: true },
  { name: 'Send Messages', flag: PermissionFlagsBits.SendMessages, fix: `The bot cannot post its own messages there, such as log entries: allow Send Messages ${WHERE}.`, forForums: false },
  { name: 'Read Message History', flag: PermissionFlagsBits.ReadMessageHistory, fix: `The bot cannot quote replies or act on reactions to older messages: allow Read Message History ${WHERE}.`, forForums: true },
  { name: 'Manage Webhooks', flag: PermissionFlagsBits.ManageWebhooks, fix: `The bot cannot create the webhook it proxies through: allow Manage Webhooks ${WHERE}.`, forForums: true },
  { name: 'Manage Messages', flag: PermissionFlagsBits.ManageMessages, fix: `The bot cannot delete the original after proxying, so every message shows twice: allow Manage Messages ${WHERE}.`, forForums: true },
  { name: 'Embed Links', flag: PermissionFlagsBits.EmbedLinks, fix: `The bot’s own posts there, such as log entries, lose their embeds: allow Embed Links ${WHERE}.`, forForums: true },
  { name: 'Attach Files', flag: PermissionFlagsBits.AttachFiles, fix: `Files the bot posts there are refused: allow Attach Files ${WHERE}.`, forForums: true },
  { name: 'Send Messages in Threads', flag: PermissionFlagsBits.SendMessagesInThreads, fix: `Nothing in these channels’ threads (or forum posts) is proxied: allow Send Messages in Threads ${WHERE}.`, forForums: true },
];

export interface AuditGroup {
  permission: NeededPermission;
  channelIds: string[];
}

/**
 * The permissions the bot lacks, each with the channels lacking it (in the order given), only
 * those lacking something. A channel it cannot see is listed under View Channel alone: there the
 * rest cannot be checked by its members either, and granting View Channel comes first.
 */
export function auditPermissions(channels: readonly ChannelPermissions[]): AuditGroup[] {
  const groups = NEEDED_PERMISSIONS.map((permission) => ({ permission, channelIds: [] as string[] }));
  for (const channel of channels) {
    const blind = (channel.permissions & PermissionFlagsBits.ViewChannel) === 0n;
    for (const group of groups) {
      const { flag, forForums } = group.permission;
      if (channel.kind === 'forum' && !forForums) continue;
      if (blind && flag !== PermissionFlagsBits.ViewChannel) continue;
      if ((channel.permissions & flag) !== flag) group.channelIds.push(channel.channelId);
    }
  }
  return groups.filter((group) => group.channelIds.length > 0);
}

/** Discord's limits on an embed (https://discord.com/developers/docs/resources/message#embed-object-embed-limits). */
export const EMBED_LIMITS = { title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, total: 6000 } as const;

/** Channel mentions that fit in `room` characters, the rest counted ("and 12 more"). */
function channelList(ids: readonly string[], room: number): string {
  const shown: string[] = [];
  let used = 0;
  for (const [index, id] of ids.entries()) {
    const mention = `<#${id}>`;
    const left = ids.length - index - 1;
    // Keep room for the count of those that do not fit.
    const tail = left > 0 ? ` … and ${left} more`.length : 0;
    const cost = (shown.length > 0 ? 2 : 0) + mention.length;
    if (used + cost + tail > room) return `${shown.join(', ')} … and ${ids.length - shown.length} more`;
    shown.push(mention);
    used += cost;
  }
  return shown.join(', ');
}

/** The report as an embed: one field per missing permission, within every Discord limit. */
export function auditEmbed(groups: readonly AuditGroup[], checked: number): APIEmbed {
  const title = 'Permissions the bot needs';
  if (groups.length === 0) {
    return { title, description: `The bot has every permission it needs in all ${checked} channels it checked.`, color: 0x2e7d32 };
  }
  const description = `Missing in some of the ${checked} channels checked. Each fix is one change; made on a category, it also fixes the channels synced to it.`;
  let total = title.length + description.length;
  const fields: NonNullable<APIEmbed['fields']> = [];
  for (const group of groups.slice(0, EMBED_LIMITS.fields)) {
    const name = `${group.permission.name} (${group.channelIds.length} ${group.channelIds.length === 1 ? 'channel' : 'channels'})`;
    const fix = group.permission.fix;
    // What is left of the whole embed's 6,000 characters, kept for the fields still to come.
    const toCome = groups.length - fields.length - 1;
    const room = Math.min(EMBED_LIMITS.fieldValue, EMBED_LIMITS.total - total - name.length - toCome * 320) - fix.length - 1;
    if (room < 40) break;
    const value = `${fix}\n${channelList(group.channelIds, room)}`;
    fields.push({ name, value });
    total += name.length + value.length;
  }
  return { title, description, fields, color: 0xc62828 };
}
