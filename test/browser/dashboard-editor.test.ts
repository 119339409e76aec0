// The alter editor (/dashboard/alters/<id>) in a real headless Chromium against the real service,
// on each database: every kind of field set in the form and found through the API afterwards, the
// proxy tags' live preview, an avatar uploaded after a crop and served by the service, a refusal
// shown at the field it names, a keyboard-only edit, deletion after a confirmation, a warning
// before leaving with unsaved changes (and none without), flags and a per-server avatar upload
// round-tripped through the API; no CSP
// violation, no script error, no request to another origin, no serious axe-core finding, no
// sideways scrolling at 375 px.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn, type ApiUser } from '../support/api.js';
import { launchChromium } from '../support/chromium.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { openDashboard, overflowsSideways, screenshotEveryWay, seriousAccessibilityFindings, type DashboardPage } from '../support/dashboard-browser.js';
import { DIALECTS } from '../support/dialects.js';
import { RUN_BROWSER_SUITES } from '../support/environment.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '500000000000000033';
const SERVER_ID = '123456789012345678';

interface Alter {
  alterId: number;
  username: string;
  displayName: string;
  pronouns: string | null;
  description: string | null;
  color: string | null;
  birthday: string | null;
  avatarUrl: string | null;
  autoproxyEnabled: boolean;
  nameMap: Array<{ server: string; name: string }>;
  avatarUrlMap: Record<string, string>;
  flags: number;
  proxyTags: Array<{ prefix: string | null; suffix: string | null }>;
  public: number;
  tagIds: number[];
  profileFields: Record<string, string>;
}

/** The machine may be busy: a screen loads several answers before it shows. */
const SLOW = { timeout: 15_000 };

const KINDS = ['text', 'markdown', 'date', 'month-day', 'colour', 'link'] as const;

describe.runIf(RUN_BROWSER_SUITES).each(DIALECTS)('the alter editor in Chromium (%s)', (dialect) => {
  let server: TestServer;
  let browser: Browser;
  let member: ApiUser;
  /** Field id by kind, each made through the API as any app would. */
  const fieldIds = new Map<(typeof KINDS)[number], number>();
  let tagId: number;

  async function makeAlter(username: string, displayName: string, extra: Record<string, unknown> = {}): Promise<number> {
    const made = await member.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username, displayName, ...extra });
    expect(made.status).toBe(201);
    return made.body.alterId;
  }

  async function readAlter(alterId: number) {
    return member.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${alterId}`);
  }

  async function openEditor(alterId: number, heading: string): Promise<DashboardPage> {
    const dashboard = await openDashboard(browser, server, USER, `/dashboard/alters/${alterId}`);
    await expect.poll(() => dashboard.page.getByRole('heading', { name: heading, level: 1 }).count(), SLOW).toBe(1);
    return dashboard;
  }

  function expectClean(dashboard: DashboardPage, allowedErrors: RegExp[] = []) {
    expect(dashboard.violations).toEqual([]);
    expect(dashboard.errors.filter((error) => !allowedErrors.some((allowed) => allowed.test(error)))).toEqual([]);
    expect(dashboard.foreign).toEqual([]);
  }

  const status = (page: Page) => page.locator('.save [role=status]');

  beforeAll(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer(dialect);
    browser = await launchChromium();
    member = await signIn(server, USER);
    for (const kind of KINDS) {
      const made = await member.call<{ fieldId: number }>('POST', '/v1/users/@me/system/create-profile-field', { name: `My ${kind}`, kind });
      expect(made.status).toBe(201);
      fieldIds.set(kind, made.body.fieldId);
    }
    const tag = await member.call<{ tagId: number }>('POST', '/v1/users/@me/system/create-tag', { name: 'Littles' });
    expect(tag.status).toBe(201);
    tagId = tag.body.tagId;
    // Another alter with tags of its own, for the preview to tell apart.
    await makeAlter('rowan', 'Rowan', { proxyTags: [{ prefix: 'r:', suffix: null }] });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('sets every kind of field, previews proxy tags live, and saves it all in one edit', async () => {
    const alterId = await makeAlter('ash', 'Ash');
    const dashboard = await openEditor(alterId, 'Edit Ash');
    const { page } = dashboard;
    expect(await page.title()).toBe('Edit alter · switchboard');
    const edits: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith(`/alters/${alterId}/edit`)) edits.push(request.postData() ?? '');
    });

    await page.locator('#alter-username').fill('ashen');
    await page.locator('#alter-displayName').fill('Ash Grey');
    await page.locator('#alter-pronouns').fill('they/them');
    await page.locator('#alter-description').fill('Likes **tea**.\nAnd rain.');
    // The Markdown preview is made of elements, not HTML text: markup typed stays text.
    await expect.poll(() => page.locator('#description-preview strong').textContent(), SLOW).toBe('tea');
    await page.locator('#alter-description').fill('Likes **tea**.\nAnd rain. <img src=x onerror=alert(1)>');
    await expect.poll(() => page.locator('#description-preview').textContent(), SLOW).toContain('<img src=x onerror=alert(1)>');
    expect(await page.locator('#description-preview img').count()).toBe(0);
    await page.locator('#alter-description').fill('Likes **tea**.\nAnd rain.');
    await page.getByLabel('Colour', { exact: true }).fill('#336699');
    await page.locator('#alter-birthday').fill('--07-21');

    const names = page.getByRole('group', { name: 'Names in particular servers' });
    await names.getByRole('button', { name: 'Add a name for a server' }).click();
    await names.getByLabel('Server id 1').fill(SERVER_ID);
    await names.getByLabel('Name in that server').fill('Ashy');
    const avatars = page.getByRole('group', { name: 'Avatars in particular servers' });
    await avatars.getByRole('button', { name: 'Add an avatar for a server' }).click();
    await avatars.getByLabel('Server id 1').fill(SERVER_ID);
    await avatars.getByLabel('Avatar URL in that server').fill('https://img.example/ash server.png');

    // Proxy tags, and what "Try a message" says of them as they are typed.
    const tags = page.getByRole('group', { name: 'Proxy tags' });
    await tags.getByRole('button', { name: 'Add a proxy tag' }).click();
    await tags.getByLabel('Prefix 1').fill('[');
    await tags.getByLabel('Suffix 1').fill(']');
    const trial = page.getByLabel('Try a message');
    const result = page.locator('#proxy-trial-result');
    await trial.fill('[hello there]');
    await expect.poll(() => result.textContent(), SLOW).toContain('Matched: posted as Ash Grey');
    expect(await result.locator('.message').textContent()).toBe('hello there');
    expect(await result.textContent()).toContain(`In server ${SERVER_ID}: Ashy`);
    await trial.fill('r: hi');
    await expect.poll(() => result.textContent(), SLOW).toContain('another alter’s proxy tags: it would be posted as Rowan');
    await trial.fill('just talking');
    await expect.poll(() => result.textContent(), SLOW).toContain('No proxy tag matches');
    await tags.getByLabel('Suffix 1').fill('');
    await trial.fill('[ no suffix now');
    await expect.poll(() => result.textContent(), SLOW).toContain('Matched: posted as Ash Grey');
    await tags.getByLabel('Suffix 1').fill(']');
    await trial.fill('[hello there]');

    await page.getByLabel('Front and latch autoproxy may speak as this alter').uncheck();
    await page.getByRole('group', { name: 'Tags', exact: true }).getByLabel('Littles').check();

    const privacy = page.getByRole('group', { name: 'Privacy' });
    await privacy.getByLabel('The alter itself (in lists and lookups)').selectOption({ label: 'Everyone' });
    await privacy.getByLabel('Display name').selectOption({ label: 'Everyone who sees the alter' });
    await privacy.getByLabel('Pronouns').selectOption({ label: 'Everyone who sees the alter' });

    await page.getByLabel('My text').fill('plain words');
    await page.getByLabel('My markdown').fill('*emphasis*');
    await page.getByLabel('My date').fill('2020-02-29');
    const monthDay = page.getByRole('group', { name: 'My month-day' });
    await monthDay.getByLabel('Month').selectOption({ label: 'July' });
    await monthDay.getByLabel('Day').selectOption({ label: '21' });
    await page.getByLabel('My colour', { exact: true }).fill('#aabbcc');
    await page.getByLabel('My link').fill('https://example.org/a page');

    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Ash Grey.');
    expect(edits).toHaveLength(1);

    const read = await readAlter(alterId);
    expect(read.status).toBe(200);
    const alter = read.body.data;
    expect(alter).toMatchObject({
      username: 'ashen',
      displayName: 'Ash Grey',
      pronouns: 'they/them',
      description: 'Likes **tea**.\nAnd rain.',
      color: '#336699',
      birthday: '--07-21',
      autoproxyEnabled: false,
      nameMap: [{ server: SERVER_ID, name: 'Ashy' }],
      avatarUrlMap: { [SERVER_ID]: 'https://img.example/ash%20server.png' },
      proxyTags: [expect.objectContaining({ prefix: '[', suffix: ']' })],
      public: 1 | 2 | 16,
      tagIds: [tagId],
    });
    expect(alter.profileFields).toEqual({
      [String(fieldIds.get('text'))]: 'plain words',
      [String(fieldIds.get('markdown'))]: '*emphasis*',
      [String(fieldIds.get('date'))]: '2020-02-29',
      [String(fieldIds.get('month-day'))]: '--07-21',
      [String(fieldIds.get('colour'))]: '#aabbcc',
      [String(fieldIds.get('link'))]: 'https://example.org/a%20page',
    });

    // The form now shows what was stored, and saving again sends nothing.
    expect(await page.getByLabel('Avatar URL in that server').inputValue()).toBe('https://img.example/ash%20server.png');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Nothing changed since the last save.');
    expect(edits).toHaveLength(1);

    // A value removed in the form is removed from the alter.
    await page.getByLabel('My text').fill('');
    await page.locator('#alter-pronouns').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Ash Grey.');
    expect(JSON.parse(edits[1] ?? '{}')).toEqual({ pronouns: null, profileFields: { [String(fieldIds.get('text'))]: null } });
    const after = (await readAlter(alterId)).body.data;
    expect(after.pronouns).toBeNull();
    expect(Object.keys(after.profileFields)).not.toContain(String(fieldIds.get('text')));

    await page.getByLabel('Try a message').fill('[hello there]');
    await screenshotEveryWay(page, `editor-${dialect}`);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);

  it('uploads a cropped avatar, which the service then serves', async () => {
    const alterId = await makeAlter('cedar', 'Cedar');
    const dashboard = await openEditor(alterId, 'Edit Cedar');
    const { page } = dashboard;
    // 400 × 200: red on the left half, blue on the right; a square crop at the far right is blue.
    const left = await sharp({ create: { width: 200, height: 200, channels: 3, background: '#ff0000' } }).png().toBuffer();
    const picture = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#0000ff' } })
      .composite([{ input: left, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const file = join(mkdtempSync(join(tmpdir(), 'editor-')), 'halves.png');
    writeFileSync(file, picture);

    await page.getByLabel('Upload a new avatar from this device').setInputFiles(file);
    const crop = page.getByRole('group', { name: 'Crop the avatar' });
    await expect.poll(() => crop.count(), SLOW).toBe(1);
    // The sliders work from the keyboard: End takes the crop to the right edge.
    await crop.getByLabel('Left to right').focus();
    await page.keyboard.press('End');
    expect(await crop.getByLabel('Left to right').inputValue()).toBe('100');
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1000, height: 900 });
    expect(await seriousAccessibilityFindings(page)).toEqual([]);

    await crop.getByRole('button', { name: 'Upload cropped avatar' }).click();
    await expect.poll(() => page.getByText('Uploaded. Save the alter to use it as the avatar.').count(), SLOW).toBe(1);
    const url = await page.getByLabel('Avatar URL', { exact: true }).inputValue();
    expect(url.startsWith(`${server.config.publicUrl}/images/`)).toBe(true);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Cedar.');
    // The new avatar shows on the page (from the service itself: img-src 'self').
    await expect.poll(() => page.getByRole('img', { name: 'The avatar now' }).evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth), SLOW).toBe(200);

    const stored = (await readAlter(alterId)).body.data.avatarUrl;
    expect(stored).toBe(url);
    const served = await fetch(url.replace(server.config.publicUrl, server.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'webp', width: 200, height: 200 });
    const { channels } = await sharp(bytes).stats();
    expect(channels[2]?.mean).toBeGreaterThan(200);
    expect(channels[0]?.mean).toBeLessThan(40);
    expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);

  it('shows a refusal next to the field it names, and moves the focus there', async () => {
    const alterId = await makeAlter('birch', 'Birch');
    const dashboard = await openEditor(alterId, 'Edit Birch');
    const { page } = dashboard;
    await page.locator('#alter-birthday').fill('soon');
    await page.getByRole('button', { name: 'Save' }).click();
    const birthday = page.locator('#alter-birthday');
    await expect.poll(() => birthday.getAttribute('aria-invalid'), SLOW).toBe('true');
    const message = page.locator('#alter-birthday-error');
    expect(await message.textContent()).toContain('birthday: ');
    expect(await birthday.getAttribute('aria-describedby')).toBe('birthday-hint alter-birthday-error');
    expect(await page.evaluate('document.activeElement?.id')).toBe('alter-birthday');
    expect(await page.getByRole('alert').filter({ hasText: 'Not saved' }).count()).toBe(1);
    expect((await readAlter(alterId)).body.data.birthday).toBeNull();
    expect(await seriousAccessibilityFindings(page)).toEqual([]);

    // Fixed, it saves, and the error goes.
    await birthday.fill('1996-07-21');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Birch.');
    expect(await message.count()).toBe(0);
    expect((await readAlter(alterId)).body.data.birthday).toBe('1996-07-21');
    // The browser reports the refused request itself; nothing else went wrong.
    expectClean(dashboard, [/status of 400/]);
    expect(dashboard.errors.length).toBeLessThanOrEqual(1);
    await dashboard.context.close();
  }, 180_000);

  it('edits the display name and saves with the keyboard alone', async () => {
    const alterId = await makeAlter('elm', 'Elm');
    const dashboard = await openEditor(alterId, 'Edit Elm');
    const { page } = dashboard;
    const focused = () => page.evaluate<string>("document.activeElement?.id || document.activeElement?.textContent?.trim() || ''");
    for (let presses = 0; presses < 40 && (await focused()) !== 'alter-displayName'; presses++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('alter-displayName');
    await page.keyboard.press('Control+a');
    await page.keyboard.type('Elm Tree');
    for (let presses = 0; presses < 200 && (await focused()) !== 'Save'; presses++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('Save');
    await page.keyboard.press('Enter');
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Elm Tree.');
    expect((await readAlter(alterId)).body.data.displayName).toBe('Elm Tree');
    expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);

  it('warns before leaving with unsaved changes (a link, the history buttons, signing out, the page itself), and not without or after a save', async () => {
    const alterId = await makeAlter('hazel', 'Hazel');
    const dashboard = await openEditor(alterId, 'Edit Hazel');
    const { page } = dashboard;
    const editorUrl = `${server.url}/dashboard/alters/${alterId}`;
    const leave = page.getByRole('dialog', { name: 'Leave without saving?' });
    const altersHeading = page.getByRole('heading', { name: 'Alters', level: 1 });
    const nativeDialogs: string[] = [];
    page.on('dialog', (dialog) => {
      nativeDialogs.push(dialog.type());
      void dialog.dismiss();
    });

    // Nothing changed: a link leaves at once.
    await page.getByRole('link', { name: 'All alters' }).click();
    await expect.poll(() => altersHeading.count(), SLOW).toBe(1);
    expect(await leave.count()).toBe(0);
    await page.evaluate('history.back()');
    await expect.poll(() => page.getByRole('heading', { name: 'Edit Hazel', level: 1 }).count(), SLOW).toBe(1);

    // A change, then a link: the dialog asks, with the focus on staying; staying keeps the page and the change.
    await page.locator('#alter-pronouns').fill('she/her');
    await page.getByRole('link', { name: 'All alters' }).click();
    await expect.poll(() => leave.isVisible(), SLOW).toBe(true);
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Stay and keep editing');
    expect(await leave.getByText('Your changes to Hazel are not saved.').count()).toBe(1);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await leave.getByRole('button', { name: 'Stay and keep editing' }).click();
    await expect.poll(() => leave.isVisible(), SLOW).toBe(false);
    expect(page.url()).toBe(editorUrl);
    expect(await page.locator('#alter-pronouns').inputValue()).toBe('she/her');

    // The forward button (to the grid visited before): the address stays the editor's while the
    // dialog asks; Escape stays.
    await page.evaluate('history.forward()');
    await expect.poll(() => leave.isVisible(), SLOW).toBe(true);
    // The dialog opens at once; the browser's undo of the move lands a moment later.
    await expect.poll(() => page.url(), SLOW).toBe(editorUrl);
    await page.keyboard.press('Escape');
    await expect.poll(() => leave.isVisible(), SLOW).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(page.url()).toBe(editorUrl);
    expect(await page.locator('#alter-pronouns').inputValue()).toBe('she/her');

    // Signing out would lose the change too: it asks, and staying keeps the session.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => leave.isVisible(), SLOW).toBe(true);
    await leave.getByRole('button', { name: 'Stay and keep editing' }).click();
    expect(await page.getByRole('heading', { name: 'You are signed out' }).count()).toBe(0);

    // Leaving the page itself (a reload) is the browser's question, from beforeunload; dismissed, the page stays.
    await page.evaluate('location.reload()');
    await expect.poll(() => nativeDialogs, SLOW).toEqual(['beforeunload']);
    expect(await page.locator('#alter-pronouns').inputValue()).toBe('she/her');

    // Forward again, and this time leave: the alters grid shows and nothing was saved.
    await page.evaluate('history.forward()');
    await expect.poll(() => leave.isVisible(), SLOW).toBe(true);
    await leave.getByRole('button', { name: 'Leave without saving' }).click();
    await expect.poll(() => altersHeading.count(), SLOW).toBe(1);
    expect(page.url()).toBe(`${server.url}/dashboard/alters`);
    expect((await readAlter(alterId)).body.data.pronouns).toBeNull();

    // Back to the editor, change and save: then nothing is unsaved, so nothing asks.
    await page.evaluate('history.back()');
    await expect.poll(() => page.getByRole('heading', { name: 'Edit Hazel', level: 1 }).count(), SLOW).toBe(1);
    await page.locator('#alter-pronouns').fill('they/them');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Hazel.');
    await page.getByRole('link', { name: 'Overview' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Overview', level: 1 }).count(), SLOW).toBe(1);
    expect(await leave.count()).toBe(0);
    expect(nativeDialogs).toEqual(['beforeunload']);
    // An untouched editor lets the page go without the browser asking.
    await page.evaluate('history.back()');
    await expect.poll(() => page.getByRole('heading', { name: 'Edit Hazel', level: 1 }).count(), SLOW).toBe(1);
    await page.locator('#alter-pronouns').click();
    await page.reload();
    await expect.poll(() => page.getByRole('heading', { name: 'Edit Hazel', level: 1 }).count(), SLOW).toBe(1);
    expect(nativeDialogs).toEqual(['beforeunload']);
    expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);

  it('edits flags, which round-trip through the API; a negative number is refused at the field', async () => {
    const alterId = await makeAlter('juniper', 'Juniper', { flags: 5 });
    const dashboard = await openEditor(alterId, 'Edit Juniper');
    const { page } = dashboard;
    const flags = page.getByLabel('Flags');
    expect(await flags.inputValue()).toBe('5');
    await flags.fill('1073741825');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Juniper.');
    expect((await readAlter(alterId)).body.data.flags).toBe(1073741825);

    await flags.fill('-1');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => flags.getAttribute('aria-invalid'), SLOW).toBe('true');
    expect(await page.locator('#alter-flags-error').textContent()).toContain('flags');
    expect(await page.evaluate('document.activeElement?.id')).toBe('alter-flags');
    expect((await readAlter(alterId)).body.data.flags).toBe(1073741825);

    // Emptied, it is the default, 0; set by another app, the editor shows it.
    await flags.fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Juniper.');
    expect((await readAlter(alterId)).body.data.flags).toBe(0);
    expect((await member.call('POST', `/v1/users/@me/alters/${alterId}/edit`, { flags: 12 })).status).toBe(200);
    await page.reload();
    await expect.poll(() => page.getByLabel('Flags').inputValue(), SLOW).toBe('12');
    expectClean(dashboard, [/status of 400/]);
    await dashboard.context.close();
  }, 180_000);

  it('uploads a cropped avatar for one server, stored in avatarUrlMap', async () => {
    const alterId = await makeAlter('linden', 'Linden');
    const dashboard = await openEditor(alterId, 'Edit Linden');
    const { page } = dashboard;
    const file = join(mkdtempSync(join(tmpdir(), 'editor-')), 'green.png');
    writeFileSync(file, await sharp({ create: { width: 300, height: 150, channels: 3, background: '#00ff00' } }).png().toBuffer());
    const avatars = page.getByRole('group', { name: 'Avatars in particular servers' });
    await avatars.getByRole('button', { name: 'Add an avatar for a server' }).click();
    await avatars.getByLabel('Server id 1').fill(SERVER_ID);
    await avatars.getByLabel('Upload a new avatar for server 1 from this device').setInputFiles(file);
    const crop = avatars.getByRole('group', { name: 'Crop the avatar for server 1' });
    await expect.poll(() => crop.count(), SLOW).toBe(1);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1000, height: 900 });
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await crop.getByRole('button', { name: 'Upload cropped avatar for server 1' }).click();
    await expect.poll(() => avatars.getByText('Uploaded. Save the alter to use it as the avatar for server 1.').count(), SLOW).toBe(1);
    const url = await avatars.getByLabel('Avatar URL in that server').inputValue();
    expect(url.startsWith(`${server.config.publicUrl}/images/`)).toBe(true);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => status(page).textContent(), SLOW).toBe('Saved Linden.');

    const stored = (await readAlter(alterId)).body.data;
    expect(stored.avatarUrlMap).toEqual({ [SERVER_ID]: url });
    expect(stored.avatarUrl).toBeNull();
    const served = await fetch(url.replace(server.config.publicUrl, server.url));
    expect(served.status).toBe(200);
    expect(await sharp(Buffer.from(await served.arrayBuffer())).metadata()).toMatchObject({ width: 150, height: 150 });
    expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);

  it('deletes the alter only after a confirmation', async () => {
    const alterId = await makeAlter('fir', 'Fir');
    const dashboard = await openEditor(alterId, 'Edit Fir');
    const { page } = dashboard;
    await page.getByRole('button', { name: 'Delete alter' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete Fir?' });
    await expect.poll(() => dialog.isVisible(), SLOW).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.isVisible(), SLOW).toBe(false);
    expect((await readAlter(alterId)).status).toBe(200);

    await page.getByRole('button', { name: 'Delete alter' }).click();
    await dialog.getByRole('button', { name: 'Yes, delete Fir' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Alter deleted' }).count(), SLOW).toBe(1);
    expect((await readAlter(alterId)).status).toBe(404);
    expectClean(dashboard);
    await dashboard.context.close();
  }, 180_000);
});
