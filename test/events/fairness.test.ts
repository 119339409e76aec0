// The dispatcher shared fairly between apps (issue 26 #4): one app's slow endpoints take at most
// its share of the delivery slots, and claims go round the apps, so another app's deliveries are
// not held behind them. Asserted on what is in flight and what finished, never on timings.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, signIn } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { Receiver } from './receiver.js';

const USER = '200000000000000961';
const SCOPES = ['openid', 'offline_access', 'system:read', 'system:write', 'events:manage'] as const;
const SLOW_ENDPOINTS = 4;

describe.each(DIALECTS)('one app’s slow endpoints and another app (%s)', (dialect) => {
  let server: TestServer;
  let slow: Receiver;
  let fast: Receiver;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      RATE_LIMIT_ENABLED: 'false',
      EVENTS_ALLOW_PRIVATE_ADDRESSES: 'true',
      EVENTS_POLL_INTERVAL_MS: '50',
      // Four slots in all, one per endpoint: the slow app's four endpoints could take every one.
      EVENTS_CONCURRENCY: '4',
      EVENTS_CONCURRENCY_PER_ENDPOINT: '1',
      // The slow receiver never answers within the test.
      EVENTS_DELIVERY_TIMEOUT_MS: '60000',
    });
    slow = new Receiver();
    fast = new Receiver();
    slow.answer = () => 'hang';
    await slow.start();
    await fast.start();
  });
  afterAll(async () => {
    await slow?.stop();
    await fast?.stop();
    await server?.stop();
  });

  async function app(name: string): Promise<{ client: TestClient; token: string }> {
    const client = await createTestClient(server, { name, grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: [...SCOPES] });
    await signIn(server, USER, { client, scope: 'openid offline_access system:read system:write' });
    return { client, token: (await oidc.clientCredentialsGrant(client.config, { scope: 'events:manage' })).access_token };
  }

  async function endpoint(token: string, url: string): Promise<string> {
    const response = await request<{ data: { id: string } }>(server, 'POST', '/v1/events/endpoints', { token, body: { url, eventTypes: ['system.updated'] } });
    expect(response.status).toBe(201);
    return response.body.data.id;
  }

  const statuses = async (token: string, id: string) => (await request<{ data: Array<{ status: string }> }>(server, 'GET', `/v1/events/endpoints/${id}/deliveries`, { token })).body.data.map((d) => d.status);

  it('delivers the other app’s events while every delivery of the slow app is still pending, the slow app holding at most its share', async () => {
    const slowApp = await app('Slow app');
    const fastApp = await app('Fast app');
    // The slow app's endpoints first: oldest deliveries first would give it every slot.
    const slowIds: string[] = [];
    for (let i = 0; i < SLOW_ENDPOINTS; i++) slowIds.push(await endpoint(slowApp.token, slow.url(`/slow/${i}`)));
    const fastId = await endpoint(fastApp.token, fast.url('/fast'));
    const writer = await signIn(server, USER, { client: await createTestClient(server, { name: 'Writer' }), scope: 'openid system:write' });

    for (const name of ['one', 'two', 'three']) expect((await writer.call('POST', '/v1/users/@me/system/edit', { systemName: name })).status).toBe(200);
    const received = await fast.waitFor('/fast', (list) => list.length >= 3);
    expect(received.map((r) => (r.json.data.system as { systemName: string }).systemName)).toEqual(['one', 'two', 'three']);

    await slow.waitFor('/slow/0', () => slow.requests.length >= 1);
    const until = Date.now() + 10_000;
    while ((await statuses(fastApp.token, fastId)).some((status) => status !== 'delivered') && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await statuses(fastApp.token, fastId)).toEqual(['delivered', 'delivered', 'delivered']);

    // Meanwhile none of the slow app's deliveries finished, and it never held more than its share
    // (EVENTS_CONCURRENCY / 4, at least one per endpoint: one here), the rest of the slots free.
    for (const id of slowIds) expect((await statuses(slowApp.token, id)).every((status) => status === 'pending')).toBe(true);
    expect(slow.requests).toHaveLength(1);
    expect((await request<{ events: { inFlight: number } }>(server, 'GET', '/readyz')).body.events.inFlight).toBe(1);
  });
});
