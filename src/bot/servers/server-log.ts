// The server's log channel: every proxied message, and the edits and deletions of proxied messages,
// posted as an entry there (unless its channel is log-ignored). The entry names the message as it
// was sent (the webhook's name, which everyone saw), the system and alter by id always and the
// system's name only when its privacy shows it, the sender (mention and id), the channel, a link,
// the text (trimmed) and the number of attachments. When the bot cannot post there, the admin who
// set the log channel is told once.
import { EmbedBuilder, type Client, type Message, type PartialMessage } from 'discord.js';
import { logChannelFor, type MessagePlace } from '../../domain/guild-rules.js';
import { clampGraphemes, shortenGraphemes } from '../../domain/proxy/text.js';
import type { ApiClient } from '../api-client.js';
import { fitEmbeds } from '../embeds.js';
import type { BotLog } from '../log.js';
import type { Notices } from '../proxy/notices.js';
import type { RecentMessages } from '../proxy/recent.js';
import { placeOfChannel } from './rules.js';
import type { GuildSettingsCache, HeldSettings } from './settings-cache.js';

/** Entries quote at most this much of a message (an embed description holds 4,096). */
export const MAX_QUOTED = 1500;

export function quote(text: string): string {
  if (text === '') return '*(no text)*';
  if (text.length <= MAX_QUOTED) return text;
  const shown = clampGraphemes(text, MAX_QUOTED);
  return `${shown}… *(${text.length - shown.length} more characters)*`;
}

export interface ProxiedLogEntry {
  guildId: string;
  place: MessagePlace;
  /** The proxied message (the webhook's). */
  messageId: string;
  originalMessageId: string;
  username: string;
  senderId: string;
  systemId: string;
  alterId: number;
  content: string;
  attachments: number;
  /** The original was removed before the bot could delete it (a filter bot, or its sender), and the copy withdrawn. */
  removedFirst?: { copyDeleted: boolean };
}

export interface ServerLog {
  proxied(server: HeldSettings, entry: ProxiedLogEntry): Promise<void>;
  /** A message from the gateway was edited or deleted: logged when it is one of this bot's proxied messages. */
  edited(before: Message | PartialMessage | undefined, after: Message): Promise<void>;
  deleted(message: Message | PartialMessage): Promise<void>;
}

const link = (guildId: string, channelId: string, messageId: string) => `https://discord.com/channels/${guildId}/${channelId}/${messageId}`;


export function createServerLog(client: Client, api: ApiClient, servers: GuildSettingsCache, notices: Notices, recent: RecentMessages, log: BotLog): ServerLog {
  /** The system's name when its privacy shows it to anyone; null otherwise (or when it cannot be read). */
  async function publicSystemName(senderId: string): Promise<string | null> {
    try {
      return (await api.withClientToken((token) => api.getSystem(token, senderId))).systemName;
    } catch {
      return null;
    }
  }

  /** Whether a message is one of this bot's proxied messages (sent by a webhook the bot's application owns). */
  const isOwnProxied = (message: Message | PartialMessage) =>
    message.webhookId !== null && message.applicationId !== null && message.applicationId === client.application?.id;

  async function post(server: HeldSettings, guildId: string, place: MessagePlace, embed: EmbedBuilder): Promise<void> {
    const target = logChannelFor(server.rules, place);
    if (!target) return;
    try {
      const channel = await client.channels.fetch(target);
      if (!channel?.isSendable()) throw new Error('not a channel the bot can post in');
      await channel.send({ embeds: fitEmbeds([embed]), allowedMentions: { parse: [] } });
    } catch (error) {
      log.info({ err: error, guild: guildId, channel: target }, 'could not post in the log channel');
      const adminId = server.settings.logChannel.changedBy;
      if (!adminId) return;
      const admin = await client.users.fetch(adminId).catch(() => undefined);
      if (admin) notices.tellOnce(admin, `log-channel:${guildId}:${target}`, `I cannot post in <#${target}>, the log channel you set for proxied messages: I need **View Channel**, **Send Messages** and **Embed Links** there. Grant them, or choose another channel with \`/server log-channel\`.`);
    }
  }

  return {
    async proxied(server, entry) {
      if (logChannelFor(server.rules, entry.place) === null) return;
      const systemName = await publicSystemName(entry.senderId);
      const embed = new EmbedBuilder()
        .setTitle(entry.removedFirst ? 'Message proxied, then withdrawn' : 'Message proxied')
        .setColor(entry.removedFirst ? 0xed4245 : 0x5865f2)
        .setDescription(quote(entry.content))
        .addFields(
          { name: 'Sent as', value: entry.username, inline: true },
          { name: 'System', value: `${systemName ? `${systemName} ` : ''}(\`${entry.systemId}\`)`, inline: true },
          { name: 'Alter', value: `\`${entry.alterId}\``, inline: true },
          { name: 'Sender', value: `<@${entry.senderId}> (\`${entry.senderId}\`)`, inline: true },
          { name: 'Channel', value: `<#${entry.place.channelId}>`, inline: true },
          { name: 'Attachments', value: String(entry.attachments), inline: true },
          { name: 'Message', value: link(entry.guildId, entry.place.channelId, entry.messageId) },
        )
        .setFooter({ text: `Original message ${entry.originalMessageId} · proxied ${entry.messageId}` });
      if (entry.removedFirst) {
        embed.addFields({
          name: 'Withdrawn',
          value: entry.removedFirst.copyDeleted
            ? 'The original was removed before the bot could delete it (by another bot, such as a filter, or by its sender), so the copy was deleted too.'
            : 'The original was removed before the bot could delete it (by another bot, such as a filter, or by its sender); deleting the copy failed: remove it by hand.',
        });
      }
      await post(server, entry.guildId, entry.place, embed);
    },

    async edited(before, after) {
      if (!after.inGuild() || !isOwnProxied(after)) return;
      // Discord also sends updates that change no text (an embed or a link preview resolved).
      if (before && !before.partial && before.content === after.content) return;
      const server = await servers.atRevision(after.guildId, undefined);
      if (!server) return;
      const embed = new EmbedBuilder()
        .setTitle('Proxied message edited')
        .setColor(0xfee75c)
        .addFields(
          { name: 'Sent as', value: after.author.username, inline: true },
          { name: 'Channel', value: `<#${after.channelId}>`, inline: true },
          { name: 'Before', value: before && !before.partial ? shortenGraphemes(quote(before.content), 1024) : '*(not known to this process)*' },
          { name: 'After', value: shortenGraphemes(quote(after.content), 1024) },
          { name: 'Message', value: link(after.guildId, after.channelId, after.id) },
        )
        .setFooter({ text: `Proxied message ${after.id}` });
      await post(server, after.guildId, placeOfChannel(after.channel), embed);
    },

    async deleted(message) {
      // A message no longer held by discord.js is still known when this process proxied it lately.
      const known = message.partial ? recent.get(message.id) : undefined;
      const guildId = message.guildId;
      if (!guildId || (message.partial ? !known : !isOwnProxied(message))) return;
      const server = await servers.atRevision(guildId, undefined);
      if (!server) return;
      const embed = new EmbedBuilder()
        .setTitle('Proxied message deleted')
        .setColor(0xed4245)
        .setDescription(quote(known ? known.content : (message.content ?? '')))
        .addFields(
          ...(known ? [{ name: 'Sender', value: `<@${known.senderId}> (\`${known.senderId}\`)`, inline: true }] : [{ name: 'Sent as', value: message.author?.username ?? 'unknown', inline: true }]),
          { name: 'Channel', value: `<#${message.channelId}>`, inline: true },
          ...(known ? [] : [{ name: 'Attachments', value: String(message.attachments.size), inline: true }]),
        )
        .setFooter({ text: `Proxied message ${message.id}` });
      await post(server, guildId, placeOfChannel(message.channel), embed);
    },
  };
}
