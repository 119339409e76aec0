// Token and grant lifetimes, and the verified-token memory of /v1 against them:
// - a refresh token is valid REFRESH_TOKEN_TTL after it was issued, and each rotation issues one
//   valid that long again, so a link that is used keeps working; the grant behind it follows, up to
//   GRANT_MAX_TTL after the user approved it;
// - introspection's `exp` is the instant the token stops working (its own expiry, its grant's, its
//   session's), for access and refresh tokens alike;
// - a remembered access token answers exactly what a fresh check answers: refused at the instant
//   its grant expires or its session ends.
// Timings run on short TTLs (REFRESH_TOKEN_TTL=3 s, GRANT_MAX_TTL=8 s); token times are whole
// seconds, and a token stops working at the first instant of its `exp` second. A token issued in
// second S ends at S + TTL, so it lives between TTL - 1 and TTL seconds: with 2 s, a loaded machine
// could see a token issued late in its second expire before the test's next request reached it.
// The two dialects run at once (each suite's tests in order): nearly all of this file's time is
// waiting for those seconds to pass.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it as plainIt, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { request } from '../support/api.js';
import { TestBrowser } from '../support/browser.js';
import { DIALECTS } from '../support/dialects.js';
import { authorize, createTestClient, obtainTokens, postForm, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '200000000000000031';
const REFRESH_TTL = 3;
const GRANT_MAX_TTL = 8;
const OFFLINE = 'offline_access alters:read system:read';
/** Without offline_access the tokens are bound to the browser session that approved them. */
const SESSION_BOUND = 'alters:read system:read';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepUntil = (at: number) => sleep(Math.max(0, at - Date.now()));
/** Into the next whole second: a token issued from now on has a later iat than one issued before. */
const nextSecond = () => sleepUntil(Math.ceil(Date.now() / 1000) * 1000 + 20);

const sequentialIt = plainIt.sequential;

describe('GRANT_MAX_TTL', () => {
  plainIt('defaults to 365 days, and refuses a cap shorter than REFRESH_TOKEN_TTL', () => {
    expect(loadConfig({}).grantMaxTtl).toBe(365 * 24 * 3600);
    expect(loadConfig({ GRANT_MAX_TTL: '6', REFRESH_TOKEN_TTL: '2' }).grantMaxTtl).toBe(6);
    expect(() => loadConfig({ GRANT_MAX_TTL: '60', REFRESH_TOKEN_TTL: '120' })).toThrow(/GRANT_MAX_TTL: expected at least REFRESH_TOKEN_TTL/);
    expect(() => loadConfig({ GRANT_MAX_TTL: String(400 * 24 * 3600) })).toThrow(/GRANT_MAX_TTL: expected at most one year/);
  });
});

// Concurrent suites, sequential tests: each test's timings assume its server is otherwise idle.
describe.concurrent.each(DIALECTS)('token lifetimes (%s)', (dialect) => {
  const it = sequentialIt;
  /** REFRESH_TOKEN_TTL=3, GRANT_MAX_TTL=8; access tokens keep their default hour. */
  let short: TestServer;
  /** Default lifetimes. */
  let standard: TestServer;
  let shortClient: TestClient;
  let standardClient: TestClient;

  beforeAll(async () => {
    [short, standard] = await Promise.all([
      startTestServer(dialect, { REFRESH_TOKEN_TTL: String(REFRESH_TTL), GRANT_MAX_TTL: String(GRANT_MAX_TTL) }),
      startTestServer(dialect),
    ]);
    [shortClient, standardClient] = await Promise.all([createTestClient(short), createTestClient(standard)]);
  });
  afterAll(async () => Promise.all([short?.stop(), standard?.stop()]));

  async function refresh(server: TestServer, client: TestClient, refreshToken: string) {
    return postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'refresh_token', refresh_token: refreshToken }, { id: client.id, secret: client.secret ?? '' });
  }

  async function introspect(client: TestClient, token: string) {
    return oidc.tokenIntrospection(client.config, token);
  }

  async function apiStatus(server: TestServer, token: string) {
    return (await request(server, 'GET', '/v1/users/@me/system', { token })).status;
  }

  /** The stored grant behind a refresh or access token (ground truth, straight from the provider). */
  async function grantBehind(server: TestServer, token: string) {
    const { provider } = server.app;
    const found = (await provider.RefreshToken.find(token, { ignoreExpiration: true })) ?? (await provider.AccessToken.find(token, { ignoreExpiration: true }));
    const grant = found?.grantId ? await provider.Grant.find(found.grantId, { ignoreExpiration: true }) : undefined;
    if (!grant?.iat || !grant.exp) throw new Error('no grant behind the token');
    return { iat: grant.iat, exp: grant.exp };
  }

  it('keeps a refresh chain used more often than REFRESH_TOKEN_TTL working past it, until GRANT_MAX_TTL after the approval', async () => {
    const { tokens } = await obtainTokens(shortClient, { userId: USER, scope: OFFLINE });
    const approved = await grantBehind(short, tokens.refresh_token ?? '');
    const cap = approved.iat + GRANT_MAX_TTL;
    let refreshToken = tokens.refresh_token ?? '';
    let accessToken = tokens.access_token;
    // Refresh every half second until 1.5 s before the cap, which leaves a loaded machine time to
    // check the chain's last tokens before the cap ends them.
    while (Date.now() + 500 < cap * 1000 - 1500) {
      await sleep(500);
      const next = await refresh(short, shortClient, refreshToken);
      expect(next.status, `refresh ${((Date.now() - approved.iat * 1000) / 1000).toFixed(1)} s after the approval: ${JSON.stringify(next.body)}`).toBe(200);
      refreshToken = next.body.refresh_token as string;
      accessToken = next.body.access_token as string;
      expect(next.body.expires_in as number).toBeLessThanOrEqual(REFRESH_TTL);
      const [refreshInfo, accessInfo, grant] = await Promise.all([
        introspect(shortClient, refreshToken),
        introspect(shortClient, accessToken),
        grantBehind(short, refreshToken),
      ]);
      // Each rotation issues a token valid REFRESH_TOKEN_TTL again, never past the cap; the grant
      // follows it, and the access token ends with the grant. oidc-provider reads the clock
      // separately for a token's iat, for its exp and in the lifetime hook, so when a second ticks
      // between those reads a token's iat is one second later, or its exp one second earlier,
      // than the others: never later than the grant.
      const refreshEnd = refreshInfo.exp ?? 0;
      expect(refreshEnd).toBeLessThanOrEqual(Math.min((refreshInfo.iat ?? 0) + REFRESH_TTL, cap));
      expect(refreshEnd).toBeGreaterThanOrEqual(Math.min((refreshInfo.iat ?? 0) + REFRESH_TTL, cap) - 1);
      expect(grant.exp - refreshEnd).toBeGreaterThanOrEqual(0);
      expect(grant.exp - refreshEnd).toBeLessThanOrEqual(1);
      expect(accessInfo.exp ?? 0).toBeLessThanOrEqual(grant.exp);
      expect(accessInfo.exp ?? 0).toBeGreaterThanOrEqual(grant.exp - 1);
    }
    // The chain outlived REFRESH_TOKEN_TTL by far, and its last refresh token ends at the cap.
    expect(Date.now()).toBeGreaterThanOrEqual((approved.iat + REFRESH_TTL + 2) * 1000);
    expect(await apiStatus(short, accessToken)).toBe(200);
    const lastEnd = (await introspect(shortClient, refreshToken)).exp ?? 0;
    expect(lastEnd).toBeLessThanOrEqual(cap);
    expect(lastEnd).toBeGreaterThanOrEqual(cap - 1); // the clock-tick second above

    await sleepUntil(cap * 1000 + 20);
    const late = await refresh(short, shortClient, refreshToken);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    expect((await introspect(shortClient, accessToken)).active).toBe(false);
    expect(await apiStatus(short, accessToken)).toBe(401);
  });

  it('ends an unused refresh token and its access token REFRESH_TOKEN_TTL after the last refresh, at the exp introspection gave', async () => {
    const { tokens } = await obtainTokens(shortClient, { userId: USER, scope: OFFLINE });
    // The refresh happens in a later second than the issue, so that its token's end is its own;
    // from the issue's own second (not from now), so a slow answer leaves the most time before exp.
    const issued = (await introspect(shortClient, tokens.refresh_token ?? '')).iat ?? 0;
    await sleepUntil((issued + 1) * 1000 + 20);
    const rotated = await refresh(short, shortClient, tokens.refresh_token ?? '');
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    const refreshToken = rotated.body.refresh_token as string;
    const accessToken = rotated.body.access_token as string;
    const refreshInfo = await introspect(shortClient, refreshToken);
    const accessInfo = await introspect(shortClient, accessToken);
    expect(refreshInfo.token_type).toBe('refresh_token');
    // iat and exp are read from the clock apart (see above): a second may tick between them.
    expect(refreshInfo.exp ?? 0).toBeLessThanOrEqual((refreshInfo.iat ?? 0) + REFRESH_TTL);
    expect(refreshInfo.exp ?? 0).toBeGreaterThanOrEqual((refreshInfo.iat ?? 0) + REFRESH_TTL - 1);
    // The access token would live an hour, but not past its grant: its exp says so.
    expect(accessInfo.exp).toBe(refreshInfo.exp);
    const end = (refreshInfo.exp ?? 0) * 1000;
    expect(await apiStatus(short, accessToken)).toBe(200);

    // Shortly before the end, all three still answer (asked at once: a loaded machine is slow).
    await sleepUntil(end - 600);
    const [refreshActive, accessActive, stillServed] = await Promise.all([
      introspect(shortClient, refreshToken),
      introspect(shortClient, accessToken),
      apiStatus(short, accessToken),
    ]);
    expect(refreshActive.active).toBe(true);
    expect(accessActive.active).toBe(true);
    expect(stillServed).toBe(200);

    await sleepUntil(end + 20);
    expect(await apiStatus(short, accessToken)).toBe(401);
    expect((await introspect(shortClient, accessToken)).active).toBe(false);
    expect((await introspect(shortClient, refreshToken)).active).toBe(false);
    expect((await refresh(short, shortClient, refreshToken)).body.error).toBe('invalid_grant');
  });

  it('keeps a device-flow link (the bot\'s /link) working past REFRESH_TOKEN_TTL while it is refreshed', async () => {
    const bot = await createTestClient(short, { name: 'switchboard bot', redirectUris: [], grantTypes: ['device_code', 'refresh_token'], firstParty: true });
    const auth = { id: bot.id, secret: bot.secret ?? '' };
    const device = await oidc.initiateDeviceAuthorization(bot.config, { scope: OFFLINE });
    const complete = new URL(device.verification_uri_complete ?? '');
    const minted = await fetch(`${short.url}/auth/login-links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${auth.id}:${auth.secret}`).toString('base64')}` },
      body: JSON.stringify({ user_id: USER, return_to: `${complete.pathname}${complete.search}` }),
    });
    const link = (await minted.json()) as { url: string };
    const browser = new TestBrowser();
    const confirm = await browser.submit(await browser.navigate(link.url), '/auth/oauth2/device', {});
    const consent = await browser.submit(confirm, '/auth/oauth2/device', {});
    expect((await browser.submit(consent, '/consent', { decision: 'approve' })).status).toBe(200);
    // The bot's poll, without openid-client's five-second wait.
    const linked = await postForm(`${short.url}/auth/oauth2/token`, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code }, auth);
    expect(linked.status).toBe(200);
    const approved = await grantBehind(short, linked.body.refresh_token as string);

    let refreshToken = linked.body.refresh_token as string;
    while (Date.now() < (approved.iat + REFRESH_TTL + 1.5) * 1000) {
      await sleep(500);
      const next = await refresh(short, bot, refreshToken);
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      refreshToken = next.body.refresh_token as string;
      expect(await apiStatus(short, next.body.access_token as string)).toBe(200);
    }
  });

  it('refuses a remembered access token with 401 at the instant its grant expires, when introspection turns inactive', async () => {
    const { tokens } = await obtainTokens(shortClient, { userId: USER, scope: OFFLINE });
    // A refresh moves the grant's end first, then issues an access token ending with it.
    const refreshed = await refresh(short, shortClient, tokens.refresh_token ?? '');
    const accessToken = refreshed.body.access_token as string;
    expect(await apiStatus(short, accessToken)).toBe(200); // now remembered
    const grant = await grantBehind(short, accessToken);
    const said = await introspect(shortClient, accessToken);

    await sleepUntil(grant.exp * 1000 - 250);
    expect(await apiStatus(short, accessToken)).toBe(200);
    expect((await introspect(shortClient, accessToken)).active).toBe(true);

    await sleepUntil(grant.exp * 1000 + 20);
    expect(await apiStatus(short, accessToken)).toBe(401);
    expect((await introspect(shortClient, accessToken)).active).toBe(false);
    expect(said.exp).toBe(grant.exp);
  });

  it('refuses a remembered access token that would outlive its grant (one issued before grants slid) once the grant expires', async () => {
    // An access token of an hour under a grant ending in three seconds, as tokens issued before
    // this version could be: the memory must end it with the grant, not with the token.
    const { provider } = standard.app;
    const client = await provider.Client.find(standardClient.id);
    if (!client) throw new Error('client not found');
    // The user exists once they signed in; sign them in on this server first (slow on a loaded
    // machine, and the grant's seconds must not start before it).
    await obtainTokens(standardClient, { userId: USER, scope: SESSION_BOUND });
    const grant = new provider.Grant({ accountId: USER, clientId: standardClient.id });
    grant.addOIDCScope('system:read');
    grant.exp = Math.floor(Date.now() / 1000) + 3;
    const grantId = await grant.save();
    const token = await new provider.AccessToken({ accountId: USER, client, grantId, gty: 'authorization_code', scope: 'system:read', expiresIn: 3600 }).save();
    expect(await apiStatus(standard, token)).toBe(200); // now remembered
    const said = await introspect(standardClient, token);

    await sleepUntil(grant.exp * 1000 - 250);
    expect(await apiStatus(standard, token)).toBe(200);
    await sleepUntil(grant.exp * 1000 + 20);
    expect(await apiStatus(standard, token)).toBe(401);
    expect((await introspect(standardClient, token)).active).toBe(false);
    // Introspection said when: with the grant, not an hour later.
    expect(said.exp).toBe(grant.exp);
  });

  it('refuses a remembered session-bound access token once its browser session is gone, as introspection says', async () => {
    const { tokens } = await obtainTokens(standardClient, { userId: USER, scope: SESSION_BOUND });
    expect(await apiStatus(standard, tokens.access_token)).toBe(200); // now remembered
    const { provider } = standard.app;
    const found = await provider.AccessToken.find(tokens.access_token);
    expect(found?.expiresWithSession).toBe(true);
    const session = await provider.Session.findByUid(found?.sessionUid ?? '');
    if (!session) throw new Error('no session behind the token');
    await session.destroy();

    expect(await apiStatus(standard, tokens.access_token)).toBe(401);
    expect((await introspect(standardClient, tokens.access_token)).active).toBe(false);
  });

  it('refuses a remembered session-bound access token at the instant its session expires, at the exp introspection gave', async () => {
    const { tokens } = await obtainTokens(standardClient, { userId: USER, scope: SESSION_BOUND });
    expect(await apiStatus(standard, tokens.access_token)).toBe(200); // now remembered
    const { provider } = standard.app;
    const found = await provider.AccessToken.find(tokens.access_token);
    const session = await provider.Session.findByUid(found?.sessionUid ?? '');
    if (!session) throw new Error('no session behind the token');
    await session.save(3); // the session now ends in three seconds
    const end = (session.exp ?? 0) * 1000;
    const said = await introspect(standardClient, tokens.access_token);

    await sleepUntil(end - 250);
    expect(await apiStatus(standard, tokens.access_token)).toBe(200);
    await sleepUntil(end + 20);
    expect(await apiStatus(standard, tokens.access_token)).toBe(401);
    expect((await introspect(standardClient, tokens.access_token)).active).toBe(false);
    expect(said.exp).toBe(session.exp);
  });

  it('never brings a grant back that a concurrent replay revoked while a refresh or a code exchange was moving its end', async () => {
    const auth = { id: standardClient.id, secret: standardClient.secret ?? '' };
    for (let round = 0; round < 2; round++) {
      const { tokens } = await obtainTokens(standardClient, { userId: USER, scope: OFFLINE });
      await nextSecond(); // so that the refresh moves the grant's end (whole seconds)
      const results = await Promise.all(Array.from({ length: 4 }, () => refresh(standard, standardClient, tokens.refresh_token ?? '')));
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      for (const result of results.filter((r) => r.status === 200)) {
        expect((await introspect(standardClient, result.body.access_token as string)).active).toBe(false);
        expect((await refresh(standard, standardClient, result.body.refresh_token as string)).status).toBe(400);
      }
    }
    for (let round = 0; round < 2; round++) {
      const { callbackUrl, verifier } = await authorize(standardClient, { userId: USER, scope: OFFLINE });
      await nextSecond();
      const form = { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, code_verifier: verifier };
      const results = await Promise.all(Array.from({ length: 4 }, () => postForm(`${standard.url}/auth/oauth2/token`, form, auth)));
      for (const result of results.filter((r) => r.status === 200)) {
        expect((await introspect(standardClient, result.body.access_token as string)).active).toBe(false);
        expect((await refresh(standard, standardClient, result.body.refresh_token as string)).status).toBe(400);
      }
    }
  });

  it('still answers a remembered token from memory: no token, grant or session is unsealed again', async () => {
    const { provider } = standard.app;
    for (const scope of [OFFLINE, SESSION_BOUND]) {
      const { tokens } = await obtainTokens(standardClient, { userId: USER, scope });
      expect(await apiStatus(standard, tokens.access_token)).toBe(200);
      const spies = [vi.spyOn(provider.AccessToken, 'find'), vi.spyOn(provider.Grant, 'find'), vi.spyOn(provider.Session, 'findByUid')];
      try {
        for (let i = 0; i < 3; i++) expect(await apiStatus(standard, tokens.access_token)).toBe(200);
        for (const spy of spies) expect(spy).not.toHaveBeenCalled();
      } finally {
        for (const spy of spies) spy.mockRestore();
      }
    }
  });
});
