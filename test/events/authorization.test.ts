// The /v1/events authorization matrix: every event route against every way a request can be
// (un)authorized. These routes belong to an app acting as itself (a client-credentials token with
// events:manage); user tokens, other scopes and other apps are refused, and a refusal changes
// nothing in the database.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorTypes, request, signIn, type ApiResponse } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { snapshotDatabase } from '../support/snapshot.js';

interface Route {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** Status for the owning app. */
  ok: number;
}

const ROUTES: Route[] = [
  { method: 'POST', path: '/v1/events/endpoints', body: { url: 'https://hooks.example/matrix', eventTypes: ['alter.created'] }, ok: 201 },
  { method: 'GET', path: '/v1/events/endpoints', ok: 200 },
  { method: 'GET', path: '/v1/events/endpoints/{endpoint}', ok: 200 },
  { method: 'POST', path: '/v1/events/endpoints/{endpoint}/edit', body: { description: 'edited' }, ok: 200 },
  { method: 'POST', path: '/v1/events/endpoints/{endpoint}/rotate-secret', ok: 200 },
  { method: 'GET', path: '/v1/events/endpoints/{endpoint}/deliveries', ok: 200 },
  { method: 'POST', path: '/v1/events/endpoints/{endpoint}/replay', body: { since: '2026-01-01T00:00:00Z' }, ok: 200 },
  { method: 'POST', path: '/v1/events/deliveries/{delivery}/replay', ok: 404 },
  { method: 'POST', path: '/v1/events/endpoints/{endpoint}/delete', ok: 200 },
  { method: 'GET', path: '/v1/events/feed', ok: 200 },
];

describe.each(DIALECTS)('/v1/events authorization (%s)', (dialect) => {
  let server: TestServer;
  let app: TestClient;
  let appToken: string;
  let otherAppToken: string;
  let wrongScopeToken: string;
  let userWithScope: string;
  let userWithoutScope: string;
  let endpointId: string;

  const call = (route: Route, token: string | undefined, headers: Record<string, string> = {}, query = ''): Promise<ApiResponse> =>
    request(server, route.method, `${route.path.replace('{endpoint}', endpointId).replace('{delivery}', 'msg_1')}${query}`, {
      ...(token === undefined ? {} : { token }),
      headers,
      ...(route.method === 'POST' ? { body: route.body ?? {} } : {}),
    });

  async function freshEndpoint(): Promise<void> {
    const created = await request<{ data: { id: string } }>(server, 'POST', '/v1/events/endpoints', { token: appToken, body: { url: 'https://hooks.example/own', eventTypes: ['system.updated'] } });
    expect(created.status).toBe(201);
    endpointId = created.body.data.id;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
    const scopes = ['openid', 'alters:read', 'events:manage'] as const;
    app = await createTestClient(server, { name: 'Hooks app', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: [...scopes] });
    appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    wrongScopeToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'alters:read' })).access_token;
    const other = await createTestClient(server, { name: 'Other hooks app', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['events:manage'] });
    otherAppToken = (await oidc.clientCredentialsGrant(other.config, { scope: 'events:manage' })).access_token;
    userWithScope = (await signIn(server, '200000000000000801', { client: app, scope: 'openid events:manage' })).token;
    userWithoutScope = (await signIn(server, '200000000000000802', { client: app, scope: 'openid alters:read' })).token;
    await freshEndpoint();
  });
  afterAll(async () => server?.stop());

  /** Runs `refused` for every route and checks the database is unchanged by it. */
  async function eachRefused(check: (route: Route) => Promise<void>): Promise<void> {
    for (const route of ROUTES) {
      const before = await snapshotDatabase(server.database.db);
      await check(route);
      const after = await snapshotDatabase(server.database.db);
      expect(after.digest, `${route.method} ${route.path} changed the database`).toBe(before.digest);
    }
  }

  it('accepts the owning app’s client-credentials token on every route', async () => {
    for (const route of ROUTES) {
      const response = await call(route, appToken);
      expect({ route: route.path, status: response.status }).toEqual({ route: route.path, status: route.ok });
    }
    await freshEndpoint();
  });

  it('refuses a request without a token (401 and a bare Bearer challenge), a malformed header, an unknown token and a token in the URL', async () => {
    await eachRefused(async (route) => {
      const none = await call(route, undefined);
      expect(none.status).toBe(401);
      expect(errorTypes(none)).toEqual(['no-access-token']);
      expect(none.headers.get('www-authenticate')).toBe('Bearer realm="switchboard"');
      const malformed = await call(route, undefined, { authorization: 'Basic abc' });
      expect(errorTypes(malformed)).toEqual(['invalid-auth']);
      const unknown = await call(route, 'x'.repeat(43));
      expect(unknown.status).toBe(401);
      expect(unknown.headers.get('www-authenticate')).toContain('error="invalid_token"');
      const inQuery = await call(route, undefined, {}, `?access_token=${appToken}`);
      expect(inQuery.status).toBe(400);
      expect(errorTypes(inQuery)).toEqual(['token-in-query']);
    });
  });

  it('refuses tokens without events:manage (403 insufficient_scope), whether the app’s or a user’s', async () => {
    await eachRefused(async (route) => {
      for (const token of [wrongScopeToken, userWithoutScope]) {
        const response = await call(route, token);
        expect(response.status).toBe(403);
        expect(errorTypes(response)).toEqual(['invalid-scopes']);
        expect(response.headers.get('www-authenticate')).toContain('scope="events:manage"');
      }
    });
  });

  it('refuses a user’s token even with events:manage: endpoints belong to the app', async () => {
    await eachRefused(async (route) => {
      const response = await call(route, userWithScope);
      expect(response.status).toBe(403);
      expect(errorTypes(response)).toEqual(['client-token-required']);
    });
  });

  it('shows another app none of this app’s endpoints or deliveries', async () => {
    await eachRefused(async (route) => {
      if (route.method === 'POST' && route.path === '/v1/events/endpoints') return; // creates its own
      const response = await call(route, otherAppToken);
      if (route.path === '/v1/events/endpoints') expect(response.body).toEqual({ data: [] });
      else if (route.path === '/v1/events/feed') expect(response.status).toBe(200); // its own users' events, never another app's endpoints
      else expect(response.status, `${route.method} ${route.path}`).toBe(404);
    });
  });

  it('refuses a revoked client-credentials token at once', async () => {
    const token = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    expect((await call(ROUTES[1] as Route, token)).status).toBe(200);
    await oidc.tokenRevocation(app.config, token);
    await eachRefused(async (route) => {
      expect((await call(route, token)).status).toBe(401);
    });
  });
});
