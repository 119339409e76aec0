// /channels/{id}: the channel itself, typing, and its webhooks (list and create); messages and
// reactions (and DM channels) are in messages.ts.
import type { IncomingMessage } from 'node:http';
import { MAX_WEBHOOKS_PER_CHANNEL, Permission, WEBHOOK_CHANNEL_TYPES, isThread } from '../constants.js';
import { shortHash } from '../objects.js';
import { HttpError, validateWebhookName } from '../refusals.js';
import type { RouteResult } from '../types.js';
import { readBody, requireBotToken, type Parts } from './http.js';
import { createMessageRoutes } from './messages.js';

export function createChannelRoutes(parts: Parts) {
  const { state, permissions, webhooks: hooks } = parts;
  const { botUser, applicationId, webhooks, dmChannels } = state;
  const { visibleChannel, requirePermission } = permissions;
  const { webhookJson, ownWebhook, putWebhook } = hooks;
  const { messagesRoute, dmRoute } = createMessageRoutes(parts);
  const requireBot = (req: IncomingMessage): void => requireBotToken(req, state.botToken);

  /** Channel routes under /channels/{c}, as the bot calls them. */
  const channelRoute = async (req: IncomingMessage, url: URL, segments: string[], raw: Buffer): Promise<RouteResult> => {
    requireBot(req);
    const method = req.method ?? 'GET';
    const [, id, third, messageId] = segments;
    if (id === undefined) return undefined;
    const dm = dmChannels.get(id);
    if (dm) return dmRoute(req, id, dm, segments.slice(2), raw);
    const channel = visibleChannel(id);
    const thread = isThread(channel);

    if (third === undefined) {
      if (method === 'GET') return { status: 200, body: channel };
      return undefined;
    }

    if (third === 'typing' && messageId === undefined && method === 'POST') return { status: 204 };

    if (third === 'webhooks' && messageId === undefined) {
      if (thread || !WEBHOOK_CHANNEL_TYPES.has(channel.type)) throw new HttpError(400, { message: 'Cannot execute action on this channel type', code: 50024 });
      requirePermission(id, Permission.ManageWebhooks);
      if (method === 'GET') {
        return { status: 200, body: [...webhooks.values()].filter((w) => w.channel_id === id).map((w) => webhookJson(w, ownWebhook(w))) };
      }
      if (method === 'POST') {
        const { json } = await readBody(req, raw);
        validateWebhookName('name', json.name);
        if ([...webhooks.values()].filter((w) => w.channel_id === id).length >= MAX_WEBHOOKS_PER_CHANNEL) {
          throw new HttpError(400, { message: `Maximum number of webhooks reached (${MAX_WEBHOOKS_PER_CHANNEL})`, code: 30007 });
        }
        const avatar = typeof json.avatar === 'string' && json.avatar !== '' ? shortHash(json.avatar) : null;
        return { status: 200, body: webhookJson(putWebhook(id, json.name as string, avatar, applicationId, botUser), true) };
      }
      return undefined;
    }

    return messagesRoute(req, url, channel, segments, raw);
  };

  return { channelRoute };
}
