// Public clients, client credentials, introspection in both forms, and every refusal the
// authorization server owes: missing or plain PKCE, wrong verifier, redirect URI mismatch, unknown
// client, wrong secret, scope not allowed.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from '../support/browser.js';
import { DIALECTS } from '../support/dialects.js';
import { authorize, createTestClient, obtainTokens, postForm, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe.each(DIALECTS)('clients, introspection and refusals (%s)', (dialect) => {
  let server: TestServer;
  let client: TestClient;
  let other: TestClient;
  let publicClient: TestClient;
  let machine: TestClient;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    client = await createTestClient(server);
    other = await createTestClient(server, { name: 'Other app' });
    publicClient = await createTestClient(server, { name: 'Public app', public: true });
    machine = await createTestClient(server, { name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['alters:read'] });
  });
  afterAll(async () => server?.stop());

  const introspectJson = async (bearer: string, token: unknown) => {
    const response = await fetch(`${server.url}/auth/oauth2/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify({ token }),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
  };

  it('serves a public client with PKCE and no secret', async () => {
    const { tokens } = await obtainTokens(publicClient, { userId: '200000000000000002' });
    expect(tokens.access_token).toBeTruthy();
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oidc.refreshTokenGrant(publicClient.config, tokens.refresh_token ?? '');
    expect(refreshed.access_token).toBeTruthy();
  });

  it('issues client_credentials tokens without a user, and only to confidential clients', async () => {
    const tokens = await oidc.clientCredentialsGrant(machine.config, { scope: 'alters:read' });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toBeUndefined();
    const info = await oidc.tokenIntrospection(machine.config, tokens.access_token);
    expect(info.active).toBe(true);
    expect(info.sub).toBe(machine.id);
    expect(info.username).toBeUndefined();
    const refused = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'client_credentials', client_id: publicClient.id });
    expect(refused.status).toBe(400);
    expect(refused.body.access_token).toBeUndefined();
    expect(['invalid_request', 'unauthorized_client']).toContain(refused.body.error);
  });

  it('introspects in the spec form (JSON + bearer) and in RFC 7662 form with the same fields', async () => {
    const { tokens } = await obtainTokens(client, { userId: '200000000000000003' });
    const spec = await introspectJson(tokens.access_token, tokens.access_token);
    expect(spec.status).toBe(200);
    const rfc = await oidc.tokenIntrospection(client.config, tokens.access_token);
    const fields = ['active', 'aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'nbf', 'scope', 'sub', 'token_type', 'username'];
    expect(Object.keys(spec.body).sort()).toEqual(fields);
    expect(Object.keys(rfc).sort()).toEqual(fields);
    expect(spec.body).toMatchObject({ active: true, client_id: client.id, sub: '200000000000000003', username: '200000000000000003', token_type: 'Bearer', iss: server.url, aud: `${server.url}/v1` });
    expect(spec.body.jti).toBe(rfc.jti);
    expect(spec.body.jti).not.toBe(tokens.access_token);
    expect(spec.body.exp).toBe((spec.body.iat as number) + 3600);

    const refresh = await introspectJson(tokens.access_token, tokens.refresh_token);
    expect(refresh.body).toMatchObject({ active: true, token_type: 'refresh_token' });
  });

  it('never shows one client another client\'s token', async () => {
    const { tokens } = await obtainTokens(client);
    const theirs = await obtainTokens(other);
    expect((await introspectJson(theirs.tokens.access_token, tokens.access_token)).body).toEqual({ active: false });
    expect(await oidc.tokenIntrospection(other.config, tokens.access_token)).toEqual({ active: false });
    const machineToken = (await oidc.clientCredentialsGrant(machine.config, { scope: 'alters:read' })).access_token;
    expect((await introspectJson(machineToken, tokens.access_token)).body).toEqual({ active: false });
    // Revoking someone else's token is a silent no-op.
    await oidc.tokenRevocation(other.config, tokens.access_token);
    expect((await oidc.tokenIntrospection(client.config, tokens.access_token)).active).toBe(true);
  });

  it('answers the spec form with 401 for a missing or dead bearer token and 400 for a bad body', async () => {
    const missing = await fetch(`${server.url}/auth/oauth2/introspect`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":"x"}' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const dead = await introspectJson('not-a-token', 'x');
    expect(dead.status).toBe(401);
    expect(dead.body.error).toBe('invalid_token');
    const { tokens } = await obtainTokens(client);
    expect((await introspectJson(tokens.access_token, 42)).status).toBe(400);
    const broken = await fetch(`${server.url}/auth/oauth2/introspect`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens.access_token}` }, body: '{"token":' });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: string }).error).toBe('invalid_request');
    // A refresh token is not a bearer credential.
    expect((await introspectJson(tokens.refresh_token ?? '', tokens.access_token)).status).toBe(401);
  });

  describe('refusals at the authorization endpoint', () => {
    const authorizeUrl = (params: Record<string, string>) => `${server.url}/auth/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.id, redirect_uri: REDIRECT_URI, scope: 'openid', state: 'xyz', ...params })}`;
    const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGwSJTm7AM';

    it('refuses a request without PKCE', async () => {
      const page = await new TestBrowser().navigate(authorizeUrl({}), { follow: () => false });
      const location = new URL(page.location ?? '');
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('error_description')).toMatch(/PKCE/);
    });

    it('refuses plain PKCE', async () => {
      const page = await new TestBrowser().navigate(authorizeUrl({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }), { follow: () => false });
      expect(new URL(page.location ?? '').searchParams.get('error')).toBe('invalid_request');
    });

    it('refuses an unregistered redirect URI without redirecting to it', async () => {
      const page = await new TestBrowser().navigate(authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256', redirect_uri: 'https://evil.example/cb' }));
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
      expect(page.body).toContain('redirect_uri');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    });

    it('refuses an unknown client without redirecting', async () => {
      const page = await new TestBrowser().navigate(authorizeUrl({ client_id: 'nope', code_challenge: challenge, code_challenge_method: 'S256' }));
      expect(page.status).toBe(400);
      expect(page.location).toBeUndefined();
    });

    it('refuses a scope the client was not registered for', async () => {
      const page = await new TestBrowser().navigate(authorizeUrl({ client_id: machine.id, scope: 'alters:write', code_challenge: challenge, code_challenge_method: 'S256' }));
      expect(page.status).toBe(400);
      const limited = await createTestClient(server, { name: 'Limited', scopes: ['openid', 'alters:read'] });
      const denied = await new TestBrowser().navigate(`${server.url}/auth/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: limited.id, redirect_uri: REDIRECT_URI, scope: 'openid alters:write', code_challenge: challenge, code_challenge_method: 'S256' })}`, { follow: () => false });
      expect(new URL(denied.location ?? '').searchParams.get('error')).toBe('invalid_scope');
    });

    it('refuses the implicit flow', async () => {
      const page = await new TestBrowser().navigate(authorizeUrl({ response_type: 'token', code_challenge: challenge, code_challenge_method: 'S256' }), { follow: () => false });
      expect(new URL(page.location ?? page.url).searchParams.get('error') ?? page.body).toMatch(/unsupported_response_type/);
    });
  });

  describe('refusals at the token endpoint', () => {
    it('refuses a wrong PKCE verifier, and a missing one', async () => {
      const { callbackUrl } = await authorize(client);
      const code = callbackUrl.searchParams.get('code') ?? '';
      const auth = { id: client.id, secret: client.secret ?? '' };
      const wrong = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: 'x'.repeat(43) }, auth);
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe('invalid_grant');
      const { callbackUrl: second } = await authorize(client);
      const missing = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'authorization_code', code: second.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI }, auth);
      expect(missing.body.error).toBe('invalid_grant');
    });

    it('refuses a redirect_uri that differs from the authorization request', async () => {
      const { callbackUrl, verifier } = await authorize(client);
      const response = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code') ?? '', redirect_uri: 'http://127.0.0.1:1/other', code_verifier: verifier }, { id: client.id, secret: client.secret ?? '' });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_grant');
    });

    it('refuses a wrong client secret, an unknown client, and a code issued to another client', async () => {
      const { callbackUrl, verifier } = await authorize(client);
      const form = { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, code_verifier: verifier };
      const wrongSecret = await postForm(`${server.url}/auth/oauth2/token`, form, { id: client.id, secret: 'sbs_wrong' });
      expect(wrongSecret.status).toBe(401);
      expect(wrongSecret.body.error).toBe('invalid_client');
      const unknown = await postForm(`${server.url}/auth/oauth2/token`, form, { id: 'unknown', secret: 'x' });
      expect(unknown.status).toBe(401);
      const impersonation = await postForm(`${server.url}/auth/oauth2/token`, form, { id: other.id, secret: other.secret ?? '' });
      expect(impersonation.status).toBe(400);
      expect(impersonation.body.error).toBe('invalid_grant');
    });

    it('refuses the password grant and unknown grants', async () => {
      const response = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'password', username: 'a', password: 'b' }, { id: client.id, secret: client.secret ?? '' });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('unsupported_grant_type');
    });
  });
});
