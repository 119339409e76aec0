// `switchboard register-commands` and `switchboard bot`: the slash commands registered with
// Discord, and the bot run alone against a remote service (holding the shards SHARD_COUNT and
// SHARD_IDS say, beside other processes sharing BOT_STORE_URL).
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
    .description('run the Discord bot alone, against the service at SWITCHBOARD_API_URL (the shards SHARD_COUNT and SHARD_IDS name)')
    .action(async () => {
      loadDotEnv();
      const config = loadConfig();
      const { ids, count } = config.bot.shards;
      if (ids !== undefined && typeof count === 'number' && ids.length < count && /^sqlite:\/\/(:memory:)?$/.test(config.bot.storeUrl)) {
        throw new CliError('SHARD_IDS: the other shards run in other processes, which need a shared BOT_STORE_URL (postgres://, redis://, or an SQLite file on this machine)', 2);
      }
      const log = { info: (o: object, m?: string) => io.out(`${m ?? ''} ${JSON.stringify(o)}`), warn: (o: object, m?: string) => io.err(`warning: ${m ?? ''} ${JSON.stringify(o)}`), error: (o: object, m?: string) => io.err(`error: ${m ?? ''} ${JSON.stringify(o)}`) };
      const { runBot } = await import('../run-bot.js');
      const bot = await runBot(config, log);
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await bot.stop();
    });
}
