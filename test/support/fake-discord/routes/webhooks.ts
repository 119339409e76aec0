// /webhooks/{id}[/{token}[/messages/{m}]]: channel webhooks, by id with the bot's token or by id
// and token (execute, edit and delete their messages). The interaction routes under
// /webhooks/{application}/{token} are in interactions.ts.
import type { IncomingMessage } from 'node:http';
import { Permission, WEBHOOK_CHANNEL_TYPES, WEBHOOK_FLAGS, isThread } from '../constants.js';
import { HttpError, validateMessage as checkMessage, validateWebhookName } from '../refusals.js';
import type { Json, RecordedFile, RouteResult } from '../types.js';
import { readBody, requireBotToken, type Parts } from './http.js';

export function createWebhookRoutes(parts: Parts) {
  const { state, guildModel, permissions, msgs, webhooks: hooks } = parts;
  const { channels, snowflake } = state;
  const { publishChannel } = guildModel;
  const { visibleChannel, requirePermission } = permissions;
  const { newMessage, dispatchMessage, removeMessage, messageFields, editMessage, mentionsFor } = msgs;
  const { webhookJson, ownWebhook, dropWebhook, renameWebhook, webhookFor, webhookAuthor, webhookTarget, webhookMessage, recordExecution } = hooks;
  const validateMessage = (body: Json, files: RecordedFile[], creating: boolean): void => checkMessage(body, files, creating, state.uploadLimit);
  const requireBot = (req: IncomingMessage): void => requireBotToken(req, state.botToken);

  /** Channel webhooks: by id with the bot's token, or by id and token (no auth). */
  const webhookRoute = async (req: IncomingMessage, url: URL, segments: string[], raw: Buffer, receivedAt: bigint): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const [, id, token, fourth, messageId] = segments;
    if (id === undefined) return undefined;

    if (token === undefined) {
      requireBot(req);
      const webhook = webhookFor(id);
      requirePermission(webhook.channel_id, Permission.ManageWebhooks);
      if (method === 'GET') return { status: 200, body: webhookJson(webhook, ownWebhook(webhook)) };
      if (method === 'DELETE') {
        dropWebhook(webhook);
        return { status: 204 };
      }
      if (method === 'PATCH') {
        const { json } = await readBody(req, raw);
        if (json.name !== undefined) validateWebhookName('name', json.name);
        if (typeof json.channel_id === 'string' && json.channel_id !== webhook.channel_id) {
          const target = visibleChannel(json.channel_id);
          if (isThread(target) || !WEBHOOK_CHANNEL_TYPES.has(target.type)) throw new HttpError(400, { message: 'Cannot execute action on this channel type', code: 50024 });
          requirePermission(target.id, Permission.ManageWebhooks);
          webhook.channel_id = target.id;
        }
        renameWebhook(webhook, json);
        return { status: 200, body: webhookJson(webhook, ownWebhook(webhook)) };
      }
      return undefined;
    }

    const webhook = webhookFor(id, token);
    const threadId = url.searchParams.get('thread_id') ?? undefined;

    if (fourth === undefined) {
      if (method === 'GET') return { status: 200, body: webhookJson(webhook, true, false) };
      if (method === 'DELETE') {
        dropWebhook(webhook);
        return { status: 204 };
      }
      if (method === 'PATCH') {
        const { json } = await readBody(req, raw);
        if (json.name !== undefined) validateWebhookName('name', json.name);
        renameWebhook(webhook, json);
        return { status: 200, body: webhookJson(webhook, true, false) };
      }
      if (method === 'POST') {
        const { json, files } = await readBody(req, raw);
        if (json.username !== undefined) validateWebhookName('username', json.username);
        validateMessage(json, files, true);
        const newId = snowflake();
        const { channel: target, created } = webhookTarget(webhook, threadId, json, newId);
        // The fake's rule: a bot's webhook posts into a thread only where the bot could.
        if (threadId !== undefined && ownWebhook(webhook)) requirePermission(target.id, Permission.SendMessagesInThreads);
        if (created) {
          channels.set(created.id, created);
          publishChannel(created, false);
        }
        const fields = messageFields(json, files, target.id);
        const message = newMessage({
          ...fields,
          id: newId,
          flags: (fields.flags ?? 0) & WEBHOOK_FLAGS,
          channel_id: target.id,
          author: webhookAuthor(webhook, json.username, json.avatar_url),
          webhook_id: webhook.id,
          ...(webhook.application_id ? { application_id: webhook.application_id } : {}),
          tts: json.tts === true,
          ...mentionsFor(typeof json.content === 'string' ? json.content : '', json.allowed_mentions),
        });
        const wait = url.searchParams.get('wait') === 'true';
        recordExecution({ kind: 'execute', webhookId: webhook.id, ...(threadId === undefined ? {} : { threadId }), channelId: target.id, messageId: message.id, wait, body: json, files, receivedAt });
        dispatchMessage('MESSAGE_CREATE', message);
        return wait ? { status: 200, body: message } : { status: 204 };
      }
      return undefined;
    }

    if (fourth !== 'messages' || messageId === undefined || segments.length !== 5) return undefined;
    const message = webhookMessage(webhook, messageId, threadId);
    if (method === 'GET') return { status: 200, body: message };
    if (method === 'PATCH') {
      const { json, files } = await readBody(req, raw);
      validateMessage(json, files, false);
      editMessage(message, { ...json, ...(typeof json.flags === 'number' ? { flags: json.flags & WEBHOOK_FLAGS } : {}) }, files);
      if (typeof json.content === 'string') Object.assign(message, mentionsFor(json.content, json.allowed_mentions));
      recordExecution({ kind: 'edit', webhookId: webhook.id, ...(threadId === undefined ? {} : { threadId }), channelId: message.channel_id, messageId: message.id, wait: false, body: json, files, receivedAt });
      dispatchMessage('MESSAGE_UPDATE', message);
      return { status: 200, body: message };
    }
    if (method === 'DELETE') {
      removeMessage(message);
      recordExecution({ kind: 'delete', webhookId: webhook.id, ...(threadId === undefined ? {} : { threadId }), channelId: message.channel_id, messageId: message.id, wait: false, body: {}, files: [], receivedAt });
      return { status: 204 };
    }
    return undefined;
  };

  return { webhookRoute };
}
