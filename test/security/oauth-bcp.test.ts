// The OAuth 2.0 Security BCP (RFC 9700) and OAuth 2.1 items not already covered by the flow suites
// in test/auth/ (SECURITY.md maps every item to its test). Each test is named by its section.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from '../support/browser.js';
import { DIALECTS } from '../support/dialects.js';
import { authorizationRequest, authorize, createTestClient, obtainTokens, postForm, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe.each(DIALECTS)('OAuth security BCP (%s)', (dialect) => {
  let server: TestServer;
  let client: TestClient;
  let other: TestClient;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    client = await createTestClient(server);
    other = await createTestClient(server, { name: 'Other app', redirectUris: ['https://other.example/cb'] });
  });
  afterAll(async () => server?.stop());

  async function authorizationUrl(params: Record<string, string>) {
    return (await authorizationRequest(client, { scope: 'openid alters:read', state: 'state-1', ...params })).url.toString();
  }

  describe('§4.1 redirect URI manipulation: exact matching', () => {
    it.each([
      ['another path', 'http://127.0.0.1:1/callback/evil'],
      ['an added query', 'http://127.0.0.1:1/callback?next=https://evil.example'],
      ['another port', 'http://127.0.0.1:2/callback'],
      ['a trailing slash', 'http://127.0.0.1:1/callback/'],
      ['another host', 'http://127.0.0.2:1/callback'],
      ['https instead of http', 'https://127.0.0.1:1/callback'],
      ['a fragment', 'http://127.0.0.1:1/callback#x'],
      ['another client\'s URI', 'https://other.example/cb'],
    ])('refuses %s and never redirects to it', async (_name, redirectUri) => {
      const page = await new TestBrowser().navigate(await authorizationUrl({ redirect_uri: redirectUri }), { follow: () => false });
      expect(page.status).toBeGreaterThanOrEqual(400);
      expect(page.location).toBeUndefined();
    });
  });

  describe('§4.11 open redirectors', () => {
    it('an error before the client is known (unknown client) is a page, not a redirect', async () => {
      const url = new URL(await authorizationUrl({}));
      url.searchParams.set('client_id', 'no-such-client');
      const page = await new TestBrowser().navigate(url.toString(), { follow: () => false });
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
    });

    it('an error after the client is known goes back only to its registered redirect URI', async () => {
      // prompt=none without a session fails with login_required, reported to the client.
      const page = await new TestBrowser().navigate(await authorizationUrl({ prompt: 'none' }), { follow: (next) => next.origin === server.url });
      expect(page.location?.startsWith(`${REDIRECT_URI}?`)).toBe(true);
      const location = new URL(page.location ?? '');
      expect(location.searchParams.get('error')).toBe('login_required');
      expect(location.searchParams.get('iss')).toBe(server.url);
    });
  });

  describe('§4.7 CSRF on the consent step', () => {
    async function consentPage() {
      const browser = new TestBrowser();
      let page = await browser.navigate(await authorizationUrl({}), { follow: (next) => !next.toString().startsWith(REDIRECT_URI) });
      page = await browser.submit(page, '/dev-login', { user_id: '200000000000000077' }, (next) => !next.toString().startsWith(REDIRECT_URI));
      expect(page.body).toContain('/consent');
      return { browser, page };
    }

    it('refuses a consent post with a forged CSRF token, and issues no code', async () => {
      const { browser, page } = await consentPage();
      const refused = await browser.submit(page, '/consent', { decision: 'approve', csrf: 'forged' }, () => false);
      expect(refused.status).toBe(403);
      expect(refused.location ?? '').not.toContain('code=');
    });

    it('refuses a consent post from another browser (no session), and issues no code', async () => {
      const { page } = await consentPage();
      const stranger = new TestBrowser();
      const refused = await stranger.submit(page, '/consent', { decision: 'approve' }, () => false);
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(refused.location ?? '').not.toContain('code=');
    });

    it('returns the client\'s state unchanged, so the client can detect CSRF on its callback', async () => {
      const result = await authorize(client, { userId: '200000000000000077' });
      expect(result.callbackUrl.searchParams.get('state')).toBe(result.state);
    });
  });

  it('§4.4 mix-up: the authorization response names the issuer (RFC 9207)', async () => {
    const result = await authorize(client, { userId: '200000000000000078' });
    expect(result.callbackUrl.searchParams.get('iss')).toBe(server.url);
    const metadata = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.authorization_response_iss_parameter_supported).toBe(true);
  });

  it('§4.8 PKCE downgrade: a code bound to a challenge cannot be redeemed without its verifier', async () => {
    const { callbackUrl } = await authorize(client, { userId: '200000000000000079' });
    const response = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI }, { id: client.id, secret: client.secret ?? '' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_grant');
  });

  it('§4.14 refresh tokens are bound to their client', async () => {
    const { tokens } = await obtainTokens(client, { userId: '200000000000000080', scope: 'openid offline_access alters:read' });
    const stolen = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token ?? '' }, { id: other.id, secret: other.secret ?? '' });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
  });

  it('§4.3.2 / OAuth 2.1: access tokens in the query string are refused at the resource endpoints', async () => {
    const { tokens } = await obtainTokens(client, { userId: '200000000000000081', scope: 'openid alters:read' });
    const userinfo = await fetch(`${server.url}/auth/oauth2/userinfo?access_token=${tokens.access_token}`);
    expect(userinfo.status).toBeGreaterThanOrEqual(400);
    const api = await fetch(`${server.url}/v1/users/@me/system/list-alters?access_token=${tokens.access_token}`);
    expect(api.status).toBe(400);
  });

  it('§4.9 clickjacking and §4.2 referrer leakage: authorization pages forbid framing and send no referrer', async () => {
    const page = await new TestBrowser().navigate(await authorizationUrl({}), { follow: (next) => !next.toString().startsWith(REDIRECT_URI) });
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('§2.1.2 / §2.4: no implicit, hybrid or password grant is advertised', async () => {
    const metadata = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.grant_types_supported).not.toContain('password');
    expect(metadata.grant_types_supported).not.toContain('implicit');
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
  });
});

describe('§4.5 authorization codes are short-lived', () => {
  it('refuses a code after its lifetime', async () => {
    const server = await startTestServer('sqlite', { AUTHORIZATION_CODE_TTL: '1' });
    try {
      const client = await createTestClient(server);
      const { callbackUrl, verifier } = await authorize(client, { userId: '200000000000000082' });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const response = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, code_verifier: verifier }, { id: client.id, secret: client.secret ?? '' });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_grant');
    } finally {
      await server.stop();
    }
  });
});
