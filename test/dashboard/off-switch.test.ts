// DASHBOARD_ENABLED=false, on each database: no /dashboard route answers, the dashboard's OAuth
// client cannot be used to sign in, and one registered by an earlier start (here: another process
// on the same database that still has the dashboard on) is deleted, so its sessions stop working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CLIENT_ID, DASHBOARD_REDIRECT_PATH } from '../../src/auth/clients.js';
import { loadConfig } from '../../src/config/config.js';
import { findClient } from '../../src/db/repositories/oauth-clients.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { TestBrowser } from '../support/browser.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { DIALECTS } from '../support/dialects.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';

const USER = '500000000000000071';

/** A second process of the same installation (same database and keys), with the dashboard off. */
async function startWithoutDashboard(on: TestServer): Promise<RunningServer & { url: string }> {
  const port = await freePort();
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    DATA_DIR: on.config.dataDir,
    DATABASE_URL: on.testDatabase.url,
    AUTH_DEV_LOGIN: 'true',
    DASHBOARD_ENABLED: 'false',
  });
  return { ...(await startServer(config)), url: config.publicUrl };
}

describe.each(DIALECTS)('the dashboard turned off (%s)', (dialect) => {
  let off: TestServer;
  beforeAll(async () => {
    await ensureDashboardBuilt();
    off = await startTestServer(dialect, { DASHBOARD_ENABLED: 'false' });
  });
  afterAll(async () => off?.stop());

  it('answers 404 on every /dashboard path, pages, sign-in, assets and the API proxy alike', async () => {
    for (const path of ['/dashboard', '/dashboard/', '/dashboard/alters', '/dashboard/login', `${DASHBOARD_REDIRECT_PATH}?code=x&state=y`, '/dashboard/api/session', '/dashboard/api/v1/users/@me/system', '/dashboard/assets/index.js']) {
      const response = await fetch(`${off.url}${path}`, { redirect: 'manual' });
      await response.arrayBuffer();
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
    const signOut = await fetch(`${off.url}/dashboard/api/sign-out`, { method: 'POST', redirect: 'manual' });
    await signOut.arrayBuffer();
    expect(signOut.status).toBe(404);
  });

  it('registers no dashboard client: an authorization request naming it is refused', async () => {
    expect(await findClient(off.database.db, DASHBOARD_CLIENT_ID)).toBeUndefined();
    const query = new URLSearchParams({ client_id: DASHBOARD_CLIENT_ID, redirect_uri: `${off.url}${DASHBOARD_REDIRECT_PATH}`, response_type: 'code', scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' });
    const response = await fetch(`${off.url}/auth/oauth2/authorize?${query.toString()}`, { redirect: 'manual' });
    const body = await response.text();
    expect(response.status).toBe(400);
    expect(body).toContain('invalid_client');
  });

  it('deletes the client an earlier start registered, so that start’s dashboard sessions stop working', async () => {
    const on = await startTestServer(dialect);
    let second: (RunningServer & { url: string }) | undefined;
    try {
      const browser = new TestBrowser();
      let page = await browser.navigate(`${on.url}/dashboard/`);
      page = await browser.submit(page, '/dev-login', { user_id: USER });
      expect(page.url).toBe(`${on.url}/dashboard/`);
      const cookie = () => ({ cookie: browser.cookieHeader(new URL(`${on.url}/dashboard/`)) });
      const before = await fetch(`${on.url}/dashboard/api/v1/users/@me/system`, { headers: cookie() });
      await before.arrayBuffer();
      expect(before.status).toBe(200);
      expect(await findClient(on.database.db, DASHBOARD_CLIENT_ID)).toBeDefined();

      second = await startWithoutDashboard(on);
      expect(await findClient(on.database.db, DASHBOARD_CLIENT_ID)).toBeUndefined();
      // The process that still serves the dashboard holds the session, whose token died with the client.
      const after = await fetch(`${on.url}/dashboard/api/v1/users/@me/system`, { headers: cookie() });
      await after.arrayBuffer();
      expect(after.status).toBe(401);
      const page404 = await fetch(`${second.url}/dashboard/`, { headers: cookie(), redirect: 'manual' });
      await page404.arrayBuffer();
      expect(page404.status).toBe(404);
    } finally {
      await second?.close();
      await on.stop();
    }
  });
});
