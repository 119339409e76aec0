// Starts the bot from configuration: beside the service in one process (`npm start`) or alone
// against a remote service (`switchboard bot`, which then needs BOT_CLIENT_ID/BOT_CLIENT_SECRET).
// The bot knows the service only by its address and the OAuth client it signs in with: whoever
// runs it beside the service (src/run-bot.ts) registers that client and passes it in, with the
// command list.
import type { Config } from '../config/config.js';
import { loadBotSecrets } from '../config/secrets.js';
import { startBot, type RunningBot } from './bot.js';
import type { Command } from './command.js';
import type { BotLog } from './log.js';
import { registerCommands } from './register-commands.js';

/** The service in this process: its address, and the bot's first-party client registered there. */
export interface ServiceBeside {
  address: string;
  oauthClient: { id: string; secret: string };
}

export interface BotLaunch {
  commands: readonly Command[];
  beside?: ServiceBeside | undefined;
}

export async function launchBot(config: Config, log: BotLog, launch: BotLaunch): Promise<RunningBot> {
  const token = config.bot.token;
  if (!token) throw new Error('DISCORD_TOKEN is not set');
  const url = config.bot.apiUrl ?? launch.beside?.address;
  if (!url) throw new Error('SWITCHBOARD_API_URL is not set: the bot needs the address of the service');
  const oauthClient = config.bot.oauthClient ?? launch.beside?.oauthClient;
  if (!oauthClient) throw new Error('BOT_CLIENT_ID and BOT_CLIENT_SECRET are needed when the bot runs apart from the service');

  const registered = await registerCommands(launch.commands, { token, discordApiBase: config.discord.apiBase, guildId: config.bot.guildId });
  log.info(registered, 'slash commands registered');
  return startBot({
    token,
    discordApiBase: config.discord.apiBase,
    commands: launch.commands,
    service: { url, clientId: oauthClient.id, clientSecret: oauthClient.secret, timeoutMs: config.bot.apiTimeoutMs },
    store: { url: config.bot.storeUrl, key: loadBotSecrets(config).storeKey },
    noticeIntervalMs: config.bot.noticeIntervalMs,
    log,
    shards: config.bot.shards,
    leaseMs: config.bot.leaseMs,
    globalRequestsPerSecond: config.bot.globalRequestsPerSecond,
  });
}
