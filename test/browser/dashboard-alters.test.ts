// The dashboard's alters screen (/dashboard/alters) in a real headless Chromium against the real
// service, on each database: search, sort and filter the grid, select alters and make them private
// or public in one write (checked through the API), create an alter and land on its editor's
// address, and do the same selection with the keyboard alone; no serious axe-core finding, no
// sideways scrolling at 375 px, no CSP violation, script error or request to another origin. A
// system of more than one page of alters (the API pages at 250) is shown whole.
//
// Without a Chromium this suite is skipped, except in CI, where it fails (test/support/environment.ts).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../src/domain/alter.js';
import { ALTER_PRIVACY_MASK, AlterPrivacy } from '../../src/domain/privacy-bits.js';
import type { Tag } from '../../src/domain/tag.js';
import { request, signIn, type ApiUser } from '../support/api.js';
import { launchChromium } from '../support/chromium.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { openDashboard, overflowsSideways, screenshotEveryWay, seriousAccessibilityFindings, type DashboardPage } from '../support/dashboard-browser.js';
import { DIALECTS } from '../support/dialects.js';
import { RUN_BROWSER_SUITES } from '../support/environment.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '500000000000003101';
const KEYBOARD_USER = '500000000000003102';
const MANY_USER = '500000000000003103';

/** Created in this order (so "Created" sorts them so), names sorting otherwise. */
const ALTERS = [
  { username: 'cedar', displayName: 'Cedar', public: ALTER_PRIVACY_MASK },
  { username: 'ash', displayName: 'Ash', public: ALTER_PRIVACY_MASK, description: 'keeps the garden' },
  { username: 'elm', displayName: 'Elm', public: AlterPrivacy.visible | AlterPrivacy.name },
  { username: 'birch', displayName: 'Birch', public: ALTER_PRIVACY_MASK },
  { username: 'dune', displayName: 'Dune', public: 0 },
];

/** The names in the grid, top to bottom. */
const rowNames = (page: Page) => page.locator('tbody th[scope="row"] a').allTextContents();
const sortOf = (page: Page, column: string) => page.getByRole('columnheader', { name: column, exact: true }).getAttribute('aria-sort');

describe.runIf(RUN_BROWSER_SUITES).each(DIALECTS)('the dashboard’s alters screen in Chromium (%s)', (dialect) => {
  let server: TestServer;
  let browser: Browser;
  let member: ApiUser;
  const ids: Record<string, number> = {};
  let crew: Tag;

  const bitsOf = async (user: ApiUser, names: string[]) => {
    const listed = (await user.call<Alter[]>('GET', '/v1/users/@me/system/list-alters')).body;
    return names.map((name) => listed.find((alter) => alter.username === name)?.public);
  };
  const expectClean = async (dashboard: DashboardPage) => {
    expect(dashboard.violations).toEqual([]);
    expect(dashboard.errors).toEqual([]);
    expect(dashboard.foreign).toEqual([]);
    await dashboard.context.close();
  };

  beforeAll(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer(dialect);
    browser = await launchChromium();
    // Alters and a tag made through the API, as any app would.
    member = await signIn(server, USER);
    for (const alter of ALTERS) {
      const made = await member.call<Alter>('POST', '/v1/users/@me/system/create-alter', alter);
      expect(made.status).toBe(201);
      ids[alter.username] = made.body.alterId;
    }
    crew = (await member.call<Tag>('POST', '/v1/users/@me/system/create-tag', { name: 'Night crew' })).body;
    expect((await member.call('POST', `/v1/users/@me/tags/${crew.tagId}/alters`, { add: [ids.elm, ids.ash] })).status).toBe(200);
    // Birch fronted, then Dune (fronting now): "last fronted" puts Dune first, then Birch.
    expect((await member.call('POST', '/v1/users/@me/front', { alters: [ids.birch] })).status).toBe(200);
    expect((await member.call('POST', '/v1/users/@me/front', { alters: [ids.dune] })).status).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('searches, sorts and filters the grid, makes a selection private and then everything public, and creates an alter', async () => {
    const dashboard = await openDashboard(browser, server, USER, '/dashboard/alters');
    const { page } = dashboard;
    await expect.poll(() => page.getByRole('heading', { name: 'Alters', level: 1 }).count()).toBe(1);
    expect(await page.title()).toBe('Alters · switchboard');
    expect(await page.getByRole('link', { name: 'Alters', exact: true }).getAttribute('aria-current')).toBe('page');
    await expect.poll(() => rowNames(page)).toEqual(['Ash', 'Birch', 'Cedar', 'Dune', 'Elm']);
    expect(await page.getByText('Showing 5 of 5 alters.').count()).toBe(1);
    // A new system keeps its alter list to itself: the screen says nobody else sees any.
    expect(await page.getByText('Your system keeps its alter list to itself').count()).toBe(1);

    // Privacy in words, and the tags by name.
    const row = (name: string) => page.locator('tbody tr', { has: page.getByRole('link', { name, exact: true }) });
    await expect.poll(() => row('Ash').getByRole('cell').nth(1).textContent()).toContain('Visible to everyone');
    expect(await row('Dune').getByRole('cell').nth(1).textContent()).toContain('Only you');
    expect(await row('Elm').getByRole('cell').nth(1).textContent()).toContain('Partly visible');
    expect(await row('Elm').getByRole('cell').nth(2).textContent()).toContain('Night crew');
    expect(await row('Ash').getByRole('link', { name: 'Ash' }).getAttribute('href')).toBe(`/dashboard/alters/${ids.ash}`);

    // Sorting: the header buttons, with aria-sort on the sorted column.
    expect(await sortOf(page, 'Name')).toBe('ascending');
    await page.getByRole('button', { name: 'Name', exact: true }).click();
    await expect.poll(() => rowNames(page)).toEqual(['Elm', 'Dune', 'Cedar', 'Birch', 'Ash']);
    expect(await sortOf(page, 'Name')).toBe('descending');
    await page.getByRole('button', { name: 'Created', exact: true }).click();
    await expect.poll(() => rowNames(page)).toEqual(['Cedar', 'Ash', 'Elm', 'Birch', 'Dune']);
    expect(await sortOf(page, 'Created')).toBe('ascending');
    expect(await sortOf(page, 'Name')).toBeNull();
    await page.getByRole('button', { name: 'Last fronted', exact: true }).click();
    await expect.poll(() => rowNames(page)).toEqual(['Dune', 'Birch', 'Cedar', 'Ash', 'Elm']);
    expect(await sortOf(page, 'Last fronted')).toBe('descending');
    expect((await row('Elm').getByRole('cell').nth(4).textContent())?.trim()).toBe('Not in 5 years');
    expect(await row('Dune').locator('time').count()).toBe(2);
    await page.getByRole('button', { name: 'Name', exact: true }).click();
    await expect.poll(() => rowNames(page)).toEqual(['Ash', 'Birch', 'Cedar', 'Dune', 'Elm']);

    // Searching names and descriptions, through the API's search.
    await page.getByLabel('Search by name or description').fill('ced');
    await expect.poll(() => rowNames(page)).toEqual(['Cedar']);
    // The query is in the address, for bookmarks, reloads and the back button.
    expect(new URL(page.url()).search).toBe('?search=ced');
    await page.getByLabel('Search by name or description').fill('garden');
    await expect.poll(() => rowNames(page)).toEqual(['Ash']);
    await page.getByLabel('Search by name or description').fill('nobody like this');
    await expect.poll(() => page.getByText('No alter matches these filters.').count()).toBe(1);
    await page.getByLabel('Search by name or description').fill('');
    await expect.poll(() => rowNames(page)).toEqual(['Ash', 'Birch', 'Cedar', 'Dune', 'Elm']);

    // Filtering by tag (the API's tag) and by privacy.
    await page.getByLabel('Tag', { exact: true }).selectOption({ label: 'Night crew' });
    await expect.poll(() => rowNames(page)).toEqual(['Ash', 'Elm']);
    expect(new URL(page.url()).searchParams.get('tag')).toBe(String(crew.tagId));
    await page.getByLabel('Tag', { exact: true }).selectOption({ label: 'Any tag' });
    await page.getByLabel('Privacy', { exact: true }).selectOption({ label: 'Visible to everyone' });
    await expect.poll(() => rowNames(page)).toEqual(['Ash', 'Birch', 'Cedar']);
    await page.getByLabel('Privacy', { exact: true }).selectOption({ label: 'Only you' });
    await expect.poll(() => rowNames(page)).toEqual(['Dune']);
    await page.getByLabel('Privacy', { exact: true }).selectOption({ label: 'Any privacy' });
    await expect.poll(() => rowNames(page)).toEqual(['Ash', 'Birch', 'Cedar', 'Dune', 'Elm']);

    // Select two and make them private: one write, checked through the API.
    await page.getByRole('checkbox', { name: 'Select Ash' }).check();
    await page.getByRole('checkbox', { name: 'Select Birch' }).check();
    expect(await page.locator('#selection-count').textContent()).toBe('2 alters selected');
    expect(await page.evaluate<boolean>(`document.querySelector('input[aria-label="Select all shown"]').indeterminate`)).toBe(true);
    await page.getByRole('button', { name: 'Make all private' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('2 alters are now seen only by you.');
    expect(await bitsOf(member, ['ash', 'birch', 'cedar'])).toEqual([0, 0, ALTER_PRIVACY_MASK]);
    expect(await row('Ash').getByRole('cell').nth(1).textContent()).toContain('Only you');

    // Everything shown, made public.
    await page.getByRole('checkbox', { name: 'Select all shown' }).check();
    expect(await page.locator('#selection-count').textContent()).toBe('5 alters selected');
    await page.getByRole('button', { name: 'Make all public' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('5 alters are now visible to everyone.');
    expect(await bitsOf(member, ALTERS.map((alter) => alter.username))).toEqual(ALTERS.map(() => ALTER_PRIVACY_MASK));
    expect(await row('Dune').getByRole('cell').nth(1).textContent()).toContain('Visible to everyone');

    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await screenshotEveryWay(page, `alters-${dialect}`);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1000, height: 900 });

    // A new alter: a small form, then the editor's address.
    await page.getByText('New alter', { exact: true }).click();
    await page.getByLabel('Username', { exact: true }).fill('fern');
    await page.getByLabel(/^Display name/).fill('Fern');
    await page.getByRole('button', { name: 'Create alter' }).click();
    await page.waitForURL(/\/dashboard\/alters\/\d+$/);
    const created = Number(new URL(page.url()).pathname.split('/').pop());
    const fern = await member.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${created}`);
    expect(fern.body.data).toMatchObject({ username: 'fern', displayName: 'Fern', public: 0 });

    await expectClean(dashboard);
  }, 180_000);

  it('selects an alter and makes it private with the keyboard alone', async () => {
    const user = await signIn(server, KEYBOARD_USER);
    for (const username of ['quill', 'reed']) {
      expect((await user.call('POST', '/v1/users/@me/system/create-alter', { username, displayName: username.toUpperCase(), public: ALTER_PRIVACY_MASK })).status).toBe(201);
    }
    const dashboard = await openDashboard(browser, server, KEYBOARD_USER, '/dashboard/alters');
    const { page } = dashboard;
    await expect.poll(() => rowNames(page)).toEqual(['QUILL', 'REED']);
    const focused = () => page.evaluate<string>("document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.trim() ?? ''");

    // Forwards with Tab to REED's box, Space ticks it; back with Shift+Tab to the action, Enter.
    let presses = 0;
    while ((await focused()) !== 'Select REED' && presses++ < 40) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Select REED');
    await page.keyboard.press('Space');
    expect(await page.getByRole('checkbox', { name: 'Select REED' }).isChecked()).toBe(true);
    presses = 0;
    while ((await focused()) !== 'Make all private' && presses++ < 40) await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Make all private');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('status').first().textContent()).toBe('1 alter is now seen only by you.');
    expect(await bitsOf(user, ['quill', 'reed'])).toEqual([ALTER_PRIVACY_MASK, 0]);
    // The focus stays where it was, for the next action.
    expect(await focused()).toBe('Make all private');

    await expectClean(dashboard);
  }, 120_000);

  it('shows a system of more than one page of alters whole', async () => {
    const user = await signIn(server, MANY_USER);
    // One import makes them all (the API pages at 250).
    const tuppers = Array.from({ length: 260 }, (_, index) => ({ id: index + 1, name: `Member ${String(index + 1).padStart(3, '0')}`, brackets: [`m${index + 1}:`, ''] }));
    const imported = await request(server, 'POST', '/v1/users/@me/system/import', { token: user.token, body: { tuppers, groups: [] } });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(200);
    // Opened at an address that asks for names Z to A: the query in the address is the grid's.
    const dashboard = await openDashboard(browser, server, MANY_USER, '/dashboard/alters?reversed=1');
    const { page } = dashboard;
    await expect.poll(() => page.getByText('Showing 260 of 260 alters.').count(), { timeout: 30_000 }).toBe(1);
    expect(await sortOf(page, 'Name')).toBe('descending');
    const names = await rowNames(page);
    expect(names).toHaveLength(260);
    expect(names.at(0)).toBe('Member 260');
    expect(names.at(-1)).toBe('Member 001');
    await expectClean(dashboard);
  }, 180_000);
});
