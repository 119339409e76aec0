// `npm start`: the service on embedded defaults, configured from the environment and `.env`.
import { ConfigError, loadConfig, loadDotEnv } from './config/config.js';
import { startServer } from './http/server.js';

async function main() {
  loadDotEnv();
  const config = loadConfig();
  const server = await startServer(config);
  server.app.log.info({ address: server.address, publicUrl: config.publicUrl, database: config.databaseUrl.split(':')[0] }, 'switchboard is ready');

  const shutdown = (signal: string) => {
    server.app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close().then(
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
