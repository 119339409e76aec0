// What the service holds for proxying: autoproxy entries (owner edits and the engine's conditional
// state changes), the proxy profile with its ETag, and proxied-message records with "message info".
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { Autoproxy } from '../../../src/domain/autoproxy.js';
import type { MessageInfo, ProxiedMessage } from '../../../src/domain/proxied-message.js';
import type { ProxyProfile } from '../../../src/domain/proxy-profile.js';
import type { System } from '../../../src/domain/system.js';
import { errorFields, errorTypes, request, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const OWNER = '200000000000000301';
const OTHER = '200000000000000302';
const GUILD = '300000000000000001';
const OTHER_GUILD = '300000000000000002';
const CHANNEL = '400000000000000001';

/** A snowflake for a message created at `time` (epoch ms), unique by `seq`. */
function snowflake(time: number, seq: number): string {
  return ((BigInt(time - 1_420_070_400_000) << 22n) | BigInt(seq)).toString();
}

let seq = 0;
const ids = (time = Date.now()) => ({ messageId: snowflake(time, ++seq), originalMessageId: snowflake(time - 50, ++seq) });

describe.each(DIALECTS)('proxying support (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  let kestrel: Alter;
  let wren: Alter;

  const profile = (user: ApiUser, guild = GUILD, headers: Record<string, string> = {}) =>
    request<ProxyProfile>(server, 'GET', `/v1/users/@me/proxy-profile?guild=${guild}`, { token: user.token, headers });
  const setEntry = (body: Record<string, unknown>, user = owner) => user.call<{ data: Autoproxy }>('POST', '/v1/users/@me/autoproxy', body);
  const entries = async () => (await owner.call<{ data: Autoproxy[] }>('GET', '/v1/users/@me/autoproxy')).body.data;
  const alterOf = async (id: number) => (await owner.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${id}`)).body.data;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    // Only a first-party client (the bot's kind) records messages: the users here act through one.
    const bot = await createTestClient(server, { name: 'Bot', firstParty: true });
    owner = await signIn(server, OWNER, { client: bot });
    other = await signIn(server, OTHER, { client: bot });
    kestrel = (await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', {
      username: 'kestrel',
      displayName: 'Kestrel',
      pronouns: 'she/her',
      avatarUrl: 'https://img.example/k.png',
      proxyTags: [{ prefix: 'k:' }, { prefix: '[', suffix: ']' }],
      nameMap: [{ server: GUILD, name: 'Kes' }],
      avatarUrlMap: { [GUILD]: 'https://img.example/k-guild.png' },
    })).body;
    wren = (await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', {
      username: 'wren',
      displayName: 'Wren',
      webhookAvatarUrl: 'https://img.example/w-hook.png',
      avatarUrl: 'https://img.example/w.png',
      proxyTags: [{ suffix: ' -w' }],
    })).body;
  });
  afterAll(async () => server?.stop());

  describe('autoproxy settings', () => {
    it('sets one entry per scope, replaces it in place and moves its revision on', async () => {
      const global = await setEntry({ serverId: '@global', autoproxyMode: 'front' });
      expect(global.status).toBe(200);
      expect(global.body.data).toEqual({ serverId: '@global', autoproxyMode: 'front', autoproxyAlter: null, lastLatchTimestamp: null, revision: 1, account: null });
      const server1 = await setEntry({ serverId: GUILD, autoproxyMode: 'alter', autoproxyAlter: String(kestrel.alterId) });
      expect(server1.body.data).toMatchObject({ autoproxyMode: 'alter', autoproxyAlter: String(kestrel.alterId), revision: 1 });
      const replaced = await setEntry({ serverId: GUILD, autoproxyMode: 'latch' });
      expect(replaced.body.data).toEqual({ serverId: GUILD, autoproxyMode: 'latch', autoproxyAlter: null, lastLatchTimestamp: null, revision: 2, account: null });
      expect((await entries()).map((entry) => entry.serverId)).toEqual(['300000000000000001', '@global'].sort());
      // The system read shows the same entries.
      const system = (await owner.call<{ data: System }>('GET', '/v1/users/@me/system')).body.data;
      expect(system.systemAutoproxy).toEqual(await entries());
    });

    it('starts a latch on an alter at a given time, or now', async () => {
      const at = '2026-11-01T10:00:00.000Z';
      const started = await setEntry({ serverId: `${GUILD}/${CHANNEL}`, autoproxyMode: 'latch', autoproxyAlter: wren.alterId, lastLatchTimestamp: at });
      expect(started.body.data).toMatchObject({ autoproxyAlter: String(wren.alterId), lastLatchTimestamp: at });
      const before = Date.now();
      const now = await setEntry({ serverId: `${GUILD}/${CHANNEL}`, autoproxyMode: 'latch', autoproxyAlter: wren.alterId });
      expect(Date.parse(now.body.data.lastLatchTimestamp ?? '')).toBeGreaterThanOrEqual(before - 5);
    });

    it.each([
      [{ serverId: 'everywhere', autoproxyMode: 'off' }, 'serverId'],
      [{ serverId: `${GUILD}/`, autoproxyMode: 'off' }, 'serverId'],
      [{ serverId: GUILD, autoproxyMode: 'alter' }, 'autoproxyAlter'],
      [{ serverId: GUILD, autoproxyMode: 'off', autoproxyAlter: '1' }, 'autoproxyAlter'],
      [{ serverId: GUILD, autoproxyMode: 'front', lastLatchTimestamp: '2026-11-01T10:00:00Z' }, 'lastLatchTimestamp'],
      [{ serverId: GUILD, autoproxyMode: 'latch', lastLatchTimestamp: '2026-11-01T10:00:00Z' }, 'lastLatchTimestamp'],
      [{ serverId: GUILD, autoproxyMode: 'sometimes' }, 'autoproxyMode'],
      [{ serverId: GUILD, autoproxyMode: 'off', extra: true }, 'extra'],
      [{ serverId: GUILD }, 'autoproxyMode'],
    ])('refuses %j naming %s, and changes nothing', async (body, field) => {
      const before = await entries();
      const response = await setEntry(body);
      expect(response.status).toBe(400);
      expect(errorFields(response)).toContain(field);
      expect(await entries()).toEqual(before);
    });

    it('refuses another system’s alter (404 unknown-alter) and changes nothing', async () => {
      const theirs = (await other.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'theirs', displayName: 'Theirs' })).body;
      const before = await entries();
      const response = await setEntry({ serverId: GUILD, autoproxyMode: 'alter', autoproxyAlter: theirs.alterId });
      expect(response.status).toBe(404);
      expect(errorTypes(response)).toEqual(['unknown-alter']);
      expect(await entries()).toEqual(before);
    });

    it('accepts a registered integration’s client id as the mode (follows its pushes) and nothing else', async () => {
      const integration = await createTestClient(server, { name: 'Switch tracker' });
      const response = await setEntry({ serverId: OTHER_GUILD, autoproxyMode: integration.id });
      expect(response.status).toBe(200);
      expect(response.body.data.autoproxyMode).toBe(integration.id);
      expect((await setEntry({ serverId: OTHER_GUILD, autoproxyMode: 'no-such-client' })).status).toBe(400);
    });

    it('removes an entry (the broader scope applies again); removing nothing is not an error', async () => {
      await setEntry({ serverId: `${GUILD}/400000000000000009`, autoproxyMode: 'off' });
      const removed = await owner.call('POST', '/v1/users/@me/autoproxy/remove', { serverId: `${GUILD}/400000000000000009` });
      expect(removed).toMatchObject({ status: 200, body: { removed: true } });
      const again = await owner.call('POST', '/v1/users/@me/autoproxy/remove', { serverId: `${GUILD}/400000000000000009` });
      expect(again).toMatchObject({ status: 200, body: { removed: false } });
    });

    it('is the owner’s alone: another user reads and writes nothing', async () => {
      const read = await request(server, 'GET', `/v1/users/${OWNER}/autoproxy`, { token: other.token });
      expect(read.status).toBe(403);
      expect(errorTypes(read)).toEqual(['not-matching-oauth']);
      const write = await request(server, 'POST', `/v1/users/${OWNER}/autoproxy`, { token: other.token, body: { serverId: '@global', autoproxyMode: 'off' } });
      expect(errorTypes(write)).toEqual(['not-matching-oauth']);
    });
  });

  describe('the proxy profile', () => {
    it('holds what the engine and the webhook need, resolved for the server', async () => {
      await owner.call('POST', '/v1/users/@me/system/edit', { systemDisplayTag: '| Flock', displayTagMap: { [GUILD]: '| F' }, flags: 1 | 2, latchExpiration: 60_000, disabledGuilds: [OTHER_GUILD] });
      const response = await profile(owner);
      expect(response.status).toBe(200);
      const body = response.body;
      expect(body).toMatchObject({
        guildId: GUILD,
        disabled: false,
        guildDisabled: false,
        caseSensitive: true,
        keepProxy: true,
        showPronouns: true,
        displayTag: '| F',
        latchExpirationMs: 60_000,
      });
      expect(body.alters).toEqual([
        { alterId: kestrel.alterId, username: 'kestrel', name: 'Kes', avatarUrl: 'https://img.example/k-guild.png', pronouns: 'she/her', color: null, alterMode: 'webhook', proxyTags: [{ prefix: 'k:', suffix: '' }, { prefix: '[', suffix: ']' }], autoproxyEnabled: true },
        { alterId: wren.alterId, username: 'wren', name: 'Wren', avatarUrl: 'https://img.example/w-hook.png', pronouns: null, color: null, alterMode: 'webhook', proxyTags: [{ prefix: '', suffix: ' -w' }], autoproxyEnabled: true },
      ]);
      // Only the entries that can be in effect in this server.
      expect(body.autoproxy.map((entry) => entry.serverId).sort()).toEqual([GUILD, `${GUILD}/${CHANNEL}`, '@global'].sort());
      const elsewhere = (await profile(owner, OTHER_GUILD)).body;
      expect(elsewhere).toMatchObject({ guildDisabled: true, displayTag: '| Flock' });
      expect(elsewhere.alters[0]).toMatchObject({ name: 'Kestrel', avatarUrl: 'https://img.example/k.png' });
      expect(elsewhere.autoproxy.map((entry) => entry.serverId).sort()).toEqual([OTHER_GUILD, '@global'].sort());
    });

    it('answers 304 to its ETag until something it shows changes, then 200 with a new ETag', async () => {
      const first = await profile(owner);
      const etag = first.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"p1-\d+-\d+"$/);
      expect(first.headers.get('cache-control')).toBe('private, no-cache');
      const unchanged = await profile(owner, GUILD, { 'if-none-match': etag });
      expect(unchanged.status).toBe(304);
      expect(unchanged.body).toBeUndefined();
      // No announced body: a Content-Length of a serialized null made HTTP clients wait for it.
      expect(unchanged.headers.get('content-length')).toBeNull();
      expect(unchanged.headers.get('content-type')).toBeNull();
      expect((await profile(owner, GUILD, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);

      // Each kind of write the profile shows moves the ETag (a forgotten one would serve a stale cache).
      const writes: Array<[string, () => Promise<unknown>]> = [
        ['alter edit', () => owner.call('POST', `/v1/users/@me/alters/${wren.alterId}/edit`, { proxyTags: [{ suffix: ' -wr' }] })],
        // Issue 27: leaving an alter out of autoproxy changes what the bot decides.
        ['alter left out of autoproxy', () => owner.call('POST', `/v1/users/@me/alters/${wren.alterId}/edit`, { autoproxyEnabled: false })],
        ['alter create', () => owner.call('POST', '/v1/users/@me/system/create-alter', { username: `new-${Date.now()}`, displayName: 'New' })],
        ['system edit', () => owner.call('POST', '/v1/users/@me/system/edit', { systemDisplayTag: '| Flock!' })],
        ['front push', () => owner.call('POST', '/v1/users/@me/front', { alter: String(kestrel.alterId) })],
        ['autoproxy set', () => setEntry({ serverId: '@global', autoproxyMode: 'off' })],
        ['autoproxy remove', () => owner.call('POST', '/v1/users/@me/autoproxy/remove', { serverId: '@global' })],
      ];
      let current = etag;
      for (const [what, write] of writes) {
        await write();
        const after = await profile(owner, GUILD, { 'if-none-match': current });
        expect({ what, status: after.status }).toEqual({ what, status: 200 });
        const next = after.headers.get('etag') ?? '';
        expect(next).not.toBe(current);
        current = next;
      }
      expect((await profile(owner, GUILD)).body.alters.find((alter) => alter.alterId === wren.alterId)?.autoproxyEnabled).toBe(false);
      // A write that shows nowhere in the profile keeps it: an alter's description, its birthday.
      await owner.call('POST', `/v1/users/@me/alters/${wren.alterId}/edit`, { description: 'quiet' });
      await owner.call('POST', `/v1/users/@me/alters/${wren.alterId}/edit`, { birthday: '--03-01' });
      expect((await profile(owner, GUILD, { 'if-none-match': current })).status).toBe(304);
    });

    it('shows the front autoproxy follows: the newest push, and each followed integration’s own', async () => {
      const integration = await createTestClient(server, { name: 'Tracker' });
      const tracker = await signIn(server, OWNER, { client: integration });
      await setEntry({ serverId: `${GUILD}/400000000000000002`, autoproxyMode: integration.id });
      await tracker.call('POST', '/v1/users/@me/front', { alter: String(wren.alterId) });
      await owner.call('POST', '/v1/users/@me/front', { alter: String(kestrel.alterId) });
      const front = (await profile(owner)).body.front;
      expect(front).toEqual({ latest: kestrel.alterId, byClient: { [integration.id]: wren.alterId } });
      // Co-fronting: only the primary (the first) speaks; a switch-out leaves nobody.
      await tracker.call('POST', '/v1/users/@me/front', { alters: [String(kestrel.alterId), String(wren.alterId)] });
      expect((await profile(owner)).body.front).toEqual({ latest: kestrel.alterId, byClient: { [integration.id]: kestrel.alterId } });
      await owner.call('POST', '/v1/users/@me/front', { alters: [wren.alterId, kestrel.alterId] });
      expect((await profile(owner)).body.front).toEqual({ latest: wren.alterId, byClient: { [integration.id]: kestrel.alterId } });
      await tracker.call('POST', '/v1/users/@me/front', { alters: [] });
      expect((await profile(owner)).body.front).toEqual({ latest: null, byClient: {} });
    });

    it('moves the profile’s ETag with every switch, and not with a refused one', async () => {
      const before = await profile(owner);
      const etag = before.headers.get('etag') ?? '';
      const switched = await owner.call('POST', '/v1/users/@me/front', { alters: [kestrel.alterId] });
      expect(switched.status).toBe(200);
      const after = await profile(owner, GUILD, { 'if-none-match': etag });
      expect(after.status).toBe(200);
      const next = after.headers.get('etag') ?? '';
      expect(next).not.toBe(etag);
      expect((await owner.call('POST', '/v1/users/@me/front', { alters: [kestrel.alterId] })).status).toBe(409);
      expect((await profile(owner, GUILD, { 'if-none-match': next })).status).toBe(304);
    });

    it('is refused to others, without the scope, and without a server', async () => {
      const theirs = await request(server, 'GET', `/v1/users/${OWNER}/proxy-profile?guild=${GUILD}`, { token: other.token });
      expect(theirs.status).toBe(403);
      expect(errorTypes(theirs)).toEqual(['not-matching-oauth']);
      const noGuild = await owner.call('GET', '/v1/users/@me/proxy-profile');
      expect(noGuild.status).toBe(400);
      expect(errorFields(noGuild)).toEqual(['guild']);
      const reader = await signIn(server, OWNER, { scope: 'openid alters:read system:read' });
      expect(errorTypes(await profile(reader))).toEqual(['invalid-scopes']);
    });
  });

  describe('engine state changes', () => {
    const LATCH_SCOPE = `${GUILD}/400000000000000003`;
    const state = (body: Record<string, unknown>) => owner.call<{ applied: boolean; revision: number }>('POST', '/v1/users/@me/autoproxy/state', body);
    const latchEntry = async () => (await entries()).find((entry) => entry.serverId === LATCH_SCOPE);

    it('sets the latch, keeps it from moving back in time, and clears it', async () => {
      const { revision } = (await setEntry({ serverId: LATCH_SCOPE, autoproxyMode: 'latch' })).body.data;
      const t1 = '2026-11-20T10:00:00.000Z';
      const set = await state({ serverId: LATCH_SCOPE, revision, at: t1, latch: { alterId: kestrel.alterId } });
      expect(set.status).toBe(200);
      expect(set.body.applied).toBe(true);
      expect(await latchEntry()).toMatchObject({ autoproxyAlter: String(kestrel.alterId), lastLatchTimestamp: t1, revision });

      // An older decision recorded late neither moves nor clears a newer latch.
      const older = '2026-11-20T09:59:00.000Z';
      expect((await state({ serverId: LATCH_SCOPE, revision, at: older, latch: { alterId: wren.alterId } })).body.applied).toBe(false);
      expect((await state({ serverId: LATCH_SCOPE, revision, at: older, latch: null })).body.applied).toBe(false);
      expect(await latchEntry()).toMatchObject({ autoproxyAlter: String(kestrel.alterId), lastLatchTimestamp: t1 });

      const cleared = await state({ serverId: LATCH_SCOPE, revision, at: '2026-11-20T10:01:00.000Z', latch: null });
      expect(cleared.body.applied).toBe(true);
      expect(await latchEntry()).toMatchObject({ autoproxyAlter: null, lastLatchTimestamp: null });
    });

    it('is dropped when the owner changed the entry since the engine read it', async () => {
      const { revision } = (await setEntry({ serverId: LATCH_SCOPE, autoproxyMode: 'latch' })).body.data;
      await setEntry({ serverId: LATCH_SCOPE, autoproxyMode: 'latch' }); // the owner again: revision + 1
      const stale = await state({ serverId: LATCH_SCOPE, revision, at: new Date().toISOString(), latch: { alterId: wren.alterId } });
      expect(stale.body.applied).toBe(false);
      expect(await latchEntry()).toMatchObject({ autoproxyAlter: null });
      const off = await state({ serverId: LATCH_SCOPE, revision, at: new Date().toISOString(), mode: 'off' });
      expect(off.body.applied).toBe(false);
      expect((await latchEntry())?.autoproxyMode).toBe('latch');
    });

    it('turns an entry off (an escape), and only a latch entry latches', async () => {
      const { revision } = (await setEntry({ serverId: LATCH_SCOPE, autoproxyMode: 'front' })).body.data;
      expect((await state({ serverId: LATCH_SCOPE, revision, at: new Date().toISOString(), latch: { alterId: wren.alterId } })).body.applied).toBe(false);
      const off = await state({ serverId: LATCH_SCOPE, revision, at: new Date().toISOString(), mode: 'off' });
      expect(off.body.applied).toBe(true);
      expect(await latchEntry()).toMatchObject({ autoproxyMode: 'off', revision });
      expect((await state({ serverId: LATCH_SCOPE, revision, at: new Date().toISOString(), mode: 'off' })).body.applied).toBe(false);
    });

    it.each([
      [{ serverId: '@global', revision: 1, at: '2026-11-20T10:00:00Z' }],
      [{ serverId: '@global', revision: 1, at: '2026-11-20T10:00:00Z', mode: 'off', latch: null }],
      [{ serverId: '@global', revision: -1, at: '2026-11-20T10:00:00Z', mode: 'off' }],
      [{ serverId: '@global', revision: 1, at: 'yesterday', mode: 'off' }],
      [{ serverId: '@global', revision: 1, at: '2026-11-20T10:00:00Z', mode: 'latch' }],
    ])('refuses the malformed change %j (400)', async (body) => {
      const response = await state(body);
      expect(response.status).toBe(400);
      expect(errorTypes(response)[0]).toBe('validation');
    });
  });

  describe('proxied messages', () => {
    let otherAlter: Alter | undefined;
    /** An alter of the other user's, to record messages as. */
    async function otherWithAlter(): Promise<Alter> {
      otherAlter ??= (await other.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'shield', displayName: 'Shield' })).body;
      return otherAlter;
    }
    const record = (body: Record<string, unknown>, user = owner) => user.call<{ data: ProxiedMessage; autoproxyStateApplied: boolean | null; revision: number }>('POST', '/v1/users/@me/messages', body);
    const info = (id: string, token: string) => request<{ data: MessageInfo }>(server, 'GET', `/v1/messages/${id}`, { token });

    it('records a message, counts it on the alter, and answers the same record again without counting twice', async () => {
      const before = await alterOf(kestrel.alterId);
      const time = Date.now() - 1000;
      const message = { ...ids(time), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId };
      const first = await record(message);
      expect(first.status).toBe(201);
      expect(first.body.data).toEqual({
        messageId: message.messageId,
        originalMessageId: message.originalMessageId,
        channelId: CHANNEL,
        guildId: GUILD,
        senderId: OWNER,
        proxiedName: null,
        timestamp: new Date(time).toISOString(),
      });
      expect(first.body.autoproxyStateApplied).toBeNull();
      const retry = await record(message);
      expect(retry.status).toBe(200);
      expect(retry.body.data).toEqual(first.body.data);
      const after = await alterOf(kestrel.alterId);
      expect(after.messageCount).toBe((before.messageCount ?? 0) + 1);
      expect(after.lastMessageTimestamp).toBe(new Date(time).toISOString());

      // A late record of an older message counts but does not move the last message time back.
      await record({ ...ids(time - 60_000), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId });
      const later = await alterOf(kestrel.alterId);
      expect(later.messageCount).toBe((before.messageCount ?? 0) + 2);
      expect(later.lastMessageTimestamp).toBe(new Date(time).toISOString());
    });

    it('counts concurrent retries of one message once', async () => {
      const before = (await alterOf(wren.alterId)).messageCount ?? 0;
      const message = { ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: wren.alterId };
      const answers = await Promise.all(Array.from({ length: 8 }, () => record(message)));
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      expect((await alterOf(wren.alterId)).messageCount).toBe(before + 1);
    });

    it('refuses a different record for an id already recorded (409), changing nothing', async () => {
      const message = { ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId };
      await record(message);
      const count = (await alterOf(wren.alterId)).messageCount;
      const conflicting = await record({ ...message, alterId: wren.alterId });
      expect(conflicting.status).toBe(409);
      expect(errorTypes(conflicting)).toEqual(['duplicate']);
      const reused = await record({ ...message, messageId: ids().messageId });
      expect(reused.status).toBe(409);
      expect(errorFields(reused)).toEqual(['originalMessageId']);
      expect((await alterOf(wren.alterId)).messageCount).toBe(count);
    });

    it('refuses a record naming an id the other way round, so message info can never show another sender', async () => {
      const genuine = { ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId };
      expect((await record(genuine)).status).toBe(201);
      // Another user (a friend shielding the sender) claims the proxied message was their original.
      const friend = await otherWithAlter();
      const shield = await record(
        { messageId: ids().messageId, originalMessageId: genuine.messageId, channelId: CHANNEL, guildId: GUILD, alterId: friend.alterId },
        other,
      );
      expect(shield.status).toBe(409);
      const reversed = await record({
        messageId: genuine.originalMessageId,
        originalMessageId: ids().originalMessageId,
        channelId: CHANNEL,
        guildId: GUILD,
        alterId: kestrel.alterId,
      });
      expect(reversed.status).toBe(409);
      expect((await info(genuine.messageId, other.token)).body.data.senderId).toBe(OWNER);
    });

    it('applies the engine’s latch in the same transaction, or nothing at all', async () => {
      const scope = `${GUILD}/400000000000000004`;
      const { revision } = (await setEntry({ serverId: scope, autoproxyMode: 'latch' })).body.data;
      const at = new Date().toISOString();
      const withState = await record({ ...ids(), channelId: '400000000000000004', guildId: GUILD, alterId: wren.alterId, autoproxyState: { serverId: scope, revision, at, latch: { alterId: wren.alterId } } });
      expect(withState.status).toBe(201);
      expect(withState.body.autoproxyStateApplied).toBe(true);
      expect((await entries()).find((entry) => entry.serverId === scope)).toMatchObject({ autoproxyAlter: String(wren.alterId), lastLatchTimestamp: at });

      // The state names another system's alter: the whole record is refused.
      const count = (await alterOf(kestrel.alterId)).messageCount;
      const theirs = (await other.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'other2', displayName: 'Other' })).body;
      const message = { ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId };
      const refused = await record({
        ...message,
        autoproxyState: { serverId: scope, revision, at: new Date().toISOString(), latch: { alterId: theirs.alterId } },
      });
      expect(refused.status).toBe(404);
      expect((await alterOf(kestrel.alterId)).messageCount).toBe(count);
      expect((await info(message.messageId, owner.token)).status).toBe(404);
    });

    it.each([
      [{ alterId: 999_999 }, 404, 'unknown-alter'],
      [{ messageId: 'abc' }, 400, 'validation'],
      [{ messageId: snowflake(Date.now() + 3_600_000, 1) }, 400, 'validation'],
      [{ guildId: undefined }, 400, 'validation'],
      [{ senderId: OTHER }, 400, 'validation'],
    ])('refuses %j with %i %s', async (change, status, type) => {
      const body = { ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId, ...change };
      const response = await record(body);
      expect(response.status).toBe(status);
      expect(errorTypes(response)[0]).toBe(type);
    });

    it('refuses to record for another user or with a token lacking messages:write', async () => {
      const body = { ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId };
      const theirs = await request(server, 'POST', `/v1/users/${OWNER}/messages`, { token: other.token, body });
      expect(errorTypes(theirs)).toEqual(['not-matching-oauth']);
      const limited = await signIn(server, OWNER, { scope: 'openid alters:write messages:read' });
      expect(errorTypes(await record(body, limited))).toEqual(['invalid-scopes']);
    });

    it('reproxies: the record moves to the new message and alter, the count moves with it, a retry is harmless', async () => {
      const message = { ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId };
      await record(message);
      const kestrelBefore = (await alterOf(kestrel.alterId)).messageCount ?? 0;
      const wrenBefore = (await alterOf(wren.alterId)).messageCount ?? 0;
      const next = ids().messageId;
      const reproxy = (body: Record<string, unknown>, user = owner, id = message.messageId) => user.call<{ data: ProxiedMessage }>('POST', `/v1/users/@me/messages/${id}/reproxy`, body);
      const moved = await reproxy({ messageId: next, alterId: wren.alterId });
      expect(moved.status).toBe(200);
      expect(moved.body.data).toMatchObject({ messageId: next, originalMessageId: message.originalMessageId, senderId: OWNER });
      expect((await alterOf(kestrel.alterId)).messageCount).toBe(kestrelBefore - 1);
      expect((await alterOf(wren.alterId)).messageCount).toBe(wrenBefore + 1);
      expect((await info(message.originalMessageId, owner.token)).body.data.alter?.alterId).toBe(wren.alterId);
      expect((await info(message.messageId, owner.token)).status).toBe(404);
      // The same move again (a retry) changes nothing.
      expect((await reproxy({ messageId: next, alterId: wren.alterId })).status).toBe(200);
      expect((await alterOf(wren.alterId)).messageCount).toBe(wrenBefore + 1);
      // Unknown messages and alters are refused; the same account through another first-party client may move it, a third-party app or another user may not.
      expect((await reproxy({ messageId: ids().messageId, alterId: wren.alterId }, owner, ids().messageId)).status).toBe(404);
      expect((await reproxy({ messageId: ids().messageId, alterId: 999_999 }, owner, next)).status).toBe(404);
      const thirdParty = await signIn(server, OWNER, { client: await createTestClient(server) });
      expect(errorTypes(await reproxy({ messageId: ids().messageId, alterId: kestrel.alterId }, thirdParty, next))).toEqual(['first-party-only']);
      const elsewhere = await signIn(server, OWNER, { client: await createTestClient(server, { firstParty: true }) });
      expect((await reproxy({ messageId: ids().messageId, alterId: kestrel.alterId }, elsewhere, next)).status).toBe(200);
      const theirs = await request(server, 'POST', `/v1/users/${OWNER}/messages/${next}/reproxy`, { token: other.token, body: { messageId: ids().messageId, alterId: kestrel.alterId } });
      expect(errorTypes(theirs)).toEqual(['not-matching-oauth']);
    });

    describe('message info', () => {
      let message: { messageId: string; originalMessageId: string };
      beforeAll(async () => {
        message = ids();
        expect((await record({ ...message, channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId })).status).toBe(201);
      });

      it('finds a message by either id; its owner sees everything', async () => {
        for (const id of [message.messageId, message.originalMessageId]) {
          const response = await info(id, owner.token);
          expect(response.status).toBe(200);
          expect(response.body.data).toMatchObject({ messageId: message.messageId, senderId: OWNER, alterDeleted: false });
          expect(response.body.data.alter?.username).toBe('kestrel');
          expect(response.body.data.system).toMatchObject({ associatedUserId: OWNER, systemName: 'My system', redacted: [] });
        }
      });

      it('always shows others the sending account, and the system and alter only as privacy allows', async () => {
        const hidden = await info(message.messageId, other.token);
        expect(hidden.status).toBe(200);
        expect(hidden.body.data.senderId).toBe(OWNER);
        expect(hidden.body.data.alter).toBeNull();
        expect(hidden.body.data.alterDeleted).toBeNull();
        expect(hidden.body.data.system).toEqual({ associatedUserId: OWNER, systemName: null, systemDisplayTag: null, systemAvatar: null, systemPronouns: null, redacted: ['systemName', 'systemDisplayTag', 'systemAvatar', 'systemPronouns'] });

        await owner.call('POST', '/v1/users/@me/system/edit', { public: 1 | 64 });
        await owner.call('POST', `/v1/users/@me/alters/${kestrel.alterId}/edit`, { public: 1 | 2 });
        const shown = (await info(message.messageId, other.token)).body.data;
        expect(shown.system?.systemName).toBe('My system');
        expect(shown.alter).toMatchObject({ alterId: kestrel.alterId, displayName: 'Kestrel', username: null, pronouns: null });
        expect(shown.alterDeleted).toBe(false);

        // A client acting as itself (a bot answering a moderator who never linked) sees the public view.
        const machine = await createTestClient(server, { name: 'Moderation bot', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['messages:read', 'alters:read', 'system:read'] });
        const token = (await oidc.clientCredentialsGrant(machine.config, { scope: 'messages:read alters:read system:read' })).access_token;
        const machineView = (await info(message.originalMessageId, token)).body.data;
        expect(machineView).toEqual(shown);
        // With messages:read alone, the record is named by id: the scope reads messages, not profiles.
        const narrow = (await oidc.clientCredentialsGrant(machine.config, { scope: 'messages:read' })).access_token;
        expect((await info(message.originalMessageId, narrow)).body.data).toEqual({ ...shown, system: null, alter: null, alterId: kestrel.alterId, redacted: ['alter', 'system'] });
        await owner.call('POST', '/v1/users/@me/system/edit', { public: 0 });
        await owner.call('POST', `/v1/users/@me/alters/${kestrel.alterId}/edit`, { public: 0 });
      });

      it('always shows the name the message was sent under, even to those its private alter is hidden from', async () => {
        const named = ids();
        expect((await record({ ...named, channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId, proxiedName: 'Kes 🌙 (she/her)' })).status).toBe(201);
        const hidden = (await info(named.originalMessageId, other.token)).body.data;
        expect(hidden).toMatchObject({ proxiedName: 'Kes 🌙 (she/her)', senderId: OWNER, alter: null, alterId: null });
        // Records made before the name was kept, and records without one, say so with null.
        expect((await info(message.messageId, other.token)).body.data.proxiedName).toBeNull();
        // A reproxy sends under another name: the record follows.
        const moved = ids().messageId;
        const reproxied = await owner.call('POST', `/v1/users/@me/messages/${named.messageId}/reproxy`, { messageId: moved, alterId: wren.alterId, proxiedName: 'Wren' });
        expect(reproxied.status).toBe(200);
        expect((await info(named.originalMessageId, other.token)).body.data.proxiedName).toBe('Wren');
        const tooLong = await record({ ...ids(), channelId: CHANNEL, guildId: GUILD, alterId: kestrel.alterId, proxiedName: 'x'.repeat(321) });
        expect({ status: tooLong.status, fields: errorFields(tooLong) }).toEqual({ status: 400, fields: ['proxiedName'] });
      });

      it('is 404 unknown-message for an id never recorded, 400 for a malformed id', async () => {
        const unknown = await info(ids().messageId, owner.token);
        expect(unknown.status).toBe(404);
        expect(errorTypes(unknown)).toEqual(['unknown-message']);
        const malformed = await info('12345', owner.token);
        expect(malformed.status).toBe(400);
        expect(errorFields(malformed)).toEqual(['message']);
      });
    });
  });
});
