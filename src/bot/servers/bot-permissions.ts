// The thin adapter between discord.js and permission-audit.ts: the bot's effective permissions in
// every channel where members post, computed by discord.js from the cached roles and overwrites
// (threads follow their parent, so the parent stands for them). `/server permissions` renders
// auditEmbed(auditPermissions(botChannelPermissions(guild)), …).
import { ChannelType, type Guild, type GuildBasedChannel } from 'discord.js';
import type { ChannelKind, ChannelPermissions } from './permission-audit.js';

const KIND: Partial<Record<ChannelType, ChannelKind>> = {
  [ChannelType.GuildText]: 'text',
  [ChannelType.GuildAnnouncement]: 'text',
  [ChannelType.GuildVoice]: 'text',
  [ChannelType.GuildStageVoice]: 'text',
  [ChannelType.GuildForum]: 'forum',
  [ChannelType.GuildMedia]: 'forum',
};

/** Channels in the order the server lists them: by category, then by position. */
function listed(guild: Guild, channel: GuildBasedChannel): [number, number, string] {
  const parent = channel.parentId ? guild.channels.cache.get(channel.parentId) : undefined;
  const position = 'rawPosition' in channel ? channel.rawPosition : 0;
  const parentPosition = parent && 'rawPosition' in parent ? parent.rawPosition : -1;
  return [parentPosition, position, channel.id];
}

export function botChannelPermissions(guild: Guild): ChannelPermissions[] {
  const me = guild.members.me;
  if (!me) return [];
  const channels = [...guild.channels.cache.values()].filter((channel) => !channel.isThread() && KIND[channel.type] !== undefined);
  channels.sort((a, b) => {
    const [pa, xa, ia] = listed(guild, a);
    const [pb, xb, ib] = listed(guild, b);
    return pa - pb || xa - xb || (ia < ib ? -1 : ia > ib ? 1 : 0);
  });
  return channels.map((channel) => ({
    channelId: channel.id,
    kind: KIND[channel.type] ?? 'text',
    permissions: channel.permissionsFor(me)?.bitfield ?? 0n,
  }));
}
