// What the event outbox keeps (issue 26 #7): a small edit of a big alter adds what changed, not
// another copy of the alter, while every event still reads back whole; a tag change that changes
// nothing says nothing. On every database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../src/domain/alter.js';
import { feedPage } from '../../src/db/repositories/events/feed.js';
import { purgeEventValues } from '../../src/db/repositories/events/payloads.js';
import { purgeEvents } from '../../src/db/repositories/events/purge.js';
import { signIn, type ApiUser } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

const USER = '200000000000000971';

describe.each(DIALECTS)('the event outbox’s size (%s)', (dialect) => {
  let server: TestServer;
  let user: ApiUser;

  /** Everything the outbox holds for events, in bytes of text. */
  async function outboxBytes(): Promise<number> {
    const db = server.database.db;
    const events = await db.selectFrom('events').select('payload').execute();
    const values = await db.selectFrom('event_values').select(['hash', 'value']).execute();
    const refs = await db.selectFrom('event_value_refs').select(['event_id', 'hash']).execute();
    const text = (list: Array<Record<string, unknown>>) =>
      list.reduce((sum, row) => sum + Object.values(row).reduce<number>((n, v) => n + String(v).length, 0), 0);
    return text(events) + text(values) + text(refs);
  }
  const eventCount = async () => (await server.database.db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
    user = await signIn(server, USER, { client: await createTestClient(server, { name: 'Editor' }) });
  });
  afterAll(async () => server?.stop());

  it('grows by what changed when one field of a large alter is edited, and reads back the whole alter', async () => {
    const guild = (i: number) => String(300000000000000000n + BigInt(i));
    const big = {
      username: 'big',
      displayName: 'Big',
      description: 'd'.repeat(1000),
      nameMap: Array.from({ length: 200 }, (_, i) => ({ server: guild(i), name: `n${i}`.padEnd(100, 'x') })),
      avatarUrlMap: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [guild(i), `https://images.example/${'a'.repeat(150)}/${i}.png`])),
    };
    const created = await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', big);
    expect(created.status).toBeLessThan(300);
    const alterSize = JSON.stringify(created.body).length;
    expect(alterSize).toBeGreaterThan(50_000);

    for (const pronouns of ['they/them', 'she/her', 'he/him']) {
      const before = await outboxBytes();
      expect((await user.call('POST', `/v1/users/@me/alters/${created.body.alterId}/edit`, { pronouns })).status).toBe(200);
      const grown = (await outboxBytes()) - before;
      // The changed field, the small ones, and a hash per large value: a few KiB at most, not the alter again.
      expect(grown).toBeLessThan(4096);
    }

    // Every event still reads back whole, as it was when it happened.
    const client = (await server.database.db.selectFrom('oauth_clients').select('id').where('name', '=', 'Editor').executeTakeFirstOrThrow()).id;
    const page = await feedPage(server.database.db, { clientId: client, after: 0, max: 10, scan: 100, now: Date.now() });
    const alters = page.events.map((event) => (event.snapshot.type === 'alter.created' || event.snapshot.type === 'alter.updated' ? event.snapshot.alter : undefined));
    expect(alters.map((alter) => alter?.pronouns)).toEqual([null, 'they/them', 'she/her', 'he/him']);
    for (const alter of alters) {
      expect(alter?.nameMap).toEqual(big.nameMap);
      expect(alter?.avatarUrlMap).toEqual(big.avatarUrlMap);
      expect(alter?.description).toBe(big.description);
    }

    // Values go with the last event that used them.
    expect(await server.database.db.selectFrom('event_values').select('hash').execute()).not.toEqual([]);
    await purgeEvents(server.database.db, Date.now() + 1);
    await purgeEventValues(server.database.db);
    expect(await server.database.db.selectFrom('event_values').select('hash').execute()).toEqual([]);
  });

  it('emits nothing for a tag edit or membership change that changes nothing', async () => {
    const alter = (await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'member', displayName: 'Member' })).body;
    const other = (await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'outsider', displayName: 'Outsider' })).body;
    const tag = (await user.call<{ tagId: number }>('POST', '/v1/users/@me/system/create-tag', { name: 'Same', description: 'as before' })).body;
    expect((await user.call('POST', `/v1/users/@me/tags/${tag.tagId}/alters`, { add: [alter.alterId] })).status).toBe(200);
    const before = await eventCount();

    expect((await user.call('POST', `/v1/users/@me/tags/${tag.tagId}/edit`, { name: 'Same', description: 'as before' })).status).toBe(200);
    expect((await user.call('POST', `/v1/users/@me/tags/${tag.tagId}/alters`, { add: [alter.alterId] })).status).toBe(200);
    expect((await user.call('POST', `/v1/users/@me/tags/${tag.tagId}/alters`, { remove: [other.alterId] })).status).toBe(200);
    expect(await eventCount()).toBe(before);

    // A real change still says so.
    expect((await user.call('POST', `/v1/users/@me/tags/${tag.tagId}/edit`, { description: 'changed' })).status).toBe(200);
    expect((await user.call('POST', `/v1/users/@me/tags/${tag.tagId}/alters`, { add: [alter.alterId, other.alterId] })).status).toBe(200);
    expect(Number(await eventCount())).toBe(Number(before) + 2);
  });
});
