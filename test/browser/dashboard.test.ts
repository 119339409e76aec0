// The dashboard in a real headless Chromium against the real service, on each database: opening
// a page of it signed out goes through the service's sign-in (the development login) and lands on
// that page; the Overview shows the system and switches the front in one click; no Content
// Security Policy violation, no script error, no request to another origin.
//
// Without a Chromium this suite is skipped, except in CI, where it fails (test/support/environment.ts).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../support/api.js';
import { auditedPage, launchChromium } from '../support/chromium.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { openDashboard, overflowsSideways, screenshotEveryWay, seriousAccessibilityFindings } from '../support/dashboard-browser.js';
import { DIALECTS } from '../support/dialects.js';
import { RUN_BROWSER_SUITES } from '../support/environment.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '500000000000000032';

describe.runIf(RUN_BROWSER_SUITES).each(DIALECTS)('the dashboard in Chromium (%s)', (dialect) => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer(dialect);
    browser = await launchChromium();
    // A system with two alters, made through the API as any app would.
    const member = await signIn(server, USER);
    for (const [username, displayName] of [['ash', 'Ash'], ['rowan', 'Rowan']]) {
      const made = await member.call('POST', '/v1/users/@me/system/create-alter', { username, displayName });
      expect(made.status).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in with the development login, lands on the page asked for, and switches the front from the Overview', async () => {
    const audit = await auditedPage(browser);
    const { page } = audit;
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== new URL(server.url).origin) foreign.push(request.url());
    });

    await page.goto(`${server.url}/dashboard/?from=test`);
    await page.getByLabel('Discord user id').fill(USER);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.url}/dashboard/?from=test`);
    const csp = (await page.request.get(`${server.url}/dashboard/`)).headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");

    await expect.poll(() => page.getByRole('heading', { name: 'Overview' }).count()).toBe(1);
    await expect.poll(() => page.getByText('Nobody is fronting.').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    expect(await page.getByRole('list', { name: 'Alters' }).getByRole('listitem').count()).toBe(2);

    await page.getByRole('button', { name: 'Switch to Rowan' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Rowan is fronting now.');
    expect(await page.locator('#fronting-now').textContent()).toBe('Fronting now: Rowan');
    await page.getByRole('button', { name: 'Add Ash as co-fronter' }).click();
    await expect.poll(() => page.locator('#fronting-now').textContent()).toBe('Fronting now: Rowan, Ash');
    const recent = page.getByRole('region', { name: 'Recent switches' }).getByRole('listitem');
    expect(await recent.count()).toBe(2);
    expect(await recent.first().textContent()).toContain('Rowan, Ash');
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await screenshotEveryWay(page, `overview-${dialect}`);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1000, height: 900 });

    // The service agrees: the switch went through the backend to /v1.
    const front = await server.app.inject({ method: 'GET', url: '/dashboard/api/v1/users/@me/front', headers: { cookie: (await audit.context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ') } });
    expect(front.json<{ data: { current: { alterIds: number[] } } }>().data.current.alterIds).toHaveLength(2);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'You are signed out' }).count()).toBe(1);
    expect((await audit.context.cookies()).map((cookie) => cookie.name)).not.toContain('switchboard_dashboard');

    expect(audit.violations).toEqual([]);
    expect(audit.errors).toEqual([]);
    expect(foreign).toEqual([]);
    await audit.context.close();
  }, 120_000);

  it('moves between screens in place, with the keyboard alone, and names an address it has no page for', async () => {
    const dashboard = await openDashboard(browser, server, USER, '/dashboard/no-such-page');
    const { page } = dashboard;
    await expect.poll(() => page.getByRole('heading', { name: 'Page not found' }).count()).toBe(1);
    expect(await page.title()).toBe('Page not found · switchboard');

    // Keyboard only: Tab reaches the Overview link, Enter follows it without a page load, and the
    // screen's main region takes the focus.
    await page.evaluate('window.loadedOnce = true');
    for (let presses = 0; presses < 10; presses++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement?.textContent')) === 'Overview') break;
    }
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { name: 'Overview' }).count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe('/dashboard/');
    expect(await page.evaluate('window.loadedOnce')).toBe(true);
    expect(await page.evaluate('document.activeElement?.id')).toBe('main');
    expect(await page.getByRole('link', { name: 'Overview' }).getAttribute('aria-current')).toBe('page');
    await page.goBack();
    await expect.poll(() => page.getByRole('heading', { name: 'Page not found' }).count()).toBe(1);

    expect(dashboard.violations).toEqual([]);
    expect(dashboard.errors).toEqual([]);
    expect(dashboard.foreign).toEqual([]);
    await dashboard.context.close();
  }, 120_000);
});
