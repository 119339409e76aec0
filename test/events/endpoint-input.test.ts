// What a client can make the service store about its webhook endpoints: URLs are kept in their
// WHATWG serialisation and refused with control characters (they reach the operator's terminal
// through `switchboard events list`), and the cap of endpoints per client holds when many creates
// race.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ENDPOINTS_PER_CLIENT } from '../../src/domain/events.js';
import { errorTypes, request, type ApiResponse } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface EndpointAnswer {
  data: { id: string; url: string };
}

describe.each(DIALECTS)('webhook endpoint input (%s)', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
  });
  afterAll(async () => server?.stop());

  async function appToken(name: string): Promise<{ app: TestClient; token: string }> {
    const app = await createTestClient(server, { name, grantTypes: ['client_credentials'], scopes: ['events:manage'], redirectUris: [] });
    return { app, token: (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token };
  }
  const events = <T = unknown>(token: string, method: string, path: string, body?: unknown): Promise<ApiResponse<T>> => request<T>(server, method, `/v1/events${path}`, { token, body });

  it.each([
    ['an escape sequence', 'https://hooks.example/in\u001b[2J\u001b[31mpwned'],
    ['a newline', 'https://hooks.example/in\nnext line'],
    ['a carriage return', 'https://hooks.example/in\r'],
    ['a tab', 'https://hooks.\texample/in'],
    ['a C1 control', 'https://hooks.example/in\u009b31m'],
    ['a DEL', 'https://hooks.example/in\u007f'],
  ])('refuses a URL with %s, on create and on edit', async (_name, url) => {
    const { token } = await appToken('Control app');
    const created = await events(token, 'POST', '/endpoints', { url, eventTypes: ['system.updated'] });
    expect(created.status).toBe(400);
    expect(errorTypes(created)).toEqual(['validation']);
    const fine = await events<EndpointAnswer>(token, 'POST', '/endpoints', { url: 'https://hooks.example/in', eventTypes: ['system.updated'] });
    expect(fine.status).toBe(201);
    const edited = await events(token, 'POST', `/endpoints/${fine.body.data.id}/edit`, { url });
    expect(edited.status).toBe(400);
    const listed = await events<{ data: Array<{ url: string }> }>(token, 'GET', '/endpoints');
    expect(listed.body.data.map((endpoint) => endpoint.url)).toEqual(['https://hooks.example/in']);
  });

  it('stores a URL in its WHATWG serialisation', async () => {
    const { token } = await appToken('Normalised app');
    const created = await events<EndpointAnswer>(token, 'POST', '/endpoints', { url: 'HTTPS://Hooks.EXAMPLE:443/a b/ü?q=ä ', eventTypes: ['system.updated'] });
    expect(created.status).toBe(201);
    expect(created.body.data.url).toBe('https://hooks.example/a%20b/%C3%BC?q=%C3%A4');
    const edited = await events<EndpointAnswer>(token, 'POST', `/endpoints/${created.body.data.id}/edit`, { url: 'https://hooks.example' });
    expect(edited.body.data.url).toBe('https://hooks.example/');
  });

  it(`admits at most ${MAX_ENDPOINTS_PER_CLIENT} endpoints per client under concurrent creates`, async () => {
    const { token } = await appToken('Racing app');
    const answers = await Promise.all(
      Array.from({ length: 3 * MAX_ENDPOINTS_PER_CLIENT }, (_, index) => events(token, 'POST', '/endpoints', { url: `https://hooks.example/race/${index}`, eventTypes: ['system.updated'] })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(MAX_ENDPOINTS_PER_CLIENT);
    expect(statuses.filter((status) => status !== 201).every((status) => status === 409)).toBe(true);
    const listed = await events<{ data: unknown[] }>(token, 'GET', '/endpoints');
    expect(listed.body.data).toHaveLength(MAX_ENDPOINTS_PER_CLIENT);
  });
});
