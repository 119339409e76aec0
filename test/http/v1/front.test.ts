// Switching the front (one alter, several, nobody), the current front per system and per app, the
// refusal of a switch that changes nothing, late switches, and the paged history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Front, FrontHistory, Switch } from '../../../src/domain/front.js';
import { errorFields, errorTypes, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

describe.each(DIALECTS)('front (%s)', (dialect) => {
  let server: TestServer;
  let viaA: ApiUser;
  let viaB: ApiUser;
  let one: number;
  let two: number;
  let three: number;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    viaA = await signIn(server, '200000000000000021');
    viaB = await signIn(server, '200000000000000021', { client: await createTestClient(server) });
    const ids: number[] = [];
    for (const name of ['one', 'two', 'three']) {
      ids.push((await viaA.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: name, displayName: name.toUpperCase() })).body.alterId);
    }
    [one, two, three] = ids as [number, number, number];
  });
  afterAll(async () => server?.stop());

  const push = (user: ApiUser, body: unknown) => user.call<{ success: true; data: Switch }>('POST', '/v1/users/@me/front', body);
  const front = async (user = viaA) => {
    const response = await user.call<{ data: Front }>('GET', '/v1/users/@me/front');
    expect(response.status).toBe(200);
    return response.body.data;
  };
  const history = async (query = '', user = viaA) => {
    const response = await user.call<{ data: FrontHistory }>('GET', `/v1/users/@me/front/history${query}`);
    expect(response.status).toBe(200);
    return response.body.data;
  };
  /** Everything the owner can read about the front, to prove a refused write changed nothing. */
  const everything = async () => ({ front: await front(), history: await history('?max=100') });
  const expectRefused = (response: ApiResponse, status: number, type: string, fields?: string[]) => {
    expect({ status: response.status, types: errorTypes(response) }).toEqual({ status, types: [type] });
    if (fields) expect(errorFields(response)).toEqual(fields);
  };

  it('starts with nobody fronting and an empty history', async () => {
    expect(await front()).toEqual({ current: null, byApp: [], alters: [], redacted: [] });
    expect(await history()).toEqual({ switches: [], alters: [], next: null, redacted: [] });
  });

  it('refuses a switch-out when nobody was fronting (409 same-front)', async () => {
    expectRefused(await push(viaA, { alters: [] }), 409, 'same-front');
    expect(await history()).toEqual({ switches: [], alters: [], next: null, redacted: [] });
  });

  it('takes the origin’s {alter} form (string or number) and answers {success: true} with the switch', async () => {
    const first = await push(viaA, { alter: String(one) });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, data: { switchId: expect.any(Number), switchedAt: expect.any(String), alterIds: [one], clientId: viaA.client.id, clientName: 'Test app' } });
    expect(Math.abs(Date.parse(first.body.data.switchedAt) - Date.now())).toBeLessThan(60_000);
    const numeric = await push(viaA, { alter: two });
    expect(numeric.body.data.alterIds).toEqual([two]);
    const shown = await front();
    expect(shown.current).toEqual(numeric.body.data);
    expect(shown.alters.map((alter) => [alter.alterId, alter.displayName])).toEqual([[two, 'TWO']]);
  });

  it('answers a name where an id belongs with what is expected and where ids are found, changing nothing', async () => {
    const before = await everything();
    for (const body of [{ alter: 'one' }, { alters: [one, '@two'] }]) {
      const refused = await push(viaA, body);
      expectRefused(refused, 400, 'validation');
      const friendly = (refused.body as unknown as { errors: Array<{ friendly: string }> }).errors[0]?.friendly ?? '';
      expect(friendly).toMatch(/alter id such as "12", not a name or username/);
      expect(friendly).toContain('/system/list-alters');
    }
    expect(await everything()).toEqual(before);
  });

  it('records co-fronting in order (the first is the primary) and shows each alter once', async () => {
    const pushed = await push(viaA, { alters: [three, String(one)] });
    expect(pushed.status).toBe(200);
    expect(pushed.body.data.alterIds).toEqual([three, one]);
    const shown = await front();
    expect(shown.current?.alterIds).toEqual([three, one]);
    expect(shown.alters.map((alter) => alter.alterId)).toEqual([three, one]);
    expect(shown.alters[0]).toMatchObject({ username: 'three', displayName: 'THREE' });
  });

  it('refuses the same switch again with 409 same-front and changes nothing; another order is a new switch', async () => {
    const before = await everything();
    expectRefused(await push(viaA, { alters: [three, one] }), 409, 'same-front');
    expect(await everything()).toEqual(before);
    const reordered = await push(viaA, { alters: [one, three] });
    expect(reordered.status).toBe(200);
    expect((await front()).current?.alterIds).toEqual([one, three]);
  });

  it('makes the newest switch of any app the current front, and keeps each app’s own newest', async () => {
    const byB = await push(viaB, { alters: [two] });
    expect(byB.status).toBe(200);
    const shown = await front();
    expect(shown.current).toEqual(byB.body.data);
    expect(shown.current?.clientId).toBe(viaB.client.id);
    expect(shown.byApp.map((entry) => [entry.clientId, entry.alterIds])).toEqual([
      [viaB.client.id, [two]],
      [viaA.client.id, [one, three]],
    ]);
    expect(shown.alters.map((alter) => alter.alterId)).toEqual([two, one, three]);
    // The front through B is what A last pushed: A repeating it still moves A's own front…
    const sameAsCurrent = await push(viaA, { alters: [two] });
    expect(sameAsCurrent.status).toBe(200);
    expect((await front()).byApp.map((entry) => [entry.clientId, entry.alterIds])).toEqual([
      [viaA.client.id, [two]],
      [viaB.client.id, [two]],
    ]);
    // …after which both agree, and repeating it changes nothing for either.
    expectRefused(await push(viaB, { alter: two }), 409, 'same-front');
    expectRefused(await push(viaA, { alter: String(two) }), 409, 'same-front');
  });

  it('switches out with an empty list, once', async () => {
    const out = await push(viaA, { alters: [] });
    expect(out.status).toBe(200);
    expect(out.body.data.alterIds).toEqual([]);
    const shown = await front();
    expect(shown.current?.alterIds).toEqual([]);
    expect(shown.alters.map((alter) => alter.alterId)).toEqual([two]); // B's own front still names two
    expectRefused(await push(viaA, { alters: [] }), 409, 'same-front');
  });

  it('pages the history newest first, with a before cursor (next) or skip', async () => {
    const all = await history('?max=100');
    expect(all.next).toBeNull();
    expect(all.switches.map((entry) => entry.alterIds)).toEqual([[], [two], [two], [one, three], [three, one], [two], [one]]);
    const times = all.switches.map((entry) => Date.parse(entry.switchedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.alters.map((alter) => alter.alterId)).toEqual([two, one, three]);

    const walked: Switch[] = [];
    let cursor: number | null | undefined;
    do {
      const page = await history(`?max=3${cursor ? `&before=${cursor}` : ''}`);
      expect(page.switches.length).toBeLessThanOrEqual(3);
      // Each page carries the alters it names, and only those.
      expect(page.alters.map((alter) => alter.alterId).sort()).toEqual([...new Set(page.switches.flatMap((entry) => entry.alterIds))].sort());
      walked.push(...page.switches);
      cursor = page.next;
    } while (cursor !== null);
    expect(walked).toEqual(all.switches);

    expect((await history('?max=2&skip=1')).switches).toEqual(all.switches.slice(1, 3));
    expect((await history(`?max=2&skip=1&before=${all.switches[1]?.switchId}`)).switches).toEqual(all.switches.slice(3, 5));
    expect((await history()).switches).toEqual(all.switches); // default page 20
  });

  it.each([
    ['max above 100', '?max=101', 'max-too-high', 'max'],
    ['max 0', '?max=0', 'validation', 'max'],
    ['a non-numeric before', '?before=abc', 'validation', 'before'],
    ['an unknown query parameter', '?page=2', 'validation', 'page'],
  ])('refuses %s in the history query with 400', async (_name, query, type, field) => {
    expectRefused(await viaA.call('GET', `/v1/users/@me/front/history${query}`), 400, type, [field]);
  });

  it('refuses a before that names no switch of this system (400, naming before)', async () => {
    const other = await signIn(server, '200000000000000023', { client: viaA.client });
    const theirs = (await other.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'x', displayName: 'X' })).body.alterId;
    const foreign = (await push(other, { alter: theirs })).body.data.switchId;
    for (const before of [foreign, 987654321]) {
      expectRefused(await viaA.call('GET', `/v1/users/@me/front/history?before=${before}`), 400, 'validation', ['before']);
    }
  });

  it('takes no query on GET /front', async () => {
    expectRefused(await viaA.call('GET', '/v1/users/@me/front?max=1'), 400, 'validation', ['max']);
  });

  it('answers 404 for an alter the system does not have, naming it, and records nothing', async () => {
    const before = await everything();
    const other = await signIn(server, '200000000000000022', { client: viaA.client });
    const theirs = (await other.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'theirs', displayName: 'T' })).body.alterId;
    for (const [body, field] of [
      [{ alter: String(theirs) }, 'alter'],
      [{ alter: '987654321' }, 'alter'],
      [{ alters: [one, theirs] }, 'alters.1'],
      [{ alters: [987654321, two] }, 'alters.0'],
    ] as const) {
      expectRefused(await push(viaA, body), 404, 'unknown-alter', [field]);
    }
    expect(await everything()).toEqual(before);
  });

  it.each([
    ['no alter', {}],
    ['both alter and alters', { alter: '1', alters: ['1'] }],
    ['an empty alter', { alter: '' }],
    ['a non-numeric alter', { alter: 'one' }],
    ['a negative alter', { alter: -1 }],
    ['a fractional alter', { alter: 1.5 }],
    ['alters that is not a list', { alters: '1,2' }],
    ['an alter twice in alters', { alters: ['1', 2, 1] }],
    ['151 alters', { alters: Array.from({ length: 151 }, (_, index) => index + 1) }],
    ['an extra key', { alter: '1', switchedBy: 'me' }],
    ['a timestamp without an offset', { alter: '1', timestamp: '2026-01-01T00:00:00' }],
    ['a timestamp that is no date', { alter: '1', timestamp: 'yesterday' }],
  ])('refuses %s with 400, naming the field', async (_name, body) => {
    const before = await everything();
    const response = await viaA.call('POST', '/v1/users/@me/front', body);
    expect(response.status).toBe(400);
    expect(errorFields(response).length).toBeGreaterThan(0);
    expect(errorFields(response).every((field) => typeof field === 'string' && /^(alter|alters|alters\.\d+|switchedBy|timestamp)$/.test(field))).toBe(true);
    expect(await everything()).toEqual(before);
  });

  it('names the repeated entry of alters', async () => {
    expect(errorFields(await push(viaA, { alters: [one, two, String(one)] }))).toEqual(['alters.2']);
  });

  it('takes 150 alters in one switch', async () => {
    const many: number[] = [];
    for (let i = 0; i < 150 - 3; i += 1) {
      many.push((await viaA.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: `m${i}`, displayName: `M${i}` })).body.alterId);
    }
    const alters = [...many.reverse(), one, two, three];
    const pushed = await push(viaA, { alters });
    expect(pushed.status).toBe(200);
    expect((await front()).current?.alterIds).toEqual(alters);
    expect((await push(viaA, { alters: [] })).status).toBe(200);
  }, 60_000);

  it('records a late switch at its time: in the history, not the current front, and refused only when it repeats the front of its time', async () => {
    const before = await everything();
    const newest = before.history.switches[0];
    const second = before.history.switches[1];
    if (!newest || !second) throw new Error('the history has at least two switches by now');
    // Between the two newest switches, where the second-newest was in effect.
    const at = new Date((Date.parse(second.switchedAt) + Date.parse(newest.switchedAt)) / 2).toISOString();
    const repeat = await push(viaA, { alters: second.alterIds, timestamp: at });
    expect(second.clientId).toBe(viaA.client.id);
    expectRefused(repeat, 409, 'same-front');
    const late = await push(viaA, { alters: [three], timestamp: at });
    expect(late.status).toBe(200);
    expect(late.body.data.switchedAt).toBe(at);
    expect((await front()).current).toEqual(before.front.current);
    const after = (await history('?max=100')).switches;
    expect(after.map((entry) => entry.switchId)).toEqual([
      newest.switchId,
      late.body.data.switchId,
      ...before.history.switches.slice(1).map((entry) => entry.switchId),
    ]);
    // Long ago, when nobody was fronting yet.
    const ancient = await push(viaA, { alter: three, timestamp: '2001-02-03T04:05:06.007+02:00' });
    expect(ancient.body.data.switchedAt).toBe('2001-02-03T02:05:06.007Z');
    expect((await history('?max=100')).switches.at(-1)?.switchId).toBe(ancient.body.data.switchId);
  });

  it('refuses a switch in the future (400 naming timestamp)', async () => {
    const before = await everything();
    expectRefused(await push(viaA, { alter: one, timestamp: new Date(Date.now() + 60_000).toISOString() }), 400, 'validation', ['timestamp']);
    expect(await everything()).toEqual(before);
  });

  it('records exactly one of several identical switches sent at once (the rest 409 same-front)', async () => {
    const before = (await history('?max=100')).switches.length;
    const responses = await Promise.all(Array.from({ length: 8 }, () => push(viaA, { alters: [two, one] })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect((await history('?max=100')).switches.length).toBe(before + 1);
  });

  it('keeps a switch whose alter was deleted, without it; the next alter becomes its primary', async () => {
    const gone = (await viaA.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'gone', displayName: 'Gone' })).body.alterId;
    const pushed = await push(viaA, { alters: [gone, two] });
    expect(pushed.status).toBe(200);
    // No delete endpoint yet: remove the row as a deletion would (its switch rows cascade).
    await server.database.db.deleteFrom('alters').where('id', '=', gone).execute();
    const shown = await front();
    expect(shown.current).toEqual({ ...pushed.body.data, alterIds: [two] });
    expect(shown.alters.map((alter) => alter.alterId)).toEqual([two]);
    const profile = await viaA.call<{ front: { latest: number | null } }>('GET', '/v1/users/@me/proxy-profile?guild=300000000000000021');
    expect(profile.body.front.latest).toBe(two);
    // What is left is the front now: [two] again changes nothing.
    expectRefused(await push(viaA, { alters: [two] }), 409, 'same-front');
  });
});
