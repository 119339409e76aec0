// The bot as the composition roots run it (main.ts beside the service, the CLI's `bot` alone):
// with every command in commands/, and, beside the service, with its first-party OAuth client
// registered in this process's database. This is the one place the bot and the service's
// internals meet; src/bot/ itself reaches the service only over HTTP.
import type { Kysely } from 'kysely';
import { COMMANDS } from '../commands/index.js';
import { ensureBotClient } from './auth/clients.js';
import type { RunningBot } from './bot/bot.js';
import type { BotLog } from './bot/log.js';
import { launchBot } from './bot/launch.js';
import type { Config } from './config/config.js';
import { loadBotClientSecret } from './config/secrets.js';
import type { Schema } from './db/tables.js';

/** The service running in this process. */
export interface InProcessService {
  address: string;
  db: Kysely<Schema>;
}

export async function runBot(config: Config, log: BotLog, service?: InProcessService, sharding: { shards?: 'auto' | number[]; shardCount?: number } = {}): Promise<RunningBot> {
  // Configured credentials win (the bot may sign in as a client registered by hand); otherwise the
  // bot beside the service registers its own, with a secret kept beside the service's keys.
  const beside = service && {
    address: service.address,
    oauthClient: config.bot.oauthClient ?? (await ensureBotClient(service.db, loadBotClientSecret(config))),
  };
  return launchBot(config, log, { commands: COMMANDS, beside, ...sharding });
}
