// Pushing to the front: per-integration records, kept as history, and reading them back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorFields, errorTypes, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

interface FrontEntry {
  alterId: number;
  clientId: string;
  clientName: string | null;
  pushedAt: string;
  alter: { alterId: number; displayName: string | null };
}
interface Front {
  data: { current: FrontEntry[]; history: FrontEntry[] };
}

describe.each(DIALECTS)('front (%s)', (dialect) => {
  let server: TestServer;
  let viaA: ApiUser;
  let viaB: ApiUser;
  const alters: number[] = [];

  beforeAll(async () => {
    server = await startTestServer(dialect);
    viaA = await signIn(server, '200000000000000021');
    viaB = await signIn(server, '200000000000000021', { client: await createTestClient(server) });
    for (const name of ['one', 'two', 'three']) {
      alters.push((await viaA.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: name, displayName: name.toUpperCase() })).body.alterId);
    }
  });
  afterAll(async () => server?.stop());

  const push = (user: ApiUser, alter: unknown) => user.call<{ success: boolean }>('POST', '/v1/users/@me/front', { alter });

  it('starts empty', async () => {
    const response = await viaA.call<Front>('GET', '/v1/users/@me/front');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { current: [], history: [] } });
  });

  it('records pushes per client, keeps the history and answers {success: true}', async () => {
    const [one, two, three] = alters as [number, number, number];
    const first = await push(viaA, String(one));
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true });
    expect((await push(viaB, String(two))).status).toBe(200);
    expect((await push(viaA, three)).status).toBe(200); // a numeric id is accepted too

    const front = (await viaA.call<Front>('GET', '/v1/users/@me/front')).body.data;
    expect(front.current.map((entry) => [entry.clientId, entry.alterId])).toEqual([
      [viaA.client.id, three],
      [viaB.client.id, two],
    ]);
    expect(front.current[0]?.clientName).toBe('Test app');
    expect(front.current[0]?.alter).toMatchObject({ alterId: three, displayName: 'THREE' });
    expect(front.history.map((entry) => entry.alterId)).toEqual([three, two, one]);
    const times = front.history.map((entry) => Date.parse(entry.pushedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('pages the history with max and skip', async () => {
    const page = (await viaA.call<Front>('GET', '/v1/users/@me/front?max=1&skip=1')).body.data;
    expect(page.history.map((entry) => entry.alterId)).toEqual([alters[1]]);
    expect(page.current).toHaveLength(2);
    const tooMany = await viaA.call('GET', '/v1/users/@me/front?max=101');
    expect(tooMany.status).toBe(400);
    expect(errorTypes(tooMany)).toEqual(['max-too-high']);
  });

  it('answers 404 for an alter the system does not have, recording nothing', async () => {
    const before = (await viaA.call<Front>('GET', '/v1/users/@me/front')).body;
    const other = await signIn(server, '200000000000000022', { client: viaA.client });
    const theirs = (await other.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'theirs', displayName: 'T' })).body.alterId;
    for (const alter of [String(theirs), '987654321']) {
      const response = await push(viaA, alter);
      expect(response.status).toBe(404);
      expect(errorTypes(response)).toEqual(['unknown-alter']);
    }
    expect((await viaA.call<Front>('GET', '/v1/users/@me/front')).body).toEqual(before);
  });

  it.each([
    ['no alter', {}],
    ['an empty alter', { alter: '' }],
    ['a non-numeric alter', { alter: 'one' }],
    ['a negative alter', { alter: -1 }],
    ['a fractional alter', { alter: 1.5 }],
    ['an extra key', { alter: '1', switchedBy: 'me' }],
  ])('refuses %s with 400', async (_name, body) => {
    const response = await viaA.call('POST', '/v1/users/@me/front', body);
    expect(response.status).toBe(400);
    expect(errorFields(response).length).toBeGreaterThan(0);
  });
});
