// The dashboard's backend for the frontend over real HTTP, on each database: sign-in through the
// service's own authorization server as the first-party client (no consent page), landing on the
// page asked for; the cookie's attributes; tokens that never reach the browser; state changes
// refused from another site; sign-out that kills a copied cookie, the service's sign-in and the
// dashboard's tokens.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSecrets } from '../../src/config/secrets.js';
import { dashboardCookieNames, safeReturnPath } from '../../src/dashboard/routes.js';
import type { Tokens } from '../../src/dashboard/sessions.js';
import { createStorageCrypto } from '../../src/security/crypto.js';
import { multipartFile } from '../support/api.js';
import { TestBrowser, type Page } from '../support/browser.js';
import { ensureDashboardBuilt } from '../support/dashboard.js';
import { DIALECTS } from '../support/dialects.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '500000000000000031';
const COOKIE = dashboardCookieNames(false).session;

/** Opens `path` of the dashboard signed out, signs in with the development login, and follows on. */
async function signInAt(server: TestServer, path: string, browser = new TestBrowser()): Promise<{ browser: TestBrowser; landed: Page; pages: Page[] }> {
  const pages: Page[] = [];
  let page = await browser.navigate(`${server.url}${path}`);
  pages.push(page);
  expect(page.body).toContain('/dev-login');
  page = await browser.submit(page, '/dev-login', { user_id: USER });
  pages.push(page);
  return { browser, landed: page, pages };
}

async function call(server: TestServer, browser: TestBrowser, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? 'GET',
    redirect: 'manual',
    headers: {
      cookie: browser.cookieHeader(new URL(`${server.url}${path}`)),
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

describe('safeReturnPath', () => {
  const base = 'https://switchboard.example';
  it.each([
    ['/dashboard/alters?sort=name', '/dashboard/alters?sort=name'],
    ['/dashboard', '/dashboard'],
    ['//evil.example/dashboard/', '/dashboard/'],
    ['/\\evil.example', '/dashboard/'],
    ['https://evil.example/dashboard/', '/dashboard/'],
    ['/account/apps', '/dashboard/'],
    ['/dashboard/../account', '/dashboard/'],
    ['/dashboard/api/sign-out', '/dashboard/'],
    ['/dashboard/login?return=/x', '/dashboard/'],
    [undefined, '/dashboard/'],
  ])('%s → %s', (raw, expected) => {
    expect(safeReturnPath(raw, base)).toBe(expected);
  });
});

describe.each(DIALECTS)('the dashboard backend (%s)', (dialect) => {
  let server: TestServer;
  beforeAll(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.stop());

  it('signs in without a consent page and lands on the page asked for, with an HttpOnly, SameSite=Lax session cookie', async () => {
    const { browser, landed, pages } = await signInAt(server, '/dashboard/alters?sort=name');
    expect(pages.some((page) => page.body.includes('/consent'))).toBe(false);
    expect(landed.url).toBe(`${server.url}/dashboard/alters?sort=name`);
    expect(landed.status).toBe(200);
    expect(landed.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(landed.headers.get('cache-control')).toBe('no-store');
    expect(browser.cookie(COOKIE)).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The cookie's attributes, from a fresh sign-in's callback.
    const login = await fetch(`${server.url}/dashboard/login`, { redirect: 'manual' });
    const signInCookie = login.headers.getSetCookie().find((header) => header.startsWith('switchboard_dashboard_signin='));
    expect(signInCookie).toMatch(/; HttpOnly/);
    expect(signInCookie).toMatch(/; SameSite=Lax/);
    expect(signInCookie).toMatch(/; Path=\//);
  });

  it('serves the page’s scripts and styles as immutable hashed files, compressed', async () => {
    const { landed } = await signInAt(server, '/dashboard/');
    const files = [...landed.body.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
    expect(files.some((file) => file.endsWith('.js'))).toBe(true);
    expect(files.some((file) => file.endsWith('.css'))).toBe(true);
    let scriptBytes = 0;
    for (const file of files) {
      expect(file).toMatch(/-[A-Za-z0-9_-]{8}\.(js|css)$/);
      const response = await fetch(`${server.url}${file}`, { headers: { 'accept-encoding': 'br' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-encoding')).toBe('br');
      // As sent (fetch hands the body over decompressed).
      const served = Number(response.headers.get('content-length'));
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(served);
      if (file.endsWith('.js')) scriptBytes += served;
    }
    // The budget: the Overview's first load under 150,000 bytes of JavaScript as served.
    expect(scriptBytes).toBeGreaterThan(1000);
    expect(scriptBytes).toBeLessThan(150_000);
    const unknown = await fetch(`${server.url}/dashboard/assets/..%2Findex.html`);
    expect(unknown.status).toBe(404);
  });

  it('keeps the tokens on the server: the browser gets a session id and a CSRF token, and the row is sealed', async () => {
    const { browser } = await signInAt(server, '/dashboard/');
    const session = await call(server, browser, '/dashboard/api/session');
    expect(session.status).toBe(200);
    expect(Object.keys(session.json()).sort()).toEqual(['csrfToken', 'userId']);
    expect(session.json().userId).toBe(USER);
    const crypto = createStorageCrypto(loadSecrets(server.config).dataEncryptionKey);
    const idHash = crypto.lookupHash('dashboard-session', browser.cookie(COOKIE) as string);
    const row = await server.database.db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirstOrThrow();
    const tokens = crypto.unseal<Tokens>(row.sealed, idHash) as Tokens;
    expect(tokens.accessToken.length).toBeGreaterThan(20);
    expect(row.sealed).not.toContain(tokens.accessToken);
    expect(session.text).not.toContain(tokens.accessToken);
    // The cookie itself is no bearer token.
    const asBearer = await fetch(`${server.url}/v1/users/@me/system`, { headers: { authorization: `Bearer ${browser.cookie(COOKIE)}` } });
    expect(asBearer.status).toBe(401);
    // The proxy reaches /v1 with the session's token.
    const system = await call(server, browser, '/dashboard/api/v1/users/@me/system');
    expect(system.status).toBe(200);
  });

  it('refreshes a session’s access token when it is due, and keeps the new tokens sealed', async () => {
    const { browser } = await signInAt(server, '/dashboard/');
    const crypto = createStorageCrypto(loadSecrets(server.config).dataEncryptionKey);
    const idHash = crypto.lookupHash('dashboard-session', browser.cookie(COOKIE) as string);
    const sealed = async () => (await server.database.db.selectFrom('dashboard_sessions').select('sealed').where('id_hash', '=', idHash).executeTakeFirstOrThrow()).sealed;
    const before = crypto.unseal<Tokens>(await sealed(), idHash) as Tokens;
    expect(before.refreshToken).toBeDefined();
    // As if the access token were about to expire.
    await server.database.db.updateTable('dashboard_sessions').set({ sealed: crypto.seal({ ...before, accessExpiresAt: Date.now() }, idHash) }).where('id_hash', '=', idHash).execute();
    const [first, second] = await Promise.all([
      call(server, browser, '/dashboard/api/v1/users/@me/system'),
      call(server, browser, '/dashboard/api/v1/users/@me/front'),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const after = crypto.unseal<Tokens>(await sealed(), idHash) as Tokens;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.accessExpiresAt).toBeGreaterThan(Date.now() + 60_000);
    expect((await call(server, browser, '/dashboard/api/v1/users/@me/system')).status).toBe(200);
  });

  it('refuses state changes from another site, from another origin and without the session’s CSRF token', async () => {
    const { browser } = await signInAt(server, '/dashboard/');
    const csrf = (await call(server, browser, '/dashboard/api/session')).json().csrfToken as string;
    const body = { username: 'ash', displayName: 'Ash' };
    const path = '/dashboard/api/v1/users/@me/system/create-alter';
    const refusals: Array<Record<string, string>> = [
      { 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' },
      { 'x-csrf-token': csrf, 'sec-fetch-site': 'same-site' },
      { 'x-csrf-token': csrf, origin: 'https://evil.example' },
      { 'sec-fetch-site': 'same-origin' },
      { 'x-csrf-token': 'x'.repeat(43), 'sec-fetch-site': 'same-origin' },
    ];
    for (const headers of refusals) {
      const refused = await call(server, browser, path, { method: 'POST', headers, body });
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.json().errors).toEqual([expect.objectContaining({ type: 'cross-site-request' })]);
    }
    // Another session's token is no good either.
    const other = await signInAt(server, '/dashboard/');
    const otherCsrf = (await call(server, other.browser, '/dashboard/api/session')).json().csrfToken as string;
    expect((await call(server, browser, path, { method: 'POST', headers: { 'x-csrf-token': otherCsrf }, body })).status).toBe(403);
    const refusedSignOut = await call(server, browser, '/dashboard/api/sign-out', { method: 'POST', headers: { 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' } });
    expect(refusedSignOut.status).toBe(403);

    const made = await call(server, browser, path, { method: 'POST', headers: { 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin', origin: new URL(server.url).origin }, body });
    expect(made.status, made.text).toBe(201);
  });

  it('forwards an image upload (multipart, larger than a JSON body may be) to /v1, only for a signed-in same-origin write', async () => {
    const { browser } = await signInAt(server, '/dashboard/');
    const csrf = (await call(server, browser, '/dashboard/api/session')).json().csrfToken as string;
    // Noise does not compress: a PNG well over the 64 KiB the service takes as JSON.
    const noise = Buffer.from(Array.from({ length: 300 * 300 * 3 }, () => Math.floor(Math.random() * 256)));
    const png = await sharp(noise, { raw: { width: 300, height: 300, channels: 3 } }).png().toBuffer();
    expect(png.length).toBeGreaterThan(200 * 1024);
    const { raw, headers } = multipartFile('file', png, 'photo.png');
    const path = '/dashboard/api/v1/users/@me/images?purpose=avatar';
    const send = (extra: Record<string, string>, cookie = browser.cookieHeader(new URL(`${server.url}${path}`))) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { ...headers, cookie, ...extra }, body: raw });

    expect((await send({ 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' }, '')).status).toBe(401);
    const crossSite = await send({ 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(((await crossSite.json()) as { errors: Array<{ type: string }> }).errors[0]?.type).toBe('cross-site-request');
    expect((await send({ 'sec-fetch-site': 'same-origin' })).status).toBe(403);

    const uploaded = await send({ 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin', origin: new URL(server.url).origin });
    const answer = (await uploaded.json()) as { data: { url: string; width: number } };
    expect(uploaded.status, JSON.stringify(answer)).toBe(201);
    expect(answer.data.width).toBe(300);
    const served = await fetch(answer.data.url.replace(server.config.publicUrl, server.url));
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
  });

  it('signs out: a copied cookie stops working, the service’s sign-in ends and the dashboard’s tokens are revoked', async () => {
    const { browser } = await signInAt(server, '/dashboard/');
    const copied = browser.cookie(COOKIE) as string;
    const crypto = createStorageCrypto(loadSecrets(server.config).dataEncryptionKey);
    const idHash = crypto.lookupHash('dashboard-session', copied);
    const row = await server.database.db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirstOrThrow();
    const tokens = crypto.unseal<Tokens>(row.sealed, idHash) as Tokens;
    expect((await fetch(`${server.url}/v1/users/@me/system`, { headers: { authorization: `Bearer ${tokens.accessToken}` } })).status).toBe(200);

    const csrf = (await call(server, browser, '/dashboard/api/session')).json().csrfToken as string;
    const signedOut = await call(server, browser, '/dashboard/api/sign-out', { method: 'POST', headers: { 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' } });
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.getSetCookie().some((header) => header.startsWith(`${COOKIE}=;`))).toBe(true);

    const thief = new TestBrowser();
    thief.setCookie(COOKIE, copied);
    expect((await call(server, thief, '/dashboard/api/session')).status).toBe(401);
    expect((await call(server, thief, '/dashboard/api/v1/users/@me/system')).status).toBe(401);
    const page = await thief.navigate(`${server.url}/dashboard/`, { follow: () => false });
    expect(page.location).toMatch(/\/dashboard\/login\?return=/);
    expect((await fetch(`${server.url}/v1/users/@me/system`, { headers: { authorization: `Bearer ${tokens.accessToken}` } })).status).toBe(401);
    if (tokens.refreshToken) expect(await server.app.provider.RefreshToken.find(tokens.refreshToken)).toBeUndefined();
    // The service's sign-in ended too: opening the dashboard again asks who is signing in.
    const again = await browser.navigate(`${server.url}/dashboard/`);
    expect(again.body).toContain('/dev-login');
  });
});

describe('the dashboard over https', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { PUBLIC_URL: 'https://dashboard.test' });
  });
  afterAll(async () => server?.stop());

  it('names its cookies with the __Host- prefix, Secure, for the whole origin', async () => {
    const login = await fetch(`http://127.0.0.1:${server.config.port}/dashboard/login`, { redirect: 'manual' });
    expect(login.status).toBe(303);
    const cookie = login.headers.getSetCookie().find((header) => header.startsWith('__Host-switchboard_dashboard_signin='));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; Path=\/(;|$)/);
    expect(cookie).not.toMatch(/Domain=/i);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
  });
});
