// The alter endpoints over HTTP with real tokens: create, edit semantics, reads, listing and the
// integration-field lookup, on every dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ALTERS_PER_SYSTEM } from '../../../src/domain/alter.js';
import { errorFields, errorTypes, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { seedAlters } from '../../support/seed.js';
import { startTestServer, type TestServer } from '../../support/server.js';

interface Alter {
  alterId: number;
  systemId: string;
  username: string;
  displayName: string;
  [key: string]: unknown;
}

const SPEC_ALTER_FIELDS = [
  'alterId', 'systemId', 'username', 'displayName', 'nameMap', 'color', 'description', 'created', 'pronouns', 'avatarUrl',
  'avatarUrlMap', 'webhookAvatarUrl', 'banner', 'lastMessageTimestamp', 'messageCount', 'alterMode', 'proxyTags', 'tagIds',
  'public', 'flags', 'fields',
];

describe.each(DIALECTS)('alters (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let counter = 0;
  const uniqueName = (base = 'alter') => `${base}${++counter}`;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, '200000000000000001');
  });
  afterAll(async () => server?.stop());

  const create = (user: ApiUser, body: Record<string, unknown>) => user.call<Alter>('POST', '/v1/users/@me/system/create-alter', body);
  const edit = (user: ApiUser, id: number, body: unknown) => user.call<Alter>('POST', `/v1/users/@me/alters/${id}/edit`, body);
  const read = async (user: ApiUser, id: number) => (await user.call<{ isSelf: boolean; data: Alter }>('GET', `/v1/users/@me/alters/${id}`)).body.data;

  describe('create-alter', () => {
    it('answers a write-only token (alters:write without alters:read) with the alter named by id and nothing it may not read', async () => {
      const writer = await signIn(server, owner.userId, { client: owner.client, scope: 'openid alters:write' });
      const created = await create(writer, { username: 'quill', displayName: 'Quill', description: 'private words', pronouns: 'she/her' });
      expect(created.status).toBe(201);
      expect(created.body.alterId).toBeGreaterThan(0);
      expect(JSON.stringify(created.body)).not.toMatch(/Quill|quill|private words|she\/her/);
      expect(created.body.redacted).toEqual(expect.arrayContaining(['description', 'pronouns']));
      // An empty edit is no way to read it either; the owner's full token sees what was written.
      const edited = await edit(writer, created.body.alterId, {});
      expect(edited.status).toBe(200);
      expect(JSON.stringify(edited.body)).not.toMatch(/private words/);
      expect((await read(owner, created.body.alterId)).description).toBe('private words');
      expect((await owner.call('POST', `/v1/users/@me/alters/${created.body.alterId}/delete`, {})).status).toBe(200);
    });

    it('answers 201 with every field of the spec, defaults filled and ISO timestamps', async () => {
      const before = Date.now();
      const response = await create(owner, { username: uniqueName('ash'), displayName: 'Ash' });
      expect(response.status).toBe(201);
      const alter = response.body;
      for (const field of SPEC_ALTER_FIELDS) expect(alter, field).toHaveProperty(field);
      expect(alter).toMatchObject({
        displayName: 'Ash', nameMap: [], color: null, description: null, pronouns: null, avatarUrl: null, avatarUrlMap: {},
        webhookAvatarUrl: null, banner: null, lastMessageTimestamp: null, messageCount: 0, alterMode: 'webhook', proxyTags: [],
        tagIds: [], public: 0, flags: 0, fields: {}, redacted: [], birthday: null, autoproxyEnabled: true,
      });
      expect(Number.isSafeInteger(alter.alterId)).toBe(true);
      expect(Date.parse(alter.created as string)).toBeGreaterThanOrEqual(before - 1000);
      expect(alter.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(await read(owner, alter.alterId)).toEqual(alter);
    });

    it('accepts every optional editable field', async () => {
      const body = {
        username: uniqueName('full'),
        displayName: 'Full Alter',
        nameMap: [{ server: '300000000000000001', name: 'Server name' }],
        color: '#A1b2C3',
        description: 'desc',
        pronouns: 'they/them',
        avatarUrl: 'https://cdn.example/a.png',
        avatarUrlMap: { '300000000000000001': 'https://cdn.example/b.png' },
        webhookAvatarUrl: 'https://cdn.example/w.png',
        banner: 'https://cdn.example/banner.png',
        alterMode: 'both',
        proxyTags: [{ prefix: 'f:', suffix: null }, { id: 'mine', suffix: '-f' }],
        public: 1 | 2 | 512 | 1024,
        flags: 7,
        fields: { [owner.client.id]: 'external-1' },
        birthday: '1996-07-21',
        autoproxyEnabled: false,
      };
      const response = await create(owner, body);
      expect(response.status).toBe(201);
      const { proxyTags, fields, ...rest } = body;
      expect(response.body).toMatchObject(rest);
      expect(response.body.fields).toEqual(fields);
      expect(response.body.proxyTags).toEqual([
        { id: expect.stringMatching(/^[\w-]+$/), prefix: 'f:', suffix: null },
        { id: 'mine', prefix: null, suffix: '-f' },
      ]);
      expect(proxyTags).toHaveLength(2);
    });

    it('requires username and displayName, naming each missing field', async () => {
      const response = await create(owner, {});
      expect(response.status).toBe(400);
      expect(errorTypes(response)).toEqual(['validation', 'validation']);
      expect(errorFields(response).sort()).toEqual(['displayName', 'username']);
    });

    it.each([
      ['username with a space', { username: 'a b' }, 'username'],
      ['username with @', { username: 'a@b' }, 'username'],
      ['username with a slash', { username: 'a/b' }, 'username'],
      ['username with a right-to-left override', { username: 'abc\u202Egpj.exe' }, 'username'],
      ['username with a right-to-left isolate', { username: 'abc\u2067def' }, 'username'],
      ['username with a left-to-right mark', { username: 'abc\u200Edef' }, 'username'],
      ['username with a zero-width space', { username: 'ash\u200B' }, 'username'],
      ['username with a zero-width joiner', { username: 'a\u200Dsh' }, 'username'],
      ['username with a word joiner', { username: 'a\u2060sh' }, 'username'],
      ['username with a byte order mark', { username: '\uFEFFash' }, 'username'],
      ['username with a fullwidth @', { username: 'a\uFF20b' }, 'username'],
      ['empty username', { username: '' }, 'username'],
      ['username over 100 characters', { username: 'x'.repeat(101) }, 'username'],
      ['displayName over 100 characters', { displayName: 'x'.repeat(101) }, 'displayName'],
      ['description over 1000 characters', { description: 'x'.repeat(1001) }, 'description'],
      ['a color that is not #rrggbb', { color: 'red' }, 'color'],
      ['a javascript: avatar', { avatarUrl: 'javascript:alert(1)' }, 'avatarUrl'],
      ['an avatar with a password in it', { avatarUrl: 'https://me:secret@img.example/a.png' }, 'avatarUrl'],
      ['a banner over 2048 characters once percent-encoded', { banner: `https://img.example/${'a b'.repeat(600)}` }, 'banner'],
      ['a per-server avatar that is no URL', { avatarUrlMap: { '100000000000000001': 'a picture' } }, 'avatarUrlMap.100000000000000001'],
      ['an unknown alterMode', { alterMode: 'ghost' }, 'alterMode'],
      ['a proxy tag with neither prefix nor suffix', { proxyTags: [{ prefix: '', suffix: '' }] }, 'proxyTags.0'],
      ['a nameMap server that is not a snowflake', { nameMap: [{ server: 'abc', name: 'x' }] }, 'nameMap.0.server'],
      ['privacy bits that do not exist', { public: 2048 }, 'public'],
      ['a negative flag value', { flags: -1 }, 'flags'],
      ['a fractional flag value', { flags: 1.5 }, 'flags'],
      ['a number where a string belongs', { pronouns: 5 }, 'pronouns'],
      ['a NUL character', { description: 'a\u0000b' }, 'description'],
      ['a lone surrogate', { description: 'a\ud800b' }, 'description'],
      ['a field value over 150 characters', { fields: { placeholder: 'x'.repeat(151) } }, 'fields.placeholder'],
      ['an unknown key', { mood: 'happy' }, 'mood'],
      ['a birthday that does not exist', { birthday: '2023-02-29' }, 'birthday'],
      ['a year-less birthday in a month without that day', { birthday: '--04-31' }, 'birthday'],
      ['a birthday in year 0', { birthday: '0000-01-01' }, 'birthday'],
      ['a birthday with a time', { birthday: '1996-07-21T00:00:00Z' }, 'birthday'],
      ['a birthday in another order', { birthday: '21.07.1996' }, 'birthday'],
      ['autoproxyEnabled that is not a boolean', { autoproxyEnabled: 'no' }, 'autoproxyEnabled'],
    ])('refuses %s with 400 naming the field, and writes nothing', async (_name, patch, field) => {
      const body: Record<string, unknown> = { username: uniqueName('bad'), displayName: 'Bad', ...patch };
      if (field.startsWith('fields.')) body.fields = { [owner.client.id]: 'x'.repeat(151) };
      const before = await owner.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
      const response = await create(owner, body);
      expect(response.status).toBe(400);
      expect(errorTypes(response)).toContain('validation');
      const expectedField = field.startsWith('fields.') ? `fields.${owner.client.id}` : field;
      expect(errorFields(response)).toContain(expectedField);
      const after = await owner.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
      expect(after.body).toEqual(before.body);
    });

    it.each(['alterId', 'systemId', 'created', 'messageCount', 'lastMessageTimestamp'])('refuses the read-only key %s', async (key) => {
      const response = await create(owner, { username: uniqueName(), displayName: 'X', [key]: key === 'messageCount' ? 5 : '1' });
      expect(response.status).toBe(400);
      expect(errorTypes(response)).toEqual(['read-only-field']);
      expect(errorFields(response)).toEqual([key]);
    });

    it('refuses a username already taken in the system, ignoring case, with 409', async () => {
      const name = uniqueName('Sam');
      expect((await create(owner, { username: name, displayName: 'Sam' })).status).toBe(201);
      const clash = await create(owner, { username: name.toUpperCase(), displayName: 'Other Sam' });
      expect(clash.status).toBe(409);
      expect(errorTypes(clash)).toEqual(['duplicate']);
      expect(errorFields(clash)).toEqual(['username']);
    });

    it.each([
      ['a precomposed and a decomposed É', '\u00C9', 'e\u0301'],
      ['a precomposed É and a precomposed é', '\u00C9', '\u00E9'],
      ['fullwidth and ASCII letters', '\uFF21', 'a'],
      ['fullwidth lower and upper case', '\uFF41', '\uFF21'],
      ['ß and SS', '\u00DF', 'SS'],
      ['ẞ and ss', '\u1E9E', 'ss'],
      ['Σ and final ς', '\u03A3', '\u03C2'],
      ['σ and final ς', '\u03C3', '\u03C2'],
      ['İ and i with a combining dot', '\u0130', 'i\u0307'],
      ['the ligature ﬁ and fi', '\uFB01', 'FI'],
    ])('refuses %s as one username: 409 duplicate naming username', async (_name, first, second) => {
      const base = uniqueName('same');
      expect((await create(owner, { username: `${base}${first}`, displayName: 'First' })).status).toBe(201);
      const clash = await create(owner, { username: `${base}${second}`, displayName: 'Second' });
      expect(clash.status).toBe(409);
      expect(errorTypes(clash)).toEqual(['duplicate']);
      expect(errorFields(clash)).toEqual(['username']);
    });

    it.each([
      ['I and İ', 'I', '\u0130'],
      ['i and dotless ı', 'i', '\u0131'],
      ['e and é', 'e', '\u00E9'],
      ['Latin a and Cyrillic а', 'a', '\u0430'],
    ])('accepts %s as two usernames', async (_name, first, second) => {
      const base = uniqueName('apart');
      expect((await create(owner, { username: `${base}${first}`, displayName: 'First' })).status).toBe(201);
      expect((await create(owner, { username: `${base}${second}`, displayName: 'Second' })).status).toBe(201);
    });

    it('stores a 100-character username whose key is 18 times longer (the index entry stays within PostgreSQL’s limit)', async () => {
      const response = await create(owner, { username: '\u3316'.repeat(100), displayName: 'Kilometre' });
      expect(response.status).toBe(201);
      expect(response.body.username).toBe('\u3316'.repeat(100));
    });

    it('gives exactly one 201 among concurrent creates of look-alike spellings of one username, and 409 to the rest', async () => {
      const base = uniqueName('look');
      const spellings = ['stra\u00DFe', 'STRASSE', 'strasse', 'STRA\u1E9EE', '\uFF53\uFF54\uFF52\uFF41\uFF53\uFF53\uFF45', 'Stra\u00DFe'];
      const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => create(owner, { username: `${base}${spellings[i % spellings.length]}`, displayName: `Look ${i}` })));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(11);
      for (const response of responses.filter((r) => r.status === 409)) expect(errorFields(response)).toEqual(['username']);
      const list = await owner.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
      expect(list.body.filter((alter) => alter.username.startsWith(base))).toHaveLength(1);
    });

    it('lets two systems use the same username', async () => {
      const other = await signIn(server, '200000000000000002', { client: owner.client });
      const name = uniqueName('shared');
      expect((await create(owner, { username: name, displayName: 'A' })).status).toBe(201);
      expect((await create(other, { username: name, displayName: 'B' })).status).toBe(201);
    });

    it('gives exactly one 201 among concurrent creates of one username, and 409 to the rest', async () => {
      const name = uniqueName('race');
      const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => create(owner, { username: i % 2 ? name : name.toUpperCase(), displayName: `Racer ${i}` })));
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(11);
      const list = await owner.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
      expect(list.body.filter((alter) => alter.username.toLowerCase() === name.toLowerCase())).toHaveLength(1);
    });

    it(`stops at ${MAX_ALTERS_PER_SYSTEM} alters per system with 409 too-many-alters`, async () => {
      const user = await signIn(server, '200000000000000009', { client: owner.client });
      await seedAlters(server.database.db, user.userId, MAX_ALTERS_PER_SYSTEM - 1);
      expect((await create(user, { username: 'last', displayName: 'Last' })).status).toBe(201);
      const refused = await create(user, { username: 'one-too-many', displayName: 'No' });
      expect(refused.status).toBe(409);
      expect(errorTypes(refused)).toEqual(['too-many-alters']);
    });

    it(`lets exactly as many concurrent creates through as the ${MAX_ALTERS_PER_SYSTEM}-alter cap has room for`, async () => {
      const user = await signIn(server, '200000000000000010', { client: owner.client });
      await seedAlters(server.database.db, user.userId, MAX_ALTERS_PER_SYSTEM - 2);
      const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => create(user, { username: `near-cap-${i}`, displayName: 'Near' })));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(2);
      expect(statuses.filter((status) => status === 409)).toHaveLength(6);
      const page = await user.call<Alter[]>('GET', `/v1/users/@me/system/list-alters?skip=${MAX_ALTERS_PER_SYSTEM - 5}&max=100`);
      expect(page.body).toHaveLength(5);
    });
  });

  describe('edit', () => {
    let alter: Alter;
    beforeAll(async () => {
      alter = (
        await create(owner, {
          username: uniqueName('edit'),
          displayName: 'Editable',
          pronouns: 'she/her',
          description: 'keep me',
          color: '#112233',
          proxyTags: [{ id: 'p1', prefix: 'e:' }],
        })
      ).body;
    });

    it('changes only the keys given and returns the whole alter', async () => {
      const response = await edit(owner, alter.alterId, { pronouns: 'they/them' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ ...(await read(owner, alter.alterId)) });
      expect(response.body).toMatchObject({ pronouns: 'they/them', description: 'keep me', color: '#112233', displayName: 'Editable' });
      expect(response.body.proxyTags).toEqual([{ id: 'p1', prefix: 'e:', suffix: null }]);
    });

    it.each(['--02-29', '2024-02-29', '0004-12-31', '--01-01'])('takes the birthday %s and clears it with null', async (birthday) => {
      expect((await edit(owner, alter.alterId, { birthday })).body).toMatchObject({ birthday });
      expect((await edit(owner, alter.alterId, { birthday: null })).body).toMatchObject({ birthday: null });
    });

    it('stores image URLs in the percent-encoded form Discord accepts, and keeps an accepted one as sent', async () => {
      const response = await edit(owner, alter.alterId, {
        avatarUrl: 'https://img.example/my pic.png',
        webhookAvatarUrl: 'https://img.example/a|b.png',
        banner: 'https://img.example/Banner.png?v=1',
        avatarUrlMap: { '100000000000000001': 'https://img.example/server pic.png' },
      });
      expect(response.status).toBe(200);
      const expected = {
        avatarUrl: 'https://img.example/my%20pic.png',
        webhookAvatarUrl: 'https://img.example/a%7Cb.png',
        banner: 'https://img.example/Banner.png?v=1',
        avatarUrlMap: { '100000000000000001': 'https://img.example/server%20pic.png' },
      };
      expect(response.body).toMatchObject(expected);
      expect(await read(owner, alter.alterId)).toMatchObject(expected);
    });

    it('clears a nullable field with null', async () => {
      const response = await edit(owner, alter.alterId, { description: null });
      expect(response.status).toBe(200);
      expect(response.body.description).toBeNull();
      expect((await read(owner, alter.alterId)).description).toBeNull();
    });

    it('refuses null for a required field', async () => {
      const response = await edit(owner, alter.alterId, { displayName: null });
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['displayName']);
    });

    it('treats {} and an empty body as "change nothing"', async () => {
      const before = await read(owner, alter.alterId);
      const empty = await edit(owner, alter.alterId, {});
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual(before);
      const noBody = await owner.call<Alter>('POST', `/v1/users/@me/alters/${alter.alterId}/edit`);
      expect(noBody.status).toBe(200);
      expect(noBody.body).toEqual(before);
    });

    it('refuses unknown and read-only keys by name and applies none of the body', async () => {
      const before = await read(owner, alter.alterId);
      const response = await edit(owner, alter.alterId, { pronouns: 'xe/xem', created: '2020-01-01T00:00:00Z', shoeSize: 9 });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        errors: expect.arrayContaining([
          expect.objectContaining({ type: 'read-only-field', field: 'created' }),
          expect.objectContaining({ type: 'validation', field: 'shoeSize' }),
        ]),
      });
      expect(await read(owner, alter.alterId)).toEqual(before);
    });

    it('renames, keeping usernames unique (409 on a clash, nothing changed)', async () => {
      const other = (await create(owner, { username: uniqueName('taken'), displayName: 'Taken' })).body;
      const clash = await edit(owner, alter.alterId, { username: other.username.toUpperCase(), pronouns: 'not applied' });
      expect(clash.status).toBe(409);
      expect((await read(owner, alter.alterId)).pronouns).not.toBe('not applied');
      const renamed = await edit(owner, alter.alterId, { username: uniqueName('renamed') });
      expect(renamed.status).toBe(200);
      // Changing only the case of one's own name is not a clash.
      const recased = await edit(owner, alter.alterId, { username: renamed.body.username.toUpperCase() });
      expect(recased.status).toBe(200);
    });

    it('refuses a rename to a look-alike of another alter’s username (409), and allows another spelling of its own', async () => {
      const base = uniqueName('rename');
      const other = (await create(owner, { username: `${base}stra\u00DFe`, displayName: 'Other' })).body;
      const mine = (await create(owner, { username: `${base}mine`, displayName: 'Mine' })).body;
      const clash = await edit(owner, mine.alterId, { username: `${base.toUpperCase()}STRASSE`, pronouns: 'not applied' });
      expect(clash.status).toBe(409);
      expect(errorTypes(clash)).toEqual(['duplicate']);
      expect(errorFields(clash)).toEqual(['username']);
      expect(await read(owner, mine.alterId)).toMatchObject({ username: `${base}mine`, pronouns: null });
      const respelled = await edit(owner, other.alterId, { username: `${base}STRA\u1E9EE` });
      expect(respelled.status).toBe(200);
      expect(respelled.body.username).toBe(`${base}STRA\u1E9EE`);
      // The old spelling's key went with it: the name is still taken under every spelling.
      expect((await create(owner, { username: `${base}strasse`, displayName: 'Again' })).status).toBe(409);
    });

    it('refuses a rename to a username with a bidirectional override or a zero-width character (400 naming username)', async () => {
      for (const username of ['abc\u202Etxt.exe', 'ab\u200Bc', 'ab\u2066c']) {
        const response = await edit(owner, alter.alterId, { username });
        expect(response.status).toBe(400);
        expect(errorTypes(response)).toEqual(['validation']);
        expect(errorFields(response)).toEqual(['username']);
        expect(response.body).toMatchObject({ errors: [{ friendly: expect.stringContaining('text-direction controls') }] });
      }
    });

    it('keeps both of two concurrent edits of different fields', async () => {
      const [a, b] = await Promise.all([edit(owner, alter.alterId, { pronouns: 'ae/aer' }), edit(owner, alter.alterId, { color: '#abcdef' })]);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(await read(owner, alter.alterId)).toMatchObject({ pronouns: 'ae/aer', color: '#abcdef' });
    });

    it('refuses tag ids the system does not have, changing nothing', async () => {
      const response = await edit(owner, alter.alterId, { tagIds: [999999], pronouns: 'not applied' });
      expect(response.status).toBe(404);
      expect(errorTypes(response)).toEqual(['unknown-tag']);
      expect((await read(owner, alter.alterId)).pronouns).not.toBe('not applied');
    });

    it('answers 404 for an alter of another system and for one that does not exist', async () => {
      const other = await signIn(server, '200000000000000003', { client: owner.client });
      const theirs = (await create(other, { username: uniqueName('theirs'), displayName: 'Theirs' })).body;
      const response = await edit(owner, theirs.alterId, { pronouns: 'stolen' });
      expect(response.status).toBe(404);
      expect(errorTypes(response)).toEqual(['unknown-alter']);
      expect((await read(other, theirs.alterId)).pronouns).toBeNull();
      expect((await edit(owner, 987654321, {})).status).toBe(404);
    });

    it.each(['abc', '0', '-1', '1.5', '99999999999999999999'])('answers 400 for the alter id %s', async (id) => {
      const response = await owner.call('POST', `/v1/users/@me/alters/${id}/edit`, {});
      expect(response.status).toBe(400);
      expect(errorFields(response)).toEqual(['alter']);
    });
  });

  describe('integration fields', () => {
    it('stores only the calling client’s key, shows it only to that client, and clears it with null', async () => {
      const clientB = await createTestClient(server);
      const viaB = await signIn(server, owner.userId, { client: clientB });
      const alter = (await create(owner, { username: uniqueName('fields'), displayName: 'F', fields: { [owner.client.id]: 'a-value' } })).body;
      expect((await edit(viaB, alter.alterId, { fields: { [clientB.id]: 'b-value' } })).body.fields).toEqual({ [clientB.id]: 'b-value' });
      expect((await read(owner, alter.alterId)).fields).toEqual({ [owner.client.id]: 'a-value' });
      expect((await read(viaB, alter.alterId)).fields).toEqual({ [clientB.id]: 'b-value' });

      const foreign = await edit(viaB, alter.alterId, { fields: { [owner.client.id]: 'hijack' } });
      expect(foreign.status).toBe(400);
      expect(errorFields(foreign)).toEqual([`fields.${owner.client.id}`]);
      expect((await read(owner, alter.alterId)).fields).toEqual({ [owner.client.id]: 'a-value' });

      expect((await owner.call<Alter>('GET', '/v1/users/@me/fields/alters/a-value')).body.alterId).toBe(alter.alterId);
      expect((await viaB.call('GET', '/v1/users/@me/fields/alters/a-value')).status).toBe(404);
      expect((await viaB.call<Alter>('GET', '/v1/users/@me/fields/alters/b-value')).body.alterId).toBe(alter.alterId);

      expect((await edit(owner, alter.alterId, { fields: { [owner.client.id]: null } })).body.fields).toEqual({});
      expect((await owner.call('GET', '/v1/users/@me/fields/alters/a-value')).status).toBe(404);
      expect((await read(viaB, alter.alterId)).fields).toEqual({ [clientB.id]: 'b-value' });
    });

    it('keeps a field value unique per system and client (409)', async () => {
      const first = (await create(owner, { username: uniqueName('f1'), displayName: 'F1', fields: { [owner.client.id]: 'same' } })).body;
      const second = await create(owner, { username: uniqueName('f2'), displayName: 'F2', fields: { [owner.client.id]: 'same' } });
      expect(second.status).toBe(409);
      expect(errorTypes(second)).toEqual(['duplicate-field']);
      expect((await owner.call<Alter>('GET', '/v1/users/@me/fields/alters/same')).body.alterId).toBe(first.alterId);
    });

    it('finds values with characters that need URL encoding', async () => {
      const value = 'ext/ID with spaces?&#é';
      const alter = (await create(owner, { username: uniqueName('enc'), displayName: 'E', fields: { [owner.client.id]: value } })).body;
      const found = await owner.call<Alter>('GET', `/v1/users/@me/fields/alters/${encodeURIComponent(value)}`);
      expect(found.status).toBe(200);
      expect(found.body.alterId).toBe(alter.alterId);
    });
  });

  describe('GET alters/{alter}', () => {
    it('wraps the alter with isSelf', async () => {
      const alter = (await create(owner, { username: uniqueName('self'), displayName: 'Self' })).body;
      const response = await owner.call<{ isSelf: boolean; data: Alter }>('GET', `/v1/users/@me/alters/${alter.alterId}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ isSelf: true, data: alter });
      const byId = await owner.call('GET', `/v1/users/${owner.userId}/alters/${alter.alterId}`);
      expect(byId.body).toEqual(response.body);
    });

    it('answers 404 unknown-alter for a missing alter', async () => {
      const response = await owner.call('GET', '/v1/users/@me/alters/424242424');
      expect(response.status).toBe(404);
      expect(errorTypes(response)).toEqual(['unknown-alter']);
    });
  });

  describe('list-alters', () => {
    let lister: ApiUser;
    let ids: number[];
    beforeAll(async () => {
      lister = await signIn(server, '200000000000000004', { client: owner.client });
      await seedAlters(server.database.db, lister.userId, 260);
      ids = (await lister.call<Alter[]>('GET', '/v1/users/@me/system/list-alters?max=250&skip=0')).body.map((alter) => alter.alterId);
    });

    it('defaults to 250 alters in alterId order', async () => {
      const response = await lister.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
      expect(response.status).toBe(200);
      expect(response.body).toHaveLength(250);
      expect(response.body.map((alter) => alter.alterId)).toEqual(ids);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      for (const alter of response.body) expect(Object.keys(alter)).toEqual(expect.arrayContaining(SPEC_ALTER_FIELDS));
    });

    it('pages with max and skip without gaps or repeats', async () => {
      const pages: number[] = [];
      for (let skip = 0; skip < 300; skip += 100) {
        const page = await lister.call<Alter[]>('GET', `/v1/users/@me/system/list-alters?max=100&skip=${skip}`);
        pages.push(...page.body.map((alter) => alter.alterId));
      }
      expect(pages).toHaveLength(260);
      expect(new Set(pages).size).toBe(260);
      expect(pages.slice(0, 250)).toEqual(ids);
      expect((await lister.call<Alter[]>('GET', '/v1/users/@me/system/list-alters?skip=1000')).body).toEqual([]);
      expect((await lister.call<Alter[]>('GET', '/v1/users/@me/system/list-alters?max=1')).body.map((a) => a.alterId)).toEqual([ids[0]]);
    });

    it.each([
      ['max=251', 'max', 'max-too-high'],
      ['max=1000000', 'max', 'max-too-high'],
      ['max=0', 'max', 'validation'],
      ['max=-1', 'max', 'validation'],
      ['max=abc', 'max', 'validation'],
      ['max=1.5', 'max', 'validation'],
      ['max=1e3', 'max', 'validation'],
      ['max=', 'max', 'validation'],
      ['max=1&max=2', 'max', 'validation'],
      ['skip=-1', 'skip', 'validation'],
      ['skip=99999999999999999999', 'skip', 'validation'],
      ['skip=x', 'skip', 'validation'],
      ['page=2', 'page', 'validation'],
    ])('refuses ?%s with 400 naming %s', async (query, field, type) => {
      const response = await lister.call('GET', `/v1/users/@me/system/list-alters?${query}`);
      expect(response.status).toBe(400);
      expect(errorTypes(response)).toEqual([type]);
      expect(errorFields(response)).toEqual([field]);
    });
  });
});
