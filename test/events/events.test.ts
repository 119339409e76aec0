// Events end to end: a real receiver on loopback (test/events/receiver.ts) gets what the service
// pushes after real API writes. Signatures verify; content follows the grant's scopes and the
// privacy rules; failures are retried with backoff, in order per system, and given up after the
// configured time; a replay sends again; users who never authorized the client (or revoked it)
// produce nothing; loopback is refused unless the operator allows it.
import { readFileSync } from 'node:fs';
import * as oidc from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../src/domain/alter.js';
import { EventEnvelope } from '../../src/domain/events.js';
import { errorTypes, request, signIn, type ApiResponse, type ApiUser } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { SAMPLES } from '../support/samples.js';
import { snapshotDatabase } from '../support/snapshot.js';
import { Receiver, verifySignature, type Received } from './receiver.js';
import { EVENT_ENV } from './short-schedules.js';

const OWNER = '200000000000000701';
const STRANGER = '200000000000000702';
const NARROW = '200000000000000703';
const LATER = '200000000000000704';
/** Imports files with custom profile fields, through the other client (the app is authorized to read everything). */
const FIELDS = '200000000000000705';
/** The same, but the app is authorized with system:read only: profile fields are not its to see. */
const FIELDS_HIDDEN = '200000000000000706';
/** Imports files that change only alters' custom profile field values; and the same with an app that has system:read only. */
const VALUES = '200000000000000707';
const VALUES_HIDDEN = '200000000000000708';
/** Imports files that change only alters' tag memberships; and the same with an app that has system:read only. */
const MEMBERS = '200000000000000709';
const MEMBERS_HIDDEN = '200000000000000710';
const ALL_SCOPES = ['openid', 'profile', 'offline_access', 'alters:read', 'alters:write', 'system:read', 'system:write', 'system:ai-ap', 'messages:read', 'messages:write', 'events:manage'] as const;
const USER_SCOPES = 'openid offline_access alters:read alters:write system:read system:write messages:read messages:write';
const ALL_TYPES = ['alter.created', 'alter.updated', 'alter.deleted', 'system.updated', 'tag.created', 'tag.updated', 'tag.deleted', 'switch.created', 'switch.updated', 'switch.deleted', 'message.proxied'];
const FIELD_TYPES = ['profile-field.created', 'profile-field.updated', 'profile-field.deleted', 'profile-fields.ordered'];
const spText = readFileSync(`${SAMPLES}/simply-plural.json`, 'utf8');


interface EndpointAnswer {
  data: { id: string; url: string; eventTypes: string[]; enabled: boolean };
  secret: string;
}
interface DeliveryView {
  id: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  log: Array<{ statusCode: number | null; error: string | null }>;
}

function snowflake(time: number, seq: number): string {
  return ((BigInt(time - 1_420_070_400_000) << 22n) | BigInt(seq)).toString();
}

describe.each(DIALECTS)('events pushed to webhooks (%s)', (dialect) => {
  let server: TestServer;
  let receiver: Receiver;
  let app: TestClient;
  let other: TestClient;
  let appToken: string;
  /** OWNER through the app (every scope) and through another client. */
  let owner: ApiUser;
  let ownerElsewhere: ApiUser;
  /** Never authorized the app. */
  let stranger: ApiUser;
  /** Authorized the app with system:read only (writes through the other client). */
  let narrowElsewhere: ApiUser;
  const created: string[] = [];

  const events = <T = unknown>(method: string, path: string, body?: unknown, token = appToken): Promise<ApiResponse<T>> => request<T>(server, method, `/v1/events${path}`, { token, body });

  async function register(path: string, eventTypes = ALL_TYPES): Promise<EndpointAnswer> {
    const response = await events<EndpointAnswer>('POST', '/endpoints', { url: receiver.url(path), eventTypes });
    expect(response.status).toBe(201);
    created.push(response.body.data.id);
    return response.body;
  }

  async function deliveries(endpointId: string): Promise<DeliveryView[]> {
    const response = await events<{ data: DeliveryView[] }>('GET', `/endpoints/${endpointId}/deliveries`);
    expect(response.status).toBe(200);
    return response.body.data;
  }

  async function waitForDeliveries(endpointId: string, predicate: (list: DeliveryView[]) => boolean, timeoutMs = 10_000): Promise<DeliveryView[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const list = await deliveries(endpointId);
      if (predicate(list)) return list;
      if (Date.now() > until) throw new Error(`deliveries never matched: ${JSON.stringify(list, null, 1)}`);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
  }

  const editSystem = (user: ApiUser, body: Record<string, unknown>) => user.call('POST', '/v1/users/@me/system/edit', body);
  const ofSystem = (requests: Received[], userId: string) => requests.filter((r) => r.json.data.userId === userId);

  beforeAll(async () => {
    server = await startTestServer(dialect, EVENT_ENV);
    receiver = new Receiver();
    await receiver.start();
    // First-party: its users record proxied messages through it, as through the bot.
    app = await createTestClient(server, { name: 'Event app', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: [...ALL_SCOPES], firstParty: true });
    other = await createTestClient(server, { name: 'Other app' });
    appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    owner = await signIn(server, OWNER, { client: app, scope: USER_SCOPES });
    ownerElsewhere = await signIn(server, OWNER, { client: other, scope: USER_SCOPES });
    stranger = await signIn(server, STRANGER, { client: other, scope: USER_SCOPES });
    await signIn(server, NARROW, { client: app, scope: 'openid system:read' });
    narrowElsewhere = await signIn(server, NARROW, { client: other, scope: USER_SCOPES });
  });
  afterEach(async () => {
    receiver.answer = () => 200;
    for (const id of created.splice(0)) await events('POST', `/endpoints/${id}/delete`);
  });
  afterAll(async () => {
    await receiver?.stop();
    await server?.stop();
  });

  it('signs each delivery (Standard Webhooks) and sends the owner’s view with only the receiver’s own integration field', async () => {
    const endpoint = await register('/signed');
    const alter = (await ownerElsewhere.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'signed', displayName: 'Signed', description: 'private words', fields: { [other.id]: 'theirs' } })).body;
    const edited = await owner.call<Alter>('POST', `/v1/users/@me/alters/${alter.alterId}/edit`, { pronouns: 'they/them', fields: { [app.id]: 'mine' } });
    expect(edited.status).toBe(200);
    const [createdEvent, updatedEvent] = await receiver.waitFor('/signed', (list) => list.length >= 2);
    for (const received of [createdEvent, updatedEvent]) {
      if (!received) throw new Error('missing delivery');
      expect(verifySignature(endpoint.secret, received)).toBe(true);
      expect(verifySignature(endpoint.secret, { ...received, body: received.body.replace('Signed', 'Forged') })).toBe(false);
      expect(received.headers['webhook-id']).toMatch(/^msg_\d+$/);
      expect(received.headers['content-type']).toBe('application/json');
      expect(EventEnvelope.safeParse(received.json).success).toBe(true);
    }
    expect(createdEvent?.json).toMatchObject({
      type: 'alter.created',
      data: { userId: OWNER, sequence: 1, actor: { clientId: other.id, self: false }, alter: { alterId: alter.alterId, description: 'private words', fields: {} } },
    });
    expect(updatedEvent?.json).toMatchObject({
      type: 'alter.updated',
      data: { userId: OWNER, sequence: 2, actor: { clientId: app.id, self: true }, alter: { pronouns: 'they/them', fields: { [app.id]: 'mine' }, redacted: [] } },
    });
  });

  it('sends system and proxied-message events with the actor, and nothing for a user who never authorized the client', async () => {
    await register('/kinds');
    const strangerAlter = (await stranger.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'hidden', displayName: 'Hidden' })).body;
    await editSystem(stranger, { systemName: 'Not for the app' });
    expect((await editSystem(owner, { systemName: 'The Owners', public: 1 })).status).toBe(200);
    const alter = (await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'speaker', displayName: 'Speaker' })).body;
    const time = Date.now() - 1000;
    const record = await owner.call('POST', '/v1/users/@me/messages', { messageId: snowflake(time, 1), originalMessageId: snowflake(time - 5, 2), channelId: '400000000000000001', guildId: '300000000000000001', alterId: alter.alterId });
    expect(record.status).toBe(201);
    const received = await receiver.waitFor('/kinds', (list) => list.some((r) => r.json.type === 'message.proxied'));
    expect(received.map((r) => r.json.type)).toEqual(['system.updated', 'alter.created', 'message.proxied']);
    expect(received[0]?.json.data).toMatchObject({ system: { systemName: 'The Owners', public: 1, redacted: [] }, actor: { clientId: app.id, self: true } });
    expect(received[2]?.json.data).toMatchObject({ alterId: alter.alterId, message: { senderId: OWNER, messageId: snowflake(time, 1) } });
    // The stranger's writes happened first; give the dispatcher a moment more, then check nothing came.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ofSystem(receiver.at('/kinds'), STRANGER)).toEqual([]);
    expect(
      receiver.requests.filter(
        (r) => r.json.data.userId === STRANGER || (r.json.data.alter as { alterId?: number } | undefined)?.alterId === strangerAlter.alterId,
      ),
    ).toEqual([]);
  });

  it('follows the grant’s scopes: a client granted system:read gets system events and no alter events', async () => {
    const endpoint = await register('/scoped');
    await narrowElsewhere.call('POST', '/v1/users/@me/system/create-alter', { username: 'unseen', displayName: 'Unseen' });
    await editSystem(narrowElsewhere, { systemPronouns: 'we/us' });
    const received = await receiver.waitFor('/scoped', (list) => list.length >= 1);
    expect(received.map((r) => [r.json.type, r.json.data.userId])).toEqual([['system.updated', NARROW]]);
    const log = await waitForDeliveries(endpoint.data.id, (list) => list.length === 2 && list.every((d) => d.status !== 'pending'));
    expect(log.map((d) => d.status).sort()).toEqual(['delivered', 'skipped']);
    expect(log.find((d) => d.status === 'skipped')?.lastError).toContain('alters:read');
  });

  it('retries failures (5xx, timeouts) with growing waits, and logs every attempt', async () => {
    const endpoint = await register('/flaky');
    let calls = 0;
    receiver.answer = () => {
      calls++;
      return calls === 1 ? 500 : calls === 2 ? 'hang' : calls === 3 ? 503 : 200;
    };
    await editSystem(owner, { systemDescription: 'retried' });
    const received = await receiver.waitFor('/flaky', (list) => list.length >= 4);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(received.every((r) => verifySignature(endpoint.secret, r))).toBe(true);
    // The 2nd attempt hung until the 400 ms timeout; the waits after failures 1 and 3 are backoffs.
    const gaps = received.slice(1).map((r, i) => r.at - (received[i]?.at ?? 0));
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[1]).toBeGreaterThanOrEqual(400);
    const [delivery] = await waitForDeliveries(endpoint.data.id, (list) => list[0]?.status === 'delivered');
    expect(delivery).toMatchObject({ attempts: 4, lastStatusCode: 200, lastError: null });
    expect(delivery?.log.map((a) => a.statusCode)).toEqual([200, 503, null, 500]);
    expect(delivery?.log[2]?.error).toMatch(/timed out/);
  });

  it('delivers a system’s events in order while its head fails, and other systems and endpoints go on', async () => {
    await register('/ordered');
    await register('/healthy');
    let failures = 0;
    receiver.answer = (r) => {
      if (r.path === '/ordered' && r.json.data.userId === OWNER && failures < 4) {
        failures++;
        return failures % 2 === 0 ? 'hang' : 500;
      }
      return 200;
    };
    for (const n of [1, 2, 3]) await editSystem(owner, { systemPronouns: `order ${n}` });
    await editSystem(narrowElsewhere, { systemPronouns: 'meanwhile' });
    // The other system's event and the other endpoint are not held up by the failing head.
    const healthy = await receiver.waitFor('/healthy', (list) => ofSystem(list, OWNER).length === 3 && ofSystem(list, NARROW).length === 1);
    await receiver.waitFor('/ordered', (list) => ofSystem(list, NARROW).length === 1);
    expect(ofSystem(healthy, OWNER).map((r) => (r.json.data.system as { systemPronouns: string }).systemPronouns)).toEqual(['order 1', 'order 2', 'order 3']);
    const ordered = await receiver.waitFor('/ordered', (list) => ofSystem(list, OWNER).length >= 7);
    const sequences = ofSystem(ordered, OWNER).map((r) => r.json.data.sequence);
    // Five tries of the first (four failures), then the second and third: never a later one before an earlier one.
    expect(sequences.slice(0, 5).every((s) => s === sequences[0])).toBe(true);
    expect(sequences.slice(4)).toEqual([sequences[0], (sequences[0] ?? 0) + 1, (sequences[0] ?? 0) + 2]);
  });

  it('gives up after the configured time, then moves on to the next event; a replay sends it again', async () => {
    const endpoint = await register('/dead');
    receiver.answer = (r) => ((r.json.data.system as { systemPronouns?: string } | undefined)?.systemPronouns === 'doomed' ? 500 : 200);
    await editSystem(owner, { systemPronouns: 'doomed' });
    await editSystem(owner, { systemPronouns: 'after' });
    const log = await waitForDeliveries(endpoint.data.id, (list) => list.length === 2 && list.every((d) => d.status !== 'pending'), 15_000);
    const [after, doomed] = log;
    expect(doomed).toMatchObject({ status: 'failed', lastStatusCode: 500 });
    expect(doomed?.attempts).toBeGreaterThan(3);
    expect(after?.status).toBe('delivered');
    const before = receiver.at('/dead').length;
    receiver.answer = () => 200;
    const replay = await events<{ queued: number }>('POST', `/deliveries/${doomed?.id}/replay`);
    expect(replay.body).toEqual({ queued: 1 });
    const again = await receiver.waitFor('/dead', (list) => list.length > before);
    expect(again.at(-1)?.headers['webhook-id']).toBe(doomed?.id);
    expect(verifySignature(endpoint.secret, again.at(-1) as Received)).toBe(true);
    await waitForDeliveries(endpoint.data.id, (list) => list[1]?.status === 'delivered');
    // Replaying everything since the start sends both again.
    const since = await events<{ queued: number }>('POST', `/endpoints/${endpoint.data.id}/replay`, { since: new Date(Date.now() - 60_000).toISOString() });
    expect(since.body).toEqual({ queued: 2 });
    await receiver.waitFor('/dead', (list) => list.length >= before + 3);
  });

  it('stops at once when the user revokes the app: pending deliveries are skipped, new changes queue nothing', async () => {
    const endpoint = await register('/revoked');
    const later = await signIn(server, LATER, { client: app, scope: USER_SCOPES });
    const laterElsewhere = await signIn(server, LATER, { client: other, scope: USER_SCOPES });
    receiver.answer = () => 500;
    await editSystem(later, { systemName: 'before revoking' });
    await receiver.waitFor('/revoked', (list) => list.length >= 1);
    const grants = await server.database.db.selectFrom('oidc_payloads').select('grant_id').where('account_id', '=', LATER).where('client_id', '=', app.id).where('model', '=', 'Grant').execute();
    expect(grants.length).toBeGreaterThan(0);
    await server.database.db.deleteFrom('oidc_payloads').where('grant_id', 'in', grants.map((g) => g.grant_id ?? '')).execute();
    await editSystem(laterElsewhere, { systemName: 'after revoking' });
    const [delivery] = await waitForDeliveries(endpoint.data.id, (list) => list.length >= 1 && list.every((d) => d.status !== 'pending'));
    expect(delivery).toMatchObject({ status: 'skipped', lastError: 'the user no longer authorizes this client' });
    expect((await deliveries(endpoint.data.id)).length).toBe(1);
    expect(receiver.at('/revoked').every((r) => r.json.data.userId === LATER && (r.json.data.system as { systemName: string }).systemName === 'before revoking')).toBe(true);
  });

  it('reaches an endpoint named by host (localhost), connecting to the addresses it resolved and checked', async () => {
    const response = await events<EndpointAnswer>('POST', '/endpoints', { url: receiver.url('/named', 'localhost'), eventTypes: ['system.updated'] });
    expect(response.status).toBe(201);
    created.push(response.body.data.id);
    await editSystem(owner, { systemName: 'by name' });
    const [received] = await receiver.waitFor('/named', (list) => list.length >= 1);
    expect(received?.headers.host).toBe(`localhost:${receiver.port}`);
    expect(verifySignature(response.body.secret, received as Received)).toBe(true);
  });

  it('rotating the secret signs with both secrets for a while', async () => {
    const endpoint = await register('/rotated');
    const rotated = await events<EndpointAnswer & { previousSecretExpiresAt: string }>('POST', `/endpoints/${endpoint.data.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await editSystem(owner, { systemName: 'rotated' });
    const [received] = await receiver.waitFor('/rotated', (list) => list.length >= 1);
    if (!received) throw new Error('no delivery');
    expect(verifySignature(endpoint.secret, received)).toBe(true);
    expect(verifySignature(rotated.body.secret, received)).toBe(true);
    expect(received.headers['webhook-signature']?.split(' ')).toHaveLength(2);
  });

  it('endpoint management: client-credentials tokens only, one’s own endpoints only, validated input', async () => {
    const user = await events('GET', '/endpoints', undefined, owner.token);
    expect(user.status).toBe(403);
    expect(errorTypes(user)).toEqual(['invalid-scopes']);
    const withScope = await signIn(server, OWNER, { client: app, scope: 'openid events:manage' });
    const userToken = await events('GET', '/endpoints', undefined, withScope.token);
    expect(userToken.status).toBe(403);
    expect(errorTypes(userToken)).toEqual(['client-token-required']);
    const noToken = await events('GET', '/endpoints', undefined, '');
    expect(noToken.status).toBe(401);
    const otherApp = await createTestClient(server, { name: 'Third app', grantTypes: ['client_credentials'], scopes: ['events:manage'], redirectUris: [] });
    const otherToken = (await oidc.clientCredentialsGrant(otherApp.config, { scope: 'events:manage' })).access_token;
    const mine = await register('/mine');
    expect((await events('GET', `/endpoints/${mine.data.id}`, undefined, otherToken)).status).toBe(404);
    expect((await events('POST', `/endpoints/${mine.data.id}/delete`, undefined, otherToken)).status).toBe(404);
    expect((await events<{ data: unknown[] }>('GET', '/endpoints', undefined, otherToken)).body.data).toEqual([]);
    const bad = await events('POST', '/endpoints', { url: 'ftp://example.com/x', eventTypes: ['alter.exploded'] });
    expect(bad.status).toBe(400);
    expect(errorTypes(bad)).toEqual(['validation', 'validation']);
    const userinfo = await events('POST', '/endpoints', { url: 'https://user:pw@example.com/x', eventTypes: ['alter.created'] });
    expect(userinfo.status).toBe(400);
    const edited = await events<{ data: { eventTypes: string[]; enabled: boolean } }>('POST', `/endpoints/${mine.data.id}/edit`, { eventTypes: ['system.updated'], enabled: false });
    expect(edited.body.data).toMatchObject({ eventTypes: ['system.updated'], enabled: false });
    const listed = await events<{ data: Array<{ id: string }> }>('GET', '/endpoints');
    expect(listed.body.data.map((e) => e.id)).toContain(mine.data.id);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    // The secret is sealed at rest: no table holds it, nor its key, in any form.
    const everything = JSON.stringify(await snapshotDatabase(server.database.db));
    const key = mine.secret.slice('whsec_'.length);
    for (const form of [mine.secret, key, Buffer.from(key, 'base64').toString('hex'), Buffer.from(key, 'base64').toString('base64url')]) expect(everything).not.toContain(form);
  });

  it('announces tags, alter deletes, switches and imports, each with the app that made it, in the order they happened', async () => {
    await register('/changes');
    const switcher = await signIn(server, OWNER, { client: other, scope: `${USER_SCOPES} system:ai-ap` });
    const alter = (await ownerElsewhere.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'changing', displayName: 'Changing' })).body;
    const tag = (await ownerElsewhere.call<{ tagId: number }>('POST', '/v1/users/@me/system/create-tag', { name: 'Changers', description: 'd' })).body;
    expect((await ownerElsewhere.call('POST', `/v1/users/@me/tags/${tag.tagId}/alters`, { add: [alter.alterId] })).status).toBe(200);
    expect((await ownerElsewhere.call('POST', `/v1/users/@me/tags/${tag.tagId}/edit`, {})).status).toBe(200); // changes nothing: no event
    expect((await switcher.call('POST', '/v1/users/@me/front', { alters: [alter.alterId] })).status).toBe(200);
    expect((await ownerElsewhere.call('POST', `/v1/users/@me/tags/${tag.tagId}/delete`)).status).toBe(200);
    expect((await ownerElsewhere.call('POST', `/v1/users/@me/alters/${alter.alterId}/delete`)).status).toBe(200);
    const file = { tuppers: [{ id: 1, name: 'From a file', brackets: ['ff:', ''] }], groups: [] };
    expect((await ownerElsewhere.call('POST', '/v1/users/@me/system/import', file)).status).toBe(200);

    const expected = ['alter.created', 'tag.created', 'tag.updated', 'switch.created', 'tag.deleted', 'alter.deleted', 'alter.created'];
    const received = await receiver.waitFor('/changes', (list) => ofSystem(list, OWNER).length >= expected.length);
    const mine = ofSystem(received, OWNER).sort((a, b) => Number(a.json.data.sequence) - Number(b.json.data.sequence));
    expect(mine.map((r) => r.json.type)).toEqual(expected);
    for (const event of mine) {
      expect(EventEnvelope.safeParse(event.json).success, JSON.stringify(event.json)).toBe(true);
      expect(event.json.data.actor).toEqual({ clientId: other.id, clientName: 'Other app', self: false, accountId: OWNER });
    }
    expect(mine[2]?.json.data.tag).toMatchObject({ tagId: tag.tagId, alterIds: [alter.alterId] });
    expect(mine[3]?.json.data).toMatchObject({ alterIds: [alter.alterId] });
    expect(mine[5]?.json.data).toMatchObject({ alterId: alter.alterId });
    expect(mine[6]?.json.data.alter).toMatchObject({ displayName: 'From a file' });
  });
  it('announces the profile fields an import creates and deletes, in every format, as the API’s field writes do; a preview announces nothing', async () => {
    await register('/fields', [...ALL_TYPES, ...FIELD_TYPES]);
    await signIn(server, FIELDS, { client: app, scope: USER_SCOPES });
    const writer = await signIn(server, FIELDS, { client: other, scope: USER_SCOPES });
    await signIn(server, FIELDS_HIDDEN, { client: app, scope: 'openid system:read' });
    const hiddenWriter = await signIn(server, FIELDS_HIDDEN, { client: other, scope: USER_SCOPES });
    type FeedEvent = { type: string; data: { userId: string; sequence: number; field?: Record<string, unknown>; fieldId?: number } };
    type Feed = { data: { events: FeedEvent[]; next: string } };
    const start = await events<Feed>('GET', '/feed');
    const importFile = async (user: ApiUser, body: string, query = '') => {
      const response = await request<{ data: { counts: { profileFields: unknown } } }>(server, 'POST', `/v1/users/@me/system/import${query}`, {
        token: user.token, raw: body, headers: { 'content-type': 'application/json' },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data;
    };
    const listFields = async () => (await writer.call<Array<{ fieldId: number; name: string }>>('GET', '/v1/users/@me/system/list-profile-fields')).body;

    const made = await writer.call<{ fieldId: number }>('POST', '/v1/users/@me/system/create-profile-field', { name: 'Made here' });
    expect(made.status).toBe(201);
    // A preview writes nothing, so announces nothing; then the Simply Plural file's five fields.
    expect((await importFile(writer, spText, '?dryRun=true')).counts.profileFields).toEqual({ created: 5, matched: 0, deleted: 0 });
    expect((await importFile(writer, spText)).counts.profileFields).toEqual({ created: 5, matched: 0, deleted: 0 });
    const spFields = await listFields();
    await importFile(hiddenWriter, spText);
    // Our own format: a PluralKit file whose `switchboard` key carries the fields; merge adds one,
    // replace then deletes the six the file lacks.
    const ours = (members: Array<{ id: string; name: string }>) => JSON.stringify({
      version: 2, id: 'fldsy', name: 'Fields', switches: [], groups: [], members: members.map((member) => ({ ...member, privacy: { visibility: 'private' } })),
      switchboard: { version: 1, profileFields: [{ id: '1', name: 'Likes', kind: 'text', privacy: 'everyone' }], alters: { lkmem: { profileFields: { 1: 'tea' } } } },
    });
    expect((await importFile(writer, ours([{ id: 'lkmem', name: 'Liker' }]))).counts.profileFields).toEqual({ created: 1, matched: 0, deleted: 0 });
    const likes = (await listFields()).find((field) => field.name === 'Likes');
    expect((await importFile(writer, ours([{ id: 'lkmem', name: 'Liker' }]), '?mode=replace&dryRun=true')).counts.profileFields).toEqual({ created: 0, matched: 1, deleted: 6 });
    expect((await importFile(writer, ours([{ id: 'lkmem', name: 'Liker' }]), '?mode=replace')).counts.profileFields).toEqual({ created: 0, matched: 1, deleted: 6 });
    expect((await listFields()).map((field) => field.name)).toEqual(['Likes']);

    const feed = await events<Feed>('GET', `/feed?after=${start.body.data.next}&max=500`);
    const of = (userId: string) => feed.body.data.events.filter((event) => event.data.userId === userId);
    const fieldEvents = of(FIELDS).filter((event) => event.type.startsWith('profile-field'));
    const sp = spFields.filter((field) => field.name !== 'Made here');
    expect(fieldEvents.map((event) => [event.type, event.data.field?.name ?? event.data.fieldId])).toEqual([
      ['profile-field.created', 'Made here'],
      ...sp.map((field) => ['profile-field.created', field.name]),
      ['profile-field.created', 'Likes'],
      ...spFields.map((field) => ['profile-field.deleted', field.fieldId]),
    ]);
    // The field as the API reads it, each import's field events before its alters' (whose values name them).
    expect(fieldEvents.slice(0, 6).map((event) => event.data.field)).toEqual(spFields);
    expect(fieldEvents[6]?.data.field).toEqual((await writer.call<{ data: unknown }>('GET', `/v1/users/@me/profile-fields/${likes?.fieldId}`)).body.data);
    const types = of(FIELDS).map((event) => event.type);
    expect(types.slice(1, 7)).toEqual(['profile-field.created', 'profile-field.created', 'profile-field.created', 'profile-field.created', 'profile-field.created', 'alter.created']);
    // Not the app's to see without alters:read: neither the fields nor the alters that hold them.
    expect(of(FIELDS_HIDDEN).map((event) => event.type)).toEqual(['system.updated']);

    // Pushed to the webhook alike, in order, as the feed shows them (once each: a delivery that
    // timed out on a loaded machine is sent again, as receivers are told to expect).
    const once = (list: Received[]) => [...new Map(list.map((r) => [String(r.json.data.eventId), r])).values()];
    const received = await receiver.waitFor('/fields', (list) => once(ofSystem(list, FIELDS)).length >= of(FIELDS).length);
    const pushed = once(ofSystem(received, FIELDS)).sort((a, b) => Number(a.json.data.sequence) - Number(b.json.data.sequence));
    expect(pushed.map((r) => r.json.type)).toEqual(types);
    for (const event of pushed) expect(EventEnvelope.safeParse(event.json).success, JSON.stringify(event.json)).toBe(true);
    expect(pushed.filter((r) => r.json.type.startsWith('profile-field')).map((r) => r.json.data.field ?? r.json.data.fieldId)).toEqual(fieldEvents.map((event) => event.data.field ?? event.data.fieldId));
    expect(once(ofSystem(received, FIELDS_HIDDEN)).map((r) => r.json.type)).toEqual(['system.updated']);
  });

  it('announces an alter whose import changed only its custom profile field values (merge sets, replace clears), as an API edit of them does; the same file again announces nothing', async () => {
    const reader = await signIn(server, VALUES, { client: app, scope: USER_SCOPES });
    const writer = await signIn(server, VALUES, { client: other, scope: USER_SCOPES });
    await signIn(server, VALUES_HIDDEN, { client: app, scope: 'openid system:read' });
    const hiddenWriter = await signIn(server, VALUES_HIDDEN, { client: other, scope: USER_SCOPES });
    type FeedEvent = { type: string; data: { userId: string; alter?: Alter } };
    type Counts = { alters: Record<string, number> };
    const importFile = async (user: ApiUser, body: string, query = '') => {
      const response = await request<{ data: { counts: Counts } }>(server, 'POST', `/v1/users/@me/system/import${query}`, {
        token: user.token, raw: body, headers: { 'content-type': 'application/json' },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data.counts.alters;
    };
    // The sample with one member's values (Simply Plural's `info`, by its custom field's id) as given.
    const withInfo = (base: string, name: string, info: (current: Record<string, string>) => Record<string, string>) => {
      const file = JSON.parse(base) as { members: Array<{ name: string; info: Record<string, string> | null }> };
      for (const member of file.members) if (member.name === name) member.info = info(member.info ?? {});
      return JSON.stringify(file);
    };
    const ROLE = '66d00000000000000000aa03';
    const CHECKUP = '66d00000000000000000aa05';
    const librarian = withInfo(spText, 'Cy Brightwater', (info) => ({ ...info, [ROLE]: 'Librarian' }));
    const unchecked = withInfo(librarian, 'Bea', ({ [CHECKUP]: _gone, ...info }) => info);
    const one = { created: 0, updated: 1, unchanged: 7, deleted: 0 };
    const none = { created: 0, updated: 0, unchanged: 8, deleted: 0 };
    for (const user of [writer, hiddenWriter]) await importFile(user, spText);
    const idOf = async (username: string) => (await writer.call<Alter[]>('GET', '/v1/users/@me/system/list-alters')).body.find((alter) => alter.username === username)?.alterId;
    const cy = await idOf('CyBrightwater');
    const bea = await idOf('Bea');
    const read = async (id: number | undefined) => (await reader.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${id}`)).body.data;
    const start = await events<{ data: { next: string } }>('GET', '/feed');

    // Merge sets a value; replace clears one (the file's fields are all the system's: none deleted).
    for (const [file, query] of [[librarian, ''], [unchecked, '?mode=replace']] as const) {
      expect(await importFile(writer, file, `${query}${query ? '&' : '?'}dryRun=true`)).toEqual(one);
      expect(await importFile(writer, file, query)).toEqual(one);
      expect(await importFile(writer, file, query)).toEqual(none);
      await importFile(hiddenWriter, file, query);
    }
    const cyImported = await read(cy);
    const beaImported = await read(bea);
    expect(cyImported.profileFields).toMatchObject({ [Object.keys(cyImported.profileFields)[0] ?? '']: 'Librarian' });
    expect(Object.keys(beaImported.profileFields)).toHaveLength(1);
    // The API's edit of a value, for comparison.
    const roleId = Object.keys(cyImported.profileFields)[0] ?? '';
    expect((await writer.call('POST', `/v1/users/@me/alters/${cy}/edit`, { profileFields: { [roleId]: 'Archivist' } })).status).toBe(200);

    const feed = await events<{ data: { events: FeedEvent[] } }>('GET', `/feed?after=${start.body.data.next}&max=500`);
    const of = (userId: string) => feed.body.data.events.filter((event) => event.data.userId === userId);
    expect(of(VALUES).map((event) => [event.type, event.data.alter?.alterId])).toEqual([['alter.updated', cy], ['alter.updated', bea], ['alter.updated', cy]]);
    // Each carries the alter as the app reads it after the change, values included, as the edit's does.
    expect(of(VALUES).map((event) => event.data.alter)).toEqual([cyImported, beaImported, await read(cy)]);
    // An app without alters:read is sent none of it.
    expect(of(VALUES_HIDDEN)).toEqual([]);
  });

  it('announces an alter whose import changed only its tag memberships (merge joins a tag, replace leaves one) exactly as an API edit of its tagIds does; a preview and the same file again announce nothing', async () => {
    const reader = await signIn(server, MEMBERS, { client: app, scope: USER_SCOPES });
    const writer = await signIn(server, MEMBERS, { client: other, scope: USER_SCOPES });
    await signIn(server, MEMBERS_HIDDEN, { client: app, scope: 'openid system:read' });
    const hiddenWriter = await signIn(server, MEMBERS_HIDDEN, { client: other, scope: USER_SCOPES });
    type FeedEvent = { type: string; data: { userId: string; eventId: string; sequence: number; alter?: Alter; tagId?: number } };
    const importFile = async (user: ApiUser, body: string, query = '') => {
      const response = await request<{ data: { counts: { alters: Record<string, number>; tags: Record<string, number> } } }>(server, 'POST', `/v1/users/@me/system/import${query}`, {
        token: user.token, raw: body, headers: { 'content-type': 'application/json' },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data.counts;
    };
    // The sample with one group's members (Simply Plural member ids) as given.
    const withMembers = (base: string, group: string, members: (current: string[]) => string[]) => {
      const file = JSON.parse(base) as { groups: Array<{ name: string; members: string[] }> };
      for (const doc of file.groups) if (doc.name === group) doc.members = members(doc.members);
      return JSON.stringify(file);
    };
    const ASH = '64a0000000000000000000a1';
    const ELI = '64a0000000000000000000e5';
    const joined = withMembers(spText, 'Late Crew', (members) => [...members, ELI]);
    const left = withMembers(joined, 'Guardians', (members) => members.filter((id) => id !== ASH));
    // One alter updated, no tag: a tag whose members alone change is unchanged, as its own fields are.
    const one = { alters: { created: 0, updated: 1, unchanged: 7, deleted: 0 }, tags: { created: 0, updated: 0, unchanged: 3, deleted: 0 } };
    const none = { alters: { created: 0, updated: 0, unchanged: 8, deleted: 0 }, tags: { created: 0, updated: 0, unchanged: 3, deleted: 0 } };
    for (const user of [writer, hiddenWriter]) await importFile(user, spText);
    const idOf = async (username: string) => (await writer.call<Alter[]>('GET', '/v1/users/@me/system/list-alters')).body.find((alter) => alter.username === username)?.alterId;
    const eli = await idOf('Eli');
    const ash = await idOf('Ash');
    const read = async (id: number | undefined) => (await reader.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${id}`)).body.data;
    const ashBefore = await read(ash);
    expect((await read(eli)).tagIds).toEqual([]);
    expect(ashBefore.tagIds).toHaveLength(1);
    const start = await events<{ data: { next: string } }>('GET', '/feed');

    for (const [file, query] of [[joined, ''], [left, '?mode=replace']] as const) {
      expect(await importFile(writer, file, `${query}${query ? '&' : '?'}dryRun=true`)).toMatchObject(one);
      expect(await importFile(writer, file, query)).toMatchObject(one);
      expect(await importFile(writer, file, query)).toMatchObject(none);
      await importFile(hiddenWriter, file, query);
    }
    const eliImported = await read(eli);
    const ashImported = await read(ash);
    expect(eliImported.tagIds).toHaveLength(1);
    expect(ashImported.tagIds).toEqual([]);
    // The same changes through the API: each undone, then made again by an edit of the alter's tagIds.
    const edit = async (id: number | undefined, tagIds: number[]) => expect((await writer.call('POST', `/v1/users/@me/alters/${id}/edit`, { tagIds })).status).toBe(200);
    await edit(eli, []);
    await edit(eli, eliImported.tagIds);
    await edit(ash, ashBefore.tagIds);
    await edit(ash, []);
    // Replace without a group: its deletion alone is announced (tag.deleted), as the API's deletion
    // of it is, not its members' leaving it (Eli and Dee were in it alone, Bea stays in Guardians).
    const leftFile = JSON.parse(left) as { groups: Array<{ name: string }> };
    const dropped = JSON.stringify({ ...leftFile, groups: leftFile.groups.filter((doc) => doc.name !== 'Late Crew') });
    const dropping = { alters: none.alters, tags: { created: 0, updated: 0, unchanged: 2, deleted: 1 } };
    expect(await importFile(writer, dropped, '?mode=replace&dryRun=true')).toMatchObject(dropping);
    expect(await importFile(writer, dropped, '?mode=replace')).toMatchObject(dropping);
    expect(await importFile(writer, dropped, '?mode=replace')).toMatchObject({ alters: none.alters, tags: { created: 0, updated: 0, unchanged: 2, deleted: 0 } });
    expect((await read(eli)).tagIds).toEqual([]);

    const feed = await events<{ data: { events: FeedEvent[] } }>('GET', `/feed?after=${start.body.data.next}&max=500`);
    const of = (userId: string) => feed.body.data.events.filter((event) => event.data.userId === userId);
    const mine = of(MEMBERS);
    expect(mine.map((event) => [event.type, event.data.alter?.alterId ?? event.data.tagId])).toEqual([
      ...[eli, ash, eli, eli, ash, ash].map((id) => ['alter.updated', id]),
      ['tag.deleted', eliImported.tagIds[0]],
    ]);
    const eliLeft = { ...eliImported, tagIds: [] };
    expect(mine.map((event) => event.data.alter)).toEqual([eliImported, ashImported, eliLeft, eliImported, ashBefore, ashImported, undefined]);
    // The import's event is the API edit's, but for its number.
    const unnumbered = ({ type, data: { eventId: _id, sequence: _sequence, ...data } }: FeedEvent) => ({ type, data });
    expect(unnumbered(mine[0] as FeedEvent)).toEqual(unnumbered(mine[3] as FeedEvent));
    expect(unnumbered(mine[1] as FeedEvent)).toEqual(unnumbered(mine[5] as FeedEvent));
    // An app without alters:read is sent none of it.
    expect(of(MEMBERS_HIDDEN)).toEqual([]);
  });

  it('serves the same events as a feed to read: from now, as the grants and privacy allow, none of users who never authorized the client, page by page', async () => {
    type Feed = { data: { events: Array<{ type: string; data: Record<string, unknown> }>; next: string; more: boolean } };
    const start = await events<Feed>('GET', '/feed');
    expect(start.status).toBe(200);
    expect(start.body.data.events).toEqual([]);
    await ownerElsewhere.call('POST', '/v1/users/@me/system/create-alter', { username: 'fed-one', displayName: 'Fed one', description: 'owner words' });
    await stranger.call('POST', '/v1/users/@me/system/create-alter', { username: 'strange', displayName: 'Strange' });
    await editSystem(narrowElsewhere, { systemDescription: 'narrow feed' });
    await ownerElsewhere.call('POST', '/v1/users/@me/system/create-alter', { username: 'fed-two', displayName: 'Fed two' });
    await narrowElsewhere.call('POST', '/v1/users/@me/system/create-alter', { username: 'narrow-alter', displayName: 'Narrow' });

    const first = await events<Feed>('GET', `/feed?after=${start.body.data.next}&max=2`);
    expect(first.status).toBe(200);
    expect(first.body.data.events.map((e) => [e.type, e.data.userId])).toEqual([['alter.created', OWNER], ['system.updated', NARROW]]);
    expect(first.body.data.events[0]?.data).toMatchObject({ actor: { clientId: other.id, clientName: 'Other app', self: false }, alter: { username: 'fed-one', description: 'owner words' } });
    expect(first.body.data.more).toBe(true);
    const second = await events<Feed>('GET', `/feed?after=${first.body.data.next}`);
    // NARROW granted system:read only: its alter event is not the client's to see; STRANGER never authorized it.
    expect(second.body.data.events.map((e) => [e.type, e.data.userId])).toEqual([['alter.created', OWNER]]);
    expect(second.body.data.more).toBe(false);
    const after = await events<Feed>('GET', `/feed?after=${second.body.data.next}`);
    expect(after.body.data).toEqual({ events: [], next: second.body.data.next, more: false });

    expect((await events('GET', '/feed', undefined, owner.token)).status).toBe(403); // a user's token: the feed is the app's
    expect(errorTypes(await events('GET', '/feed?after=-1'))).toEqual(['validation']);
    expect(errorTypes(await events('GET', '/feed?max=501'))).toEqual(['max-too-high']);
  });
});

describe.each(DIALECTS)('events without private addresses allowed (%s)', (dialect) => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    server = await startTestServer(dialect, { ...EVENT_ENV, EVENTS_ALLOW_PRIVATE_ADDRESSES: 'false' });
    receiver = new Receiver();
    await receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await server?.stop();
  });

  it('refuses http:// endpoints and never connects to loopback, by address or by name', async () => {
    const app = await createTestClient(server, { name: 'Event app', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: [...ALL_SCOPES] });
    const token = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    const owner = await signIn(server, OWNER, { client: app, scope: USER_SCOPES });
    const plain = await request(server, 'POST', '/v1/events/endpoints', { token, body: { url: receiver.url('/plain'), eventTypes: ['system.updated'] } });
    expect(plain.status).toBe(400);
    expect(JSON.stringify(plain.body)).toContain('https');
    const ids: string[] = [];
    for (const url of [`https://127.0.0.1:${receiver.port}/literal`, `https://localhost:${receiver.port}/named`, `https://[::1]:${receiver.port}/six`]) {
      const response = await request<EndpointAnswer>(server, 'POST', '/v1/events/endpoints', { token, body: { url, eventTypes: ['system.updated'] } });
      expect(response.status).toBe(201);
      ids.push(response.body.data.id);
    }
    await owner.call('POST', '/v1/users/@me/system/edit', { systemName: 'no ssrf' });
    for (const id of ids) {
      const until = Date.now() + 10_000;
      let list: DeliveryView[] = [];
      while (Date.now() < until) {
        list = (await request<{ data: DeliveryView[] }>(server, 'GET', `/v1/events/endpoints/${id}/deliveries`, { token })).body.data;
        if (list[0] && list[0].attempts >= 2) break;
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      expect(list[0]?.lastStatusCode).toBeNull();
      expect(list[0]?.lastError).toBe('refused: not a public address');
      // Neither the address nor the resolver's answer reaches the app.
      expect(JSON.stringify(list)).not.toMatch(/127\.0\.0\.1|::1|resolves/);
    }
    expect(receiver.requests).toEqual([]);
  });

});

describe.runIf(DIALECTS.includes('postgres'))('events with two service processes on one PostgreSQL database', () => {
  let first: TestServer;
  let second: TestServer;
  let receiver: Receiver;

  // What this proves is once-only, in-order delivery with two dispatchers, not the schedules: a
  // give-up 2.5 s after queuing (EVENT_ENV) ended, on a loaded machine, events queued while the
  // 60 edits were still being made, and a 400 ms delivery timeout turned slow successes into
  // retries (a second delivery of an event the receiver had taken).
  const env = { ...EVENT_ENV, EVENTS_GIVE_UP_AFTER_MS: '300000', EVENTS_DELIVERY_TIMEOUT_MS: '10000' };

  beforeAll(async () => {
    first = await startTestServer('postgres', env);
    second = await startTestServer('postgres', { ...env, DATABASE_URL: first.testDatabase.url });
    receiver = new Receiver();
    await receiver.start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await second?.stop();
    await first?.stop();
  });

  it('delivers each event once, in order per system, while both dispatchers claim from the same queue', { timeout: 120_000 }, async () => {
    const app = await createTestClient(first, { name: 'Event app', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: [...ALL_SCOPES] });
    const token = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    const users = [];
    for (const userId of [OWNER, STRANGER, NARROW]) users.push(await signIn(first, userId, { client: app, scope: USER_SCOPES }));
    expect((await request(first, 'POST', '/v1/events/endpoints', { token, body: { url: receiver.url('/shared'), eventTypes: ['system.updated'] } })).status).toBe(201);
    // The first request of every 7th event fails (503) and is retried; the rest succeed at once.
    const answered = new Map<string, number>();
    const successes: Received[] = [];
    receiver.answer = (r) => {
      const id = r.headers['webhook-id'] ?? '';
      const tries = (answered.get(id) ?? 0) + 1;
      answered.set(id, tries);
      if (r.json.data.sequence % 7 === 3 && tries === 1) return 503;
      successes.push(r);
      return 200;
    };
    await first.app.events.stop();
    await second.app.events.stop();
    for (let n = 1; n <= 20; n++) for (const user of users) expect((await user.call('POST', '/v1/users/@me/system/edit', { systemPronouns: `n${n}` })).status).toBe(200);
    first.app.events.start();
    second.app.events.start();
    const until = Date.now() + 60_000;
    while (successes.length < 60 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = successes.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    for (const user of users) {
      const sequences = successes.filter((r) => r.json.data.userId === user.userId).map((r) => r.json.data.sequence);
      expect(sequences).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    }
    const received = receiver.at('/shared');
    expect(received.length).toBeGreaterThan(60);
  });

});
