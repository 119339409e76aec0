// Every page a person can see, in Chromium, light, dark and narrow (375 px), photographed into
// test/artifacts/screenshots/ (kept by CI as artefacts, and looked at when pages change). On each
// one: no CSP violation or script error, nothing wider than the screen, and on every page shown to
// a signed-in person a visible way to sign out.
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_BROWSER_SUITES } from '../support/environment.js';
import { auditedPage, launchChromium, type AuditedPage } from '../support/chromium.js';
import { authorizationRequest, createTestClient, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { SCREENSHOTS } from './screenshots.js';

const VARIANTS: Record<string, BrowserContextOptions> = {
  light: { viewport: { width: 1000, height: 800 }, colorScheme: 'light' },
  dark: { viewport: { width: 1000, height: 800 }, colorScheme: 'dark' },
  narrow: { viewport: { width: 375, height: 740 }, colorScheme: 'light', isMobile: true, hasTouch: true },
};


/** How much wider than the window the page is (0: nothing sticks out). */
const OVERFLOW = `document.documentElement.scrollWidth - window.innerWidth`;

describe.runIf(RUN_BROWSER_SUITES)('every page, light, dark and narrow', () => {
  let server: TestServer;
  let browser: Browser;
  let app: TestClient;
  let device: TestClient;
  /** The app's redirect URI: a real listener, since a browser follows the redirect there. */
  let callbackServer: Server;
  let CALLBACK: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startTestServer('sqlite', { INSTANCE_NAME: 'Plural Place' });
    callbackServer = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>callback</title>'));
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    CALLBACK = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    app = await createTestClient(server, { name: 'Fronting Tracker', redirectUris: [CALLBACK] });
    device = await createTestClient(server, { name: 'switchboard bot', redirectUris: [], grantTypes: ['device_code', 'refresh_token'], firstParty: true });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    callbackServer?.close();
  });

  for (const [variant, options] of Object.entries(VARIANTS)) {
    it(`${variant}`, { timeout: 120_000 }, async () => {
      const audit = await auditedPage(browser, options);
      const { page } = audit;
      const userId = variant === 'light' ? '330000000000000001' : variant === 'dark' ? '330000000000000002' : '330000000000000003';
      const shot = (name: string, signedIn: 'sign-out' | 'not-you' | false) => photograph(audit, `${name}-${variant}`, signedIn);

      const { url } = await authorizationRequest(app, { redirect_uri: CALLBACK, scope: 'openid profile alters:read alters:write system:read system:ai-ap' });
      await page.goto(url.toString(), { waitUntil: 'load' });
      await shot('sign-in', false);
      // The browser's own check of the pattern would stop the form; the server's answer is the one
      // every client gets, so it is photographed.
      await page.evaluate(`document.querySelector('form[action$="/dev-login"]').noValidate = true`);
      await page.fill('#user_id', 'alex');
      await Promise.all([page.waitForURL(/\/dev-login$/), page.click('button:has-text("Sign in")')]);
      await shot('sign-in-bad-id', false);
      await page.fill('#user_id', userId);
      await Promise.all([page.waitForSelector('h1:has-text("Allow access?")'), page.click('button:has-text("Sign in")')]);
      await shot('consent', 'not-you');
      await Promise.all([page.waitForURL((next) => next.href.startsWith(CALLBACK)), page.click('button:has-text("Allow")')]);

      await page.goto(`${server.url}/account/apps`, { waitUntil: 'load' });
      await shot('account-apps', 'sign-out');
      await Promise.all([page.waitForURL(/\/revoke$/), page.click('a:has-text("Revoke access for Fronting Tracker")')]);
      await shot('account-revoke-confirm', 'sign-out');
      await Promise.all([page.waitForURL(/\/account\/apps$/), page.click('a:has-text("Keep access")')]);
      await page.goto(`${server.url}/account/sign-out`, { waitUntil: 'load' });
      await shot('account-sign-out', false);

      const authorization = await oidc.initiateDeviceAuthorization(device.config, { scope: 'openid offline_access alters:read system:read' });
      await page.goto(`${server.url}/auth/oauth2/device`, { waitUntil: 'load' });
      await shot('device-code', 'sign-out');
      await page.fill('#user-code', 'XXXX-XXXX');
      await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Continue")')]);
      await page.waitForSelector('p.error[role=alert]');
      await shot('device-code-wrong', 'sign-out');
      await page.fill('#user-code', authorization.user_code);
      await Promise.all([page.waitForSelector('code.user-code'), page.click('button:has-text("Continue")')]);
      await shot('device-confirm', 'sign-out');
      await Promise.all([page.waitForSelector('h1:has-text("Allow access?")'), page.click('button:has-text("Continue")')]);
      await shot('device-consent', 'not-you');
      await Promise.all([page.waitForSelector('h1:has-text("Device connected")'), page.click('button:has-text("Allow")')]);
      await shot('device-connected', 'sign-out');

      await page.goto(`${server.url}/interaction/not-a-real-interaction`, { waitUntil: 'load' });
      await shot('error', 'sign-out');

      await page.goto(`${server.url}/account/sign-out`, { waitUntil: 'load' });
      await Promise.all([page.waitForURL(/\/account\/login\?notice=signed-out$/), page.click('button:has-text("Sign out")')]);
      await shot('account-login', false);

      await page.goto(`${server.url}/docs`, { waitUntil: 'networkidle' });
      await page.locator('.swagger-ui .info .title').waitFor();
      await shot('docs', false);

      expect(audit.violations).toEqual([]);
      expect(audit.errors).toEqual([]);
      await audit.context.close();
    });
  }
});

async function photograph(audit: AuditedPage, name: string, signedIn: 'sign-out' | 'not-you' | false): Promise<void> {
  const page: Page = audit.page;
  await page.waitForLoadState('load');
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: !name.startsWith('docs') });
  expect(audit.violations, `${name}: CSP violations`).toEqual([]);
  expect(audit.errors, `${name}: script errors`).toEqual([]);
  expect(await page.evaluate<number>(OVERFLOW), `${name}: wider than the window`).toBeLessThanOrEqual(0);
  if (signedIn === 'sign-out') {
    const signOut = page.locator('header .account :is(a, button)', { hasText: 'Sign out' });
    expect(await signOut.isVisible(), `${name}: a visible sign-out`).toBe(true);
  } else if (signedIn === 'not-you') {
    expect(await page.getByRole('button', { name: /not you/i }).isVisible(), `${name}: "not you?"`).toBe(true);
  }
}
