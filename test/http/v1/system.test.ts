// The system endpoints: the read shape, where systems come from, and edit semantics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorFields, errorTypes, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const SPEC_SYSTEM_FIELDS = [
  'associatedUserId', 'systemName', 'systemDisplayTag', 'displayTagMap', 'systemDescription', 'systemAvatar', 'systemBanner',
  'systemPronouns', 'nicknameFormat', 'alterIds', 'tagIds', 'createdAt', 'systemAutoproxy', 'systemOperationDM', 'latchExpiration',
  'public', 'flags', 'disabledGuilds', 'subAccounts', 'disabled',
];

type System = Record<string, unknown>;

describe.each(DIALECTS)('system (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, '200000000000000011');
  });
  afterAll(async () => server?.stop());

  const readSystem = async (user: ApiUser) => (await user.call<{ data: System }>('GET', '/v1/users/@me/system')).body.data;
  const editSystem = (user: ApiUser, body: unknown) => user.call<System>('POST', '/v1/users/@me/system/edit', body);

  it('exists from the first sign-in, with every spec field and documented defaults', async () => {
    const response = await owner.call<{ data: System }>('GET', '/v1/users/@me/system');
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data']);
    const system = response.body.data;
    for (const field of SPEC_SYSTEM_FIELDS) expect(system, field).toHaveProperty(field);
    expect(system).toMatchObject({
      associatedUserId: owner.userId, systemName: 'My system', systemDisplayTag: null, displayTagMap: {}, systemDescription: null,
      systemAvatar: null, systemBanner: null, systemPronouns: null, nicknameFormat: '@%username%', alterIds: [], tagIds: [],
      // Issue 27: a new system's latch expires after six hours (PluralKit's default); no colour, no time zone (UTC).
      systemAutoproxy: [], systemOperationDM: true, latchExpiration: 6 * 60 * 60 * 1000, public: 0, flags: 0, disabledGuilds: [], subAccounts: [],
      disabled: false, systemColor: null, systemTimezone: null, redacted: [],
    });
    expect(new Date(system.createdAt as string).toISOString()).toBe(system.createdAt);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('is the same when addressed by the user id instead of @me', async () => {
    const byId = await owner.call<{ data: System }>('GET', `/v1/users/${owner.userId}/system`);
    expect(byId.body.data).toEqual(await readSystem(owner));
  });

  it('lists the system’s alters in alterIds', async () => {
    const created = await owner.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'listed', displayName: 'Listed' });
    expect((await readSystem(owner)).alterIds).toEqual([created.body.alterId]);
  });

  it('edits partially and returns the system unwrapped', async () => {
    const before = await readSystem(owner);
    const response = await editSystem(owner, { systemName: 'The Crew', systemPronouns: 'we/us', latchExpiration: 3_600_000, systemOperationDM: false });
    expect(response.status).toBe(200);
    expect(response.body).not.toHaveProperty('data');
    expect(response.body).toEqual({ ...before, systemName: 'The Crew', systemPronouns: 'we/us', latchExpiration: 3_600_000, systemOperationDM: false });
    expect(await readSystem(owner)).toEqual(response.body);
  });

  it('accepts every editable field', async () => {
    const body = {
      systemName: 'Everything',
      systemDisplayTag: '| crew',
      displayTagMap: { '300000000000000001': '| c' },
      systemDescription: 'About us',
      systemAvatar: 'https://cdn.example/s.png',
      systemBanner: 'https://cdn.example/sb.png',
      systemPronouns: 'they/them',
      nicknameFormat: '%display% (%username%)',
      systemOperationDM: true,
      latchExpiration: 36_000_000,
      public: 255,
      flags: 7,
      disabledGuilds: ['300000000000000002'],
      disabled: true,
      systemColor: '#A1B2C3',
      systemTimezone: 'America/Argentina/Buenos_Aires',
    };
    const response = await editSystem(owner, body);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject(body);
  });

  it('clears nullable fields with null and leaves omitted ones', async () => {
    await editSystem(owner, { systemDescription: 'to clear', systemPronouns: 'to keep' });
    const response = await editSystem(owner, { systemDescription: null });
    expect(response.body).toMatchObject({ systemDescription: null, systemPronouns: 'to keep' });
  });

  it('treats {} and an empty body as "change nothing"', async () => {
    const before = await readSystem(owner);
    expect((await editSystem(owner, {})).body).toEqual(before);
    const noBody = await owner.call<System>('POST', '/v1/users/@me/system/edit');
    expect(noBody.status).toBe(200);
    expect(noBody.body).toEqual(before);
  });

  it.each(['associatedUserId', 'alterIds', 'tagIds', 'createdAt', 'systemAutoproxy', 'subAccounts'])('refuses the read-only key %s', async (key) => {
    const before = await readSystem(owner);
    const response = await editSystem(owner, { systemName: 'not applied', [key]: [] });
    expect(response.status).toBe(400);
    expect(errorTypes(response)).toEqual(['read-only-field']);
    expect(errorFields(response)).toEqual([key]);
    expect(await readSystem(owner)).toEqual(before);
  });

  it.each([
    ['a null systemName', { systemName: null }, 'systemName'],
    ['an empty systemName', { systemName: '' }, 'systemName'],
    ['a systemName over 100 characters', { systemName: 'x'.repeat(101) }, 'systemName'],
    ['a description over 1000 characters', { systemDescription: 'x'.repeat(1001) }, 'systemDescription'],
    ['a latchExpiration over 10 hours', { latchExpiration: 36_000_001 }, 'latchExpiration'],
    ['a negative latchExpiration', { latchExpiration: -1 }, 'latchExpiration'],
    ['a huge number', { latchExpiration: 1e308 }, 'latchExpiration'],
    ['unknown privacy bits', { public: 512 }, 'public'],
    ['unknown flags', { flags: 8 }, 'flags'],
    ['a string boolean', { disabled: 'yes' }, 'disabled'],
    ['a server id that is not a snowflake', { disabledGuilds: ['guild'] }, 'disabledGuilds.0'],
    ['a repeated server id', { disabledGuilds: ['300000000000000002', '300000000000000002'] }, 'disabledGuilds'],
    ['a data: avatar', { systemAvatar: 'data:image/png;base64,AAAA' }, 'systemAvatar'],
    ['an unknown key', { systemColour: '#fff' }, 'systemColour'],
    ['a colour without #', { systemColor: 'a1b2c3' }, 'systemColor'],
    ['a short colour', { systemColor: '#fff' }, 'systemColor'],
    ['a time zone tzdb does not know', { systemTimezone: 'Mars/Olympus_Mons' }, 'systemTimezone'],
    ['an offset instead of a time zone', { systemTimezone: '+01:00' }, 'systemTimezone'],
    ['a time zone that is not text', { systemTimezone: 1 }, 'systemTimezone'],
  ])('refuses %s, naming the field and changing nothing', async (_name, body, field) => {
    const before = await readSystem(owner);
    const response = await editSystem(owner, { systemPronouns: 'not applied', ...body });
    expect(response.status).toBe(400);
    expect(errorFields(response)).toContain(field);
    expect(await readSystem(owner)).toEqual(before);
  });

  it('clears the colour and the time zone with null (UTC again)', async () => {
    await editSystem(owner, { systemColor: '#010203', systemTimezone: 'Asia/Kolkata' });
    const response = await editSystem(owner, { systemColor: null, systemTimezone: null });
    expect(response.body).toMatchObject({ systemColor: null, systemTimezone: null });
  });

  it('keeps the latch timeout of a system made before the six-hour default, 0 still meaning never', async () => {
    const user = await signIn(server, '200000000000000012');
    // As a system stored before issue 27 has it (the column's default is still 0).
    await server.database.db.updateTable('systems').set({ latch_expiration: 0 }).where('user_id', '=', user.userId).execute();
    await editSystem(user, { systemName: 'Older' });
    expect((await readSystem(user)).latchExpiration).toBe(0);
  });

  it('answers 404 no-system for a user who never signed in', async () => {
    const response = await owner.call('GET', '/v1/users/299999999999999999/system');
    expect(response.status).toBe(404);
    expect(errorTypes(response)).toEqual(['no-system']);
  });
});
