// The device flow as the bot uses it: device authorization, a one-time login link minted on the
// back channel, the browser approving, the bot polling for tokens.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from '../support/browser.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '300000000000000003';

describe.each(DIALECTS)('device flow with one-time login links (%s)', (dialect) => {
  let server: TestServer;
  let bot: TestClient;
  let thirdParty: TestClient;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    bot = await createTestClient(server, { name: 'switchboard bot', redirectUris: [], grantTypes: ['device_code', 'refresh_token'], firstParty: true });
    thirdParty = await createTestClient(server, { name: 'Someone else' });
  });
  afterAll(async () => server?.stop());

  async function mintLink(client: TestClient, body: unknown, contentType = 'application/json') {
    const response = await fetch(`${server.url}/auth/login-links`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Basic ${Buffer.from(`${client.id}:${client.secret ?? ''}`).toString('base64')}` },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('links a device: login link → confirm code → approve → the bot receives tokens for that user', async () => {
    const device = await oidc.initiateDeviceAuthorization(bot.config, { scope: 'openid offline_access alters:read alters:write system:read system:ai-ap' });
    expect(device.verification_uri).toBe(`${server.url}/auth/oauth2/device`);
    const complete = new URL(device.verification_uri_complete ?? '');
    const link = await mintLink(bot, { user_id: USER, return_to: `${complete.pathname}${complete.search}` });
    expect(link.status).toBe(201);
    expect(link.body.url).toMatch(new RegExp(`^${server.url}/auth/login-links/[\\w-]+$`));

    const browser = new TestBrowser();
    // The verification page with a user code posts it on by itself (a script in a browser).
    const autoPost = await browser.navigate(link.body.url as string);
    const confirm = await browser.submit(autoPost, '/auth/oauth2/device', {});
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain(device.user_code);
    expect(confirm.body).toContain('switchboard bot');
    const consent = await browser.submit(confirm, '/auth/oauth2/device', {});
    expect(consent.body).toContain('name="decision" value="approve"');
    expect(consent.body).toContain(USER);
    const done = await browser.submit(consent, '/consent', { decision: 'approve' });
    expect(done.status).toBe(200);
    expect(done.body).toContain('is now connected');

    const tokens = await oidc.pollDeviceAuthorizationGrant(bot.config, device);
    expect(tokens.claims()?.sub).toBe(USER);
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.scope?.split(' ')).toContain('system:ai-ap');
  });

  it('never approves a device code bound to one user (login_hint) as anyone else, even one who approved the bot before', async () => {
    const other = '300000000000000004';
    const scope = 'openid offline_access alters:read';
    // The other user approves the bot for themselves first, so a grant exists for them.
    const own = await oidc.initiateDeviceAuthorization(bot.config, { scope, login_hint: other });
    const ownComplete = new URL(own.verification_uri_complete ?? '');
    const ownLink = await mintLink(bot, { user_id: other, return_to: `${ownComplete.pathname}${ownComplete.search}` });
    const browser = new TestBrowser();
    const ownConfirm = await browser.submit(await browser.navigate(ownLink.body.url as string), '/auth/oauth2/device', {});
    const ownConsent = await browser.submit(ownConfirm, '/auth/oauth2/device', {});
    expect((await browser.submit(ownConsent, '/consent', { decision: 'approve' })).body).toContain('is now connected');
    expect((await oidc.pollDeviceAuthorizationGrant(bot.config, own)).claims()?.sub).toBe(other);

    // Now a code the bot started for USER reaches that browser (passed on, or phished).
    const device = await oidc.initiateDeviceAuthorization(bot.config, { scope, login_hint: USER });
    const entered = await browser.navigate(device.verification_uri_complete ?? '');
    const confirmed = await browser.submit(entered, '/auth/oauth2/device', {});
    const refused = confirmed.status === 200 && confirmed.body.includes('auth/oauth2/device') ? await browser.submit(confirmed, '/auth/oauth2/device', {}) : confirmed;
    expect(refused.status).toBe(409);
    expect(refused.body).toContain('for another account');
    expect(refused.body).toContain(USER);
    // The code was not approved: the bot's poll gets nothing.
    const polled = await fetch(`${server.url}/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${bot.id}:${bot.secret ?? ''}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code }).toString(),
    });
    expect(((await polled.json()) as { error?: string }).error).toBe('authorization_pending');
  });

  it('uses a login link once only', async () => {
    const link = await mintLink(bot, { user_id: USER });
    const first = await new TestBrowser().navigate(link.body.url as string, { follow: () => false });
    expect(first.status).toBe(303);
    expect(first.location).toBe(`${server.url}/account/apps`);
    const second = await new TestBrowser().navigate(link.body.url as string);
    expect(second.status).toBe(410);
  });

  it('refuses login links to third-party clients, bad credentials and foreign destinations', async () => {
    expect((await mintLink(thirdParty, { user_id: USER })).status).toBe(403);
    expect((await mintLink({ ...bot, secret: 'wrong' }, { user_id: USER })).status).toBe(401);
    for (const returnTo of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/auth/oauth2/token', 'javascript:alert(1)']) {
      const refused = await mintLink(bot, { user_id: USER, return_to: returnTo });
      expect(refused.status, returnTo).toBe(400);
      expect(refused.body.error).toBe('invalid_request');
    }
    expect((await mintLink(bot, { user_id: 'not-a-snowflake' })).status).toBe(400);
    expect((await mintLink(bot, { user_id: USER, extra: 1 })).status).toBe(400);
    expect((await mintLink(bot, '{broken', 'application/json')).status).toBe(400);
    expect((await mintLink(bot, `user_id=${USER}`, 'application/x-www-form-urlencoded')).status).toBe(201);
  });

  it('lets the user deny the device', async () => {
    const device = await oidc.initiateDeviceAuthorization(bot.config, { scope: 'openid alters:read' });
    const complete = new URL(device.verification_uri_complete ?? '');
    const link = await mintLink(bot, { user_id: USER, return_to: `${complete.pathname}${complete.search}` });
    const browser = new TestBrowser();
    const confirm = await browser.submit(await browser.navigate(link.body.url as string), '/auth/oauth2/device', {});
    const consent = await browser.submit(confirm, '/auth/oauth2/device', {});
    await browser.submit(consent, '/consent', { decision: 'deny' });
    await expect(oidc.pollDeviceAuthorizationGrant(bot.config, device)).rejects.toMatchObject({ error: 'access_denied' });
  });
});
