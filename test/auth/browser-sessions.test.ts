// Whose session a browser holds, and for how long. The service's own sign-in cookie and the
// authorization server's session (oidc-provider's) must always name the same user and end
// together: a one-time login link signs in exactly its user, whatever the browser held before;
// signing out and SESSION_TTL end both; and nothing but a GET of a login link consumes it.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser, type Page } from '../support/browser.js';
import { DIALECTS } from '../support/dialects.js';
import { authorizationRequest, authorize, createTestClient, postForm, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const X = '310000000000000001';
const Y = '310000000000000002';
const DEVICE_SCOPE = 'openid offline_access alters:read alters:write system:read system:write';

const toClient = (next: URL) => !next.toString().startsWith(REDIRECT_URI);

/** Helpers over one running server, its first-party bot client and a third-party app. */
function flows(get: () => { server: TestServer; bot: TestClient; app: TestClient }) {
  const basic = (client: TestClient) => ({ id: client.id, secret: client.secret ?? '' });

  async function mintLink(userId: string, returnTo?: string): Promise<string> {
    const { server, bot } = get();
    const response = await fetch(`${server.url}/auth/login-links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${bot.id}:${bot.secret ?? ''}`).toString('base64')}` },
      body: JSON.stringify({ user_id: userId, ...(returnTo ? { return_to: returnTo } : {}) }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { url: string }).url;
  }

  /** The bot's /link: device authorization, a login link for `userId`, the browser approving. Returns the tokens' subject. */
  async function linkDevice(browser: TestBrowser, userId: string): Promise<{ sub: unknown; consentShowed: string | undefined }> {
    const { server, bot } = get();
    const device = await postForm(`${server.url}/auth/oauth2/device_authorization`, { scope: DEVICE_SCOPE }, basic(bot));
    expect(device.status).toBe(200);
    const complete = new URL(String(device.body.verification_uri_complete));
    const autoPost = await browser.navigate(await mintLink(userId, `${complete.pathname}${complete.search}`));
    const confirm = await browser.submit(autoPost, '/auth/oauth2/device', {});
    let page: Page = await browser.submit(confirm, '/auth/oauth2/device', {});
    let consentShowed: string | undefined;
    if (page.body.includes('/consent')) {
      consentShowed = /Signed in as <strong>([^<]*)<\/strong>/.exec(page.body)?.[1];
      page = await browser.submit(page, '/consent', { decision: 'approve' });
    }
    expect(page.body).toContain('is now connected');
    const token = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: String(device.body.device_code) }, basic(bot));
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const introspection = await postForm(`${server.url}/auth/oauth2/introspect`, { token: String(token.body.access_token) }, basic(bot));
    expect(introspection.body.active).toBe(true);
    return { sub: introspection.body.sub, consentShowed };
  }

  /** An authorization request with prompt=none: the code, or the error, the client receives. */
  async function silentAuthorization(browser: TestBrowser): Promise<{ code: string | null; error: string | null }> {
    const { app } = get();
    const { url } = await authorizationRequest(app, { prompt: 'none', scope: 'openid alters:read' });
    const page = await browser.navigate(url.toString(), { follow: toClient });
    expect(page.location?.startsWith(REDIRECT_URI), `${page.status} ${page.url}\n${page.body.slice(0, 500)}`).toBe(true);
    const callback = new URL(page.location ?? '');
    return { code: callback.searchParams.get('code'), error: callback.searchParams.get('error') };
  }

  /** A CSRF token for the account forms, read from a page of this browser. */
  async function accountCsrf(browser: TestBrowser): Promise<string> {
    const page = await browser.navigate(`${get().server.url}/account/login`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
    expect(csrf).toBeTruthy();
    return csrf ?? '';
  }

  return { mintLink, linkDevice, silentAuthorization, accountCsrf };
}

describe.each(DIALECTS)('browser sessions (%s)', (dialect) => {
  let server: TestServer;
  let bot: TestClient;
  let app: TestClient;
  const { mintLink, linkDevice, silentAuthorization, accountCsrf } = flows(() => ({ server, bot, app }));

  beforeAll(async () => {
    server = await startTestServer(dialect);
    bot = await createTestClient(server, { name: 'switchboard bot', redirectUris: [], grantTypes: ['device_code', 'refresh_token'], firstParty: true });
    app = await createTestClient(server, { name: 'Session app' });
  });
  afterAll(async () => server?.stop());

  it("links Y's device as Y when the browser was signed in as X through the dev login", async () => {
    const browser = new TestBrowser();
    // X signs in at an authorization request: the authorization server now holds a session for X.
    await authorize(app, { userId: X, browser, scope: 'openid alters:read' });
    expect((await silentAuthorization(browser)).code).toBeTruthy();

    const linked = await linkDevice(browser, Y);
    expect(linked.sub).toBe(Y);
    expect(linked.consentShowed).toContain(Y);
  });

  it("links Y's device as Y when the browser was signed in as X through X's own login link", async () => {
    const browser = new TestBrowser();
    expect((await linkDevice(browser, X)).sub).toBe(X);
    // Y's link in the same browser: X's grant to the bot must not be reused for Y's device.
    expect((await linkDevice(browser, Y)).sub).toBe(Y);
    // And the browser is now Y's: a silent authorization never yields X's code.
    const silent = await silentAuthorization(browser);
    if (silent.code) throw new Error('a silent authorization after a login link for Y must not answer with a code for X');
  });

  it('refuses to approve when the browser signed in as someone else while the consent page was open', async () => {
    const browser = new TestBrowser();
    const { url } = await authorizationRequest(app, { scope: 'openid system:read' });
    let page = await browser.navigate(url.toString(), { follow: toClient });
    page = await browser.submit(page, '/dev-login', { user_id: X }, toClient);
    expect(page.body).toContain('/consent');
    expect(page.body).toContain(X);
    // In another tab, the same browser signs in as Y.
    const signedInY = await browser.navigate(`${server.url}/account/dev-login`, { form: { csrf: await accountCsrf(browser), user_id: Y }, follow: () => false });
    expect(signedInY.status).toBe(303);

    const answer = await browser.submit(page, '/consent', { decision: 'approve' }, toClient);
    expect(answer.location ?? '', 'no code may reach the client').not.toMatch(/[?&]code=/);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.body).toMatch(/signed in as someone else/i);
    expect(answer.body).toMatch(/start again/i);
  });

  it("approves only for the browser's signed-in user, even while the provider's session lives on", async () => {
    const browser = new TestBrowser();
    const { url } = await authorizationRequest(app, { scope: 'openid system:read' });
    let page = await browser.navigate(url.toString(), { follow: toClient });
    page = await browser.submit(page, '/dev-login', { user_id: X }, toClient);
    expect(page.body).toContain('/consent');
    const action = new URL(/action="([^"]*\/consent)"/.exec(page.body)?.[1] ?? '', page.url);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const otherBrowser = new TestBrowser();
    await otherBrowser.submit(await otherBrowser.navigate(`${server.url}/account/login`), '/account/dev-login', { user_id: Y });

    // The same consent form, answered with the sign-in cookie missing, then with Y's.
    const keep = ['switchboard_interaction', 'switchboard_interaction.sig', 'switchboard_csrf', 'switchboard_op_session', 'switchboard_op_session.sig'];
    const cookies = keep.map((name) => `${name}=${browser.cookie(name) ?? ''}`);
    for (const userCookie of [undefined, `switchboard_user=${otherBrowser.cookie('switchboard_user') ?? ''}`]) {
      const response = await fetch(action, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...cookies, ...(userCookie ? [userCookie] : [])].join('; ') },
        body: new URLSearchParams({ csrf, decision: 'approve' }).toString(),
      });
      expect(response.status, userCookie ?? 'no sign-in cookie').toBe(409);
      expect(await response.text()).toMatch(/signed in as someone else/i);
    }
    // In the browser that is still X's, the same form still works, for X.
    const approved = await browser.submit(page, '/consent', { decision: 'approve' }, toClient);
    expect(approved.location).toMatch(/[?&]code=/);
  });

  it('switches to another user at a forced sign-in (prompt=login): the code is for the new user only', async () => {
    const browser = new TestBrowser();
    await authorize(app, { userId: X, browser, scope: 'openid alters:read' });
    const { url, verifier, state } = await authorizationRequest(app, { prompt: 'login', scope: 'openid alters:read' });
    let page = await browser.navigate(url.toString(), { follow: toClient });
    page = await browser.submit(page, '/dev-login', { user_id: Y }, toClient);
    expect(page.body).toContain('/consent');
    expect(page.body).toContain(Y);
    page = await browser.submit(page, '/consent', { decision: 'approve' }, toClient);
    const tokens = await oidc.authorizationCodeGrant(app.config, new URL(page.location ?? ''), { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()?.sub).toBe(Y);
    // X's session is gone from this browser: a silent request is for Y, who has approved this app.
    expect((await silentAuthorization(browser)).code).toBeTruthy();
  });

  it('ends the authorization server session on sign-out: prompt=none then gets login_required', async () => {
    const browser = new TestBrowser();
    await authorize(app, { userId: X, browser, scope: 'openid alters:read' });
    expect((await silentAuthorization(browser)).code).toBeTruthy();

    const signOut = await browser.navigate(`${server.url}/account/sign-out`, { form: { csrf: await accountCsrf(browser) }, follow: () => false });
    expect(signOut.status).toBe(303);
    expect(await silentAuthorization(browser)).toEqual({ code: null, error: 'login_required' });
    // The account pages are signed out too.
    expect((await browser.navigate(`${server.url}/account/apps`, { follow: () => false })).location).toBe(`${server.url}/account/login`);
  });

  it('shows a sign-out button on the signed-in account page, and it signs out', async () => {
    const browser = new TestBrowser();
    const login = await browser.navigate(`${server.url}/account/login`);
    const apps = await browser.submit(login, '/account/dev-login', { user_id: X });
    expect(apps.url).toBe(`${server.url}/account/apps`);
    expect(apps.body).toMatch(/<form method="post" action="\/account\/sign-out"[^>]*>[\s\S]*?<button type="submit"[^>]*>Sign out<\/button>/);
    const after = await browser.submit(apps, '/account/sign-out', {});
    expect(after.url).toBe(`${server.url}/account/login?notice=signed-out`);
    expect(after.body).toContain('You are signed out.');
    expect((await browser.navigate(`${server.url}/account/apps`, { follow: () => false })).location).toBe(`${server.url}/account/login`);
  });

  it('makes a copy of the sign-in cookie taken before sign-out worthless afterwards', async () => {
    const browser = new TestBrowser();
    const login = await browser.navigate(`${server.url}/account/login`);
    const apps = await browser.submit(login, '/account/dev-login', { user_id: X });
    const copied = browser.cookie('switchboard_user');
    expect(copied).toBeTruthy();
    const withCopy = (path: string) => fetch(`${server.url}${path}`, { headers: { cookie: `switchboard_user=${copied}` }, redirect: 'manual' });
    // The copy works while the session lives…
    expect((await withCopy('/account/apps')).status).toBe(200);
    await browser.submit(apps, '/account/sign-out', {});
    // …and not after sign-out: not on the account pages, nor at an authorization request.
    const afterwards = await withCopy('/account/apps');
    expect(afterwards.status).toBe(303);
    expect(afterwards.headers.get('location')).toBe('/account/login');
    const thief = new TestBrowser();
    thief.setCookie('switchboard_user', copied ?? '');
    const { url } = await authorizationRequest(app, { scope: 'openid alters:read' });
    const page = await thief.navigate(url.toString(), { follow: toClient });
    expect(page.body).toMatch(/action="\/interaction\/[^"]+\/dev-login"/);
    expect(page.body).not.toContain(X);
  });

  it('does not consume a login link on HEAD; only the GET that signs in does', async () => {
    const link = await mintLink(X);
    for (let i = 0; i < 3; i++) {
      const head = await fetch(link, { method: 'HEAD', redirect: 'manual' });
      expect(head.status).toBe(200);
      expect(head.headers.getSetCookie()).toEqual([]);
      expect(head.headers.get('cache-control')).toBe('no-store');
    }
    const browser = new TestBrowser();
    const get = await browser.navigate(link, { follow: () => false });
    expect(get.status).toBe(303);
    expect(get.location).toBe(`${server.url}/account/apps`);
    expect(browser.cookie('switchboard_user')).toBeTruthy();
    expect((await new TestBrowser().navigate(link)).status).toBe(410);
    // Other methods neither consume nor sign in.
    const other = await mintLink(X);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
      const response = await fetch(other, { method, redirect: 'manual' });
      expect(response.status, method).toBeGreaterThanOrEqual(400);
      expect(response.headers.getSetCookie(), method).toEqual([]);
    }
    expect((await new TestBrowser().navigate(other, { follow: () => false })).status).toBe(303);
  });
});

describe.each(DIALECTS)('SESSION_TTL governs both sessions (%s)', (dialect) => {
  const TTL = 2;
  let server: TestServer;
  let bot: TestClient;
  let app: TestClient;
  const { silentAuthorization } = flows(() => ({ server, bot, app }));

  beforeAll(async () => {
    server = await startTestServer(dialect, { SESSION_TTL: String(TTL) });
    bot = await createTestClient(server, { name: 'switchboard bot', redirectUris: [], grantTypes: ['device_code', 'refresh_token'], firstParty: true });
    app = await createTestClient(server, { name: 'Session app' });
  });
  afterAll(async () => server?.stop());

  it('answers prompt=none with login_required once SESSION_TTL has passed', async () => {
    const browser = new TestBrowser();
    const signedInAt = Date.now();
    await authorize(app, { userId: X, browser, scope: 'openid alters:read' });
    expect((await silentAuthorization(browser)).code).toBeTruthy();

    // The authorization server's session is stored for no longer than SESSION_TTL.
    const sessions = await server.database.db.selectFrom('oidc_payloads').select('expires_at').where('model', '=', 'Session').execute();
    expect(sessions.length).toBeGreaterThan(0);
    for (const row of sessions) expect(Number(row.expires_at)).toBeLessThanOrEqual(signedInAt + (TTL + 1) * 1000);

    await new Promise((resolve) => setTimeout(resolve, (TTL + 1) * 1000));
    expect(await silentAuthorization(browser)).toEqual({ code: null, error: 'login_required' });
    // And an interactive request asks to sign in again.
    const { url } = await authorizationRequest(app, { scope: 'openid alters:read' });
    expect((await browser.navigate(url.toString(), { follow: toClient })).body).toContain('/dev-login');
  });
});
