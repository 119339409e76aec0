// The dashboard's Import & export and Apps screens in a real headless Chromium against the real
// service, on each database: a PluralKit file dropped on the drop zone is previewed (nothing
// written), confirmed, shown as in progress, reported, and its alters are there through the API;
// the export downloads as the system's JSON; the same import with the keyboard alone; the apps
// page lists an app the member authorized, each scope in the consent page's words, and revokes it,
// after which its token is refused; a Simply Plural file's options reach the preview and the
// import. No
// Content Security Policy violation, script error or request to another origin; no serious axe
// finding; no sideways scrolling at 375 px.
//
// Without a Chromium this suite is skipped, except in CI, where it fails (test/support/environment.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, type ApiUser } from '../support/api.js';
import { launchChromium } from '../support/chromium.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { openDashboard, overflowsSideways, screenshotEveryWay, seriousAccessibilityFindings, type DashboardPage } from '../support/dashboard-browser.js';
import { DIALECTS } from '../support/dialects.js';
import { RUN_BROWSER_SUITES } from '../support/environment.js';
import { SCOPE_DESCRIPTIONS, type Scope } from '../../src/domain/scopes.js';
import { DASHBOARD_SCOPES } from '../../src/auth/clients.js';
import { createTestClient } from '../support/oauth.js';
import { SAMPLES } from '../support/samples.js';
import { startTestServer, type TestServer } from '../support/server.js';

const PLURALKIT = join(SAMPLES, 'pluralkit-v2.json');
const PLURALKIT_MEMBERS = (JSON.parse(readFileSync(PLURALKIT, 'utf8')) as { members: unknown[] }).members.length;
const SIMPLY_PLURAL = join(SAMPLES, 'simply-plural.json');

let users = 0;
const newUserId = () => `5000000000000000${String(40 + ++users)}`;

/** The member's alters' display names, as any app reads them. */
async function alterNames(member: ApiUser): Promise<string[]> {
  const listed = await member.call<Array<{ displayName: string | null; username: string }>>('GET', '/v1/users/@me/system/list-alters');
  expect(listed.status).toBe(200);
  return listed.body.map((alter) => alter.displayName ?? alter.username).sort();
}

/** Drops `path` on the drop zone as a file dragged from the desktop would arrive. */
async function dropFile(page: Page, path: string): Promise<void> {
  const text = readFileSync(path, 'utf8');
  const name = path.split('/').pop() ?? 'file.json';
  // As text: the tests' TypeScript has no DOM types. Evaluated over the DevTools protocol, which the page's CSP does not govern.
  const dataTransfer = await page.evaluateHandle(
    `(() => { const transfer = new DataTransfer(); transfer.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)}, { type: 'application/json' })); return transfer; })()`,
  );
  const zone = page.locator('label.drop');
  await zone.dispatchEvent('dragover', { dataTransfer });
  await zone.dispatchEvent('drop', { dataTransfer });
}

async function expectClean(dashboard: DashboardPage): Promise<void> {
  expect(dashboard.violations).toEqual([]);
  expect(dashboard.errors).toEqual([]);
  expect(dashboard.foreign).toEqual([]);
}

describe.runIf(RUN_BROWSER_SUITES).each(DIALECTS)('the dashboard’s import, export and apps in Chromium (%s)', (dialect) => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer(dialect);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('previews a dropped PluralKit file, imports it with a visible progress state, reports it, and downloads the export', async () => {
    const userId = newUserId();
    const member = await signIn(server, userId);
    const dashboard = await openDashboard(browser, server, userId, '/dashboard/import');
    const { page } = dashboard;
    await expect.poll(() => page.getByRole('heading', { name: 'Import & export', level: 1 }).count()).toBe(1);
    expect(await page.title()).toBe('Import & export · switchboard');
    expect(await page.getByRole('link', { name: 'Import & export' }).getAttribute('aria-current')).toBe('page');

    await page.getByLabel('Also import front history').check();
    await dropFile(page, PLURALKIT);
    await expect.poll(() => page.getByRole('heading', { name: 'Preview of pluralkit-v2.json' }).count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByText('Nothing has been written yet.').count()).toBe(1);
    const alterRow = page.getByRole('row', { name: /^Alters/ });
    expect((await alterRow.getByRole('cell').allTextContents())[0]).toBe(String(PLURALKIT_MEMBERS));
    expect(await page.getByRole('row', { name: /^Switches/ }).count()).toBe(1);
    // A preview writes nothing.
    expect(await alterNames(member)).toEqual([]);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await screenshotEveryWay(page, `import-preview-${dialect}`);

    // The apply is held back a moment, so its in-progress state can be seen.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/dashboard/api/v1/users/@me/system/import?*', async (route) => {
      if (new URL(route.request().url()).searchParams.get('dryRun') === 'false') await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Import pluralkit-v2.json' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'pluralkit-v2.json' }).count()).toBe(1);
    expect(await page.getByRole('progressbar').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Import pluralkit-v2.json' }).count()).toBe(0);
    // The options cannot change under an import in flight.
    expect(await page.getByRole('radio', { name: /^Merge/ }).isDisabled()).toBe(true);
    release();

    await expect.poll(() => page.getByRole('heading', { name: 'Imported pluralkit-v2.json' }).count(), { timeout: 20_000 }).toBe(1);
    expect((await page.getByRole('row', { name: /^Alters/ }).getByRole('cell').allTextContents())[0]).toBe(String(PLURALKIT_MEMBERS));
    expect(await page.getByRole('progressbar').count()).toBe(0);
    const names = await alterNames(member);
    expect(names).toHaveLength(PLURALKIT_MEMBERS);
    expect(names).toContain('Tomás ⚓');
    expect(await page.evaluate('document.activeElement?.getAttribute("aria-labelledby")')).toBe('report-heading');

    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await screenshotEveryWay(page, `import-${dialect}`);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1000, height: 900 });

    // The export: a download of the system as JSON, through the backend, with the alters just imported.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the export' }).click()]);
    expect(download.suggestedFilename()).toBe('system.json');
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8')) as { version: number; members: Array<{ name: string }>; switchboard: unknown };
    expect(exported.version).toBe(2);
    expect(exported.members).toHaveLength(PLURALKIT_MEMBERS);
    expect(exported.switchboard).toBeDefined();

    await expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);

  it('imports with the keyboard alone: Tab to the file input, choose, Tab to confirm', async () => {
    const userId = newUserId();
    const member = await signIn(server, userId);
    const dashboard = await openDashboard(browser, server, userId, '/dashboard/import');
    const { page } = dashboard;
    await expect.poll(() => page.getByRole('heading', { name: 'Import & export', level: 1 }).count()).toBe(1);

    let reached = false;
    for (let presses = 0; presses < 20 && !reached; presses++) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate('document.activeElement?.type')) === 'file';
    }
    expect(reached).toBe(true);
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Space')]);
    await chooser.setFiles(PLURALKIT);
    await expect.poll(() => page.getByRole('heading', { name: 'Preview of pluralkit-v2.json' }).count(), { timeout: 20_000 }).toBe(1);
    // The preview takes the focus; the next Tab is its confirm button.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Import pluralkit-v2.json');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('heading', { name: 'Imported pluralkit-v2.json' }).count(), { timeout: 20_000 }).toBe(1);
    expect(await alterNames(member)).toHaveLength(PLURALKIT_MEMBERS);

    await expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);

  it('offers a Simply Plural file’s options, and they reach the preview and the import', async () => {
    const userId = newUserId();
    const member = await signIn(server, userId);
    const dashboard = await openDashboard(browser, server, userId, '/dashboard/import');
    const { page } = dashboard;
    await expect.poll(() => page.getByRole('heading', { name: 'Import & export', level: 1 }).count()).toBe(1);
    const queries: URLSearchParams[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/system/import?')) queries.push(new URL(request.url()).searchParams);
    });
    const options = page.getByRole('group', { name: 'Reading this Simply Plural export' });
    const createdAlters = async () => (await page.getByRole('row', { name: /^Alters/ }).getByRole('cell').allTextContents())[0];

    // A PluralKit file has no such options.
    await dropFile(page, PLURALKIT);
    await expect.poll(() => page.getByRole('heading', { name: 'Preview of pluralkit-v2.json' }).count(), { timeout: 20_000 }).toBe(1);
    expect(await options.count()).toBe(0);
    await page.getByRole('button', { name: 'Choose another file' }).click();

    // A Simply Plural file: previewed with the API's defaults (custom fronts imported), which the options show.
    await dropFile(page, SIMPLY_PLURAL);
    await expect.poll(() => page.getByRole('heading', { name: 'Preview of simply-plural.json' }).count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => options.count()).toBe(1);
    expect(await options.getByRole('radio', { name: /^Import custom fronts/ }).isChecked()).toBe(true);
    expect(await options.getByRole('checkbox', { name: /^Make public what your friends could see/ }).isChecked()).toBe(false);
    expect(await createdAlters()).toBe('8');

    // Skipping custom fronts previews again without them: two alters fewer, and said so.
    await options.getByRole('radio', { name: /^Leave custom fronts out/ }).check();
    await expect.poll(() => createdAlters(), { timeout: 20_000 }).toBe('6');
    expect(queries.at(-1)?.get('customFronts')).toBe('skip');
    expect(queries.at(-1)?.get('dryRun')).toBe('true');
    expect(await page.getByRole('listitem').filter({ hasText: 'customFronts: 2' }).count()).toBe(1);
    await options.getByRole('checkbox', { name: /^Make public what your friends could see/ }).check();
    await expect.poll(() => queries.at(-1)?.get('friendsArePublic'), { timeout: 20_000 }).toBe('true');
    await expect.poll(() => page.getByRole('heading', { name: 'Preview of simply-plural.json' }).count(), { timeout: 20_000 }).toBe(1);
    expect(await alterNames(member)).toEqual([]);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1000, height: 900 });

    // The import sends the same choices: no custom fronts, and what friends saw public.
    await page.getByRole('button', { name: 'Import simply-plural.json' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Imported simply-plural.json' }).count(), { timeout: 20_000 }).toBe(1);
    const applied = queries.at(-1);
    expect([applied?.get('dryRun'), applied?.get('customFronts'), applied?.get('friendsArePublic')]).toEqual(['false', 'skip', 'true']);
    expect(await alterNames(member)).toHaveLength(6);
    const tags = await member.call<Array<{ name: string }>>('GET', '/v1/users/@me/system/list-tags');
    expect(tags.body.map((tag) => tag.name)).not.toContain('Custom fronts');
    const listed = await member.call<Array<{ public: number }>>('GET', '/v1/users/@me/system/list-alters');
    expect(listed.body.filter((alter) => alter.public !== 0).length).toBeGreaterThan(0);

    await expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);

  it('lists an app the member authorized and revokes it; its token stops working', async () => {
    const userId = newUserId();
    const notes = await signIn(server, userId, { client: await createTestClient(server, { name: 'Notes app' }) });
    expect((await notes.call('GET', '/v1/users/@me/system')).status).toBe(200);
    const dashboard = await openDashboard(browser, server, userId, '/dashboard/apps');
    const { page } = dashboard;
    await expect.poll(() => page.getByRole('heading', { name: 'Notes app' }).count()).toBe(1);
    expect(await page.title()).toBe('Apps · switchboard');
    const apps = page.getByRole('list', { name: 'Authorized apps' });
    expect(await apps.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Dashboard', 'Notes app']);
    // The dashboard itself cannot be revoked from here: signing out is how.
    expect(await page.getByRole('button', { name: 'Revoke access for Dashboard' }).count()).toBe(0);
    expect(await page.getByText('This is the dashboard you are using.').count()).toBe(1);
    // Each scope in the consent page's words, from the one catalogue (src/domain/scopes.ts), then its name.
    const scopeList = (app: string) => apps.getByRole('listitem').filter({ has: page.getByRole('heading', { name: app }) }).getByRole('listitem');
    for (const app of ['Dashboard', 'Notes app']) {
      const names = await scopeList(app).locator('code').allTextContents();
      expect(names.length).toBeGreaterThan(0);
      if (app === 'Dashboard') expect([...names].sort()).toEqual([...DASHBOARD_SCOPES].sort());
      expect(await scopeList(app).allTextContents()).toEqual(names.map((scope) => `${SCOPE_DESCRIPTIONS[scope as Scope]} ${scope}`));
    }
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await screenshotEveryWay(page, `apps-${dialect}`);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1000, height: 900 });

    await page.getByRole('button', { name: 'Revoke access for Notes app' }).click();
    // A confirmation first, which takes the focus; "Keep it" changes nothing.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Revoke Notes app');
    await page.getByRole('button', { name: 'Keep it' }).click();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Revoke access for Notes app');
    expect((await notes.call('GET', '/v1/users/@me/system')).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke access for Notes app' }).click();
    await page.getByRole('button', { name: 'Revoke Notes app' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Notes app no longer has access' }).count()).toBe(1);
    expect(await apps.getByRole('heading', { level: 2 }).allTextContents()).toEqual(['Dashboard']);
    expect((await notes.call('GET', '/v1/users/@me/system')).status).toBe(401);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);

    await expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);
});
