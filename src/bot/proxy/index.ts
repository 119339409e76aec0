// The bot's proxying room: the parts the message path, the reaction shortcuts and the proxy
// commands share, made once per bot process (webhook and profile caches are per process; every
// state that must survive or be shared lives in the service).
import type { Client } from 'discord.js';
import type { ApiClient } from '../api-client.js';
import type { BotLog } from '../bot.js';
import type { LinkedAccounts } from '../linked-accounts.js';
import { createMessagePath } from './message-path.js';
import { createNotices, type Notices } from './notices.js';
import { createProfileCache, type ProfileCache } from './profiles.js';
import { createReactionHandler } from './reactions.js';
import { createRecentMessages, type RecentMessages } from './recent.js';
import { createDeliveryQueue, type DeliveryQueue } from './records.js';
import { createWebhookCache, type WebhookCache } from './webhooks.js';

export interface Proxying {
  profiles: ProfileCache;
  webhooks: WebhookCache;
  deliveries: DeliveryQueue;
  notices: Notices;
  recent: RecentMessages;
  onMessage: ReturnType<typeof createMessagePath>;
  onReaction: ReturnType<typeof createReactionHandler>;
}

export function createProxying(client: Client, api: ApiClient, accounts: LinkedAccounts, log: BotLog): Proxying {
  const parts = {
    client,
    api,
    accounts,
    log,
    profiles: createProfileCache(api, accounts, log),
    webhooks: createWebhookCache(client),
    deliveries: createDeliveryQueue(log),
    notices: createNotices(log),
    recent: createRecentMessages(),
  };
  return { ...parts, onMessage: createMessagePath(parts), onReaction: createReactionHandler(parts) };
}
