// The bot's REST API under /api/v{n}: the gateway and application, users and DM channels, and the
// dispatch to each resource's routes.
import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import { OWNER_ID } from '../constants.js';
import { user } from '../objects.js';
import { HttpError } from '../refusals.js';
import type { Json, RouteResult } from '../types.js';
import { createChannelRoutes } from './channels.js';
import { createCommandRoutes } from './commands.js';
import { createGuildRoutes } from './guilds.js';
import { readBody, requireBotToken, type Parts } from './http.js';
import { createInteractionRoutes } from './interactions.js';
import { createWebhookRoutes } from './webhooks.js';

export function createBotRoutes(parts: Parts) {
  const { state, gateway, msgs } = parts;
  const { botUser, applicationId, members } = state;
  const { gatewayUrl } = gateway;
  const { knownUser, dmChannelFor } = msgs;
  const { channelRoute } = createChannelRoutes(parts);
  const { guildRoute } = createGuildRoutes(parts);
  const { applicationRoute } = createCommandRoutes(parts);
  const { interactionRoute } = createInteractionRoutes(parts);
  const { webhookRoute } = createWebhookRoutes(parts);
  const requireBot = (req: IncomingMessage): void => requireBotToken(req, state.botToken);

  const applicationObject = (): Json => ({
    id: applicationId,
    name: botUser.username,
    icon: null,
    description: '',
    summary: '',
    type: null,
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: randomBytes(32).toString('hex'),
    flags: 0,
    hook: true,
    is_monetized: false,
    team: null,
    owner: user(OWNER_ID, 'owner'),
    bot: botUser,
    approximate_guild_count: 1,
    approximate_user_install_count: 0,
    interactions_endpoint_url: null,
    role_connections_verification_url: null,
    redirect_uris: [],
    tags: [],
    integration_types_config: { '0': {} },
  });

  /** The bot's REST API under /api/v{n}; returns undefined for routes it does not know. */
  const botRoute = async (req: IncomingMessage, url: URL, segments: string[], raw: Buffer, receivedAt: bigint): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const route = segments.join('/');
    const auth = req.headers.authorization ?? '';
    // A wrong bot token is the only casual 401 the fake gives: @discordjs/rest drops its token on 401.
    if (auth.startsWith('Bot ')) requireBot(req);

    if (method === 'GET' && route === 'gateway') return { status: 200, body: { url: gatewayUrl() } };
    if (method === 'GET' && route === 'gateway/bot') {
      requireBot(req);
      return {
        status: 200,
        body: {
          url: gatewayUrl(),
          shards: state.recommendedShards,
          session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: state.maxConcurrency },
        },
      };
    }
    if (method === 'GET' && route === 'applications/@me') {
      requireBot(req);
      return { status: 200, body: applicationObject() };
    }
    if (method === 'GET' && route === 'users/@me' && auth.startsWith('Bot ')) return { status: 200, body: botUser };

    const [first, second, third] = segments;
    if (first === 'applications') return applicationRoute(req, segments, raw);

    if (first === 'channels') return channelRoute(req, url, segments, raw);
    if (first === 'guilds') return guildRoute(req, segments, raw);
    if (method === 'POST' && route === 'users/@me/channels') {
      requireBot(req);
      const { json } = await readBody(req, raw);
      const recipient = typeof json.recipient_id === 'string' ? knownUser(json.recipient_id) : undefined;
      if (!recipient || recipient.bot) throw new HttpError(400, { message: 'Invalid Recipient(s)', code: 50033 });
      return { status: 200, body: dmChannelFor(recipient) };
    }
    if (first === 'users' && second !== undefined && third === undefined && method === 'GET') {
      requireBot(req);
      const found = second === botUser.id ? botUser : members.get(second)?.user;
      if (!found) throw new HttpError(404, { message: 'Unknown User', code: 10013 });
      return { status: 200, body: found };
    }

    if (first === 'interactions' || (first === 'webhooks' && second === applicationId && third)) return interactionRoute(req, url, segments, raw, receivedAt);
    if (first === 'webhooks') return webhookRoute(req, url, segments, raw, receivedAt);
    return undefined;
  };

  return { botRoute };
}
