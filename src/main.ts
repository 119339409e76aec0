// `npm start`: the service on embedded defaults, configured from the environment and `.env`, and
// the Discord bot beside it when DISCORD_TOKEN is set.
import type { RunningBot } from './bot/bot.js';
import { NO_SIGN_IN_METHOD, signInMethods } from './auth/sign-in.js';
import { ConfigError, loadConfig, loadDotEnv } from './config/config.js';
import { StartupError } from './config/startup-errors.js';
import { listClients } from './db/repositories/oauth-clients.js';
import { DASHBOARD_CLIENT_ID } from './auth/clients.js';
import { startServer } from './http/server.js';

async function main() {
  loadDotEnv();
  const config = loadConfig();
  const server = await startServer(config);
  server.app.log.info({ address: server.address, publicUrl: config.publicUrl, database: config.databaseUrl.split(':')[0], migrationsApplied: server.migrationsApplied }, 'switchboard is ready');

  let bot: RunningBot | undefined;
  if (config.bot.token) {
    try {
      // Loaded only when needed: discord.js alone takes a third of a second to import.
      const { runBot } = await import('./run-bot.js');
      bot = await runBot(config, server.app.log, { address: server.address, db: server.database.db });
    } catch (error) {
      // A store that cannot be reached is the operator's to fix, like the service's own database;
      // anything else (Discord unreachable) leaves the service running for what it can do alone.
      if (error instanceof StartupError) {
        await server.close().catch(() => undefined);
        throw error;
      }
      server.app.log.error({ err: error }, 'the Discord bot could not start; the service keeps running');
    }
  }

  const methods = signInMethods(config, (await listClients(server.database.db)).some((client) => client.firstParty && client.id !== DASHBOARD_CLIENT_ID));
  if (methods.length === 0) server.app.log.warn(NO_SIGN_IN_METHOD);
  else server.app.log.info({ signIn: methods.map((method) => `${method.name} (${method.enabledBy})`) }, `sign-in: ${methods.map((method) => method.name).join(', ')}`);

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
  // Configuration and start-up problems are the operator's: the message says what to change. A
  // stack trace is kept for what would be a bug.
  console.error(error instanceof ConfigError || error instanceof StartupError ? error.message : error);
  process.exit(1);
});
