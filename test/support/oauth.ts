// OAuth helpers for tests: register clients the way the CLI does, configure openid-client against
// the running server, and walk a browser through sign-in and consent.
import * as oidc from 'openid-client';
import { registerClient, type ClientRegistration } from '../../src/auth/clients.js';
import { TestBrowser, type Page } from './browser.js';
import type { TestServer } from './server.js';

export const REDIRECT_URI = 'http://127.0.0.1:1/callback';

export interface TestClient {
  id: string;
  secret: string | undefined;
  config: oidc.Configuration;
}

export async function createTestClient(server: TestServer, overrides: Partial<ClientRegistration> = {}): Promise<TestClient> {
  const { client, secret } = await registerClient(server.database.db, {
    name: 'Test app',
    redirectUris: [REDIRECT_URI],
    scopes: ['openid', 'profile', 'offline_access', 'alters:read', 'alters:write', 'system:read', 'system:write', 'system:ai-ap', 'messages:read', 'messages:write'],
    grantTypes: ['authorization_code', 'refresh_token'],
    public: false,
    firstParty: false,
    ...overrides,
  });
  return { id: client.id, secret, config: await configureClient(server, client.id, secret) };
}

export async function configureClient(server: TestServer, id: string, secret: string | undefined): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(server.url), id, secret, secret === undefined ? oidc.None() : oidc.ClientSecretBasic(secret), {
    execute: [oidc.allowInsecureRequests],
  });
}

export interface AuthorizationResult {
  callbackUrl: URL;
  verifier: string;
  state: string;
  browser: TestBrowser;
}

export interface AuthorizationRequest {
  url: URL;
  verifier: string;
  state: string;
}

/** An authorization request with PKCE (S256) to the test redirect URI; `params` add or override. */
export async function authorizationRequest(client: TestClient, params: Record<string, string> = {}): Promise<AuthorizationRequest> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = params.state ?? oidc.randomState();
  const url = oidc.buildAuthorizationUrl(client.config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile offline_access alters:read',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...params,
  });
  return { url, verifier, state };
}

/** Authorization request → dev login as `userId` → consent (approve or deny) → the client's callback URL. */
export async function authorize(
  client: TestClient,
  options: { userId?: string; scope?: string; decision?: 'approve' | 'deny'; browser?: TestBrowser; extra?: Record<string, string> } = {},
): Promise<AuthorizationResult> {
  const browser = options.browser ?? new TestBrowser();
  const { url, verifier, state } = await authorizationRequest(client, { ...(options.scope ? { scope: options.scope } : {}), ...options.extra });
  const toClient = (next: URL) => !next.toString().startsWith(REDIRECT_URI);
  let page: Page = await browser.navigate(url.toString(), { follow: toClient });
  if (page.body.includes('/dev-login')) {
    page = await browser.submit(page, '/dev-login', { user_id: options.userId ?? '200000000000000001' }, toClient);
  }
  if (page.body.includes('/consent')) {
    page = await browser.submit(page, '/consent', { decision: options.decision ?? 'approve' }, toClient);
  }
  if (!page.location?.startsWith(REDIRECT_URI)) throw new Error(`authorization did not reach the client: ${page.status} ${page.url}\n${page.body}`);
  return { callbackUrl: new URL(page.location), verifier, state, browser };
}

export async function obtainTokens(client: TestClient, options: Parameters<typeof authorize>[1] = {}) {
  const result = await authorize(client, options);
  const tokens = await oidc.authorizationCodeGrant(client.config, result.callbackUrl, { pkceCodeVerifier: result.verifier, expectedState: result.state });
  return { ...result, tokens };
}

/** A raw form POST to the token endpoint, for requests openid-client refuses to build. */
export async function postForm(url: string, form: Record<string, string>, auth?: { id: string; secret: string }) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(auth ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(auth.id)}:${encodeURIComponent(auth.secret)}`).toString('base64')}` } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}
