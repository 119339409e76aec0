// Deleting an alter (issue 13): one transaction removes it from its tags, its integration fields,
// the front's switches and the autoproxy entries that name it, and moves the proxy profile's
// revision on; its proxied messages keep pointing at it, so message info still names the system.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { Autoproxy } from '../../../src/domain/autoproxy.js';
import type { MessageInfo } from '../../../src/domain/proxied-message.js';
import type { System } from '../../../src/domain/system.js';
import type { Tag } from '../../../src/domain/tag.js';
import { errorFields, errorTypes, request, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const OWNER = '200000000000000401';
const OTHER = '200000000000000402';
const GUILD = '300000000000000001';
const CHANNEL = '400000000000000001';

let seq = 0;
const snowflake = (time = Date.now()) => ((BigInt(time - 1_420_070_400_000) << 22n) | BigInt(++seq)).toString();

describe.each(DIALECTS)('deleting an alter (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  let counter = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    // A first-party client, the bot's kind: only it records proxied messages.
    owner = await signIn(server, OWNER, { client: await createTestClient(server, { firstParty: true }) });
    other = await signIn(server, OTHER, { client: await createTestClient(server, { firstParty: true }) });
    expect((await other.call('GET', '/v1/users/@me/system')).status).toBe(200);
  });
  afterAll(async () => server?.stop());

  const createAlter = async (user: ApiUser, body: Record<string, unknown> = {}) => {
    const response = await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: `alter${++counter}`, displayName: `Alter ${counter}`, ...body });
    expect(response.status).toBe(201);
    return response.body;
  };
  const deleteAlter = (user: ApiUser, id: number, body?: unknown) => user.call('POST', `/v1/users/@me/alters/${id}/delete`, body);
  const revision = async () => {
    const response = await request(server, 'GET', `/v1/users/@me/proxy-profile?guild=${GUILD}`, { token: owner.token });
    expect(response.status).toBe(200);
    return (response.body as { revision: number }).revision;
  };
  const rows = async (table: 'alter_tags' | 'alter_fields' | 'switch_members', alterId: number) =>
    (await server.database.db.selectFrom(table).select('alter_id').where('alter_id', '=', alterId).execute()).length;

  it('removes it everywhere in one go, and the proxy profile moves on', async () => {
    const doomed = await createAlter(owner, { fields: { [owner.client.id]: 'ext-doomed' }, proxyTags: [{ prefix: 'd:' }] });
    const stays = await createAlter(owner);
    const tag = (await owner.call<Tag>('POST', '/v1/users/@me/system/create-tag', { name: `crew ${++counter}` })).body;
    await owner.call('POST', `/v1/users/@me/tags/${tag.tagId}/alters`, { add: [doomed.alterId, stays.alterId] });
    expect((await owner.call('POST', '/v1/users/@me/front', { alter: doomed.alterId })).status).toBe(200);
    expect((await owner.call('POST', '/v1/users/@me/front', { alter: stays.alterId })).status).toBe(200);
    for (const [table, count] of [['alter_tags', 1], ['alter_fields', 1], ['switch_members', 1]] as const) expect(await rows(table, doomed.alterId)).toBe(count);
    const before = await revision();

    const response = await deleteAlter(owner, doomed.alterId);
    expect(response).toMatchObject({ status: 200, body: { deleted: true } });

    expect((await owner.call('GET', `/v1/users/@me/alters/${doomed.alterId}`)).status).toBe(404);
    for (const table of ['alter_tags', 'alter_fields', 'switch_members'] as const) expect(await rows(table, doomed.alterId)).toBe(0);
    expect((await owner.call<{ data: Tag }>('GET', `/v1/users/@me/tags/${tag.tagId}`)).body.data.alterIds).toEqual([stays.alterId]);
    expect((await owner.call<{ data: System }>('GET', '/v1/users/@me/system')).body.data.alterIds).not.toContain(doomed.alterId);
    expect((await owner.call('GET', '/v1/users/@me/fields/alters/ext-doomed')).status).toBe(404);
    expect((await owner.call('GET', '/v1/users/@me/front')).status).toBe(200);
    expect(await revision()).toBeGreaterThan(before);
    // The username is free again; the id is never reused.
    const again = await createAlter(owner, { username: doomed.username });
    expect(again.alterId).toBeGreaterThan(doomed.alterId);
    expect(await rows('switch_members', stays.alterId)).toBe(1);
  });

  it('turns an autoproxy entry on it off and clears a latch on it; entries on other alters stay', async () => {
    const doomed = await createAlter(owner);
    const stays = await createAlter(owner);
    const set = (body: Record<string, unknown>) => owner.call<{ data: Autoproxy }>('POST', '/v1/users/@me/autoproxy', body);
    const channel = `${GUILD}/${CHANNEL}`;
    expect((await set({ serverId: GUILD, autoproxyMode: 'alter', autoproxyAlter: String(doomed.alterId) })).status).toBe(200);
    expect((await set({ serverId: channel, autoproxyMode: 'latch', autoproxyAlter: String(doomed.alterId), lastLatchTimestamp: new Date().toISOString() })).status).toBe(200);
    const other = (await set({ serverId: '@global', autoproxyMode: 'alter', autoproxyAlter: String(stays.alterId) })).body.data;
    const before = new Map((await owner.call<{ data: Autoproxy[] }>('GET', '/v1/users/@me/autoproxy')).body.data.map((entry) => [entry.serverId, entry]));

    expect((await deleteAlter(owner, doomed.alterId)).status).toBe(200);

    const after = new Map((await owner.call<{ data: Autoproxy[] }>('GET', '/v1/users/@me/autoproxy')).body.data.map((entry) => [entry.serverId, entry]));
    expect(after.get(GUILD)).toMatchObject({ autoproxyMode: 'off', autoproxyAlter: null, lastLatchTimestamp: null });
    expect(after.get(channel)).toMatchObject({ autoproxyMode: 'latch', autoproxyAlter: null, lastLatchTimestamp: null });
    // Owner changes: an engine decision taken before the delete no longer applies.
    expect(after.get(GUILD)?.revision).toBeGreaterThan(before.get(GUILD)?.revision ?? Infinity);
    expect(after.get(channel)?.revision).toBeGreaterThan(before.get(channel)?.revision ?? Infinity);
    expect(after.get('@global')).toEqual(other);
    const stale = await owner.call<{ applied: boolean }>('POST', '/v1/users/@me/autoproxy/state', { serverId: channel, revision: before.get(channel)?.revision, at: new Date().toISOString(), latch: { alterId: stays.alterId } });
    expect(stale.body.applied).toBe(false);
  });

  it('keeps its messages: message info names the system and tells the owner the alter was deleted', async () => {
    await owner.call('POST', '/v1/users/@me/system/edit', { systemName: 'Keepers', public: 1 });
    const doomed = await createAlter(owner, { public: 1 | 2 });
    const message = { messageId: snowflake(), originalMessageId: snowflake(Date.now() - 5), channelId: CHANNEL, guildId: GUILD, alterId: doomed.alterId };
    expect((await owner.call('POST', '/v1/users/@me/messages', message)).status).toBe(201);
    expect((await deleteAlter(owner, doomed.alterId)).status).toBe(200);

    for (const id of [message.messageId, message.originalMessageId]) {
      const own = await owner.call<{ data: MessageInfo }>('GET', `/v1/messages/${id}`);
      expect(own.status).toBe(200);
      expect(own.body.data).toMatchObject({ messageId: message.messageId, senderId: OWNER, alter: null, alterDeleted: true, system: { associatedUserId: OWNER, systemName: 'Keepers' } });
      // Others see the system as its privacy allows; whether the alter is hidden or gone is the owner's to know.
      const theirs = await other.call<{ data: MessageInfo }>('GET', `/v1/messages/${id}`);
      expect(theirs.status).toBe(200);
      expect(theirs.body.data).toMatchObject({ senderId: OWNER, alter: null, alterDeleted: null, system: { systemName: 'Keepers' } });
    }
    // The record itself is untouched (a tombstone: it still names the deleted alter).
    const row = await server.database.db.selectFrom('proxied_messages').select('alter_id').where('message_id', '=', message.messageId).executeTakeFirstOrThrow();
    expect(Number(row.alter_id)).toBe(doomed.alterId);
    // A late record for the deleted alter is refused, not counted on nothing.
    const late = await owner.call('POST', '/v1/users/@me/messages', { ...message, messageId: snowflake(), originalMessageId: snowflake(Date.now() - 5) });
    expect({ status: late.status, types: errorTypes(late) }).toEqual({ status: 404, types: ['unknown-alter'] });
  });

  it('answers 404 for another system’s alter, one that does not exist, and a second delete; refuses a body with keys', async () => {
    const theirs = await createAlter(other);
    expect(errorTypes(await deleteAlter(owner, theirs.alterId))).toEqual(['unknown-alter']);
    expect((await deleteAlter(owner, 999_999_999)).status).toBe(404);
    const mine = await createAlter(owner);
    const refused = await deleteAlter(owner, mine.alterId, { confirm: true });
    expect({ status: refused.status, fields: errorFields(refused) }).toEqual({ status: 400, fields: ['confirm'] });
    expect((await deleteAlter(owner, mine.alterId)).status).toBe(200);
    expect((await deleteAlter(owner, mine.alterId)).status).toBe(404);
    // Someone else's token cannot delete through the owner's path.
    const cross = await other.call('POST', `/v1/users/${OWNER}/alters/${mine.alterId}/delete`);
    expect({ status: cross.status, types: errorTypes(cross) }).toEqual({ status: 403, types: ['not-matching-oauth'] });
    expect((await other.call('GET', `/v1/users/@me/alters/${theirs.alterId}`)).status).toBe(200);
  });

  it('gives one 200 to concurrent deletes of one alter', async () => {
    const alter = await createAlter(owner);
    const responses = await Promise.all(Array.from({ length: 4 }, () => deleteAlter(owner, alter.alterId)));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
  });
});
