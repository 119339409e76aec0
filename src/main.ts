// `npm start`: the service on embedded defaults, configured from the environment and `.env`, and
// the Discord bot beside it when DISCORD_TOKEN is set.
import type { RunningBot } from './bot/bot.js';
import { ConfigError, loadConfig, loadDotEnv } from './config/config.js';
import { startServer } from './http/server.js';

async function main() {
  loadDotEnv();
  const config = loadConfig();
  const server = await startServer(config);
  server.app.log.info({ address: server.address, publicUrl: config.publicUrl, database: config.databaseUrl.split(':')[0] }, 'switchboard is ready');

  let bot: RunningBot | undefined;
  if (config.bot.token) {
    try {
      // Loaded only when needed: discord.js alone takes a third of a second to import.
      const { launchBot } = await import('./bot/launch.js');
      bot = await launchBot(config, server.app.log, { address: server.address, db: server.database.db });
    } catch (error) {
      server.app.log.error({ err: error }, 'the Discord bot could not start; the service keeps running');
    }
  }

  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    (bot?.stop() ?? Promise.resolve())
      .then(() => server.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          server.app.log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
