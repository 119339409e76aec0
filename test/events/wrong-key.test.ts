// A service process started with another DATA_ENCRYPTION_KEY than the one that sealed the grants
// and endpoint secrets (issue 26 #13): a configuration error, loud (/readyz, the error log), never
// a revocation. Its deliveries stay pending, and a process with the right key sends them.
import { randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, signIn } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { Receiver } from './receiver.js';
import { EVENT_ENV as SHORT_SCHEDULES } from './short-schedules.js';

const USER = '200000000000000951';
/** Deliveries are never given up on here: the wrong key must leave them pending. */
const EVENT_ENV = { ...SHORT_SCHEDULES, EVENTS_GIVE_UP_AFTER_MS: '60000' };

interface Readiness {
  events: { misconfigured?: boolean; failing: boolean };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
}

describe.each(DIALECTS)('events under another DATA_ENCRYPTION_KEY (%s)', (dialect) => {
  let first: TestServer;
  const started: TestServer[] = [];
  let receiver: Receiver;

  beforeAll(async () => {
    first = await startTestServer(dialect, EVENT_ENV);
    receiver = new Receiver();
    await receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    for (const server of started) await server.stop().catch(() => server.testDatabase.drop());
    await first?.testDatabase.drop();
  });

  it('leaves deliveries pending and says so in /readyz, for endpoint secrets and for grants it cannot open; the right key then sends them', async () => {
    const app = await createTestClient(first, { name: 'Keyed app', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: ['openid', 'offline_access', 'system:read', 'system:write', 'events:manage'] });
    const token = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    const user = await signIn(first, USER, { client: app, scope: 'openid offline_access system:read system:write' });
    expect((await request(first, 'POST', '/v1/events/endpoints', { token, body: { url: receiver.url('/keyed'), eventTypes: ['system.updated'] } })).status).toBe(201);
    receiver.answer = () => 503;
    expect((await user.call('POST', '/v1/users/@me/system/edit', { systemName: 'sealed' })).status).toBe(200);
    await receiver.waitFor('/keyed', (list) => list.length >= 1);
    await first.close();

    const wrong = await startTestServer(dialect, { ...EVENT_ENV, DATABASE_URL: first.testDatabase.url, DATA_ENCRYPTION_KEY: randomBytes(32).toString('base64url') });
    started.push(wrong);
    let db = wrong.database.db;
    const delivery = () => db.selectFrom('event_deliveries').select(['status', 'next_attempt_at', 'attempts']).executeTakeFirstOrThrow();
    const readiness = async () => (await request<Readiness>(wrong, 'GET', '/readyz')).body;
    receiver.answer = () => 200;
    const sent = receiver.requests.length;

    // The endpoint's secret does not open.
    await until('the wrong key to be met', async () => ((await readiness()).events.misconfigured === true || (await delivery()).status !== 'pending' ? true : undefined));
    expect((await delivery()).status).toBe('pending');
    expect((await readiness()).events).toMatchObject({ misconfigured: true, failing: true });

    // A grant older than event_grant_periods, whose scopes are still sealed, does not open either.
    await db.updateTable('event_grant_periods').set({ scopes: null }).where('client_id', '=', app.id).execute();
    const before = Number((await delivery()).next_attempt_at);
    await until('another try', async () => (Number((await delivery()).next_attempt_at) > before ? true : undefined));
    expect(await delivery()).toMatchObject({ status: 'pending' });
    expect((await readiness()).events.misconfigured).toBe(true);
    expect(receiver.requests.length).toBe(sent);
    await wrong.close();

    const right = await startTestServer(dialect, { ...EVENT_ENV, DATABASE_URL: first.testDatabase.url });
    started.push(right);
    db = right.database.db;
    await receiver.waitFor('/keyed', (list) => list.length > sent);
    await until('the delivery to be recorded', async () => ((await delivery()).status === 'delivered' ? true : undefined));
    expect((await request<Readiness>(right, 'GET', '/readyz')).body.events.misconfigured).toBe(false);
    // The older grant was read with the right key: its scopes are known from now on.
    const periods = await right.database.db.selectFrom('event_grant_periods').select('scopes').where('client_id', '=', app.id).execute();
    expect(periods.map((p) => p.scopes)).toEqual([' offline_access openid system:read system:write ']);
  });
});
