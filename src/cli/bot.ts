// `switchboard register-commands` and `switchboard bot`: the slash commands registered with
// Discord, and the bot run alone against a remote service (optionally sharded).
import type { Command } from 'commander';
import { loadConfig, loadDotEnv } from '../config/config.js';
import { CliError, type Io } from './support.js';

export function registerBotCommands(program: Command, io: Io): void {
  program
    .command('register-commands')
    .description('register the slash commands with Discord (in DISCORD_GUILD_ID when set, else globally)')
    .action(async () => {
      loadDotEnv();
      const config = loadConfig();
      if (!config.bot.token) throw new CliError('DISCORD_TOKEN is not set', 2);
      const [{ registerCommands }, { COMMANDS }] = await Promise.all([import('../bot/register-commands.js'), import('../../commands/index.js')]);
      const result = await registerCommands(COMMANDS, { token: config.bot.token, discordApiBase: config.discord.apiBase, guildId: config.bot.guildId });
      io.out(`registered ${result.count} commands for application ${result.applicationId} (${result.scope})`);
    });

  program
    .command('bot')
    .description('run the Discord bot alone, against the service at SWITCHBOARD_API_URL')
    .option('--shards <shards>', 'auto, or a number of shards (needs a shared BOT_STORE_URL such as Redis or PostgreSQL)')
    .action(async (options: { shards?: string }) => {
      loadDotEnv();
      const config = loadConfig();
      const sharding = parseShards(options.shards, config.bot.storeUrl);
      const log = { info: (o: object, m?: string) => io.out(`${m ?? ''} ${JSON.stringify(o)}`), warn: (o: object, m?: string) => io.err(`warning: ${m ?? ''} ${JSON.stringify(o)}`), error: (o: object, m?: string) => io.err(`error: ${m ?? ''} ${JSON.stringify(o)}`) };
      const { runBot } = await import('../run-bot.js');
      const bot = await runBot(config, log, undefined, sharding);
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await bot.stop();
    });
}

/** `--shards auto|N`: several shards in one process share the link store, so it must be shared. */
function parseShards(value: string | undefined, storeUrl: string): { shards?: 'auto' | number[]; shardCount?: number } {
  if (value === undefined) return {};
  if (storeUrl.startsWith('sqlite:') && value !== '1') {
    throw new CliError('sharding needs a shared BOT_STORE_URL (postgres:// or redis://), not SQLite', 2);
  }
  if (value === 'auto') return { shards: 'auto' };
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 1000) throw new CliError('--shards must be auto or a whole number from 1 to 1000', 2);
  return { shards: Array.from({ length: count }, (_, i) => i), shardCount: count };
}
