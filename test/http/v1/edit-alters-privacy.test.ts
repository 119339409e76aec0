// POST /system/edit-alters-privacy (issue 31, the dashboard's "Make all public / private"): the
// privacy of many alters in one transaction, so a selection is changed whole or not at all. Every
// changed alter sends the alter.updated event one edit would; bad input changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import { ALTER_PRIVACY_MASK, AlterPrivacy, SystemPrivacy } from '../../../src/domain/privacy-bits.js';
import { errorFields, errorTypes, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { seedAlters } from '../../support/seed.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const OWNER = '200000000000003101';
const OTHER = '200000000000003102';
const MANY = '200000000000003103';
const PATH = '/v1/users/@me/system/edit-alters-privacy';

describe.each(DIALECTS)('setting many alters’ privacy at once (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  let counter = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, OWNER);
    other = await signIn(server, OTHER);
    // The system shows its alter list, so each alter's own bits decide what others see.
    expect((await owner.call('POST', '/v1/users/@me/system/edit', { public: SystemPrivacy.alters })).status).toBe(200);
  });
  afterAll(async () => server?.stop());

  const createAlter = async (user: ApiUser, body: Record<string, unknown> = {}) => {
    const response = await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: `alter${++counter}`, displayName: `Alter ${counter}`, ...body });
    expect(response.status).toBe(201);
    return response.body;
  };
  const bitsOf = async (ids: number[]) =>
    Promise.all(ids.map(async (id) => (await owner.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${id}`)).body.data.public));
  const systemId = async (user: ApiUser) => (await server.database.db.selectFrom('systems').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow()).id;
  const events = async (user: ApiUser) =>
    server.database.db.selectFrom('events').select(['type', 'payload', 'actor_client_id']).where('system_id', '=', await systemId(user)).orderBy('seq').execute();
  const visibleToOther = async () => (await other.call<Alter[]>('GET', `/v1/users/${OWNER}/system/list-alters`)).body.map((alter) => alter.alterId);

  it('sets the bits of every named alter in one call, sends one alter.updated per changed alter, and answers them in the order named', async () => {
    const [a, b, c] = [await createAlter(owner), await createAlter(owner), await createAlter(owner, { public: ALTER_PRIVACY_MASK })];
    const before = (await events(owner)).length;

    const made = await owner.call<Alter[]>('POST', PATH, { alterIds: [c.alterId, a.alterId, b.alterId], public: ALTER_PRIVACY_MASK });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.map((alter) => [alter.alterId, alter.public])).toEqual([
      [c.alterId, ALTER_PRIVACY_MASK],
      [a.alterId, ALTER_PRIVACY_MASK],
      [b.alterId, ALTER_PRIVACY_MASK],
    ]);
    expect(made.body[1]).toMatchObject({ username: a.username, displayName: a.displayName, redacted: [] });
    expect(await bitsOf([a.alterId, b.alterId, c.alterId])).toEqual([ALTER_PRIVACY_MASK, ALTER_PRIVACY_MASK, ALTER_PRIVACY_MASK]);
    expect(await visibleToOther()).toEqual(expect.arrayContaining([a.alterId, b.alterId, c.alterId]));

    // c already had these bits: no event for it; a and b each get the one an edit would send.
    const sent = (await events(owner)).slice(before);
    expect(sent.map((event) => event.type)).toEqual(['alter.updated', 'alter.updated']);
    expect(sent.map((event) => event.actor_client_id)).toEqual([owner.client.id, owner.client.id]);
    const payloads = sent.map((event) => (JSON.parse(event.payload) as { alter: { id: number; public: number; username: string } }).alter);
    expect(payloads.map((alter) => [alter.id, alter.public, alter.username])).toEqual([
      [a.alterId, ALTER_PRIVACY_MASK, a.username],
      [b.alterId, ALTER_PRIVACY_MASK, b.username],
    ]);

    // And back to private: others no longer see them at all.
    const hidden = await owner.call<Alter[]>('POST', PATH, { alterIds: [a.alterId, b.alterId], public: 0 });
    expect(hidden.status).toBe(200);
    expect(await bitsOf([a.alterId, b.alterId, c.alterId])).toEqual([0, 0, ALTER_PRIVACY_MASK]);
    const shown = await visibleToOther();
    expect(shown).not.toContain(a.alterId);
    expect(shown).not.toContain(b.alterId);
    expect(shown).toContain(c.alterId);
  });

  it('writes the events of 2,000 alters, every one in the order named, numbered one after another', async () => {
    const many = await signIn(server, MANY);
    await seedAlters(server.database.db, MANY, 2_000);
    const id = await systemId(many);
    const ids = (await server.database.db.selectFrom('alters').select('id').where('system_id', '=', id).orderBy('id').execute()).map((row) => Number(row.id));
    expect(ids).toHaveLength(2_000);
    // Named out of order (odd places first, then the even ones backwards), one already public: no event for it.
    const named = [...ids.filter((_, k) => k % 2 === 1), ...ids.filter((_, k) => k % 2 === 0).reverse()];
    const already = named[777] as number;
    await server.database.db.updateTable('alters').set({ public: ALTER_PRIVACY_MASK }).where('id', '=', already).execute();
    const before = await server.database.db.selectFrom('events').select('seq').where('system_id', '=', id).orderBy('seq', 'desc').executeTakeFirst();

    const made = await many.call<Alter[]>('POST', `/v1/users/@me/system/edit-alters-privacy`, { alterIds: named, public: ALTER_PRIVACY_MASK });
    expect(made.status, JSON.stringify(made.body).slice(0, 200)).toBe(200);
    expect(made.body.map((alter) => alter.alterId)).toEqual(named);
    expect(made.body.every((alter) => alter.public === ALTER_PRIVACY_MASK)).toBe(true);

    const sent = await server.database.db.selectFrom('events').select(['seq', 'type', 'payload', 'actor_client_id', 'actor_account_id']).where('system_id', '=', id).orderBy('seq').execute();
    const firstSeq = Number(before?.seq ?? 0) + 1;
    const changed = named.filter((alterId) => alterId !== already);
    expect(sent.map((event) => Number(event.seq))).toEqual(changed.map((_, k) => firstSeq + k));
    expect(sent.every((event) => event.type === 'alter.updated' && event.actor_client_id === many.client.id && event.actor_account_id === MANY)).toBe(true);
    const payloads = sent.map((event) => (JSON.parse(event.payload) as { alter: { id: number; public: number } }).alter);
    expect(payloads.map((alter) => alter.id)).toEqual(changed);
    expect(payloads.every((alter) => alter.public === ALTER_PRIVACY_MASK)).toBe(true);
    const system = await server.database.db.selectFrom('systems').select('event_seq').where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(system.event_seq)).toBe(firstSeq + changed.length - 1);
  });

  it('changes nothing, and sends no event, when one id is not an alter of the system', async () => {
    const mine = await createAlter(owner);
    const theirs = await createAlter(other);
    const before = (await events(owner)).length;
    const refused = await owner.call('POST', PATH, { alterIds: [mine.alterId, theirs.alterId], public: ALTER_PRIVACY_MASK });
    expect(refused.status).toBe(404);
    expect(errorTypes(refused)).toEqual(['unknown-alter']);
    expect(errorFields(refused)).toEqual(['alterIds']);
    expect(await bitsOf([mine.alterId])).toEqual([0]);
    expect((await other.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${theirs.alterId}`)).body.data.public).toBe(0);
    expect((await events(owner)).length).toBe(before);
    expect((await owner.call('POST', PATH, { alterIds: [mine.alterId, 999_999_999], public: 1 })).status).toBe(404);
    expect(await bitsOf([mine.alterId])).toEqual([0]);
  });

  it('refuses malformed bodies with the documented error shape, changing nothing', async () => {
    const mine = await createAlter(owner);
    const before = (await events(owner)).length;
    const bad: Array<[unknown, string]> = [
      [{ alterIds: [mine.alterId] }, 'public'],
      [{ public: 1 }, 'alterIds'],
      [{ alterIds: [], public: 1 }, 'alterIds'],
      [{ alterIds: [mine.alterId, mine.alterId], public: 1 }, 'alterIds'],
      [{ alterIds: [String(mine.alterId)], public: 1 }, 'alterIds.0'],
      [{ alterIds: [0], public: 1 }, 'alterIds.0'],
      [{ alterIds: [mine.alterId], public: ALTER_PRIVACY_MASK + 1 }, 'public'],
      [{ alterIds: [mine.alterId], public: 4096 | AlterPrivacy.visible }, 'public'],
      [{ alterIds: [mine.alterId], public: -1 }, 'public'],
      [{ alterIds: [mine.alterId], public: 1.5 }, 'public'],
      [{ alterIds: [mine.alterId], public: 1, extra: true }, 'extra'],
      [{ alterIds: Array.from({ length: 2001 }, (_, index) => index + 1), public: 1 }, 'alterIds'],
    ];
    for (const [body, field] of bad) {
      const response = await owner.call('POST', PATH, body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(errorTypes(response)).toContain('validation');
      expect(errorFields(response)).toContain(field);
    }
    expect(await bitsOf([mine.alterId])).toEqual([0]);
    expect((await events(owner)).length).toBe(before);
  });

  it('needs alters:write, and is the owner’s own', async () => {
    const mine = await createAlter(owner);
    const reader = await signIn(server, OWNER, { scope: 'openid alters:read system:read' });
    const noScope = await reader.call('POST', PATH, { alterIds: [mine.alterId], public: ALTER_PRIVACY_MASK });
    expect(noScope.status).toBe(403);
    expect(errorTypes(noScope)).toEqual(['invalid-scopes']);
    const stranger = await other.call('POST', `/v1/users/${OWNER}/system/edit-alters-privacy`, { alterIds: [mine.alterId], public: ALTER_PRIVACY_MASK });
    expect(stranger.status).toBe(403);
    expect(await bitsOf([mine.alterId])).toEqual([0]);
  });
});
