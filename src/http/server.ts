// Owns the process-level concerns of the service: secrets, the database and its migrations,
// listening, periodic cleanup and a graceful close (stop accepting, finish in-flight requests,
// then close the database).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/config.js';
import { loadSecrets } from '../config/secrets.js';
import { databaseFailure, ensureDataDir, listenFailure, withConnectTimeout } from '../config/startup-errors.js';
import { migrateToLatest, openDatabase, type Database } from '../db/database.js';
import { IMPORT_REPLAY_WINDOW_MS, purgeAppliedImports } from '../db/repositories/applied-imports.js';
import { purgeAuditLog } from '../db/repositories/audit-log.js';
import { purgeExpiredBrowserSessions } from '../db/repositories/browser-sessions.js';
import { purgeExpiredDashboardSessions } from '../db/repositories/dashboard-sessions.js';
import { purgeUnreferencedImages } from '../db/repositories/images.js';
import { purgeEvents } from '../db/repositories/events/purge.js';
import { purgeGrantPeriods } from '../db/repositories/events/grant-periods.js';
import { purgeEventValues } from '../db/repositories/events/payloads.js';
import { purgeExpiredAccountCodes } from '../db/repositories/accounts.js';
import { purgeExpiredLoginLinks } from '../db/repositories/login-links.js';
import { purgeExpiredPayloads } from '../db/repositories/oidc-payloads.js';
import { purgeProxiedMessages } from '../db/repositories/proxied-messages.js';
import { buildApp } from './app.js';

export interface RunningServer {
  app: FastifyInstance;
  database: Database;
  /** Migrations this start applied: 0 when another process (or an earlier start) had applied them. */
  migrationsApplied: number;
  /** The address the server listens on, e.g. http://127.0.0.1:3000. */
  address: string;
  close(): Promise<void>;
}

const PURGE_INTERVAL_MS = 10 * 60 * 1000;

export async function startServer(config: Config): Promise<RunningServer> {
  ensureDataDir(config.dataDir);
  const secrets = loadSecrets(config);
  let database: Database;
  let migrationsApplied = 0;
  try {
    database = openDatabase(config.databaseUrl);
  } catch (error) {
    throw databaseFailure(error, config.databaseUrl);
  }
  try {
    // A first query that cannot hang: a PostgreSQL host that drops packets would otherwise stall
    // start-up for minutes without a word.
    await withConnectTimeout(database.ping());
    const migrated = await migrateToLatest(database.db);
    migrationsApplied = (migrated.results ?? []).filter((result) => result.status === 'Success').length;
  } catch (error) {
    await database.close().catch(() => undefined);
    throw databaseFailure(error, config.databaseUrl);
  }
  let app: FastifyInstance;
  try {
    app = await buildApp({ config, secrets, database });
  } catch (error) {
    await database.close();
    throw error;
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await database.close();
    throw listenFailure(error, config.host, config.port);
  }

  const purge = async () => {
    const now = Date.now();
    try {
      await purgeExpiredPayloads(database.db, now);
      await purgeExpiredLoginLinks(database.db, now);
      await purgeExpiredAccountCodes(database.db, now);
      await purgeExpiredBrowserSessions(database.db, now);
      await purgeExpiredDashboardSessions(database.db, now);
      if (config.messageRetentionDays > 0) await purgeProxiedMessages(database.db, now - config.messageRetentionDays * 86_400_000);
      if (config.auditRetentionDays > 0) await purgeAuditLog(database.db, now - config.auditRetentionDays * 86_400_000);
      await purgeEvents(database.db, now - config.events.retentionDays * 86_400_000);
      await purgeAppliedImports(database.db, now - IMPORT_REPLAY_WINDOW_MS);
      await purgeGrantPeriods(database.db, now - config.events.retentionDays * 86_400_000);
      await purgeEventValues(database.db);
      await purgeUnreferencedImages(database.db, now);
    } catch (error) {
      app.log.warn({ err: error }, 'purging expired rows failed');
    }
  };
  const timer = setInterval(purge, PURGE_INTERVAL_MS);
  timer.unref();
  app.events.start();

  const info = app.server.address();
  const address = typeof info === 'object' && info ? `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${info.port}` : String(info);

  let closing: Promise<void> | undefined;
  return {
    app,
    database,
    migrationsApplied,
    address,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        // Deliveries in flight get a moment to finish; the rest are sent again after their lease.
        await app.events.stop();
        await app.close();
        await database.close();
      })();
      return closing;
    },
  };
}
