// The dashboard's Tags, Front history and Front statistics screens in a real headless Chromium
// against the real service, on each database. The system is made through the API as any app
// would make it (alters, a tag, switches recorded late with `timestamp`); the screens then
// change it, and the API says whether the change happened. The browser runs in a time zone with
// a half-hour offset (St John's, UTC−3:30), so a screen that mixed up UTC and local time shows it.
//
// Without a Chromium this suite is skipped, except in CI, where it fails (test/support/environment.ts).
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, type ApiUser } from '../support/api.js';
import { auditedPage, launchChromium } from '../support/chromium.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { overflowsSideways, screenshotEveryWay, seriousAccessibilityFindings, type DashboardPage } from '../support/dashboard-browser.js';
import { DIALECTS } from '../support/dialects.js';
import { RUN_BROWSER_SUITES } from '../support/environment.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '500000000000000077';
const TIME_ZONE = 'America/St_Johns';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Switch {
  switchId: number;
  switchedAt: string;
  alterIds: number[];
}
interface StatsRow {
  alterId: number | null;
  seconds: number;
  share: number;
  switches: number | null;
}
interface Stats {
  from: string;
  to: string;
  alters: StatsRow[];
  nobody: { seconds: number; share: number };
}
interface Tag {
  tagId: number;
  name: string;
  description: string | null;
  color: string | null;
  alterIds: number[];
}

/**
 * Waits for what the page shows after loading or a change. Loading a screen's chunk and its data
 * (a month of statistics is 31 requests) takes over a second on a loaded machine, beyond
 * expect.poll's default second.
 */
function eventually<T>(read: () => Promise<T>) {
  return expect.poll(read, { timeout: 15_000 });
}

/** The dashboard's way of writing a length of time (dashboard/src/lib/local-time.ts), to compare its tables with the API's seconds. */
function duration(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ${String(minutes % 60).padStart(2, '0')} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)} %`;
}

/**
 * What the page's own clock says about an instant in its time zone, as a datetime-local input
 * reports its value: to the second, without `:00` when the seconds are zero (HTML's normalized
 * form, which Chromium gives back whatever the page set).
 */
function localInput(page: Page, iso: string): Promise<string> {
  return page.evaluate<string>(`(() => {
    const date = new Date(${JSON.stringify(iso)});
    const pad = (value) => String(value).padStart(2, '0');
    const seconds = date.getSeconds() === 0 ? '' : ':' + pad(date.getSeconds());
    return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + 'T' + pad(date.getHours()) + ':' + pad(date.getMinutes()) + seconds;
  })()`);
}

/** Presses Tab until the focused element is the one `matches` (JavaScript, given `element`) names; fails after `limit` presses. */
async function tabTo(page: Page, matches: string, limit = 80): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate<boolean>(`((element) => Boolean(element && (${matches})))(document.activeElement)`)) return;
  }
  throw new Error(`Tab never reached ${matches}; the focus is on ${await page.evaluate<string>('document.activeElement?.outerHTML.slice(0, 200)')}`);
}

describe.runIf(RUN_BROWSER_SUITES).each(DIALECTS)('the dashboard’s tags, history and statistics in Chromium (%s)', (dialect) => {
  let server: TestServer;
  let browser: Browser;
  let member: ApiUser;
  const ids = { ash: 0, rowan: 0, sky: 0 };
  /** The recent switches by name (see beforeAll). */
  let recent: Record<'first' | 'rowan' | 'ashAgain' | 'out' | 'both' | 'sky' | 'rowanLater' | 'now', Switch>;

  /** A browser profile in TIME_ZONE, signed in through the development login, on `path`. */
  async function open(path: string): Promise<DashboardPage> {
    const audit = await auditedPage(browser, { timezoneId: TIME_ZONE });
    const foreign: string[] = [];
    audit.page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.origin !== new URL(server.url).origin) foreign.push(request.url());
    });
    await audit.page.goto(`${server.url}${path}`);
    await audit.page.getByLabel('Discord user id').fill(USER);
    await audit.page.getByRole('button', { name: 'Sign in' }).click();
    await audit.page.waitForURL(`${server.url}${path}`);
    return { ...audit, foreign };
  }

  /** The audits every screen passes: axe-core, screenshots, 375 px without sideways scrolling, no CSP violation, error or foreign request. */
  async function checkScreen(dashboard: DashboardPage, name: string, expectedErrors: RegExp[] = []): Promise<void> {
    const { page } = dashboard;
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await screenshotEveryWay(page, `${name}-${dialect}`);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1000, height: 900 });
    expect(dashboard.violations).toEqual([]);
    expect(dashboard.errors.filter((error) => !expectedErrors.some((expected) => expected.test(error)))).toEqual([]);
    expect(dashboard.foreign).toEqual([]);
  }

  async function history(): Promise<Switch[]> {
    const all: Switch[] = [];
    let before: number | null | undefined;
    do {
      const page = await member.call<{ data: { switches: Switch[]; next: number | null } }>('GET', `/v1/users/@me/front/history?max=100${before ? `&before=${before}` : ''}`);
      expect(page.status).toBe(200);
      all.push(...page.body.data.switches);
      before = page.body.data.next;
    } while (before);
    return all;
  }

  async function tags(): Promise<Tag[]> {
    const answer = await member.call<Tag[]>('GET', '/v1/users/@me/system/list-tags');
    expect(answer.status).toBe(200);
    return answer.body;
  }

  async function stats(from: string, to: string, tag?: number): Promise<Stats> {
    const query = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}${tag === undefined ? '' : `&tag=${tag}`}`;
    const answer = await member.call<{ data: Stats }>('GET', `/v1/users/@me/front/stats?${query}`);
    expect(answer.status).toBe(200);
    return answer.body.data;
  }

  beforeAll(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer(dialect);
    browser = await launchChromium();
    member = await signIn(server, USER);
    for (const [username, displayName, color] of [
      ['ash', 'Ash', '#aa3355'],
      ['rowan', 'Rowan', null],
      ['sky', 'Sky', '#3355aa'],
    ] as const) {
      const made = await member.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username, displayName, color });
      expect(made.status).toBe(201);
      ids[username] = made.body.alterId;
    }
    const old = await member.call('POST', '/v1/users/@me/system/create-tag', { name: 'Old tag' });
    expect(old.status).toBe(201);

    // Whole seconds, so a time typed back to the second is the same instant.
    const now = Math.floor(Date.now() / 1000) * 1000;
    const push = async (alters: number[], at: number): Promise<Switch> => {
      const made = await member.call<{ data: Switch }>('POST', '/v1/users/@me/front', { alters, timestamp: new Date(at).toISOString() });
      expect(made.status).toBe(200);
      return made.body.data;
    };
    // An older stretch of 56 switches, so the history has more than one page (50 a page).
    for (let index = 0; index < 56; index++) await push([index % 2 === 0 ? ids.rowan : ids.sky], now - 20 * DAY + index * 6 * HOUR);
    const t0 = now - 3 * DAY;
    recent = {
      first: await push([ids.ash], t0),
      rowan: await push([ids.rowan], t0 + 5 * HOUR),
      ashAgain: await push([ids.ash], t0 + 8 * HOUR),
      out: await push([], t0 + 10 * HOUR),
      both: await push([ids.ash, ids.rowan], t0 + DAY),
      sky: await push([ids.sky], t0 + DAY + 2 * HOUR),
      rowanLater: await push([ids.rowan], t0 + 2 * DAY),
      now: await push([ids.ash], now - HOUR),
    };
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('creates a tag, adds an alter to it, edits it and deletes another after a confirmation', async () => {
    const dashboard = await open('/dashboard/tags');
    const { page } = dashboard;
    await eventually(() => page.getByRole('heading', { name: 'Tags', level: 1 }).count()).toBe(1);
    expect(await page.title()).toBe('Tags · switchboard');
    expect(await page.getByRole('link', { name: 'Tags' }).getAttribute('aria-current')).toBe('page');
    await eventually(() => page.getByRole('heading', { name: 'Old tag' }).count()).toBe(1);

    const create = page.getByRole('region', { name: 'New tag' });
    await create.getByLabel('Name', { exact: true }).fill('Night crew');
    await create.getByLabel(/^Colour/).fill('#336699');
    await create.getByRole('button', { name: 'Create tag' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toBe('Tag Night crew created.');
    const made = (await tags()).find((tag) => tag.name === 'Night crew');
    expect(made?.color).toBe('#336699');
    expect(made?.alterIds).toEqual([]);

    await page.getByLabel('Add an alter to Night crew').selectOption({ label: 'Ash' });
    await page.getByRole('button', { name: 'Add to Night crew' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toBe('Ash added to Night crew.');
    expect((await tags()).find((tag) => tag.name === 'Night crew')?.alterIds).toEqual([ids.ash]);
    expect(await page.getByRole('list', { name: 'Members of Night crew' }).getByRole('listitem').count()).toBe(1);

    await page.getByRole('button', { name: 'Edit Night crew' }).click();
    const night = page.getByRole('region', { name: 'Night crew' });
    await night.getByLabel(/^Description/).fill('Who is up after midnight');
    await night.getByLabel(/^Colour/).fill('');
    await night.getByRole('button', { name: 'Save Night crew' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toBe('Tag Night crew saved.');
    const edited = (await tags()).find((tag) => tag.name === 'Night crew');
    expect(edited?.description).toBe('Who is up after midnight');
    expect(edited?.color).toBeNull();

    await page.getByRole('button', { name: 'Delete Old tag' }).click();
    // The confirmation takes the focus; nothing is deleted until it is confirmed.
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Yes, delete Old tag');
    expect((await tags()).map((tag) => tag.name)).toContain('Old tag');
    await page.keyboard.press('Enter');
    await eventually(() => page.getByRole('status').first().textContent()).toBe('Tag Old tag deleted; its alters stay.');
    expect((await tags()).map((tag) => tag.name)).toEqual(['Night crew']);

    await checkScreen(dashboard, 'tags');
    await dashboard.context.close();
  }, 120_000);

  it('adds an alter to a tag with the keyboard alone', async () => {
    const dashboard = await open('/dashboard/tags');
    const { page } = dashboard;
    await eventually(() => page.getByRole('heading', { name: /^Your tags/ }).count()).toBe(1);
    await tabTo(page, "element.id && document.querySelector('label[for=\"' + element.id + '\"]')?.textContent === 'Name'");
    await page.keyboard.type('Day shift');
    await tabTo(page, "element.textContent === 'Create tag'");
    await page.keyboard.press('Enter');
    await eventually(() => page.getByRole('status').first().textContent()).toBe('Tag Day shift created.');
    // The new tag's heading has the focus; its "add an alter" control is further on.
    expect(await page.evaluate('document.activeElement?.textContent?.trim()')).toBe('Day shift');
    await tabTo(page, "element.tagName === 'SELECT' && element.labels?.[0]?.textContent === 'Add an alter to Day shift'");
    // Choose the third choice (after "Choose an alter…" and Ash, in name order): Rowan.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await tabTo(page, "element.textContent === 'Add to Day shift'");
    await page.keyboard.press('Enter');
    await eventually(() => page.getByRole('status').first().textContent()).toBe('Rowan added to Day shift.');
    expect((await tags()).find((tag) => tag.name === 'Day shift')?.alterIds).toEqual([ids.rowan]);
    expect(dashboard.violations).toEqual([]);
    expect(dashboard.errors).toEqual([]);
    await dashboard.context.close();
  }, 120_000);

  it('shows the front history by day, pages back, moves a switch, refuses a repeat and deletes a switch with its twin', async () => {
    const dashboard = await open('/dashboard/history');
    const { page } = dashboard;
    await eventually(() => page.getByRole('heading', { name: 'Front history', level: 1 }).count()).toBe(1);
    const entries = page.locator('ol.timeline > li');
    await eventually(() => entries.count()).toBe(50);

    // Newest first: Ash for an hour so far; then Rowan for the time until Ash came in.
    const first = entries.first();
    expect(await first.locator('time').getAttribute('datetime')).toBe(recent.now.switchedAt);
    expect(await first.textContent()).toContain('Ash');
    expect(await first.textContent()).toMatch(/for 1 h 0\d min so far/);
    expect(await entries.nth(1).textContent()).toContain(`for ${duration((Date.parse(recent.now.switchedAt) - Date.parse(recent.rowanLater.switchedAt)) / 1000)}`);
    expect(await page.getByText('Switched out', { exact: true }).count()).toBe(1);
    // Grouped by the day in the browser's zone: each group's heading is the day of its switches there.
    const dayOf = (iso: string) => page.evaluate<string>(`new Date(${JSON.stringify(iso)}).toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' })`);
    const skyDay = page.getByRole('region', { name: await dayOf(recent.sky.switchedAt) });
    expect(await skyDay.getByText('Sky', { exact: true }).count()).toBe(1);

    // Older switches, with the cursor, until the first switch.
    await page.getByRole('button', { name: 'Show older switches' }).click();
    await eventually(() => entries.count()).toBe(64);
    expect(await page.getByText('That is the first switch: the history starts here.').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Show older switches' }).count()).toBe(0);

    // Move Sky's switch an hour and a half later, typed in local time.
    const skyLabel = await page.evaluate<string>(`new Date(${JSON.stringify(recent.sky.switchedAt)}).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })`);
    await page.getByRole('button', { name: `Edit the switch of ${skyLabel}` }).click();
    const editor = page.getByRole('form', { name: 'Edit this switch' });
    const when = editor.getByLabel('When it happened');
    expect(await when.inputValue()).toBe(await localInput(page, recent.sky.switchedAt));
    const moved = new Date(Date.parse(recent.sky.switchedAt) + 1.5 * HOUR).toISOString();
    await when.fill(await localInput(page, moved));
    await editor.getByRole('button', { name: 'Save switch' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toContain('Switch saved: Sky.');
    const afterMove = await history();
    expect(afterMove.find((entry) => entry.switchId === recent.sky.switchId)?.switchedAt).toBe(moved);
    expect(afterMove).toHaveLength(64);

    // Making Sky's switch Ash and Rowan would repeat the switch before it: 409, said plainly, nothing changed.
    const movedLabel = await page.evaluate<string>(`new Date(${JSON.stringify(moved)}).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })`);
    await page.getByRole('button', { name: `Edit the switch of ${movedLabel}` }).click();
    await editor.getByLabel('Ash', { exact: true }).check();
    await editor.getByLabel('Rowan', { exact: true }).check();
    await editor.getByLabel('Sky', { exact: true }).uncheck();
    await editor.getByLabel('Primary fronter').selectOption({ label: 'Ash' });
    await editor.getByRole('button', { name: 'Save switch' }).click();
    await eventually(() => page.getByRole('alert').filter({ hasText: 'Nothing changed' }).count()).toBe(1);
    expect((await history()).find((entry) => entry.switchId === recent.sky.switchId)?.alterIds).toEqual([ids.sky]);
    await editor.getByRole('button', { name: 'Cancel' }).click();

    // Deleting Rowan's switch between two of Ash's deletes the later Ash too, and says so.
    const rowanLabel = await page.evaluate<string>(`new Date(${JSON.stringify(recent.rowan.switchedAt)}).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })`);
    await page.getByRole('button', { name: `Delete the switch of ${rowanLabel}` }).click();
    await page.getByRole('button', { name: 'Yes, delete this switch' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toContain(`(#${recent.ashAgain.switchId}) repeated the one before and was deleted too.`);
    const afterDelete = (await history()).map((entry) => entry.switchId);
    expect(afterDelete).not.toContain(recent.rowan.switchId);
    expect(afterDelete).not.toContain(recent.ashAgain.switchId);
    expect(afterDelete).toHaveLength(62);

    // The refused edit's 409 is the one console error the page may have.
    await checkScreen(dashboard, 'history', [/status of 409/]);
    await dashboard.context.close();
  }, 180_000);

  it('reads front statistics for a period, the tables holding the API’s numbers', async () => {
    const dashboard = await open('/dashboard/stats');
    const { page } = dashboard;
    await eventually(() => page.getByRole('heading', { name: 'Front statistics', level: 1 }).count()).toBe(1);
    await eventually(() => page.getByRole('heading', { name: 'Day by day', exact: true }).count()).toBe(1);
    const partsTable = page.getByRole('table', { name: /day by day/ });
    expect(await partsTable.locator('tbody tr').count()).toBe(30);

    // Dates of my choosing: the last four days and today.
    await page.getByLabel('Dates of my choosing').check();
    const firstDay = (await localInput(page, new Date(Date.now() - 4 * DAY).toISOString())).slice(0, 10);
    const lastDay = (await localInput(page, new Date().toISOString())).slice(0, 10);
    await page.getByLabel('First day').fill(firstDay);
    await page.getByLabel('Last day').fill(lastDay);
    // One statistics request for the period and its five days, cut at the four local midnights between.
    const statsRequests: URL[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.endsWith('/front/stats')) statsRequests.push(url);
    });
    await page.getByRole('button', { name: 'Show statistics' }).click();
    await eventually(() => partsTable.locator('tbody tr').count()).toBe(5);
    expect(statsRequests).toHaveLength(1);
    expect(statsRequests[0]?.searchParams.get('boundaries')?.split(',')).toHaveLength(4);
    const from = (await page.locator('time.from').getAttribute('datetime')) as string;
    const to = (await page.locator('time.to').getAttribute('datetime')) as string;
    // The period starts at local midnight of the first day.
    expect(await localInput(page, from)).toBe(`${firstDay}T00:00`);

    const answer = await stats(from, to);
    expect(answer.alters.length).toBeGreaterThanOrEqual(3);
    const shareTable = page.getByRole('table', { name: 'Time each alter fronted in the period' });
    const shareRows = shareTable.locator('tbody tr');
    expect(await shareRows.count()).toBe(answer.alters.length + 1);
    const names: Record<number, string> = { [ids.ash]: 'Ash', [ids.rowan]: 'Rowan', [ids.sky]: 'Sky' };
    for (const [index, row] of answer.alters.entries()) {
      const cells = await shareRows.nth(index).locator('th, td').allTextContents();
      expect(cells.slice(0, 4)).toEqual([names[row.alterId as number], duration(row.seconds), percent(row.share), String(row.switches)]);
    }
    expect((await shareRows.last().locator('th, td').allTextContents()).slice(0, 3)).toEqual(['Nobody', duration(answer.nobody.seconds), percent(answer.nobody.share)]);
    // The chart's bars are SVG rects sized by attributes: Ash's share of the track.
    const ash = answer.alters.find((row) => row.alterId === ids.ash);
    expect(Number(await page.locator('.chart rect[fill="#aa3355"]').first().getAttribute('width'))).toBeCloseTo((ash?.share ?? Number.NaN) * 100, 6);

    // Each day's row holds that day's statistics, as the API counts them for that day alone (a
    // call per day here: the page's one request must agree with them).
    const dayRows = partsTable.locator('tbody tr');
    const header = await partsTable.locator('thead th').allTextContents();
    for (let index = 0; index < 5; index++) {
      const time = dayRows.nth(index).locator('time');
      const day = await stats((await time.getAttribute('datetime')) as string, (await time.getAttribute('data-to')) as string);
      const cells = await dayRows.nth(index).locator('td').allTextContents();
      for (const [column, name] of header.slice(1).entries()) {
        const row = name === 'Nobody' ? day.nobody : day.alters.find((each) => names[each.alterId as number] === name);
        expect(cells[column], `${name} on day ${index + 1}`).toBe(duration(row?.seconds ?? 0));
      }
    }

    // A year goes month by month; the last seven days, day by day.
    await page.getByLabel('Last year').check();
    await page.getByRole('button', { name: 'Show statistics' }).click();
    await eventually(() => page.getByRole('heading', { name: 'Month by month', exact: true }).count()).toBe(1);
    expect([12, 13]).toContain(await page.getByRole('table', { name: /month by month/ }).locator('tbody tr').count());
    await page.getByLabel('Last 7 days').check();
    await page.getByRole('button', { name: 'Show statistics' }).click();
    await eventually(() => partsTable.locator('tbody tr').count()).toBe(7);

    // Narrowed to a tag's members (Night crew: Ash), "nobody" being the time Ash did not front.
    const night = (await tags()).find((tag) => tag.name === 'Night crew');
    await page.getByLabel('Alters', { exact: true }).selectOption({ label: 'Members of Night crew' });
    await page.getByRole('button', { name: 'Show statistics' }).click();
    await eventually(() => page.getByText('Only the members of Night crew', { exact: false }).count()).toBe(1);
    const tagged = await stats((await page.locator('time.from').getAttribute('datetime')) as string, (await page.locator('time.to').getAttribute('datetime')) as string, night?.tagId);
    expect(tagged.alters.map((row) => row.alterId)).toEqual([ids.ash]);
    expect(await shareRows.count()).toBe(2);
    expect((await shareRows.first().locator('th, td').allTextContents()).slice(0, 3)).toEqual(['Ash', duration(tagged.alters[0]?.seconds ?? 0), percent(tagged.alters[0]?.share ?? 0)]);
    expect((await shareRows.last().locator('th, td').allTextContents()).slice(0, 3)).toEqual(['Nobody', duration(tagged.nobody.seconds), percent(tagged.nobody.share)]);

    // No style attribute anywhere: the charts' sizes are SVG attributes.
    expect(await page.locator('[style]').count()).toBe(0);
    await checkScreen(dashboard, 'stats');
    await dashboard.context.close();
  }, 180_000);
});
