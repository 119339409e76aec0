// Authorization code + PKCE, end to end over HTTP with openid-client: discovery, dev login and
// consent, tokens, id_token, userinfo, refresh rotation and reuse detection, code replay.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/dialects.js';
import { authorize, createTestClient, obtainTokens, postForm, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe.each(DIALECTS)('authorization code flow (%s)', (dialect) => {
  let server: TestServer;
  let client: TestClient;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    client = await createTestClient(server);
  });
  afterAll(async () => server?.stop());

  it('publishes OpenID and RFC 8414 discovery documents with our endpoints', async () => {
    const openid = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    const rfc8414 = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(openid.issuer).toBe(server.url);
    expect(openid.authorization_endpoint).toBe(`${server.url}/auth/oauth2/authorize`);
    expect(openid.token_endpoint).toBe(`${server.url}/auth/oauth2/token`);
    expect(openid.introspection_endpoint).toBe(`${server.url}/auth/oauth2/introspect`);
    expect(openid.revocation_endpoint).toBe(`${server.url}/auth/oauth2/revoke`);
    expect(openid.device_authorization_endpoint).toBe(`${server.url}/auth/oauth2/device_authorization`);
    expect(openid.code_challenge_methods_supported).toEqual(['S256']);
    expect(openid.response_types_supported).toEqual(['code']);
    expect(openid.grant_types_supported).not.toContain('implicit');
    expect(openid.grant_types_supported).not.toContain('password');
    expect(rfc8414.issuer).toBe(server.url);
    expect(rfc8414.token_endpoint).toBe(openid.token_endpoint);
    const jwks = (await (await fetch(`${server.url}/auth/oauth2/jwks`)).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const key of jwks.keys) expect(key.d).toBeUndefined();
  });

  it('issues the spec token response through dev login and consent', async () => {
    const { tokens, callbackUrl } = await obtainTokens(client, { userId: '200000000000000001', scope: 'openid profile offline_access alters:read system:read' });
    expect(callbackUrl.searchParams.get('iss')).toBe(server.url);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.access_token).toMatch(/^[\w-]{40,}$/);
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.id_token).toBeTruthy();
    expect(tokens.scope?.split(' ').sort()).toEqual(['alters:read', 'offline_access', 'openid', 'profile', 'system:read']);
    expect(tokens.claims()?.sub).toBe('200000000000000001');
    const info = await oidc.fetchUserInfo(client.config, tokens.access_token, '200000000000000001');
    expect(info.sub).toBe('200000000000000001');
  });

  it('answers the raw token request with exactly the spec fields and type Bearer', async () => {
    const { callbackUrl, verifier } = await authorize(client, { scope: 'openid offline_access alters:read' });
    const response = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, code_verifier: verifier }, { id: client.id, secret: client.secret ?? '' });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'refresh_token', 'scope', 'token_type']);
    expect(response.body.token_type).toBe('Bearer');
    expect(response.headers.get('cache-control')).toContain('no-store');
  });

  it('omits refresh_token without offline_access and id_token without openid', async () => {
    const { tokens } = await obtainTokens(client, { scope: 'alters:read' });
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.scope).toBe('alters:read');
  });

  it('lets the user deny: the client gets access_denied', async () => {
    const { callbackUrl } = await authorize(client, { decision: 'deny' });
    expect(callbackUrl.searchParams.get('error')).toBe('access_denied');
    expect(callbackUrl.searchParams.get('code')).toBeNull();
  });

  it('accepts a code once; a replay fails and revokes the tokens it issued', async () => {
    const { callbackUrl, verifier } = await authorize(client);
    const form = { grant_type: 'authorization_code', code: callbackUrl.searchParams.get('code') ?? '', redirect_uri: REDIRECT_URI, code_verifier: verifier };
    const auth = { id: client.id, secret: client.secret ?? '' };
    const first = await postForm(`${server.url}/auth/oauth2/token`, form, auth);
    expect(first.status).toBe(200);
    const replay = await postForm(`${server.url}/auth/oauth2/token`, form, auth);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    const introspection = await oidc.tokenIntrospection(client.config, first.body.access_token as string);
    expect(introspection.active).toBe(false);
    const refresh = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string }, auth);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('rotates refresh tokens and revokes the whole family when an old one is reused', async () => {
    const { tokens } = await obtainTokens(client);
    const second = await oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '');
    expect(second.refresh_token).toBeTruthy();
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(second.access_token).not.toBe(tokens.access_token);
    expect((await oidc.tokenIntrospection(client.config, second.access_token)).active).toBe(true);

    // Reusing the first (rotated) refresh token is theft detection: everything in the grant dies.
    await expect(oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await oidc.tokenIntrospection(client.config, second.access_token)).active).toBe(false);
    await expect(oidc.refreshTokenGrant(client.config, second.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('treats two concurrent redemptions of one refresh token as reuse: at most one wins, the family dies', async () => {
    const { tokens } = await obtainTokens(client);
    const results = await Promise.allSettled([
      oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? ''),
      oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? ''),
    ]);
    expect(results.filter((r) => r.status === 'rejected').length).toBeGreaterThanOrEqual(1);
    for (const result of results) {
      if (result.status === 'fulfilled') expect((await oidc.tokenIntrospection(client.config, result.value.access_token)).active).toBe(false);
    }
  });

  it('makes revocation take effect at once', async () => {
    const { tokens } = await obtainTokens(client);
    expect((await oidc.tokenIntrospection(client.config, tokens.access_token)).active).toBe(true);
    await oidc.tokenRevocation(client.config, tokens.access_token);
    expect((await oidc.tokenIntrospection(client.config, tokens.access_token)).active).toBe(false);
    await expect(oidc.fetchUserInfo(client.config, tokens.access_token, oidc.skipSubjectCheck)).rejects.toBeTruthy();
  });

  it('revoking a refresh token ends the grant', async () => {
    const { tokens } = await obtainTokens(client);
    await oidc.tokenRevocation(client.config, tokens.refresh_token ?? '');
    expect((await oidc.tokenIntrospection(client.config, tokens.access_token)).active).toBe(false);
    await expect(oidc.refreshTokenGrant(client.config, tokens.refresh_token ?? '')).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
