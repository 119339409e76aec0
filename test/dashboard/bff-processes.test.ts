// The dashboard's backend for the frontend in two service processes of one deployment, on each
// database: a session whose access token is due is refreshed by one process only (a refresh token
// is used once; a second use would be taken for theft and revoke the grant), and every call, to
// either process, goes through with the tokens that one stored.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { loadSecrets } from '../../src/config/secrets.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { dashboardCookieNames } from '../../src/dashboard/routes.js';
import type { Tokens } from '../../src/dashboard/sessions.js';
import { createStorageCrypto } from '../../src/security/crypto.js';
import { TestBrowser } from '../support/browser.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/dialects.js';
import { freePort } from '../support/server.js';
import { startService, stopService, waitReady, type Service } from '../support/service-process.js';

const USER = '500000000000000033';
const COOKIE = dashboardCookieNames(false).session;

describe.each(DIALECTS)('the dashboard backend in two service processes (%s)', (dialect) => {
  let testDatabase: TestDatabase | undefined;
  let dataDir: string | undefined;
  let database: Database | undefined;
  const services: Service[] = [];
  let first = '';
  let second = '';
  let env: Record<string, string> = {};

  beforeAll(async () => {
    await ensureDashboardBuilt();
    testDatabase = await createTestDatabase(dialect);
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-dashboard-processes-'));
    const ports = [await freePort(), await freePort()];
    [first, second] = ports.map((port) => `http://127.0.0.1:${port}`) as [string, string];
    for (const port of ports) {
      env = {
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        // One public address for both: two processes behind one load balancer.
        PUBLIC_URL: first,
        DATA_DIR: dataDir,
        DATABASE_URL: testDatabase.url,
        AUTH_DEV_LOGIN: 'true',
        RATE_LIMIT_ENABLED: 'false',
        LOG_LEVEL: 'silent',
      };
      const service = startService(env);
      services.push(service);
      await waitReady(service, `http://127.0.0.1:${port}`);
    }
    database = openDatabase(testDatabase.url);
  }, 120_000);

  afterAll(async () => {
    for (const service of services) await stopService(service);
    await database?.close();
    await testDatabase?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('refreshes a due session in one process only, and both go on with its new tokens', { timeout: 60_000 }, async () => {
    const browser = new TestBrowser();
    const page = await browser.navigate(`${first}/dashboard/`);
    await browser.submit(page, '/dev-login', { user_id: USER });
    const cookie = browser.cookie(COOKIE);
    expect(cookie).toBeDefined();

    const crypto = createStorageCrypto(loadSecrets(loadConfig(env)).dataEncryptionKey);
    const idHash = crypto.lookupHash('dashboard-session', cookie as string);
    const db = (database as Database).db;
    const tokensNow = async () => crypto.unseal<Tokens>((await db.selectFrom('dashboard_sessions').select('sealed').where('id_hash', '=', idHash).executeTakeFirstOrThrow()).sealed, idHash) as Tokens;

    for (let round = 0; round < 3; round++) {
      const before = await tokensNow();
      // As if the access token were about to expire, seen by both processes at once.
      await db.updateTable('dashboard_sessions').set({ sealed: crypto.seal({ ...before, accessExpiresAt: Date.now() }, idHash) }).where('id_hash', '=', idHash).execute();
      const calls = [first, second, first, second, second, first].map((base) =>
        fetch(`${base}/dashboard/api/v1/users/@me/system`, { headers: { cookie: `${COOKIE}=${cookie}` } }).then((response) => response.status),
      );
      expect(await Promise.all(calls)).toEqual([200, 200, 200, 200, 200, 200]);
      const after = await tokensNow();
      expect(after.refreshToken).not.toBe(before.refreshToken);
      expect(after.accessExpiresAt).toBeGreaterThan(Date.now() + 60_000);
    }
    // The grant lives on: no refresh token was used twice.
    for (const base of [first, second]) {
      expect((await fetch(`${base}/dashboard/api/v1/users/@me/front`, { headers: { cookie: `${COOKIE}=${cookie}` } })).status).toBe(200);
    }
    const lease = await db.selectFrom('dashboard_sessions').select('refresh_lease_until').where('id_hash', '=', idHash).executeTakeFirstOrThrow();
    expect(lease.refresh_lease_until).toBeNull();
  });
});
