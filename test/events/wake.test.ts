// Any write that appends an event is delivered promptly, with nothing for its author to remember:
// the outbox notes the deliveries it queues, and the change watch wakes the dispatcher when the
// transaction commits (not when it rolls back). The poll interval is the longest allowed, so a
// delivery that arrives here was woken, not found by a timer: a write path that appended events
// without waking anyone would pass every other test and fail this one.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent } from '../../src/db/repositories/events/outbox.js';
import { request, signIn } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { Receiver } from './receiver.js';

const OWNER = '200000000000000801';

describe.each(DIALECTS)('the dispatcher woken by the commit of an event (%s)', (dialect) => {
  let server: TestServer;
  let receiver: Receiver;
  let systemId: number;

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false', EVENTS_ALLOW_PRIVATE_ADDRESSES: 'true', EVENTS_POLL_INTERVAL_MS: '600000' });
    receiver = new Receiver();
    await receiver.start();
    const app = await createTestClient(server, { name: 'Woken app', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: ['openid', 'offline_access', 'alters:read', 'system:write', 'events:manage'] });
    const owner = await signIn(server, OWNER, { client: app, scope: 'openid offline_access alters:read system:write' });
    expect((await owner.call('POST', '/v1/users/@me/system/edit', { systemName: 'Woken' })).status).toBe(200);
    systemId = (await server.database.db.selectFrom('systems').select('id').where('user_id', '=', OWNER).executeTakeFirstOrThrow()).id;
    const appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    const endpoint = await request(server, 'POST', '/v1/events/endpoints', { token: appToken, body: { url: receiver.url('/woken'), eventTypes: ['alter.deleted'] } });
    expect(endpoint.status).toBe(201);
  });
  afterAll(async () => {
    await receiver?.stop();
    await server?.stop();
  });

  it('delivers an event appended in a bare transaction at once, and a rolled-back one wakes nothing', async () => {
    const db = server.database.db;
    const lastRun = () => server.app.events.status().lastRunAt;
    const before = lastRun();
    await expect(
      db.transaction().execute(async (trx) => {
        await appendEvent(trx, systemId, { clientId: null, accountId: null }, { type: 'alter.deleted', alterId: 1 });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    // A wake runs the dispatcher's pass at once (in the commit's turn): none ran.
    expect(lastRun()).toBe(before);

    await db.transaction().execute((trx) => appendEvent(trx, systemId, { clientId: null, accountId: null }, { type: 'alter.deleted', alterId: 2 }));
    // The next timed pass is ten minutes away; the timeout only bounds a failure.
    const received = await receiver.waitFor('/woken', (list) => list.length >= 1, 20_000);
    expect(received.map((r) => [r.json.type, r.json.data.alterId])).toEqual([['alter.deleted', 2]]);
  });
});
