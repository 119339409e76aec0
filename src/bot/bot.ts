// The Discord bot: a discord.js gateway client whose interactions are answered through the
// service's HTTP API. startBot wires the parts and never decides where the service is or where
// tokens live, nor which commands it answers: its callers pass that in.
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Events, GatewayIntentBits, Partials, type ClientOptions } from 'discord.js';
import { createApiClient } from './api-client.js';
import { createAlterDirectory } from './lists/alter-directory.js';
import { discordCaches } from './discord-caches.js';
import type { BotContext, Command } from './command.js';
import { attachmentOrigins } from './imports/discord-attachment.js';
import { createImportSessions } from './imports/import-session.js';
import { createInteractionHandler } from './interactions.js';
import { createLinkFlow } from './links/link-flow.js';
import { openLinkStore, type LinkStore } from './links/link-store.js';
import { createLinkedAccounts } from './links/linked-accounts.js';
import type { BotLog } from './log.js';
import { startOperationNotices } from './notices/operation-notices.js';
import { createProxying } from './proxy/index.js';
import { createTagDirectory } from './lists/tag-directory.js';
import { createFieldDirectory } from './lists/field-directory.js';
import type { ShardPlan } from '../config/shards.js';
import { DEFAULT_LEASE_MS, openBotShared } from './processes/bot-shared.js';
import { createSessionHandoff } from './processes/session-handoff.js';

/** discord.js's options for a shard plan: the listed shards of the count, or all of them. */
function shardingOptions(plan: ShardPlan): Pick<ClientOptions, 'shards' | 'shardCount'> {
  if (plan.count === 'auto') return { shards: 'auto' };
  return { shards: plan.ids ?? Array.from({ length: plan.count }, (_, id) => id), shardCount: plan.count };
}

/** How long a stop waits for messages being handled. */
const STOP_GRACE_MS = 10_000;

export interface BotOptions {
  token: string;
  /** Discord's API base (e.g. https://discord.com/api); REST and gateway discovery use it. */
  discordApiBase: string;
  /** What the bot answers (commands/index.ts, handed in by whoever runs the bot). */
  commands: readonly Command[];
  service: { url: string; clientId: string; clientSecret: string; timeoutMs: number };
  store: { url: string; key: Buffer };
  /** How often the event feed is read for operation notices (operation-notices.ts). */
  noticeIntervalMs?: number;
  log: BotLog;
  /** SHARD_COUNT and SHARD_IDS (default: one shard). */
  shards?: ShardPlan;
  /** BOT_LEASE_TIMEOUT: how long leases in the shared store last unless renewed. */
  leaseMs?: number;
  /** DISCORD_GLOBAL_RATE_LIMIT: requests per second of the bot's own (50 unless Discord granted more). */
  globalRequestsPerSecond?: number;
}

export interface RunningBot {
  client: Client;
  context: BotContext;
  /** The linked accounts' store (tests read it; operators never need to). */
  store: LinkStore;
  stop(): Promise<void>;
}

export async function startBot(options: BotOptions): Promise<RunningBot> {
  const api = createApiClient({
    baseUrl: options.service.url,
    clientId: options.service.clientId,
    clientSecret: options.service.clientSecret,
    timeoutMs: options.service.timeoutMs,
  });
  const log = options.log;
  const store = await openLinkStore(options.store.url, options.store.key);
  const shared = await openBotShared(options.store.url, options.store.key, options.leaseMs ?? DEFAULT_LEASE_MS, log).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const accounts = createLinkedAccounts(store, api, log, shared.store);
  // The shards' gateway sessions outlive this process for the next one to resume (session-handoff.ts):
  // a stop saves them whole; after a crash, each shard's last checkpoint is resumed once this
  // process's "alive" lease lapses.
  const handoff = createSessionHandoff({ store: shared.store, sealer: shared.sealer, log, coordination: shared.coordination });

  const client = new Client({
    // MessageContent is privileged: the server admin enables it in the developer portal (README).
    intents: [
      GatewayIntentBits.Guilds,
      GatewayIntentBits.GuildMessages,
      GatewayIntentBits.MessageContent,
      GatewayIntentBits.GuildWebhooks,
      GatewayIntentBits.GuildMessageReactions,
    ],
    // Reactions on messages sent before this process started arrive as partials.
    partials: [Partials.Message, Partials.Reaction, Partials.User],
    ...discordCaches(),
    rest: { api: options.discordApiBase, ...(options.globalRequestsPerSecond ? { globalRequestsPerSecond: options.globalRequestsPerSecond } : {}) },
    ...shardingOptions(options.shards ?? { count: 1, ids: undefined }),
    // Identifies take turns per max_concurrency bucket across every process sharing the store.
    ws: {
      buildIdentifyThrottler: async (manager) => {
        const maxConcurrency = (await manager.fetchGatewayInformation()).session_start_limit.max_concurrency;
        return { waitForIdentify: (shardId, signal) => shared.coordination.waitForIdentify(shardId, maxConcurrency, signal) };
      },
      buildStrategy: (manager) => handoff.buildStrategy(manager),
    },
  });
  const proxying = createProxying(client, api, accounts, log, shared);
  const context: BotContext = {
    api,
    accounts,
    alters: createAlterDirectory(api, accounts),
    tags: createTagDirectory(api, accounts),
    fields: createFieldDirectory(api, accounts),
    linkFlow: createLinkFlow(api, accounts),
    proxying,
    imports: createImportSessions(shared),
    attachmentOrigins: attachmentOrigins(options.discordApiBase),
  };
  const handle = createInteractionHandler(options.commands, context, log);
  client.on(Events.InteractionCreate, (interaction) => void handle(interaction));
  // Messages being handled: a stop lets them finish (a message Discord delivered is not lost).
  const handling = new Set<Promise<unknown>>();
  client.on(Events.MessageCreate, (message) => {
    const handled = proxying.onMessage(message).catch((error: unknown) => log.warn({ err: error, message: message.id }, 'message handling failed'));
    handling.add(handled);
    void handled.finally(() => handling.delete(handled));
  });
  client.on(Events.MessageDelete, (message) => {
    proxying.deletions.add(message.id);
    proxying.serverLog.deleted(message).catch((error: unknown) => log.warn({ err: error }, 'could not log a deletion'));
  });
  client.on(Events.MessageUpdate, (before, after) => {
    if (after.partial) return;
    proxying.serverLog.edited(before, after).catch((error: unknown) => log.warn({ err: error }, 'could not log an edit'));
  });
  client.on(Events.MessageReactionAdd, (reaction, user) => void proxying.onReaction(reaction, user));
  client.on(Events.Error, (error) => log.warn({ err: error }, 'discord client error'));
  client.on(Events.ShardDisconnect, (_event, shard) => log.info({ shard }, 'gateway disconnected'));

  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  try {
    await client.login(options.token);
    await ready;
  } catch (error) {
    await client.destroy();
    proxying.pending.stop();
    await accounts.stop();
    await shared.close();
    await store.close();
    throw error;
  }
  log.info({ user: client.user?.tag, guilds: client.guilds.cache.size, shards: client.options.shards }, 'bot is ready');
  // One process tells owners about other apps' changes: whichever holds the role (coordination.ts).
  const notices = startOperationNotices({
    client,
    api,
    accounts,
    alters: context.alters,
    log,
    shared,
    ...(options.noticeIntervalMs === undefined ? {} : { intervalMs: options.noticeIntervalMs }),
  });

  let stopping: Promise<void> | undefined;
  return {
    client,
    context,
    store,
    stop() {
      stopping ??= (async () => {
        context.linkFlow.stop();
        context.imports.stop();
        await notices.stop();
        handoff.handOff();
        // The gateway closes (no more events; its sessions saved for the next process); the messages already received finish with the
        // bot's token, which destroy() took away: given back for them (the client is done).
        await client.destroy();
        client.rest.setToken(options.token);
        await Promise.race([Promise.allSettled([...handling]), sleep(STOP_GRACE_MS, undefined, { ref: false })]);
        proxying.pending.stop();
        // Records still being retried get a last attempt while the store is open; what is still
        // pending after it stays in the store for another process.
        await proxying.deliveries.stop();
        await accounts.stop();
        await shared.close();
        await store.close();
      })();
      return stopping;
    },
  };
}
