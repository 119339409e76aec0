// Messages and reactions: storing them as Discord shapes them (mentions, attachments on a CDN-like
// route, edits), what MESSAGE_* and MESSAGE_REACTION_* events carry, and DM channels.
import { EPHEMERAL, Intent, LOADING, MESSAGEABLE_TYPES, isThread } from './constants.js';
import { contentTypeFor, emojiKey, parseEmoji, shortHash, toApiUser, user } from './objects.js';
import type { Gateway } from './gateway.js';
import type { GuildModel } from './guild.js';
import type { FakeState } from './state.js';
import type { ApiMessage, ApiUser, AttachmentInput, FakeDiscord, Json, ReactionInput, ReactionState, RecordedFile } from './types.js';

/** What other parts do when messages come and go (the other bots' filters and loggers). */
export interface MessageHooks {
  reportDeletion(message: ApiMessage): void;
  applyFilters(message: ApiMessage, when: 'on-create' | 'before-bot-deletes'): void;
}

export type Messages = ReturnType<typeof createMessages>;

export function createMessages(state: FakeState, gateway: Pick<Gateway, 'dispatchIf'>, guildModel: Pick<GuildModel, 'memberPartial' | 'putMember'>, hooks: MessageHooks) {
  const {
    guild,
    botUser,
    channelId,
    applicationId,
    channels,
    roles,
    members,
    messages,
    reactions,
    deleted,
    attachmentStore,
    dmChannels,
    dmByUser,
    closedDms,
    snowflake,
    snowflakeTime,
    notify,
    waitFor,
  } = state;
  const { dispatchIf } = gateway;
  const { memberPartial, putMember } = guildModel;
  const { reportDeletion, applyFilters } = hooks;

  const isEphemeral = (message: ApiMessage): boolean => (message.flags & EPHEMERAL) !== 0;

  const newMessage = (fields: Partial<ApiMessage>): ApiMessage => {
    const id = fields.id ?? snowflake();
    const message: ApiMessage = {
      id,
      type: 0,
      channel_id: channelId,
      guild_id: guild.id,
      author: botUser,
      content: '',
      timestamp: snowflakeTime(id),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      flags: 0,
      components: [],
      ...fields,
    };
    messages.set(message.id, message);
    const channel = channels.get(message.channel_id);
    if (channel && !isEphemeral(message)) {
      channel.last_message_id = message.id;
      if (isThread(channel)) {
        channel.message_count = Number(channel.message_count ?? 0) + 1;
        channel.total_message_sent = Number(channel.total_message_sent ?? 0) + 1;
      }
    }
    return message;
  };

  /** A message as MESSAGE_CREATE/UPDATE carries it: guild_id, the author's member, members on
   * mentions, and no user-typed content unless the session has the MessageContent intent (or the
   * bot wrote or is mentioned in the message), as on Discord. */
  const gatewayMessage = (message: ApiMessage, intents: number): Json => {
    const d = structuredClone(message) as Json;
    const dm = dmChannels.has(message.channel_id);
    if (dm) delete d.guild_id;
    else d.guild_id = guild.id;
    if (!dm && (message.webhook_id === undefined || message.webhook_id === null)) {
      const member = memberPartial(message.author.id);
      if (member) d.member = member;
    }
    d.mentions = message.mentions.map((mentioned) => {
      const member = memberPartial(mentioned.id);
      return member ? { ...mentioned, member } : mentioned;
    });
    const privileged = dm || message.author.id === botUser.id || message.mentions.some((m) => m.id === botUser.id);
    if ((intents & Intent.MessageContent) === 0 && !privileged) {
      d.content = '';
      d.embeds = [];
      d.attachments = [];
      d.components = [];
      delete d.poll;
    }
    return d;
  };

  const dispatchMessage = (t: 'MESSAGE_CREATE' | 'MESSAGE_UPDATE', message: ApiMessage): void => {
    if (isEphemeral(message)) return;
    dispatchIf(dmChannels.has(message.channel_id) ? Intent.DirectMessages : Intent.GuildMessages, t, (intents) => gatewayMessage(message, intents));
  };

  const removeMessage = (message: ApiMessage): void => {
    messages.delete(message.id);
    reactions.delete(message.id);
    deleted.push(structuredClone(message));
    if (isEphemeral(message)) return;
    if (dmChannels.has(message.channel_id)) dispatchIf(Intent.DirectMessages, 'MESSAGE_DELETE', { id: message.id, channel_id: message.channel_id });
    else dispatchIf(Intent.GuildMessages, 'MESSAGE_DELETE', { id: message.id, channel_id: message.channel_id, guild_id: guild.id });
    reportDeletion(message);
  };

  const storeAttachment = (inChannel: string, file: AttachmentInput, folder = 'attachments'): Json => {
    const id = snowflake();
    const contentType = file.contentType || contentTypeFor(file.filename);
    attachmentStore.set(id, { data: file.data, contentType });
    const now = Math.floor(Date.now() / 1000);
    // Signed like Discord's CDN links, so code that parses the URL meets a query string.
    const url = `http://127.0.0.1:${state.port}/${folder}/${inChannel}/${id}/${encodeURIComponent(file.filename)}?ex=${(now + 86_400).toString(16)}&is=${now.toString(16)}&hm=${shortHash(id)}&`;
    return {
      id,
      filename: file.filename,
      size: file.data.length,
      url,
      proxy_url: url,
      content_type: contentType,
      ...(file.description === undefined ? {} : { description: file.description }),
    };
  };

  /** Attachments after a create/edit: those the body keeps, plus the uploaded files (`files[n]`,
   * described by the body's `attachments` entry with id n). */
  const attachmentsFor = (files: RecordedFile[], body: Json, inChannel: string, previous: Json[] = []): Json[] => {
    const described = Array.isArray(body.attachments) ? (body.attachments as Json[]) : [];
    const kept = Array.isArray(body.attachments) ? previous.filter((a) => described.some((b) => String(b.id) === String(a.id))) : previous;
    const added = files.map((file, index) => {
      const n = /^files\[(\d+)\]$/.exec(file.field)?.[1] ?? String(index);
      const meta = described.find((b) => String(b.id) === n);
      return storeAttachment(inChannel, {
        filename: typeof meta?.filename === 'string' ? meta.filename : file.filename,
        contentType: file.contentType,
        data: file.data,
        ...(typeof meta?.description === 'string' ? { description: meta.description } : {}),
      });
    });
    return [...kept, ...added];
  };

  /** The fields of a create/edit body that end up on the message. */
  const messageFields = (body: Json, files: RecordedFile[], inChannel: string, previous?: ApiMessage): Partial<ApiMessage> => {
    const fields: Partial<ApiMessage> = {};
    if (typeof body.content === 'string') fields.content = body.content;
    if (Array.isArray(body.embeds)) fields.embeds = body.embeds as Json[];
    if (Array.isArray(body.components)) fields.components = body.components as Json[];
    if (body.poll !== undefined) fields.poll = body.poll;
    if (files.length > 0 || Array.isArray(body.attachments)) fields.attachments = attachmentsFor(files, body, inChannel, previous?.attachments);
    const oldFlags = previous?.flags ?? 0;
    const requested = typeof body.flags === 'number' ? body.flags : undefined;
    // Ephemerality is fixed when the message is created; edits only change the other flags.
    fields.flags = previous
      ? (oldFlags & EPHEMERAL) | ((requested ?? oldFlags) & ~(EPHEMERAL | LOADING))
      : (requested ?? 0);
    return fields;
  };

  const editMessage = (message: ApiMessage, body: Json, files: RecordedFile[]): ApiMessage => {
    Object.assign(message, messageFields(body, files, message.channel_id, message), { edited_timestamp: new Date().toISOString() });
    return message;
  };

  const knownUser = (id: string): ApiUser | undefined => members.get(id)?.user ?? (id === botUser.id ? botUser : undefined);

  const dmChannelFor = (recipient: ApiUser): Json => {
    const existing = dmByUser.get(recipient.id);
    const known = existing === undefined ? undefined : dmChannels.get(existing);
    if (known) return known.channel;
    const channel: Json = { id: snowflake(), type: 1, last_message_id: null, flags: 0, recipients: [recipient] };
    dmChannels.set(channel.id as string, { channel, userId: recipient.id });
    dmByUser.set(recipient.id, channel.id as string);
    return channel;
  };

  /** Mentions Discord derives from content, filtered by `allowed_mentions` (absent: all). */
  const mentionsFor = (content: string, allowed: unknown, repliedTo?: ApiUser): Pick<ApiMessage, 'mentions' | 'mention_roles'> & { mention_everyone: boolean } => {
    const rules = allowed && typeof allowed === 'object' ? (allowed as Json) : undefined;
    const parse = Array.isArray(rules?.parse) ? (rules.parse as string[]) : [];
    const listed = (key: string, id: string): boolean => Array.isArray(rules?.[key]) && (rules[key] as string[]).includes(id);
    const userIds = new Set([...content.matchAll(/<@!?(\d{15,21})>/g)].map((m) => m[1] ?? ''));
    const roleIds = new Set([...content.matchAll(/<@&(\d{15,21})>/g)].map((m) => m[1] ?? ''));
    const mentions: ApiUser[] = [];
    for (const id of userIds) {
      const known = knownUser(id);
      if (known && (!rules || parse.includes('users') || listed('users', id))) mentions.push(known);
    }
    if (repliedTo && (!rules || rules.replied_user === true) && !mentions.some((m) => m.id === repliedTo.id)) mentions.push(repliedTo);
    return {
      mentions,
      mention_roles: [...roleIds].filter((id) => roles.has(id) && (!rules || parse.includes('roles') || listed('roles', id))),
      mention_everyone: /@(everyone|here)\b/.test(content) && (!rules || parse.includes('everyone')),
    };
  };

  const renderReactions = (message: ApiMessage): void => {
    const list = [...(reactions.get(message.id)?.values() ?? [])]
      .filter((r) => r.users.size > 0)
      .map((r) => ({
        emoji: r.emoji,
        count: r.users.size,
        count_details: { burst: 0, normal: r.users.size },
        burst_colors: [],
        me: r.users.has(botUser.id),
        me_burst: false,
      }));
    if (list.length > 0) message.reactions = list;
    else delete message.reactions;
  };

  const reactionAdd = (message: ApiMessage, userId: string, emoji: ReactionState['emoji']): void => {
    let perMessage = reactions.get(message.id);
    if (!perMessage) reactions.set(message.id, (perMessage = new Map()));
    let state = perMessage.get(emojiKey(emoji));
    if (!state) perMessage.set(emojiKey(emoji), (state = { emoji, users: new Set() }));
    if (state.users.has(userId)) return;
    state.users.add(userId);
    renderReactions(message);
    const member = members.get(userId);
    dispatchIf(Intent.GuildMessageReactions, 'MESSAGE_REACTION_ADD', {
      user_id: userId,
      channel_id: message.channel_id,
      message_id: message.id,
      guild_id: guild.id,
      ...(member ? { member } : {}),
      emoji: state.emoji,
      message_author_id: message.author.id,
      burst: false,
      burst_colors: [],
      type: 0,
    });
  };

  const reactionRemove = (message: ApiMessage, userId: string, emoji: ReactionState['emoji']): void => {
    const state = reactions.get(message.id)?.get(emojiKey(emoji));
    if (!state?.users.delete(userId)) return;
    renderReactions(message);
    dispatchIf(Intent.GuildMessageReactions, 'MESSAGE_REACTION_REMOVE', {
      user_id: userId,
      channel_id: message.channel_id,
      message_id: message.id,
      guild_id: guild.id,
      emoji: state.emoji,
      burst: false,
      type: 0,
    });
  };

  // A snapshot: the payload may wait in a session buffer while the stored message changes.
  const componentMessage = (message: ApiMessage): ApiMessage => structuredClone(messages.get(message.id) ?? newMessage(message));

  const storedMessage = (id: string): ApiMessage => {
    const message = messages.get(id);
    if (!message) throw new Error(`fake Discord: no message ${id}`);
    return message;
  };

  const reactionTarget = (input: ReactionInput): ApiMessage => {
    const message = storedMessage(input.messageId);
    if (input.channelId !== undefined && input.channelId !== message.channel_id) throw new Error(`fake Discord: message ${message.id} is not in channel ${input.channelId}`);
    if (!members.has(input.userId)) throw new Error(`fake Discord: ${input.userId} is not a member; addMember() (or sendUserMessage()) first`);
    return message;
  };

  const api: Pick<
    FakeDiscord,
    | 'sendUserMessage'
    | 'editUserMessage'
    | 'deleteUserMessage'
    | 'addReaction'
    | 'removeReaction'
    | 'messages'
    | 'deletedMessages'
    | 'directMessages'
    | 'setDirectMessagesOpen'
    | 'createMessage'
    | 'getMessage'
    | 'waitForMessage'
    | 'uploadAttachment'
  > = {
    sendUserMessage(input) {
      const inChannel = input.channelId ?? channelId;
      const channel = channels.get(inChannel);
      if (!channel) throw new Error(`fake Discord: no channel ${inChannel}; addChannel() first`);
      if (!MESSAGEABLE_TYPES.has(channel.type)) throw new Error(`fake Discord: channel ${inChannel} (type ${channel.type}) takes no messages; post in one of its threads`);
      const given = toApiUser(input.author);
      let author: ApiUser = input.bot ? { ...given, bot: true } : given;
      if (input.webhookId !== undefined) {
        author = user(input.webhookId, given.username, { bot: true, discriminator: '0000', avatar: given.avatar });
      } else if (input.member || !members.has(author.id)) {
        putMember(
          {
            user: author,
            ...(input.member?.roles ? { roles: input.member.roles } : {}),
            ...(input.member?.nick !== undefined ? { nick: input.member.nick } : {}),
          },
          true,
        );
      }
      let referenced: ApiMessage | undefined;
      if (input.messageReference) {
        referenced = storedMessage(input.messageReference.messageId);
      }
      const content = input.content ?? '';
      const parsed = mentionsFor(content, undefined, referenced?.author);
      const message = newMessage({
        channel_id: inChannel,
        ...(input.id === undefined ? {} : { id: input.id }),
        author,
        content,
        embeds: input.embeds ?? [],
        attachments: (input.attachments ?? []).map((file) => storeAttachment(inChannel, file)),
        flags: input.flags ?? 0,
        type: input.type ?? (referenced ? 19 : 0),
        mentions: input.mentions ? input.mentions.map(toApiUser) : parsed.mentions,
        mention_roles: input.mentionRoles ?? parsed.mention_roles,
        mention_everyone: input.mentionEveryone ?? parsed.mention_everyone,
        ...(input.webhookId !== undefined ? { webhook_id: input.webhookId } : {}),
        ...(referenced
          ? {
              message_reference: {
                type: 0,
                message_id: referenced.id,
                channel_id: input.messageReference?.channelId ?? referenced.channel_id,
                guild_id: guild.id,
              },
              referenced_message: structuredClone(referenced),
            }
          : {}),
      });
      dispatchMessage('MESSAGE_CREATE', message);
      notify();
      const posted = structuredClone(message);
      applyFilters(message, 'on-create');
      return posted;
    },

    editUserMessage(id, fields) {
      const message = storedMessage(id);
      if (fields.content !== undefined) Object.assign(message, { content: fields.content }, mentionsFor(fields.content, undefined));
      if (fields.embeds !== undefined) message.embeds = fields.embeds;
      message.edited_timestamp = new Date().toISOString();
      dispatchMessage('MESSAGE_UPDATE', message);
      notify();
      return structuredClone(message);
    },

    deleteUserMessage(id) {
      removeMessage(storedMessage(id));
      notify();
    },

    addReaction(input) {
      reactionAdd(reactionTarget(input), input.userId, parseEmoji(input.emoji));
      notify();
    },

    removeReaction(input) {
      reactionRemove(reactionTarget(input), input.userId, parseEmoji(input.emoji));
      notify();
    },

    messages(id) {
      return [...messages.values()]
        .filter((m) => m.channel_id === id && !isEphemeral(m))
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
        .map((m) => structuredClone(m));
    },

    deletedMessages(id) {
      return deleted.filter((m) => id === undefined || m.channel_id === id).map((m) => structuredClone(m));
    },

    directMessages(userId) {
      const id = dmByUser.get(userId);
      return id === undefined ? [] : [...messages.values()].filter((m) => m.channel_id === id).map((m) => structuredClone(m));
    },

    setDirectMessagesOpen(userId, open) {
      if (open) closedDms.delete(userId);
      else closedDms.add(userId);
    },

    createMessage(fields) {
      const message = structuredClone(newMessage(fields));
      notify();
      return message;
    },

    getMessage(id) {
      const message = messages.get(id);
      return message && structuredClone(message);
    },

    waitForMessage(predicate, timeoutMs = 5000) {
      return waitFor(() => [...messages.values()].find((m) => !isEphemeral(m) && predicate(m)), timeoutMs, 'a matching message').then((m) => structuredClone(m));
    },

    uploadAttachment(input) {
      return storeAttachment(applicationId, input, 'ephemeral-attachments');
    },
  };

  return {
    api,
    isEphemeral,
    newMessage,
    dispatchMessage,
    removeMessage,
    storeAttachment,
    messageFields,
    editMessage,
    knownUser,
    dmChannelFor,
    mentionsFor,
    renderReactions,
    reactionAdd,
    reactionRemove,
    componentMessage,
    storedMessage,
  };
}
