// The Discord bot: a discord.js gateway client whose interactions are answered through the
// service's HTTP API. startBot wires the parts and never decides where the service is or where
// tokens live, nor which commands it answers: its callers pass that in.
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
  /** Sharding, when run by the CLI with --shards. */
  shards?: ClientOptions['shards'];
  shardCount?: number;
}

export interface RunningBot {
  client: Client;
  context: BotContext;
  /** The linked accounts' store (tests read it; operators never need to). */
  store: LinkStore;
  stop(): Promise<void>;
}

export async function startBot(options: BotOptions): Promise<RunningBot> {
  const api = createApiClient({ baseUrl: options.service.url, clientId: options.service.clientId, clientSecret: options.service.clientSecret, timeoutMs: options.service.timeoutMs });
  const store = await openLinkStore(options.store.url, options.store.key);
  const accounts = createLinkedAccounts(store, api, options.log);
  const log = options.log;

  const client = new Client({
    // MessageContent is privileged: the server admin enables it in the developer portal (README).
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.GuildWebhooks, GatewayIntentBits.GuildMessageReactions],
    // Reactions on messages sent before this process started arrive as partials.
    partials: [Partials.Message, Partials.Reaction, Partials.User],
    ...discordCaches(),
    rest: { api: options.discordApiBase },
    ...(options.shards === undefined ? {} : { shards: options.shards }),
    ...(options.shardCount === undefined ? {} : { shardCount: options.shardCount }),
  });
  const proxying = createProxying(client, api, accounts, log);
  const context: BotContext = {
    api,
    accounts,
    alters: createAlterDirectory(api, accounts),
    tags: createTagDirectory(api, accounts),
    linkFlow: createLinkFlow(api, accounts),
    proxying,
    imports: createImportSessions(),
    attachmentOrigins: attachmentOrigins(options.discordApiBase),
  };
  const handle = createInteractionHandler(options.commands, context, log);
  client.on(Events.InteractionCreate, (interaction) => void handle(interaction));
  client.on(Events.MessageCreate, (message) => {
    proxying.onMessage(message).catch((error: unknown) => log.warn({ err: error, message: message.id }, 'message handling failed'));
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
    await store.close();
    throw error;
  }
  log.info({ user: client.user?.tag, guilds: client.guilds.cache.size }, 'bot is ready');
  // One process tells owners about other apps' changes: the one holding shard 0 (or the only one).
  const holdsShardZero = options.shards === undefined || options.shards === 'auto' || (Array.isArray(options.shards) ? options.shards.includes(0) : options.shards === 0);
  const notices = holdsShardZero ? startOperationNotices({ client, api, accounts, alters: context.alters, log, ...(options.noticeIntervalMs === undefined ? {} : { intervalMs: options.noticeIntervalMs }) }) : undefined;

  let stopping: Promise<void> | undefined;
  return {
    client,
    context,
    store,
    stop() {
      stopping ??= (async () => {
        context.linkFlow.stop();
        context.imports.stop();
        await notices?.stop();
        await client.destroy();
        // Records still being retried get a last attempt while the store is open.
        await proxying.deliveries.stop();
        await store.close();
      })();
      return stopping;
    },
  };
}
