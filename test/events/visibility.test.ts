// Which events an app sees, over time (issue 26 #3 and #10): only those that happened while the
// user's grant to it was live and held the event's scope. Not what happened before the app was
// authorized, nor while it was revoked, nor before a scope was granted; a replay never sends what
// was skipped for a missing scope; a grant without offline_access ends with its browser session.
// Through the feed and the webhooks alike, on every database.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, signIn, type ApiUser } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient, obtainTokens, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { Receiver } from './receiver.js';
import { EVENT_ENV } from './short-schedules.js';

const ALL_SCOPES = ['openid', 'profile', 'offline_access', 'alters:read', 'alters:write', 'system:read', 'system:write', 'messages:read', 'messages:write', 'events:manage'] as const;
const USER_SCOPES = 'openid offline_access alters:read alters:write system:read system:write messages:read messages:write';
const READ_SCOPES = 'openid offline_access alters:read system:read';

interface FeedEvent {
  type: string;
  data: { userId: string; system?: { systemName: string | null }; alter?: { displayName: string } };
}
interface DeliveryView {
  id: string;
  status: string;
  lastError: string | null;
}

/** What an event says, to compare lists: the type and the system or alter name it carries. */
const said = (event: FeedEvent) => `${event.type} ${event.data.system?.systemName ?? event.data.alter?.displayName ?? ''}`.trim();

describe.each(DIALECTS)('which events an app sees, over time (%s)', (dialect) => {
  let server: TestServer;
  let receiver: Receiver;
  let app: TestClient;
  let other: TestClient;
  let appToken: string;

  const events = <T = unknown>(method: string, path: string, body?: unknown) => request<T>(server, method, `/v1/events${path}`, { token: appToken, body });
  const editSystem = (user: ApiUser, systemName: string) => user.call('POST', '/v1/users/@me/system/edit', { systemName });

  /** The whole feed from the start of the outbox, for one user. */
  async function feedOf(userId: string): Promise<string[]> {
    const seen: FeedEvent[] = [];
    let after = '0';
    for (;;) {
      const page = await events<{ data: { events: FeedEvent[]; next: string; more: boolean } }>('GET', `/feed?after=${after}&max=500`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.events);
      after = page.body.data.next;
      if (!page.body.data.more) break;
    }
    return seen.filter((event) => event.data.userId === userId).map(said);
  }

  async function register(path: string): Promise<string> {
    const response = await events<{ data: { id: string } }>('POST', '/endpoints', { url: receiver.url(path), eventTypes: ['alter.created', 'alter.updated', 'alter.deleted', 'system.updated'] });
    expect(response.status).toBe(201);
    return response.body.data.id;
  }

  async function settled(endpointId: string): Promise<DeliveryView[]> {
    const until = Date.now() + 10_000;
    for (;;) {
      const list = (await events<{ data: DeliveryView[] }>('GET', `/endpoints/${endpointId}/deliveries?max=100`)).body.data;
      if (list.every((d) => d.status !== 'pending')) return list;
      if (Date.now() > until) throw new Error(`deliveries still pending: ${JSON.stringify(list)}`);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  }

  const receivedBy = (path: string, userId: string) =>
    receiver
      .at(path)
      .filter((r) => r.json.data.userId === userId)
      .map((r) => said(r.json as unknown as FeedEvent));

  beforeAll(async () => {
    server = await startTestServer(dialect, EVENT_ENV);
    receiver = new Receiver();
    await receiver.start();
    app = await createTestClient(server, { name: 'Watching app', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: [...ALL_SCOPES] });
    other = await createTestClient(server, { name: 'Writing app' });
    appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
  });
  afterAll(async () => {
    await receiver?.stop();
    await server?.stop();
  });

  it('shows a newly authorized app nothing from before, nothing from while it was revoked, and the rest', async () => {
    const USER = '200000000000000901';
    const endpoint = await register('/periods');
    const writer = await signIn(server, USER, { client: other, scope: USER_SCOPES });
    const created = await writer.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'secret', displayName: 'Secret name' });
    expect(created.status).toBeLessThan(300);
    expect((await writer.call('POST', `/v1/users/@me/alters/${created.body.alterId}/delete`)).status).toBe(200);
    await editSystem(writer, 'before the app');

    const first = await signIn(server, USER, { client: app, scope: READ_SCOPES });
    await editSystem(writer, 'first grant');
    await receiver.waitFor('/periods', (list) => list.some((r) => r.json.data.userId === USER));
    // Revoked (RFC 7009 on its refresh token ends the grant), then authorized again.
    await oidc.tokenRevocation(app.config, first.refreshToken ?? '', { token_type_hint: 'refresh_token' });
    await editSystem(writer, 'while revoked');
    await signIn(server, USER, { client: app, scope: READ_SCOPES });
    await editSystem(writer, 'second grant');

    expect(await feedOf(USER)).toEqual(['system.updated first grant', 'system.updated second grant']);
    await receiver.waitFor('/periods', (list) => list.filter((r) => r.json.data.userId === USER).length >= 2);
    await settled(endpoint);
    // A replay of everything reaches back no further than the grants did.
    expect((await events('POST', `/endpoints/${endpoint}/replay`, { since: '2000-01-01T00:00:00Z' })).status).toBe(200);
    await settled(endpoint);
    expect(new Set(receivedBy('/periods', USER))).toEqual(new Set(['system.updated first grant', 'system.updated second grant']));
  });

  it('shows an event needing a scope only if the grant held it then: a replay does not send what was skipped for it', async () => {
    const USER = '200000000000000902';
    const endpoint = await register('/scopes');
    const writer = await signIn(server, USER, { client: other, scope: USER_SCOPES });
    await signIn(server, USER, { client: app, scope: 'openid offline_access system:read' });
    const created = await writer.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'early', displayName: 'Before the scope' });
    expect(created.status).toBeLessThan(300);
    const skipped = await settled(endpoint);
    expect(skipped.map((d) => [d.status, d.lastError])).toEqual([['skipped', "the user's authorization lacks the alters:read scope"]]);

    await signIn(server, USER, { client: app, scope: READ_SCOPES });
    expect((await writer.call('POST', `/v1/users/@me/alters/${created.body.alterId}/edit`, { displayName: 'With the scope' })).status).toBe(200);
    await receiver.waitFor('/scopes', (list) => list.length >= 1);
    await settled(endpoint);
    expect(await feedOf(USER)).toEqual(['alter.updated With the scope']);

    expect((await events('POST', `/endpoints/${endpoint}/replay`, { since: '2000-01-01T00:00:00Z' })).status).toBe(200);
    const after = await settled(endpoint);
    expect(after.map((d) => d.status).sort()).toEqual(['delivered', 'skipped']);
    expect(receivedBy('/scopes', USER)).toEqual(['alter.updated With the scope', 'alter.updated With the scope']);
  });

  it('ends the events of a grant without offline_access with its session; a grant with it goes on after sign-out', async () => {
    const SESSION_ONLY = '200000000000000903';
    const OFFLINE = '200000000000000904';
    await register('/sessions');
    const writers = new Map<string, ApiUser>();
    const browsers = new Map<string, Awaited<ReturnType<typeof obtainTokens>>['browser']>();
    for (const [userId, scope] of [
      [SESSION_ONLY, 'openid alters:read system:read'],
      [OFFLINE, READ_SCOPES],
    ] as const) {
      writers.set(userId, await signIn(server, userId, { client: other, scope: USER_SCOPES }));
      browsers.set(userId, (await obtainTokens(app, { userId, scope })).browser);
    }
    for (const [userId, writer] of writers) await editSystem(writer, `${userId} signed in`);
    await receiver.waitFor('/sessions', (list) => list.length >= 2);

    for (const browser of browsers.values()) {
      const page = await browser.navigate(`${server.url}/account/sign-out`);
      await browser.submit(page, '/account/sign-out', {});
    }
    for (const [userId, writer] of writers) await editSystem(writer, `${userId} signed out`);
    await receiver.waitFor('/sessions', (list) => list.some((r) => r.json.data.userId === OFFLINE && said(r.json as unknown as FeedEvent).endsWith('signed out')));
    await settled((await events<{ data: Array<{ id: string; url: string }> }>('GET', '/endpoints')).body.data.find((e) => e.url.endsWith('/sessions'))?.id ?? '');

    // The grant ended with the session: nothing more is sent, and the feed (which serves only live grants) has nothing.
    expect(await feedOf(SESSION_ONLY)).toEqual([]);
    expect(receivedBy('/sessions', SESSION_ONLY)).toEqual([`system.updated ${SESSION_ONLY} signed in`]);
    expect(await feedOf(OFFLINE)).toEqual([`system.updated ${OFFLINE} signed in`, `system.updated ${OFFLINE} signed out`]);
  });
});
