// The interactive reference at /docs in Chromium: no framework branding and no CSP violation, the
// {user} parameter described once, and the Authorize dialog working end to end: the docs client
// (PKCE, no secret) signs in with the development login, the user approves, and "Try it out"
// answers 200 with the token.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CLIENT_ID, DOCS_REDIRECT_PATH } from '../../src/auth/clients.js';
import { findClient } from '../../src/db/repositories/oauth-clients.js';
import { RUN_BROWSER_SUITES } from '../support/environment.js';
import { auditedPage, launchChromium } from '../support/chromium.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { SCREENSHOTS } from './screenshots.js';

const USER = '500000000000000016';

describe.runIf(RUN_BROWSER_SUITES)('/docs in Chromium', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startTestServer('sqlite', { INSTANCE_NAME: 'Plural Place' });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('registers the docs client: public, PKCE code flow only, redirecting only to /docs on PUBLIC_URL', async () => {
    const client = await findClient(server.database.db, DOCS_CLIENT_ID);
    expect(client).toMatchObject({ secretHash: null, grantTypes: ['authorization_code'], redirectUris: [`${server.url}${DOCS_REDIRECT_PATH}`], firstParty: false });
    expect(client?.scopes).not.toContain('offline_access');
    expect(client?.scopes).toEqual(expect.arrayContaining(['system:read', 'alters:write']));
  });

  it('shows our title and icon, no top bar, and no CSP violation', async () => {
    const audit = await auditedPage(browser);
    const { page } = audit;
    await page.goto(`${server.url}/docs`, { waitUntil: 'networkidle' });
    await page.locator('.swagger-ui .info .title').waitFor();
    expect(await page.title()).toBe('Plural Place API reference');
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toMatch(/favicon\.svg$/);
    expect(await page.locator('.topbar').count(), 'the framework’s top bar').toBe(0);
    expect(await page.locator('body').innerText()).not.toMatch(/Explore|fastify|Swagger/i);
    expect(await page.locator('body').innerText()).toContain('Getting started');
    expect(audit.violations).toEqual([]);
    expect(audit.errors).toEqual([]);
    await audit.context.close();
  });

  it('describes {user} once, as a string: a Discord user id or @me', async () => {
    const audit = await auditedPage(browser);
    const { page } = audit;
    await page.goto(`${server.url}/docs#/System/get_v1_users__user__system`, { waitUntil: 'networkidle' });
    const parameter = page.locator('#operations-System-get_v1_users__user__system tr[data-param-name=user]');
    await parameter.waitFor();
    const text = await parameter.innerText();
    expect(text).toContain('A Discord user id, or @me for the token’s own user.');
    expect(text).not.toContain('|');
    expect(audit.violations).toEqual([]);
    await audit.context.close();
  });

  /**
   * Authorize (every scope, or only system:read), sign in with the development login in the popup, approve, then
   * "Try it out" on GET /v1/users/{user}/system with @me. `lostOpener`: the popup loses its
   * opener on the way, as it does when signing in through Discord (another site, with our pages'
   * Cross-Origin-Opener-Policy), so the code must reach the tab another way.
   */
  async function authorizeAndTryIt(userId: string, lostOpener: boolean, screenshots: boolean) {
    const audit = await auditedPage(browser);
    const { page } = audit;
    await page.goto(`${server.url}/docs#/System/get_v1_users__user__system`, { waitUntil: 'networkidle' });

    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.waitFor();
    // The first flow is the authorization code with PKCE; its client id is filled in.
    const codeFlow = dialog.locator('.auth-container').first();
    expect(await codeFlow.locator('h4').innerText()).toContain('authorizationCode with PKCE');
    expect(await codeFlow.locator('#client_id_authorizationCode').inputValue()).toBe(DOCS_CLIENT_ID);
    expect(await codeFlow.locator('#client_secret_authorizationCode').isVisible(), 'no secret to type').toBe(false);
    expect(await dialog.innerText()).not.toMatch(/Swagger/i);
    // Every scope the dialog offers is one the docs client may ask for ("select all" works).
    if (screenshots) await codeFlow.locator('a[data-all=true]').click();
    else await codeFlow.locator('label[for="system:read-authorizationCode-checkbox-oauth2"]').click();
    if (screenshots) await page.screenshot({ path: join(SCREENSHOTS, 'docs-authorize-dialog.png') });

    const popupOpened = page.waitForEvent('popup');
    await codeFlow.locator('button.modal-btn.authorize').click();
    const popup = await popupOpened;
    await popup.waitForLoadState('load');
    expect(new URL(popup.url()).pathname).toMatch(/^\/interaction\//);
    if (lostOpener) {
      await popup.evaluate('window.opener = null');
      expect(await popup.evaluate('window.opener')).toBeNull();
    }
    await popup.fill('#user_id', userId);
    await popup.locator('button', { hasText: 'Sign in' }).click();
    await popup.locator('h1', { hasText: 'Allow access?' }).waitFor();
    expect(await popup.locator('main').innerText()).toContain('API reference (/docs)');
    const closed = popup.waitForEvent('close');
    await popup.locator('button', { hasText: 'Allow' }).click();
    await closed;

    await codeFlow.locator('button', { hasText: 'Logout' }).waitFor();
    await dialog.locator('button.close-modal').click();

    const operation = page.locator('#operations-System-get_v1_users__user__system');
    await operation.locator('button.try-out__btn').click();
    await operation.locator('tr[data-param-name=user] input').fill('@me');
    const answered = page.waitForResponse((response) => decodeURIComponent(new URL(response.url()).pathname) === '/v1/users/@me/system');
    await operation.locator('button.execute').click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(response.request().headers().authorization).toMatch(/^Bearer /);
    expect(((await response.json()) as { data: { associatedUserId: string } }).data.associatedUserId).toBe(userId);
    await operation.locator('.live-responses-table tbody .response-col_status').first().waitFor();
    expect(await operation.locator('.live-responses-table tbody .response-col_status').first().innerText()).toContain('200');
    if (screenshots) await page.screenshot({ path: join(SCREENSHOTS, 'docs-try-it-out.png'), fullPage: false });
    expect(audit.violations).toEqual([]);
    expect(audit.errors).toEqual([]);
    await audit.context.close();
  }

  it('authorizes with the docs client (sign in, approve) and calls GET /v1/users/@me/system', { timeout: 60_000 }, async () => {
    await authorizeAndTryIt(USER, false, true);
  });

  it('authorizes when the sign-in window lost its opener on the way (a sign-in through another site)', { timeout: 60_000 }, async () => {
    await authorizeAndTryIt('500000000000000017', true, false);
  });
});
