// Starts the bot from configuration: beside the service in one process (`npm start`: the bot
// calls the service on its own address and registers its OAuth client itself) or alone against a
// remote service (`switchboard bot`, which then needs BOT_CLIENT_ID/BOT_CLIENT_SECRET).
import type { Kysely } from 'kysely';
import { ensureBotClient } from '../auth/clients.js';
import type { Config } from '../config/config.js';
import { loadBotClientSecret, loadBotSecrets } from '../config/secrets.js';
import type { Schema } from '../db/tables.js';
import { startBot, type BotLog, type RunningBot } from './bot.js';
import { registerCommands } from './register-commands.js';

export interface InProcessService {
  address: string;
  db: Kysely<Schema>;
}

export async function launchBot(config: Config, log: BotLog, service?: InProcessService, sharding: { shards?: 'auto' | number[]; shardCount?: number } = {}): Promise<RunningBot> {
  const token = config.bot.token;
  if (!token) throw new Error('DISCORD_TOKEN is not set');
  const url = config.bot.apiUrl ?? service?.address;
  if (!url) throw new Error('SWITCHBOARD_API_URL is not set: the bot needs the address of the service');
  const oauthClient = config.bot.oauthClient ?? (service ? await ensureBotClient(service.db, loadBotClientSecret(config)) : undefined);
  if (!oauthClient) throw new Error('BOT_CLIENT_ID and BOT_CLIENT_SECRET are needed when the bot runs apart from the service');

  const registered = await registerCommands({ token, discordApiBase: config.discord.apiBase, guildId: config.bot.guildId });
  log.info(registered, 'slash commands registered');
  return startBot({
    token,
    discordApiBase: config.discord.apiBase,
    service: { url, clientId: oauthClient.id, clientSecret: oauthClient.secret, timeoutMs: config.bot.apiTimeoutMs },
    store: { url: config.bot.storeUrl, key: loadBotSecrets(config).storeKey },
    noticeIntervalMs: config.bot.noticeIntervalMs,
    log,
    ...sharding,
  });
}
