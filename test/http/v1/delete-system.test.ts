// Deleting a system (issue 27, "Leaving"): POST /system/delete with exactly {"confirm": true}
// removes the system and everything it owns in one transaction, revokes every grant of its
// accounts, keeps proxied-message records (who sent them) without their system, leaves one
// `system.deleted` event for the apps authorized until then, and the audit log's entry. Signing in
// again starts a new, empty system.
import * as oidc from 'openid-client';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { MessageInfo } from '../../../src/domain/proxied-message.js';
import type { System } from '../../../src/domain/system.js';
import type { Tag } from '../../../src/domain/tag.js';
import { ALL_API_SCOPES, errorTypes, request, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient, postForm, type TestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { snapshotDatabase } from '../../support/snapshot.js';
import { Receiver, verifySignature } from '../../events/receiver.js';

const GUILD = '300000000000000001';
const CHANNEL = '400000000000000001';
let seq = 0;
const snowflake = (time = Date.now()) => ((BigInt(time - 1_420_070_400_000) << 22n) | BigInt(++seq)).toString();
let users = 0;
const newUserId = () => `2000000000000027${String(++users).padStart(2, '0')}`;

/** Tables whose rows belong to one system, by the column that says which. */
const SYSTEM_TABLES = ['alters', 'tags', 'alter_fields', 'autoproxy', 'switches', 'import_alter_links', 'import_tag_links', 'applied_imports', 'system_sub_accounts', 'images'] as const;

const PLURALKIT_FILE = JSON.stringify({
  version: 2,
  id: 'exmpl',
  name: 'Imported system',
  members: [{ id: 'aaaaa', name: 'Imported' }],
  groups: [{ id: 'ggggg', name: 'Imported group', members: ['aaaaa'] }],
  switches: [],
});

describe.each(DIALECTS)('deleting a system (%s)', (dialect) => {
  let server: TestServer;
  /** A first-party client (the bot's kind: it records proxied messages) and an app with webhook access. */
  let bot: TestClient;
  let app: TestClient;
  let appToken: string;
  let moderator: ApiUser;
  let receiver: Receiver;
  let endpoint: { id: string; secret: string };

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false', EVENTS_ALLOW_PRIVATE_ADDRESSES: 'true', EVENTS_POLL_INTERVAL_MS: '50' });
    receiver = new Receiver();
    await receiver.start();
    bot = await createTestClient(server, { name: 'Bot', firstParty: true });
    app = await createTestClient(server, {
      name: 'Tracker',
      grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
      scopes: ['openid', 'offline_access', 'system:read', 'alters:read', 'events:manage'],
    });
    appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    moderator = await signIn(server, newUserId(), { client: bot });
    const created = await request<{ data: { id: string }; secret: string }>(server, 'POST', '/v1/events/endpoints', {
      token: appToken,
      body: { url: receiver.url('/hooks'), eventTypes: ['system.updated', 'system.deleted'] },
    });
    expect(created.status).toBe(201);
    endpoint = { id: created.body.data.id, secret: created.body.secret };
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.stop();
  });

  const db = () => server.database.db;
  const deleteSystem = (user: ApiUser, body?: unknown) => user.call<{ deleted: true }>('POST', '/v1/users/@me/system/delete', body);
  const systemIdOf = async (user: ApiUser) => {
    const owned = await db().selectFrom('systems').select('id').where('user_id', '=', user.userId).executeTakeFirst();
    const sub = await db().selectFrom('system_sub_accounts').select('system_id').where('user_id', '=', user.userId).executeTakeFirst();
    const id = owned?.id ?? sub?.system_id;
    if (id === undefined) throw new Error(`${user.userId} has no system`);
    return Number(id);
  };
  const feed = async (after?: string) => {
    const response = await request<{ data: { events: Array<{ type: string; data: Record<string, unknown> }>; next: string } }>(server, 'GET', `/v1/events/feed${after === undefined ? '' : `?after=${after}`}`, { token: appToken });
    expect(response.status).toBe(200);
    return { data: response.body.data.events, next: response.body.data.next };
  };

  /** A system with something in every table a system owns, and one proxied message. */
  async function populated(user: ApiUser) {
    const created = await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'kestrel', displayName: 'Kestrel', fields: { [user.client.id]: 'ext-1' }, proxyTags: [{ prefix: 'k:' }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const alter = created.body;
    const tag = (await user.call<Tag>('POST', '/v1/users/@me/system/create-tag', { name: 'crew' })).body;
    expect((await user.call('POST', `/v1/users/@me/tags/${tag.tagId}/alters`, { add: [alter.alterId] })).status, 'members').toBe(200);
    expect((await user.call('POST', '/v1/users/@me/front', { alter: alter.alterId })).status).toBe(200);
    expect((await user.call('POST', '/v1/users/@me/autoproxy', { serverId: GUILD, autoproxyMode: 'front' })).status).toBe(200);
    const imported = await request(server, 'POST', '/v1/users/@me/system/import', { token: user.token, raw: PLURALKIT_FILE, headers: { 'content-type': 'application/json', 'idempotency-key': 'leave-1' } });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    // A hosted image of the system, used as its avatar.
    const form = new FormData();
    form.append('file', new Blob([await sharp({ create: { width: 32, height: 32, channels: 3, background: '#336699' } }).png().toBuffer()], { type: 'image/png' }), 'a.png');
    const uploaded = await fetch(`${server.url}/v1/users/@me/images`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
    expect(uploaded.status).toBe(201);
    const image = ((await uploaded.json()) as { data: { url: string } }).data.url;
    expect((await user.call('POST', '/v1/users/@me/system/edit', { systemAvatar: image })).status).toBe(200);
    const message = { messageId: snowflake(), originalMessageId: snowflake(Date.now() - 5), channelId: CHANNEL, guildId: GUILD, alterId: alter.alterId, proxiedName: 'Kestrel' };
    expect((await user.call('POST', '/v1/users/@me/messages', message)).status).toBe(201);
    return { alter, tag, message, image };
  }

  async function ownedRows(systemId: number): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of SYSTEM_TABLES) counts[table] = (await db().selectFrom(table).select('system_id').where('system_id', '=', systemId).execute()).length;
    return counts;
  }

  it('refuses anything but {"confirm": true}, deleting nothing', async () => {
    const owner = await signIn(server, newUserId(), { client: bot });
    await populated(owner);
    const before = await snapshotDatabase(db());
    for (const body of [undefined, {}, { confirm: false }, { confirm: 'true' }, { confirm: 1 }, { confirm: true, also: 1 }, []]) {
      const refused = await deleteSystem(owner, body);
      expect({ body, status: refused.status }).toEqual({ body, status: 400 });
    }
    expect((await snapshotDatabase(db())).digest).toBe(before.digest);
    expect((await owner.call('GET', '/v1/users/@me/system')).status).toBe(200);
  });

  it('deletes everything the system owns, keeps its message records without it, revokes every grant, and a new sign-in starts afresh', async () => {
    const ownerId = newUserId();
    const owner = await signIn(server, ownerId, { client: bot });
    // The same person's grant to another app, with a refresh token.
    const tracker = await signIn(server, ownerId, { client: app, scope: 'openid offline_access system:read alters:read' });
    const systemId = await systemIdOf(owner);
    const { alter, message, image } = await populated(owner);
    expect((await fetch(image)).status).toBe(200);
    const owned = await ownedRows(systemId);
    for (const table of ['alters', 'tags', 'alter_fields', 'autoproxy', 'switches', 'import_alter_links', 'import_tag_links', 'applied_imports', 'images'] as const) expect(owned[table], table).toBeGreaterThan(0);
    const position = (await feed()).next;

    const response = await deleteSystem(owner, { confirm: true });
    expect(response).toMatchObject({ status: 200, body: { deleted: true } });

    expect(Object.values(await ownedRows(systemId)).every((count) => count === 0), JSON.stringify(await ownedRows(systemId))).toBe(true);
    // Its images are no longer served.
    expect((await fetch(image)).status).toBe(404);
    for (const table of ['alter_tags', 'switch_members'] as const) expect(await db().selectFrom(table).select('alter_id').where('alter_id', '=', alter.alterId).execute(), table).toEqual([]);
    // Every grant of the account is gone, with its tokens: both apps' access tokens and the refresh token.
    expect((await owner.call('GET', '/v1/users/@me/system')).status).toBe(401);
    expect((await tracker.call('GET', '/v1/users/@me/system')).status).toBe(401);
    const refresh = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'refresh_token', refresh_token: tracker.refreshToken ?? '' }, { id: app.id, secret: app.secret ?? '' });
    expect(refresh.status).toBe(400);
    expect(await db().selectFrom('oidc_payloads').select('id_hash').where('account_id', '=', ownerId).execute()).toEqual([]);
    // Only the final event is left of the system's events.
    expect((await db().selectFrom('events').select('type').where('system_id', '=', systemId).execute()).map((row) => row.type)).toEqual(['system.deleted']);

    // Moderators still learn who sent its messages, and nothing of a system that is gone.
    for (const id of [message.messageId, message.originalMessageId]) {
      const info = await moderator.call<{ data: MessageInfo }>('GET', `/v1/messages/${id}`);
      expect(info.status).toBe(200);
      expect(info.body.data).toEqual({
        messageId: message.messageId,
        originalMessageId: message.originalMessageId,
        channelId: CHANNEL,
        guildId: GUILD,
        senderId: ownerId,
        proxiedName: 'Kestrel',
        timestamp: expect.any(String) as string,
        system: null,
        alterId: null,
        alter: null,
        alterDeleted: null,
        systemDeleted: true,
        redacted: [],
      });
    }

    // The app that was authorized until now gets the final event, naming the owner.
    const events = (await feed(position)).data;
    expect(events.map((event) => event.type)).toEqual(['system.deleted']);
    expect(events[0]?.data).toMatchObject({ userId: ownerId, systemId: String(systemId), actor: { clientId: bot.id, self: false } });

    // And through its webhook, signed as every delivery; the earlier events' deliveries went with them.
    const delivered = await receiver.waitFor('/hooks', (requests) => requests.some((r) => r.json.type === 'system.deleted' && r.json.data.userId === ownerId));
    const hook = delivered.find((r) => r.json.type === 'system.deleted' && r.json.data.userId === ownerId);
    expect(hook && verifySignature(endpoint.secret, hook)).toBe(true);
    expect(hook?.json.data).toMatchObject({ userId: ownerId, systemId: String(systemId) });
    expect(await db().selectFrom('event_deliveries').select('status').where('system_id', '=', systemId).execute()).toEqual([{ status: 'delivered' }]);

    // The audit log keeps that it happened: who, through which app, which system; nothing else.
    const audit = await db().selectFrom('audit_log').selectAll().where('kind', '=', 'system-deleted').where('user_id', '=', ownerId).execute();
    expect(audit.map((row) => ({ client: row.client_id, details: row.details }))).toEqual([{ client: bot.id, details: JSON.stringify({ systemId }) }]);

    // Signing in again: a new, empty system with a new id; the app authorized anew does not see the old event.
    const again = await signIn(server, ownerId, { client: bot });
    const fresh = (await again.call<{ data: System }>('GET', '/v1/users/@me/system')).body.data;
    expect(await systemIdOf(again)).toBeGreaterThan(systemId);
    expect(fresh).toMatchObject({ systemName: 'My system', alterIds: [] });
    expect((await again.call<Alter[]>('GET', '/v1/users/@me/system/list-alters')).body).toEqual([]);
    await signIn(server, ownerId, { client: app, scope: 'openid offline_access system:read alters:read' });
    expect((await feed('0')).data.filter((event) => event.data.userId === ownerId).map((event) => event.type)).toEqual(['system.deleted']);
  });

  it('tells the apps an account authorized that its own system is gone when it discards it to join another, and they keep their access', async () => {
    const owner = await signIn(server, newUserId(), { client: bot });
    const joinerId = newUserId();
    const joiner = await signIn(server, joinerId, { client: bot });
    expect((await joiner.call('POST', '/v1/users/@me/system/create-alter', { username: 'mine', displayName: 'Mine' })).status).toBe(201);
    const ownSystem = await systemIdOf(joiner);
    const viaApp = await signIn(server, joinerId, { client: app, scope: 'openid offline_access system:read alters:read' });
    const position = (await feed()).next;

    const made = await owner.call<{ data: { code: string } }>('POST', '/v1/users/@me/system/accounts/code');
    expect(made.status).toBe(201);
    const joined = await joiner.call('POST', '/v1/users/@me/system/accounts/redeem', { code: made.body.data.code, discardOwnSystem: true });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);

    const events = (await feed(position)).data.filter((event) => event.type === 'system.deleted');
    expect(events.map((event) => event.data)).toEqual([expect.objectContaining({ userId: joinerId, systemId: String(ownSystem) })]);
    const delivered = await receiver.waitFor('/hooks', (requests) => requests.some((r) => r.json.type === 'system.deleted' && r.json.data.userId === joinerId));
    expect(delivered.filter((r) => r.json.type === 'system.deleted' && r.json.data.userId === joinerId).map((r) => r.json.data.systemId)).toEqual([String(ownSystem)]);
    // The account's grant to the app goes on, for the system it joined.
    const read = await viaApp.call<{ data: System }>('GET', '/v1/users/@me/system');
    expect(read.status).toBe(200);
    expect(read.body.data.associatedUserId).toBe(owner.userId);
  });

  it('sends the final event only to apps that were authorized with system:read', async () => {
    const ownerId = newUserId();
    const owner = await signIn(server, ownerId, { client: bot });
    // Authorized, but without system:read: it may not read the system, so it is not told.
    await signIn(server, ownerId, { client: app, scope: 'openid alters:read' });
    const position = (await feed()).next;
    expect((await deleteSystem(owner, { confirm: true })).status).toBe(200);
    expect((await feed(position)).data.filter((event) => event.data.userId === ownerId)).toEqual([]);
  });

  it('is the owning account’s alone: a sub-account and another user are refused', async () => {
    const owner = await signIn(server, newUserId(), { client: bot });
    const systemId = await systemIdOf(owner);
    const subId = newUserId();
    await db().insertInto('users').values({ id: subId, username: null, created_at: Date.now(), last_sign_in_at: null }).execute();
    await db().insertInto('system_sub_accounts').values({ user_id: subId, system_id: systemId }).execute();
    const sub = await signIn(server, subId, { client: bot });
    expect(await systemIdOf(sub)).toBe(systemId);
    const refused = await deleteSystem(sub, { confirm: true });
    expect({ status: refused.status, types: errorTypes(refused) }).toEqual({ status: 403, types: ['not-matching-oauth'] });
    const other = await request(server, 'POST', `/v1/users/${owner.userId}/system/delete`, { token: moderator.token, body: { confirm: true } });
    expect({ status: other.status, types: errorTypes(other) }).toEqual({ status: 403, types: ['not-matching-oauth'] });
    expect((await owner.call('GET', '/v1/users/@me/system')).status).toBe(200);
    // The owner may (by its numeric id as by @me); the sub-account's grants end with the system too.
    expect((await request(server, 'POST', `/v1/users/${owner.userId}/system/delete`, { token: owner.token, body: { confirm: true } })).status).toBe(200);
    expect((await sub.call('GET', '/v1/users/@me/system')).status).toBe(401);
  });

  it('leaves nothing half-deleted when the transaction fails', async () => {
    const owner = await signIn(server, newUserId(), { client: bot });
    const systemId = await systemIdOf(owner);
    await populated(owner);
    // The tombstone's placeholder owner is taken: the transaction's last steps fail.
    await db().insertInto('users').values({ id: `deleted-system:${systemId}`, username: null, created_at: Date.now(), last_sign_in_at: null }).execute();
    const before = await snapshotDatabase(db());
    const failed = await deleteSystem(owner, { confirm: true });
    expect(failed.status).toBe(500);
    expect((await snapshotDatabase(db())).digest).toBe(before.digest);
    expect((await owner.call<{ data: System }>('GET', '/v1/users/@me/system')).body.data.alterIds.length).toBeGreaterThan(0);
  });

  it('gives one 200 to concurrent deletes', async () => {
    const owner = await signIn(server, newUserId(), { client: bot });
    const responses = await Promise.all(Array.from({ length: 3 }, () => deleteSystem(owner, { confirm: true })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 401 || s === 404)).toBe(true);
  });

  it('needs system:write', async () => {
    const owner = await signIn(server, newUserId(), { client: bot, scope: `openid ${ALL_API_SCOPES.split(' ').filter((scope) => scope !== 'system:write').join(' ')}` });
    const refused = await deleteSystem(owner, { confirm: true });
    expect(refused.status).toBe(403);
    expect((await owner.call('GET', '/v1/users/@me/system')).status).toBe(200);
  });
});
