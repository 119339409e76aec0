// The bot's proxying room: the parts the message path, the reaction shortcuts and the proxy
// commands share, made once per bot process (webhook and profile caches are per process; every
// state that must survive or be shared lives in the service).
import { EventEmitter } from 'node:events';
// REST from discord.js, not @discordjs/rest: in ESM the two are separate copies (CommonJS and ESM
// builds), and errors from the other copy would fail discord.js's `instanceof DiscordAPIError`.
import { REST, type Client, type Message } from 'discord.js';
import type { ApiClient } from '../api-client.js';
import type { BotLog } from '../log.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import { createMessagePath, type MessageOutcome, type OriginalRemovedFirst } from './message-path.js';
import { createNotices, type Notices } from './notices.js';
import { createProfileCache, type ProfileCache } from './profiles.js';
import { createReactionHandler } from './reactions.js';
import { createRecentMessages, type RecentMessages } from './recent.js';
import { createDeliveryQueue, type DeliveryQueue } from './records.js';
import { createPendingRecords, type PendingRecords } from './pending-records.js';
import type { BotShared } from '../processes/bot-shared.js';
import { createWebhookCache, type WebhookCache } from './webhooks.js';
import { createGuildSettingsCache, type GuildSettingsCache } from '../servers/settings-cache.js';
import { createRecentDeletions, type RecentDeletions } from '../servers/deletions.js';
import { createLogCleanup, type LogCleanup } from '../servers/log-cleanup.js';
import { createServerLog, type ServerLog } from '../servers/server-log.js';

export interface Proxying {
  /** For webhook-token requests (execute, edit, delete), which carry no bot token. */
  webhookRest: REST;
  profiles: ProfileCache;
  webhooks: WebhookCache;
  deliveries: DeliveryQueue;
  /** Message records pending in the shared store (this process's, and those of processes that stopped). */
  pending: PendingRecords;
  notices: Notices;
  recent: RecentMessages;
  /** Servers' settings, held exactly (src/bot/servers/). */
  servers: GuildSettingsCache;
  deletions: RecentDeletions;
  /** The servers' log channels: proxied messages, their edits and deletions. */
  serverLog: ServerLog;
  logCleanup: LogCleanup;
  /**
   * Handles one message; the outcome is also emitted as `handled` (message id, outcome), and a copy
   * withdrawn because its original was removed first as `originalRemovedFirst` (what server logs
   * report: "the original was removed before the bot could").
   */
  onMessage(message: Message): Promise<MessageOutcome>;
  outcomes: EventEmitter<ProxyingEvents>;
  onReaction: ReturnType<typeof createReactionHandler>;
}

export interface ProxyingEvents {
  handled: [messageId: string, outcome: MessageOutcome];
  originalRemovedFirst: [event: OriginalRemovedFirst];
}

export function createProxying(client: Client, api: ApiClient, accounts: LinkedAccounts, log: BotLog, shared: BotShared): Proxying {
  const deliveries = createDeliveryQueue(log);
  const base = {
    // Requests with a webhook's token are not the bot's: Discord limits them per webhook and per
    // address, so they must not queue behind the bot's own global budget (50 requests a second in
    // @discordjs/rest), which would cap proxying at about 25 messages a second. @discordjs/rest
    // gives this queue a global budget of its own; it is the bot's size (DISCORD_GLOBAL_RATE_LIMIT),
    // so that a process granted more proxies more (each message is one execute and one delete).
    webhookRest: new REST({
      api: client.rest.options.api,
      version: client.rest.options.version,
      globalRequestsPerSecond: client.rest.options.globalRequestsPerSecond,
    }),
    api,
    accounts,
    log,
    profiles: createProfileCache(api, accounts, log),
    webhooks: createWebhookCache(client),
    deliveries,
    pending: createPendingRecords({ ...shared, deliveries, api, accounts, log }),
    recent: createRecentMessages(),
    deletions: createRecentDeletions(),
  };
  const notices = createNotices(log);
  const servers = createGuildSettingsCache(api, log);
  const parts = {
    ...base,
    notices,
    servers,
    serverLog: createServerLog(client, api, servers, notices, base.recent, log),
    logCleanup: createLogCleanup(servers, log),
  };
  const outcomes = new EventEmitter<ProxyingEvents>();
  const path = createMessagePath({
    ...parts,
    onOriginalRemovedFirst: (event) => {
      log.info({ guild: event.guildId, channel: event.channelId, original: event.originalMessageId, copyDeleted: event.copyDeleted }, 'original removed before the bot could delete it; copy withdrawn');
      outcomes.emit('originalRemovedFirst', event);
    },
  });
  async function onMessage(message: Message): Promise<MessageOutcome> {
    let outcome: MessageOutcome = 'failed';
    try {
      // A named logging bot's entry about an original the bot just deleted is removed (log-cleanup.ts).
      if (message.author.bot && !message.webhookId && message.inGuild()) {
        parts.logCleanup.onBotMessage(message).catch((error: unknown) => log.warn({ err: error }, 'log cleanup failed'));
      }
      outcome = await path(message);
      return outcome;
    } finally {
      outcomes.emit('handled', message.id, outcome);
    }
  }
  return { ...parts, onMessage, outcomes, onReaction: createReactionHandler(parts) };
}
