// "Sign in with Discord" against a fake Discord OAuth server, and the authorized-apps page.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUser } from '../../src/db/repositories/users.js';
import { TestBrowser } from '../support/browser.js';
import { DIALECTS } from '../support/dialects.js';
import { startFakeDiscord, type FakeDiscord } from '../support/fake-discord.js';
import { authorizationRequest, createTestClient, obtainTokens, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ALICE = { id: '400000000000000004', username: 'alice' };

describe.each(DIALECTS)('sign in with Discord and authorized apps (%s)', (dialect) => {
  let discord: FakeDiscord;
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    discord = await startFakeDiscord();
    server = await startTestServer(dialect, {
      AUTH_DEV_LOGIN: 'false',
      DISCORD_CLIENT_ID: discord.clientId,
      DISCORD_CLIENT_SECRET: discord.clientSecret,
      DISCORD_API_BASE: discord.apiBase,
    });
    client = await createTestClient(server);
  });
  afterAll(async () => {
    await server?.stop();
    await discord?.close();
  });

  it('signs the Discord user in; their Discord id becomes the subject and their system exists', async () => {
    discord.setUser(ALICE);
    const browser = new TestBrowser();
    const { url, verifier } = await authorizationRequest(client, { scope: 'openid profile alters:read', state: 's1' });
    const login = await browser.navigate(url.toString());
    expect(login.body).toContain('Sign in with Discord');
    expect(login.body).not.toContain('user_id');
    const link = login.body.match(/href="(\/auth\/discord\/start\?[^"]+)"/)?.[1]?.replace(/&amp;/g, '&');
    expect(link).toBeTruthy();
    const consent = await browser.navigate(new URL(link ?? '', server.url).toString(), { follow: (next) => !next.toString().startsWith(REDIRECT_URI) });
    expect(consent.body).toContain('alice');
    const done = await browser.submit(consent, '/consent', { decision: 'approve' }, (next) => !next.toString().startsWith(REDIRECT_URI));
    const tokens = await oidc.authorizationCodeGrant(client.config, new URL(done.location ?? ''), { pkceCodeVerifier: verifier, expectedState: 's1' });
    expect(tokens.claims()?.sub).toBe(ALICE.id);
    expect((await oidc.fetchUserInfo(client.config, tokens.access_token, ALICE.id)).preferred_username).toBe('alice');
    expect((await findUser(server.database.db, ALICE.id))?.username).toBe('alice');
    const system = await server.database.db.selectFrom('systems').selectAll().where('user_id', '=', ALICE.id).executeTakeFirst();
    expect(system?.name).toBe('My system');

    const authorizeRequest = discord.requests.find((r) => r.path === '/api/oauth2/authorize');
    expect(authorizeRequest?.query.get('scope')).toBe('identify');
    expect(authorizeRequest?.query.get('redirect_uri')).toBe(`${server.url}/auth/discord/callback`);
    const tokenRequest = discord.requests.find((r) => r.path === '/api/oauth2/token');
    expect(tokenRequest?.headers.authorization).toMatch(/^Basic /);
  });

  it('refuses a callback whose state does not match the browser that started it', async () => {
    discord.setUser(ALICE);
    const victim = new TestBrowser();
    const attacker = new TestBrowser();
    const started = await attacker.navigate(`${server.url}/auth/discord/start`, { follow: () => false });
    const discordUrl = new URL(started.location ?? '');
    const callback = await attacker.navigate(discordUrl.toString(), { follow: () => false });
    // The attacker hands their callback URL (with their code) to the victim's browser.
    const page = await victim.navigate(callback.location ?? '');
    expect(page.status).toBe(400);
    expect(victim.cookie('switchboard_user')).toBeUndefined();
  });

  it('shows a clear page when the user cancels at Discord', async () => {
    discord.setUser(undefined);
    const page = await new TestBrowser().navigate(`${server.url}/auth/discord/start`, { follow: (next) => next.origin === new URL(server.url).origin || next.toString().startsWith(discord.apiBase) });
    expect(page.status).toBe(400);
    expect(page.body).toContain('Discord did not confirm');
  });

  it('lists authorized apps and revokes one, killing its tokens at once', async () => {
    discord.setUser(ALICE);
    const browser = new TestBrowser();
    await browser.navigate(`${server.url}/auth/discord/start`, { follow: (next) => next.origin === new URL(server.url).origin || next.toString().startsWith(discord.apiBase) });
    // Same browser: already signed in, so only consent remains.
    const { tokens } = await obtainTokens(client, { browser });
    const apps = await browser.navigate(`${server.url}/account/apps`);
    expect(apps.body).toContain('Test app');
    // The button names the app and leads to a confirmation, which revokes.
    expect(apps.body).toContain(`<a class="button danger" href="/account/apps/${client.id}/revoke">Revoke access for Test app</a>`);
    const confirm = await browser.navigate(`${server.url}/account/apps/${client.id}/revoke`);
    expect(confirm.body).toContain('Revoke access for Test app?');
    expect((await browser.navigate(`${server.url}/account/apps`)).body, 'nothing revoked by showing the confirmation').toContain('Test app');
    const after = await browser.submit(confirm, `/account/apps/${client.id}/revoke`, {});
    expect(after.body).toContain('Access revoked');
    expect(after.body).not.toContain('Test app');
    expect((await oidc.tokenIntrospection(client.config, tokens.access_token)).active).toBe(false);
    await expect(oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a revoke without the CSRF token', async () => {
    discord.setUser(ALICE);
    const browser = new TestBrowser();
    await browser.navigate(`${server.url}/auth/discord/start`, { follow: (next) => next.origin === new URL(server.url).origin || next.toString().startsWith(discord.apiBase) });
    await obtainTokens(client, { browser });
    const forged = await browser.navigate(`${server.url}/account/apps/${client.id}/revoke`, { form: { csrf: 'forged' } });
    expect(forged.status).toBe(403);
    expect((await browser.navigate(`${server.url}/account/apps`)).body).toContain('Test app');
  });
});
