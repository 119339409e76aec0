// Messages and reactions under /channels/{c}/messages, as the bot calls them, and the bot's DM
// channels (POST /users/@me/channels opens them).
import type { IncomingMessage } from 'node:http';
import { Intent, MESSAGEABLE_TYPES, Permission, isThread } from '../constants.js';
import { emojiKey, parseEmoji, user } from '../objects.js';
import { HttpError, invalidForm, missingAccess, unknownMessage, validateMessage as checkMessage } from '../refusals.js';
import type { ApiChannel, ApiMessage, Json, RecordedFile, RouteResult } from '../types.js';
import { readBody, type Parts } from './http.js';

export function createMessageRoutes(parts: Parts) {
  const { state, gateway, permissions, msgs, otherBots } = parts;
  const { guild, botUser, members, messages, reactions, closedDms } = state;
  const { dispatchIf } = gateway;
  const { permissionsIn, requirePermission } = permissions;
  const { isEphemeral, newMessage, dispatchMessage, removeMessage, messageFields, editMessage, mentionsFor, renderReactions, reactionAdd, reactionRemove } =
    msgs;
  const { applyFilters } = otherBots;
  const validateMessage = (body: Json, files: RecordedFile[], creating: boolean): void => checkMessage(body, files, creating, state.uploadLimit);

  /** /channels/{c}/messages[/{m}[/reactions[/{emoji}[/{user}]]]] on a channel the bot can see. */
  const messagesRoute = async (req: IncomingMessage, url: URL, channel: ApiChannel, segments: string[], raw: Buffer): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const id = channel.id;
    const [, , third, messageId, fifth, emojiSegment, userSegment] = segments;
    const thread = isThread(channel);
    if (third !== 'messages') return undefined;
    const history = (permissionsIn(id) & Permission.ReadMessageHistory) !== 0n;

    if (messageId === undefined) {
      if (method === 'GET') {
        if (!history) return { status: 200, body: [] };
        const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 50) || 50, 1), 100);
        const before = url.searchParams.get('before');
        const after = url.searchParams.get('after');
        let list = [...messages.values()].filter((m) => m.channel_id === id && !isEphemeral(m)).sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? 1 : -1));
        if (before) list = list.filter((m) => BigInt(m.id) < BigInt(before));
        if (after) list = list.filter((m) => BigInt(m.id) > BigInt(after)).reverse().slice(0, limit).reverse();
        return { status: 200, body: list.slice(0, limit) };
      }
      if (method === 'POST') {
        if (!MESSAGEABLE_TYPES.has(channel.type)) throw new HttpError(400, { message: 'Cannot send messages in a non-text channel', code: 50008 });
        requirePermission(id, thread ? Permission.SendMessagesInThreads : Permission.SendMessages);
        const { json, files } = await readBody(req, raw);
        if (files.length > 0) requirePermission(id, Permission.AttachFiles);
        validateMessage(json, files, true);
        const reference = json.message_reference as Json | undefined;
        let referenced: ApiMessage | undefined;
        if (reference && typeof reference.message_id === 'string' && reference.type !== 1) {
          referenced = messages.get(reference.message_id);
          if ((!referenced || referenced.channel_id !== id) && reference.fail_if_not_exists !== false) {
            throw invalidForm('message_reference', 'REPLIES_UNKNOWN_MESSAGE', 'Unknown message');
          }
          if (referenced?.channel_id !== id) referenced = undefined;
        }
        const message = newMessage({
          ...messageFields(json, files, id),
          channel_id: id,
          author: botUser,
          tts: json.tts === true,
          ...(typeof json.nonce === 'string' || typeof json.nonce === 'number' ? { nonce: json.nonce } : {}),
          ...mentionsFor(typeof json.content === 'string' ? json.content : '', json.allowed_mentions, referenced?.author),
          ...(referenced
            ? {
                type: 19,
                message_reference: { type: 0, message_id: referenced.id, channel_id: id, guild_id: guild.id },
                referenced_message: structuredClone(referenced),
              }
            : {}),
        });
        dispatchMessage('MESSAGE_CREATE', message);
        return { status: 200, body: message };
      }
      return undefined;
    }

    // A filter bot that wins the race deletes the original just before the bot's own DELETE lands.
    if (method === 'DELETE' && fifth === undefined) {
      const target = messages.get(messageId);
      if (target) applyFilters(target, 'before-bot-deletes');
    }
    const message = messages.get(messageId);
    if (!message || message.channel_id !== id || isEphemeral(message)) throw unknownMessage();
    const own = message.author.id === botUser.id;

    if (fifth === undefined) {
      if (method === 'GET') {
        if (!history) throw missingAccess();
        return { status: 200, body: message };
      }
      if (method === 'PATCH') {
        const { json, files } = await readBody(req, raw);
        const onlyFlags = Object.keys(json).every((key) => key === 'flags');
        if (!own && !(onlyFlags && (permissionsIn(id) & Permission.ManageMessages) !== 0n)) {
          throw new HttpError(403, { message: 'Cannot edit a message authored by another user', code: 50005 });
        }
        validateMessage(json, files, false);
        editMessage(message, json, files);
        if (typeof json.content === 'string') Object.assign(message, mentionsFor(json.content, json.allowed_mentions));
        dispatchMessage('MESSAGE_UPDATE', message);
        return { status: 200, body: message };
      }
      if (method === 'DELETE') {
        if (!own) requirePermission(id, Permission.ManageMessages);
        removeMessage(message);
        return { status: 204 };
      }
      return undefined;
    }

    if (fifth !== 'reactions') return undefined;
    const store = reactions.get(message.id);
    if (emojiSegment === undefined) {
      if (method !== 'DELETE') return undefined;
      requirePermission(id, Permission.ManageMessages);
      reactions.delete(message.id);
      renderReactions(message);
      dispatchIf(Intent.GuildMessageReactions, 'MESSAGE_REACTION_REMOVE_ALL', { channel_id: id, message_id: message.id, guild_id: guild.id });
      return { status: 204 };
    }
    const emoji = parseEmoji(emojiSegment);
    const key = emojiKey(emoji);
    if (userSegment === undefined) {
      if (method === 'GET') {
        const users = [...(store?.get(key)?.users ?? [])].map((userId) => members.get(userId)?.user ?? user(userId, 'unknown'));
        return { status: 200, body: users };
      }
      if (method === 'DELETE') {
        requirePermission(id, Permission.ManageMessages);
        const state = store?.get(key);
        if (state) {
          store?.delete(key);
          renderReactions(message);
          dispatchIf(Intent.GuildMessageReactions, 'MESSAGE_REACTION_REMOVE_EMOJI', { channel_id: id, message_id: message.id, guild_id: guild.id, emoji: state.emoji });
        }
        return { status: 204 };
      }
      return undefined;
    }
    if (method === 'PUT' && userSegment === '@me') {
      if (!history) throw missingAccess();
      if (!store?.get(key)?.users.size) requirePermission(id, Permission.AddReactions);
      reactionAdd(message, botUser.id, emoji);
      return { status: 204 };
    }
    if (method === 'DELETE') {
      const userId = userSegment === '@me' ? botUser.id : userSegment;
      if (userId !== botUser.id) requirePermission(id, Permission.ManageMessages);
      reactionRemove(message, userId, emoji);
      return { status: 204 };
    }
    return undefined;
  };

  /** The bot's DM channel with a user: post, read, edit and delete its own messages. */
  const dmRoute = async (req: IncomingMessage, id: string, dm: { channel: Json; userId: string }, rest: string[], raw: Buffer): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const [third, messageId, fifth] = rest;
    if (third === undefined) return method === 'GET' ? { status: 200, body: dm.channel } : undefined;
    if (third === 'typing' && method === 'POST') return { status: 204 };
    if (third !== 'messages' || fifth !== undefined) return undefined;
    if (messageId === undefined) {
      if (method === 'GET') return { status: 200, body: [...messages.values()].filter((m) => m.channel_id === id).reverse() };
      if (method !== 'POST') return undefined;
      if (closedDms.has(dm.userId)) throw new HttpError(403, { message: 'Cannot send messages to this user', code: 50007 });
      const { json, files } = await readBody(req, raw);
      validateMessage(json, files, true);
      const message = newMessage({ ...messageFields(json, files, id), channel_id: id, author: botUser, ...mentionsFor(typeof json.content === 'string' ? json.content : '', json.allowed_mentions) });
      delete message.guild_id;
      dm.channel.last_message_id = message.id;
      dispatchMessage('MESSAGE_CREATE', message);
      return { status: 200, body: message };
    }
    const message = messages.get(messageId);
    if (!message || message.channel_id !== id) throw unknownMessage();
    if (method === 'GET') return { status: 200, body: message };
    if (message.author.id !== botUser.id) throw new HttpError(403, { message: 'Cannot execute action on a DM channel', code: 50003 });
    if (method === 'PATCH') {
      const { json, files } = await readBody(req, raw);
      validateMessage(json, files, false);
      editMessage(message, json, files);
      dispatchMessage('MESSAGE_UPDATE', message);
      return { status: 200, body: message };
    }
    if (method === 'DELETE') {
      removeMessage(message);
      return { status: 204 };
    }
    return undefined;
  };

  return { messagesRoute, dmRoute };
}
