// What the sign-in, consent and account pages tell a person, over real HTTP: the installation's
// name, who is signed in and a way to sign out on every signed-in page, "not you?" on consent
// (signs out and starts the same authorization again), the confirmation before a revocation, and
// the development login's banner and its help for a bad id. (test/browser/ shows them in Chromium.)
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_DESCRIPTIONS } from '../../src/domain/scopes.js';
import { TestBrowser, type Page } from '../support/browser.js';
import { authorizationRequest, authorize, createTestClient, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ALEX = '320000000000000001';
const SAM = '320000000000000002';
const toClient = (next: URL) => !next.toString().startsWith(REDIRECT_URI);

describe('account pages', () => {
  let server: TestServer;
  let app: TestClient;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { INSTANCE_NAME: 'Plural Place' });
    app = await createTestClient(server, { name: 'Fronting Tracker' });
  });
  afterAll(async () => server?.stop());

  async function signedIn(userId: string): Promise<{ browser: TestBrowser; apps: Page }> {
    const browser = new TestBrowser();
    const login = await browser.navigate(`${server.url}/account/login`);
    const apps = await browser.submit(login, '/account/dev-login', { user_id: userId });
    expect(apps.url).toBe(`${server.url}/account/apps`);
    return { browser, apps };
  }

  it('names the installation and shows the development login’s banner', async () => {
    const login = await new TestBrowser().navigate(`${server.url}/account/login`);
    expect(login.body).toContain('<title>Sign in · Plural Place</title>');
    expect(login.body).toContain('<p class="brand">Plural Place</p>');
    expect(login.body).toMatch(/<div class="banner" role="note"><strong>Development only<\/strong>/);
    expect(login.body).toContain('A Discord user id is 17 to 20 digits, like 123456789012345678.');
  });

  it.each(['alex', '12345', '1234567890123456789012', ' '])('explains a bad id (%j) on the form itself, keeping what was typed', async (typed) => {
    const browser = new TestBrowser();
    const login = await browser.navigate(`${server.url}/account/login`);
    const refused = await browser.submit(login, '/account/dev-login', { user_id: typed });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('is not a Discord user id. A Discord user id is 17 to 20 digits, like 123456789012345678.');
    expect(refused.body).toContain('role="alert"');
    expect(refused.body).toContain(`value="${typed}"`);
    expect(refused.body).toContain('aria-invalid="true"');
    expect(browser.cookie('switchboard_user'), 'nobody signed in').toBeUndefined();
  });

  it('explains a bad id in an authorization’s sign-in too', async () => {
    const browser = new TestBrowser();
    const { url } = await authorizationRequest(app, { scope: 'openid alters:read' });
    const login = await browser.navigate(url.toString(), { follow: toClient });
    expect(login.body).toContain('<strong>Fronting Tracker</strong> wants to use your Plural Place account.');
    const refused = await browser.submit(login, '/dev-login', { user_id: 'not-an-id' }, toClient);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('“not-an-id” is not a Discord user id. A Discord user id is 17 to 20 digits');
  });

  it('shows the account and a sign-out button on /account/apps, and scopes in the consent page’s words', async () => {
    const { browser } = await signedIn(ALEX);
    await authorize(app, { userId: ALEX, browser, scope: 'openid alters:read system:ai-ap' });
    const apps = await browser.navigate(`${server.url}/account/apps`);
    expect(apps.body).toMatch(/<div class="account"><span>Signed in as <strong>320000000000000001<\/strong><\/span> <form method="post" action="\/account\/sign-out" class="inline"><input type="hidden" name="csrf" value="[^"]+"><button type="submit" class="link">Sign out<\/button><\/form><\/div>/);
    for (const scope of ['openid', 'alters:read', 'system:ai-ap'] as const) expect(apps.body).toContain(`<li>${SCOPE_DESCRIPTIONS[scope]} <code>${scope}</code></li>`);
    expect(apps.body).toContain('Revoke access for Fronting Tracker');
  });

  it('asks before revoking, and revokes nothing for an app without access', async () => {
    const { browser } = await signedIn(ALEX);
    const { callbackUrl, verifier, state } = await authorize(app, { userId: ALEX, browser, scope: 'openid alters:read' });
    const tokens = await oidc.authorizationCodeGrant(app.config, callbackUrl, { pkceCodeVerifier: verifier, expectedState: state });
    const confirm = await browser.navigate(`${server.url}/account/apps/${app.id}/revoke`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('<h1>Revoke access for Fronting Tracker?</h1>');
    expect(confirm.body).toContain('<a class="button secondary" href="/account/apps">Keep access</a>');
    expect((await oidc.tokenIntrospection(app.config, tokens.access_token)).active, 'showing the question revokes nothing').toBe(true);
    const done = await browser.submit(confirm, `/account/apps/${app.id}/revoke`, {});
    expect(done.body).toContain('Access revoked');
    expect((await oidc.tokenIntrospection(app.config, tokens.access_token)).active).toBe(false);
    const gone = await browser.navigate(`${server.url}/account/apps/${app.id}/revoke`);
    expect(gone.status).toBe(404);
    expect((await new TestBrowser().navigate(`${server.url}/account/apps/${app.id}/revoke`, { follow: () => false })).location).toBe(`${server.url}/account/login`);
  });

  it('signs out from the sign-out page that pages without a form link to', async () => {
    const { browser } = await signedIn(SAM);
    const page = await browser.navigate(`${server.url}/account/sign-out`);
    expect(page.body).toContain('<h1>Sign out of Plural Place?</h1>');
    expect(browser.cookie('switchboard_user'), 'showing the page signs nobody out').toBeDefined();
    const after = await browser.submit(page, '/account/sign-out', {});
    expect(after.url).toBe(`${server.url}/account/login?notice=signed-out`);
    expect(after.body).toContain('<p role="status">You are signed out.</p>');
    expect(browser.cookie('switchboard_user')).toBeUndefined();
    expect((await browser.navigate(`${server.url}/account/sign-out`, { follow: () => false })).location).toBe(`${server.url}/account/login`);
    const forged = await (await signedIn(SAM)).browser.navigate(`${server.url}/account/sign-out`, { form: { csrf: 'forged' } });
    expect(forged.status).toBe(403);
  });

  it('"not you?" on consent signs out and starts the same authorization again, for the right person', async () => {
    const { browser } = await signedIn(ALEX);
    const { url, verifier, state } = await authorizationRequest(app, { scope: 'openid alters:read' });
    const consent = await browser.navigate(url.toString(), { follow: toClient });
    expect(consent.body).toContain('Signed in as <strong>320000000000000001</strong>');
    expect(consent.body).toContain('<strong>Fronting Tracker</strong> asks to use your Plural Place account to:');
    const login = await browser.submit(consent, '/switch-account', {}, toClient);
    expect(browser.cookie('switchboard_user'), 'signed out').toBeUndefined();
    expect(login.body).toContain('<h1>Sign in</h1>');
    const again = await browser.submit(login, '/dev-login', { user_id: SAM }, toClient);
    expect(again.body).toContain('Signed in as <strong>320000000000000002</strong>');
    const done = await browser.submit(again, '/consent', { decision: 'approve' }, toClient);
    const callback = new URL(done.location ?? '');
    const tokens = await oidc.authorizationCodeGrant(app.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()?.sub).toBe(SAM);
  });

  it('"not you?" in a device flow signs out and goes back to the code page', async () => {
    const device = await createTestClient(server, { name: 'Console app', public: true, redirectUris: [], grantTypes: ['device_code'] });
    const authorization = await oidc.initiateDeviceAuthorization(device.config, { scope: 'openid alters:read' });
    const { browser } = await signedIn(ALEX);
    const autoPost = await browser.navigate(String(authorization.verification_uri_complete));
    const confirm = await browser.submit(autoPost, '/auth/oauth2/device', {});
    const consent = await browser.submit(confirm, '/auth/oauth2/device', {});
    expect(consent.body).toContain('Signed in as <strong>320000000000000001</strong>');
    const codePage = await browser.submit(consent, '/switch-account', {});
    expect(codePage.url).toBe(`${server.url}/auth/oauth2/device`);
    expect(codePage.body).toContain('Enter the code shown by the app you are connecting.');
    expect(browser.cookie('switchboard_user')).toBeUndefined();
  });

  it('"not you?" refuses a forged form', async () => {
    const { browser } = await signedIn(ALEX);
    const { url } = await authorizationRequest(app, { scope: 'openid alters:read' });
    const consent = await browser.navigate(url.toString(), { follow: toClient });
    const uid = /\/interaction\/([\w-]+)\/switch-account/.exec(consent.body)?.[1] ?? '';
    const forged = await browser.navigate(`${server.url}/interaction/${uid}/switch-account`, { form: { csrf: 'forged' } });
    expect(forged.status).toBe(403);
    expect((await browser.navigate(`${server.url}/account/apps`, { follow: () => false })).status, 'still signed in').toBe(200);
  });
});
