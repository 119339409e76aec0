// Other bots of the guild: chat filters that delete members' messages (and win races against the
// bot), loggers that report deletions, and bots that post; each refused as Discord would refuse it.
import { MESSAGEABLE_TYPES, Permission, isThread } from './constants.js';
import { toApiUser } from './objects.js';
import { HttpError, missingAccess, missingPermissions, unknownChannel, unknownMessage } from './refusals.js';
import type { GuildModel } from './guild.js';
import type { Messages } from './messages.js';
import type { Permissions } from './permissions.js';
import type { FakeState } from './state.js';
import type { ApiMember, ApiMessage, ApiUser, FakeDiscord, Json } from './types.js';

export type OtherBots = ReturnType<typeof createOtherBots>;

export function createOtherBots(
  state: FakeState,
  guildModel: Pick<GuildModel, 'putRole' | 'putMember'>,
  permissions: Pick<Permissions, 'permissionsIn'>,
  msgs: Pick<Messages, 'isEphemeral' | 'removeMessage' | 'newMessage' | 'mentionsFor' | 'dispatchMessage'>,
) {
  const { botUser, channels, members, messages, dmChannels, notify } = state;
  const { putRole, putMember } = guildModel;
  const { permissionsIn } = permissions;
  const { isEphemeral, removeMessage, newMessage, mentionsFor, dispatchMessage } = msgs;

  interface Filter {
    botId: string;
    matches: (message: ApiMessage) => boolean;
    when: 'on-create' | 'before-bot-deletes';
  }
  const filters = new Set<Filter>();
  const loggers = new Set<{ botId: string; logChannelId: string }>();

  const otherBot = (botId: string): ApiMember => {
    const member = members.get(botId);
    if (!member?.user.bot || botId === botUser.id) throw new Error(`fake Discord: ${botId} is not another bot of the guild; addOtherBot() first`);
    return member;
  };

  const deleteAsOtherBot = (botId: string, messageId: string): void => {
    otherBot(botId);
    const message = messages.get(messageId);
    if (!message || isEphemeral(message) || dmChannels.has(message.channel_id)) throw unknownMessage();
    const granted = permissionsIn(message.channel_id, botId);
    if ((granted & Permission.ViewChannel) === 0n) throw missingAccess();
    if (message.author.id !== botId && (granted & Permission.ManageMessages) === 0n) throw missingPermissions();
    removeMessage(message);
    notify();
  };

  /** A member's message, not a bot's or a webhook's: what filters act on and loggers report. */
  const fromMember = (message: ApiMessage): boolean => !message.author.bot && message.webhook_id === undefined && !dmChannels.has(message.channel_id);

  const applyFilters = (message: ApiMessage, when: Filter['when']): void => {
    for (const filter of filters) {
      if (filter.when !== when || !fromMember(message) || !messages.has(message.id) || !filter.matches(structuredClone(message))) continue;
      try {
        deleteAsOtherBot(filter.botId, message.id);
      } catch {
        // Discord refused the filter (no Manage Messages there): the message stays, as it would.
      }
    }
  };

  const postAsOtherBot = (botId: string, inChannel: string, fields: { content?: string; embeds?: Json[] }): ApiMessage => {
    const member = otherBot(botId);
    const channel = channels.get(inChannel);
    if (!channel) throw unknownChannel();
    if (!MESSAGEABLE_TYPES.has(channel.type)) throw new HttpError(400, { message: 'Cannot send messages in a non-text channel', code: 50008 });
    const granted = permissionsIn(inChannel, botId);
    if ((granted & Permission.ViewChannel) === 0n) throw missingAccess();
    const send = isThread(channel) ? Permission.SendMessagesInThreads : Permission.SendMessages;
    if ((granted & send) === 0n || ((fields.embeds?.length ?? 0) > 0 && (granted & Permission.EmbedLinks) === 0n)) throw missingPermissions();
    if ((fields.content ?? '') === '' && (fields.embeds?.length ?? 0) === 0) throw new HttpError(400, { message: 'Cannot send an empty message', code: 50006 });
    const message = newMessage({ channel_id: inChannel, author: member.user, content: fields.content ?? '', embeds: fields.embeds ?? [], ...mentionsFor(fields.content ?? '', undefined) });
    dispatchMessage('MESSAGE_CREATE', message);
    notify();
    return message;
  };

  /** What a logging bot posts for a deleted member message (the shape common loggers use: the
   * author and channel in the text, the ids in the footer). */
  const logEntryFor = (message: ApiMessage): Json => ({
    author: { name: message.author.username },
    description: `**Message sent by <@${message.author.id}> deleted in <#${message.channel_id}>**\n${message.content.slice(0, 3800)}`,
    footer: { text: `Author: ${message.author.id} | Message ID: ${message.id}` },
    timestamp: new Date().toISOString(),
  });

  const reportDeletion = (message: ApiMessage): void => {
    for (const logger of loggers) {
      if (!fromMember(message) || message.channel_id === logger.logChannelId) continue;
      // A logger is another process reacting to the gateway: its entry comes a moment later.
      setImmediate(() => {
        if (!loggers.has(logger)) return;
        try {
          postAsOtherBot(logger.botId, logger.logChannelId, { embeds: [logEntryFor(message)] });
        } catch {
          // A logger that may not post in its channel posts nothing, as on Discord.
        }
      });
    }
  };

  const api: Pick<FakeDiscord, 'addOtherBot' | 'deleteAsOtherBot' | 'addFilterBot' | 'postAsOtherBot' | 'addLoggingBot'> = {
    addOtherBot(input) {
      const botMember: ApiUser = { ...toApiUser(input.user), bot: true };
      if (botMember.id === botUser.id) throw new Error('fake Discord: that is this bot');
      const botRole = putRole({
        name: botMember.username,
        permissions: input.permissions,
        ...(input.position === undefined ? {} : { position: input.position }),
      });
      return structuredClone(putMember({ user: botMember, roles: [botRole.id] }));
    },

    deleteAsOtherBot(botId, messageId) {
      deleteAsOtherBot(botId, messageId);
    },

    addFilterBot(input) {
      otherBot(input.botId);
      const filter: Filter = { ...input };
      filters.add(filter);
      return () => void filters.delete(filter);
    },

    postAsOtherBot(botId, inChannel, fields) {
      return structuredClone(postAsOtherBot(botId, inChannel, fields));
    },

    addLoggingBot(input) {
      otherBot(input.botId);
      const logger = { ...input };
      loggers.add(logger);
      return () => void loggers.delete(logger);
    },
  };

  return { api, applyFilters, reportDeletion };
}
