// Fixing the history: editing a switch (its alters, its time, moving it past its neighbours) and
// deleting one (with the later twin), the rule that no switch repeats the one before it, the
// refusals that change nothing, the events; and the front statistics over a known history, for the
// owner and for other viewers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrontStats } from '../../../src/domain/front-stats.js';
import type { FrontHistory, Switch } from '../../../src/domain/front.js';
import { errorFields, errorTypes, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const H = 3_600_000;

describe.each(DIALECTS)('switch edits, deletes and front statistics (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  let one: number;
  let two: number;
  let three: number;
  /** A base time an hour-grid of past switches hangs from. */
  const base = Date.now() - 100 * H;
  const hour = (n: number) => new Date(base + n * H).toISOString();

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, '200000000000000031');
    other = await signIn(server, '200000000000000032', { client: owner.client });
    const ids: number[] = [];
    for (const name of ['one', 'two', 'three']) {
      ids.push((await owner.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: name, displayName: name.toUpperCase() })).body.alterId);
    }
    [one, two, three] = ids as [number, number, number];
  });
  afterAll(async () => server?.stop());

  const push = async (alters: number[], at: number, user = owner) => {
    const response = await user.call<{ data: Switch }>('POST', '/v1/users/@me/front', { alters, timestamp: hour(at) });
    expect(response.status).toBe(200);
    return response.body.data.switchId;
  };
  const edit = (id: number, body: unknown, user = owner) => user.call<{ data: Switch }>('POST', `/v1/users/@me/front/switches/${id}/edit`, body);
  const remove = (id: number, user = owner) => user.call<{ deleted: true; alsoDeleted: number[] }>('POST', `/v1/users/@me/front/switches/${id}/delete`, {});
  /** The history, oldest first, as `hour:alters` (hours from base). */
  const timeline = async () => {
    const response = await owner.call<{ data: FrontHistory }>('GET', '/v1/users/@me/front/history?max=100');
    expect(response.status).toBe(200);
    return response.body.data.switches
      .map((entry) => `${(Date.parse(entry.switchedAt) - base) / H}:${entry.alterIds.join('+')}`)
      .reverse();
  };
  const eventsSince = async (after: number) =>
    (await server.database.db.selectFrom('events').select(['id', 'type', 'payload']).where('id', '>', after).orderBy('id').execute()).map((row) => ({
      type: row.type,
      ...(JSON.parse(row.payload) as Record<string, unknown>),
    }));
  const lastEventId = async () => Number((await server.database.db.selectFrom('events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0);
  const expectRefused = (response: ApiResponse, status: number, type: string, fields?: string[]) => {
    expect({ status: response.status, types: errorTypes(response) }).toEqual({ status, types: [type] });
    if (fields) expect(errorFields(response)).toEqual(fields);
  };
  const clearHistory = async () => {
    await server.database.db.deleteFrom('switches').execute();
  };

  describe('editing and deleting', () => {
    let a: number;
    let b: number;
    let c: number;
    let d: number;
    beforeAll(async () => {
      a = await push([one], 1);
      b = await push([two], 2);
      c = await push([one], 3);
      d = await push([three], 4);
    });

    it('changes a switch’s alters (in order), answers it and sends switch.updated', async () => {
      const since = await lastEventId();
      const edited = await edit(d, { alters: [three, String(two)] });
      expect(edited.status).toBe(200);
      expect(edited.body.data).toMatchObject({ switchId: d, alterIds: [three, two], switchedAt: hour(4), clientId: owner.client.id });
      expect(await timeline()).toEqual([`1:${one}`, `2:${two}`, `3:${one}`, `4:${three}+${two}`]);
      expect(await eventsSince(since)).toEqual([{ type: 'switch.updated', switchId: d, alterIds: [three, two], timestamp: hour(4) }]);
    });

    it('refuses with 409 same-front, changing nothing, an edit that repeats the switch before it or makes the next one repeat it', async () => {
      const before = await timeline();
      const since = await lastEventId();
      expectRefused(await edit(b, { alters: [one] }), 409, 'same-front'); // b would repeat a
      expectRefused(await edit(a, { alters: [two] }), 409, 'same-front'); // b would repeat a
      expectRefused(await edit(c, { alters: [three, two] }), 409, 'same-front'); // d would repeat c
      expectRefused(await edit(a, { alters: [] }), 409, 'same-front'); // nobody fronted before it: a switch-out repeats that
      expect(await timeline()).toEqual(before);
      expect(await eventsSince(since)).toEqual([]);
    });

    it('moves a switch past its neighbours to its place in time, checking both places', async () => {
      // d moves between a and b: a one, d three+two, b two, c one.
      const moved = await edit(d, { timestamp: hour(1.5) });
      expect(moved.status).toBe(200);
      expect(await timeline()).toEqual([`1:${one}`, `1.5:${three}+${two}`, `2:${two}`, `3:${one}`]);
      // c before a: c one, a one would repeat it (at the new place).
      expectRefused(await edit(c, { timestamp: hour(0.5) }), 409, 'same-front');
      // d back after c; then b moving out from between a and c (both one) would leave them twins (at the old place).
      expect((await edit(d, { timestamp: hour(3.5) })).status).toBe(200);
      expect(await timeline()).toEqual([`1:${one}`, `2:${two}`, `3:${one}`, `3.5:${three}+${two}`]);
      expectRefused(await edit(b, { timestamp: hour(5) }), 409, 'same-front');
      expect(await timeline()).toEqual([`1:${one}`, `2:${two}`, `3:${one}`, `3.5:${three}+${two}`]);
      // Both at once: alters and time.
      expect((await edit(c, { alters: [two], timestamp: hour(0.5) })).status).toBe(200);
      expect(await timeline()).toEqual([`0.5:${two}`, `1:${one}`, `2:${two}`, `3.5:${three}+${two}`]);
    });

    it('refuses bad edits with a clear 4xx that changes nothing', async () => {
      const before = await timeline();
      const theirAlter = (await other.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'x', displayName: 'X' })).body.alterId;
      const theirSwitch = (await other.call<{ data: Switch }>('POST', '/v1/users/@me/front', { alter: theirAlter })).body.data.switchId;
      const since = await lastEventId();
      expectRefused(await edit(a, { timestamp: new Date(Date.now() + 60_000).toISOString() }), 400, 'validation', ['timestamp']);
      expectRefused(await edit(a, { alters: [one, theirAlter] }), 404, 'unknown-alter', ['alters.1']);
      expectRefused(await edit(a, { alters: [987654321] }), 404, 'unknown-alter', ['alters.0']);
      expectRefused(await edit(a, { alters: [one, one] }), 400, 'validation', ['alters.1']);
      expectRefused(await edit(a, { alter: one }), 400, 'validation');
      expectRefused(await edit(theirSwitch, { alters: [two] }), 404, 'unknown-switch', ['switch']);
      expectRefused(await remove(theirSwitch), 404, 'unknown-switch', ['switch']);
      expectRefused(await edit(987654321, { alters: [two] }), 404, 'unknown-switch');
      // Another user's switch through their id: writes go to one's own system only.
      const foreign = await owner.call('POST', `/v1/users/${other.userId}/front/switches/${theirSwitch}/delete`, {});
      expect(foreign.status).toBe(403);
      expect(await timeline()).toEqual(before);
      expect(await eventsSince(since)).toEqual([]);
      const theirs = await other.call<{ data: FrontHistory }>('GET', '/v1/users/@me/front/history');
      expect(theirs.body.data.switches.map((entry) => entry.switchId)).toEqual([theirSwitch]);
    });

    it('changes nothing and sends nothing for an empty edit', async () => {
      const before = await timeline();
      const since = await lastEventId();
      const same = await edit(a, {});
      expect(same.status).toBe(200);
      expect(same.body.data).toMatchObject({ switchId: a, alterIds: [one], switchedAt: hour(1) });
      expect(await timeline()).toEqual(before);
      expect(await eventsSince(since)).toEqual([]);
    });

    it('deletes a switch, and the later twin it leaves, saying so, with one switch.deleted each', async () => {
      await clearHistory();
      const x = await push([one], 1);
      const y = await push([two], 2);
      const z = await push([one], 3);
      const w = await push([three], 4);
      const since = await lastEventId();
      const deleted = await remove(y);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ deleted: true, alsoDeleted: [z] });
      expect(await timeline()).toEqual([`1:${one}`, `4:${three}`]);
      expect(await eventsSince(since)).toEqual([
        { type: 'switch.deleted', switchId: y },
        { type: 'switch.deleted', switchId: z },
      ]);
      expect((await remove(w)).body).toEqual({ deleted: true, alsoDeleted: [] });
      expect(await timeline()).toEqual([`1:${one}`]);
      expectRefused(await remove(w), 404, 'unknown-switch');
      expect((await remove(x)).body).toEqual({ deleted: true, alsoDeleted: [] });
      expect(await timeline()).toEqual([]);
    });

    it('keeps another app’s repeat of the front (as POST /front allows it) when a switch between goes', async () => {
      await clearHistory();
      const viaB = await signIn(server, owner.userId, { client: await createTestClient(server) });
      await push([one], 1);
      const middle = await push([two], 2);
      // B's own front was nobody: B repeating the system's front is a switch of its own.
      await push([one], 3, viaB);
      expect((await remove(middle)).body).toEqual({ deleted: true, alsoDeleted: [] });
      expect(await timeline()).toEqual([`1:${one}`, `3:${one}`]);
    });

    it('moves the current front with the newest switch (the proxy profile follows)', async () => {
      await clearHistory();
      await push([one], 1);
      const newest = await push([two], 2);
      const profile = async () => (await owner.call<{ front: { latest: number | null } }>('GET', '/v1/users/@me/proxy-profile?guild=300000000000000021')).body.front.latest;
      expect(await profile()).toBe(two);
      expect((await edit(newest, { alters: [three] })).status).toBe(200);
      expect(await profile()).toBe(three);
      expect((await remove(newest)).status).toBe(200);
      expect(await profile()).toBe(one);
    });
  });

  describe('front statistics', () => {
    const statsOf = async (user: ApiUser, target: string, query: string) => {
      const response = await user.call<{ data: FrontStats }>('GET', `/v1/users/${target}/front/stats${query}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data;
    };
    const period = `?from=${encodeURIComponent(hour(0))}&to=${encodeURIComponent(hour(10))}`;
    let hidden: number;
    let tagId: number;

    beforeAll(async () => {
      await clearHistory();
      hidden = (await owner.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'hidden', displayName: 'Hidden' })).body.alterId;
      // one, two and three visible and showing their tags; hidden stays private.
      for (const id of [one, two, three]) expect((await owner.call('POST', `/v1/users/@me/alters/${id}/edit`, { public: 1 | 128 })).status).toBe(200);
      const tag = await owner.call<{ tagId: number }>('POST', '/v1/users/@me/system/create-tag', { name: 'Crew', public: 1 | 32 });
      tagId = tag.body.tagId;
      expect((await owner.call('POST', `/v1/users/@me/tags/${tagId}/alters`, { add: [two, hidden] })).status).toBe(200);
      // -2 one; 0..2 one+two; 2..5 hidden+three; 5..6 nobody; 6.. two
      await push([one], -2);
      await push([one, two], 0);
      await push([hidden, three], 2);
      await push([], 5);
      await push([two], 6);
    });

    it('adds up each alter’s time, share, entries and last time for the owner, longest first', async () => {
      const stats = await statsOf(owner, '@me', period);
      expect(stats.from).toBe(hour(0));
      expect(stats.to).toBe(hour(10));
      expect(stats.alters).toEqual([
        { alterId: two, seconds: 6 * 3600, share: 0.6, switches: 2, lastFronted: hour(10) },
        { alterId: hidden, seconds: 3 * 3600, share: 0.3, switches: 1, lastFronted: hour(5) },
        { alterId: three, seconds: 3 * 3600, share: 0.3, switches: 1, lastFronted: hour(5) },
        { alterId: one, seconds: 2 * 3600, share: 0.2, switches: 0, lastFronted: hour(2) },
      ].sort((p, q) => q.seconds - p.seconds || p.alterId - q.alterId));
      expect(stats.nobody).toEqual({ seconds: 3600, share: 0.1 });
    });

    it('counts only the primary fronter with primary=true, and only a tag’s members with tag', async () => {
      const primary = await statsOf(owner, '@me', `${period}&primary=true`);
      expect(primary.alters.map((row) => [row.alterId, row.seconds / 3600, row.switches])).toEqual([
        [two, 4, 1],
        [hidden, 3, 1],
        [one, 2, 0],
      ]);
      const tagged = await statsOf(owner, '@me', `${period}&tag=${tagId}`);
      expect(tagged.alters.map((row) => [row.alterId, row.seconds / 3600])).toEqual([
        [two, 6],
        [hidden, 3],
      ]);
      expect(tagged.nobody.seconds / 3600).toBe(1);
    });

    it('starts the period at the first switch, counts a later to as now, and defaults to the last 30 days', async () => {
      const early = await statsOf(owner, '@me', `?from=${encodeURIComponent(hour(-50))}&to=${encodeURIComponent(new Date(Date.now() + 10 * H).toISOString())}`);
      expect(early.from).toBe(hour(-2));
      expect(Date.parse(early.to)).toBeLessThanOrEqual(Date.now());
      const defaults = await statsOf(owner, '@me', '');
      expect(defaults.from).toBe(hour(-2)); // 100 hours ago is within 30 days
      expect(defaults.alters[0]?.alterId).toBe(two);
    });

    it.each([
      ['a reversed period', `?from=${encodeURIComponent(new Date(base + H).toISOString())}&to=${encodeURIComponent(new Date(base).toISOString())}`, 'from'],
      ['a period over 5 years', `?from=2019-01-01T00:00:00Z&to=2024-01-02T00:00:00Z`, 'from'],
      ['a time without an offset', '?from=2026-01-01T00:00:00', 'from'],
      ['primary other than true or false', '?primary=yes', 'primary'],
      ['an unknown parameter', '?period=7d', 'period'],
    ])('refuses %s with 400 naming it', async (_name, query, field) => {
      expectRefused(await owner.call('GET', `/v1/users/@me/front/stats${query}`), 400, 'validation', [field]);
    });

    it('refuses an unknown tag (404 unknown-tag)', async () => {
      expectRefused(await owner.call('GET', '/v1/users/@me/front/stats?tag=987654321'), 404, 'unknown-tag', ['tag']);
    });

    it('follows GET /front/history for other viewers: refused while the system hides its alters, then hidden alters as one unnamed row', async () => {
      for (const path of ['front/history', 'front/stats']) expectRefused(await other.call('GET', `/v1/users/${owner.userId}/${path}`), 403, 'alters-private');
      expect((await owner.call('POST', '/v1/users/@me/system/edit', { public: 64 })).status).toBe(200);
      const stats = await statsOf(other, owner.userId, period);
      expect(stats.alters).toEqual([
        { alterId: two, seconds: 6 * 3600, share: 0.6, switches: 2, lastFronted: hour(10) },
        { alterId: three, seconds: 3 * 3600, share: 0.3, switches: 1, lastFronted: hour(5) },
        { alterId: null, seconds: 3 * 3600, share: 0.3, switches: null, lastFronted: null },
        { alterId: one, seconds: 2 * 3600, share: 0.2, switches: 0, lastFronted: hour(2) },
      ]);
      expect(stats.nobody).toEqual({ seconds: 3600, share: 0.1 });
      expect(JSON.stringify(stats)).not.toContain(`"alterId":${hidden}`);
      // The system does not show its tags: the tag does not exist for them.
      expectRefused(await other.call('GET', `/v1/users/${owner.userId}/front/stats?tag=${tagId}`), 404, 'unknown-tag', ['tag']);
      expect((await owner.call('POST', '/v1/users/@me/system/edit', { public: 64 | 128 })).status).toBe(200);
      const tagged = await statsOf(other, owner.userId, `${period}&tag=${tagId}`);
      // Only the memberships they may see: the hidden member is not one of them.
      expect(tagged.alters.map((row) => row.alterId)).toEqual([two]);
      expect((await owner.call('POST', `/v1/users/@me/tags/${tagId}/edit`, { public: 1 })).status).toBe(200);
      expectRefused(await other.call('GET', `/v1/users/${owner.userId}/front/stats?tag=${tagId}`), 403, 'tags-private', ['tag']);
    });

    it('follows the switches as they change: an edit, and an alter deleted from them', async () => {
      const history = (await owner.call<{ data: FrontHistory }>('GET', '/v1/users/@me/front/history?max=100')).body.data.switches;
      const last = history[0];
      if (!last) throw new Error('no switches');
      expect((await edit(last.switchId, { alters: [three, two] })).status).toBe(200);
      const edited = await statsOf(owner, '@me', period);
      expect(edited.alters.find((row) => row.alterId === three)?.seconds).toBe(7 * 3600);
      expect((await edit(last.switchId, { alters: [two] })).status).toBe(200);
      expect((await owner.call('POST', `/v1/users/@me/alters/${one}/delete`, {})).status).toBe(200);
      const stats = await statsOf(owner, '@me', period);
      expect(stats.alters.map((row) => row.alterId)).not.toContain(one);
      expect(stats.alters[0]).toMatchObject({ alterId: two, seconds: 6 * 3600 });
    });
  });
});
