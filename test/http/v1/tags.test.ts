// The tag endpoints over HTTP with real tokens, on every dialect: create (limits, unique names),
// read, list and paging, partial edits, membership from both ends in one transaction, delete, and
// what other users see of tags and memberships.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { System } from '../../../src/domain/system.js';
import { MAX_TAGS_PER_SYSTEM, type Tag } from '../../../src/domain/tag.js';
import { usernameKey } from '../../../src/domain/username-key.js';
import { errorFields, errorTypes, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const TAG_ALL = 1 | 2 | 4 | 8 | 16 | 32;

describe.each(DIALECTS)('tags (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  let counter = 0;
  const unique = (base = 'tag') => `${base} ${++counter}`;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, '200000000000000001');
    other = await signIn(server, '200000000000000002');
    expect((await other.call('GET', '/v1/users/@me/system')).status).toBe(200);
  });
  afterAll(async () => server?.stop());

  const createTag = (user: ApiUser, body: Record<string, unknown>) => user.call<Tag>('POST', '/v1/users/@me/system/create-tag', body);
  const editTag = (user: ApiUser, id: number, body: unknown) => user.call<Tag>('POST', `/v1/users/@me/tags/${id}/edit`, body);
  const members = (user: ApiUser, id: number, body: unknown) => user.call<Tag>('POST', `/v1/users/@me/tags/${id}/alters`, body);
  const readTag = async (user: ApiUser, id: number) => (await user.call<{ isSelf: boolean; data: Tag }>('GET', `/v1/users/@me/tags/${id}`)).body.data;
  const createAlter = async (user: ApiUser, body: Record<string, unknown> = {}) => {
    const response = await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: `alter${++counter}`, displayName: 'A', ...body });
    expect(response.status).toBe(201);
    return response.body;
  };
  const readAlter = async (user: ApiUser, id: number) => (await user.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${id}`)).body.data;
  const tagRowCount = async (userId: string) => {
    const system = await server.database.db.selectFrom('systems').select('id').where('user_id', '=', userId).executeTakeFirstOrThrow();
    const row = await server.database.db.selectFrom('tags').select((eb) => eb.fn.countAll<number>().as('n')).where('system_id', '=', system.id).executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const expectProblem = (response: ApiResponse, status: number, type: string, field?: string) => {
    expect({ status: response.status, types: errorTypes(response) }).toEqual({ status, types: [type] });
    if (field !== undefined) expect(errorFields(response)).toEqual([field]);
  };

  describe('create-tag', () => {
    it('answers 201 with every field, defaults filled, private by default', async () => {
      const before = Date.now();
      const response = await createTag(owner, { name: '  Sleep crew  ' });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ name: 'Sleep crew', displayName: null, description: null, color: null, icon: null, public: 0, alterIds: [], redacted: [] });
      expect(Date.parse(response.body.created)).toBeGreaterThanOrEqual(before - 1000);
      expect(await readTag(owner, response.body.tagId)).toEqual(response.body);
      const key = await server.database.db.selectFrom('tags').select('name_key').where('id', '=', response.body.tagId).executeTakeFirstOrThrow();
      expect(key.name_key).toBe(usernameKey('Sleep crew'));
    });

    it('accepts every editable field', async () => {
      const body = { name: unique(), displayName: 'The Littles', description: 'Who is small', color: '#A1b2C3', icon: 'https://images.example/t.png', public: TAG_ALL };
      const response = await createTag(owner, body);
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject(body);
    });

    it('refuses bad values, naming each field, and changes nothing', async () => {
      const before = await tagRowCount(owner.userId);
      const response = await createTag(owner, { name: '   ', displayName: 'x'.repeat(101), description: 'd'.repeat(1001), color: 'red', icon: 'javascript:alert(1)', public: 64 });
      expect(response.status).toBe(400);
      expect(errorFields(response).sort()).toEqual(['color', 'description', 'displayName', 'icon', 'name', 'public']);
      expectProblem(await createTag(owner, {}), 400, 'validation', 'name');
      expectProblem(await createTag(owner, { name: 'n'.repeat(101) }), 400, 'validation', 'name');
      expectProblem(await createTag(owner, { name: '\u200b\u2060' }), 400, 'validation', 'name');
      expectProblem(await createTag(owner, { name: unique(), alterIds: [1] }), 400, 'read-only-field', 'alterIds');
      expectProblem(await createTag(owner, { name: unique(), tagId: 5 }), 400, 'read-only-field', 'tagId');
      expectProblem(await createTag(owner, { name: unique(), members: [] }), 400, 'validation', 'members');
      expect(await tagRowCount(owner.userId)).toBe(before);
    });

    it('refuses a name the system already has, ignoring case and look-alike forms (409)', async () => {
      const name = unique('Straße');
      expect((await createTag(owner, { name })).status).toBe(201);
      expectProblem(await createTag(owner, { name: name.toUpperCase() }), 409, 'duplicate', 'name');
      expectProblem(await createTag(owner, { name: ` ${name.replace('ß', 'SS')} ` }), 409, 'duplicate', 'name');
      // Another system may use it.
      expect((await createTag(other, { name })).status).toBe(201);
    });

    it('gives one 201 and 409s for concurrent creates of one name', async () => {
      const name = unique('race');
      const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => createTag(owner, { name: i % 2 ? name.toUpperCase() : name })));
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    });

    it(`refuses a tag past ${MAX_TAGS_PER_SYSTEM} per system`, async () => {
      const user = await signIn(server, '200000000000000003', { client: owner.client });
      expect((await user.call('GET', '/v1/users/@me/system')).status).toBe(200);
      const system = await server.database.db.selectFrom('systems').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow();
      const rows = Array.from({ length: MAX_TAGS_PER_SYSTEM - 1 }, (_, i) => ({ system_id: system.id, name: `seed ${i}`, name_key: usernameKey(`seed ${i}`), created_at: Date.now() }));
      for (let i = 0; i < rows.length; i += 100) await server.database.db.insertInto('tags').values(rows.slice(i, i + 100)).execute();
      const [a, b] = await Promise.all([createTag(user, { name: 'last one' }), createTag(user, { name: 'one too many' })]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      expect(errorTypes(a.status === 409 ? a : b)).toEqual(['too-many-tags']);
      expect(await tagRowCount(user.userId)).toBe(MAX_TAGS_PER_SYSTEM);
    });
  });

  describe('edit', () => {
    it('is partial: omitted keys unchanged, null clears, {} changes nothing', async () => {
      const tag = (await createTag(owner, { name: unique(), description: 'keep', color: '#000000' })).body;
      const edited = await editTag(owner, tag.tagId, { color: null, displayName: 'Shown' });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ name: tag.name, description: 'keep', color: null, displayName: 'Shown' });
      const none = await editTag(owner, tag.tagId, {});
      expect(none.body).toEqual(edited.body);
      expect(await readTag(owner, tag.tagId)).toEqual(edited.body);
    });

    it('renames (also to another case of its own name), keeps names unique, refuses a null name and read-only keys', async () => {
      const tag = (await createTag(owner, { name: unique('rename') })).body;
      const taken = (await createTag(owner, { name: unique('taken') })).body;
      expect((await editTag(owner, tag.tagId, { name: tag.name?.toUpperCase() })).body.name).toBe(tag.name?.toUpperCase());
      expectProblem(await editTag(owner, tag.tagId, { name: taken.name?.toLowerCase() }), 409, 'duplicate', 'name');
      expectProblem(await editTag(owner, tag.tagId, { name: null }), 400, 'validation', 'name');
      expectProblem(await editTag(owner, tag.tagId, { alterIds: [] }), 400, 'read-only-field', 'alterIds');
      const renamed = (await editTag(owner, tag.tagId, { name: 'fresh name' })).body;
      const key = await server.database.db.selectFrom('tags').select('name_key').where('id', '=', tag.tagId).executeTakeFirstOrThrow();
      expect(key.name_key).toBe(usernameKey(renamed.name ?? ''));
    });

    it('answers 404 for a tag of another system and one that does not exist', async () => {
      const theirs = (await createTag(other, { name: unique('theirs') })).body;
      expectProblem(await editTag(owner, theirs.tagId, { description: 'stolen' }), 404, 'unknown-tag');
      expectProblem(await editTag(owner, 999_999_999, { description: 'x' }), 404, 'unknown-tag');
      expect((await readTag(other, theirs.tagId)).description).toBeNull();
    });
  });

  describe('membership', () => {
    it('adds and removes in one call, visible from both ends', async () => {
      const [a, b, c] = [await createAlter(owner), await createAlter(owner), await createAlter(owner)];
      const tag = (await createTag(owner, { name: unique() })).body;
      const added = await members(owner, tag.tagId, { add: [c.alterId, a.alterId, b.alterId] });
      expect(added.status).toBe(200);
      expect(added.body.alterIds).toEqual([a.alterId, b.alterId, c.alterId]);
      const changed = await members(owner, tag.tagId, { add: [a.alterId], remove: [b.alterId] });
      expect(changed.body.alterIds).toEqual([a.alterId, c.alterId]);
      expect((await readAlter(owner, a.alterId)).tagIds).toEqual([tag.tagId]);
      expect((await readAlter(owner, b.alterId)).tagIds).toEqual([]);
      // And from the alter's end: tagIds replaces the alter's tags, the tag sees it.
      await owner.call('POST', `/v1/users/@me/alters/${b.alterId}/edit`, { tagIds: [tag.tagId] });
      expect((await readTag(owner, tag.tagId)).alterIds).toEqual([a.alterId, b.alterId, c.alterId]);
      expect((await members(owner, tag.tagId, {})).body.alterIds).toEqual([a.alterId, b.alterId, c.alterId]);
    });

    it('changes nothing when one alter is unknown or another system’s (404 naming the list)', async () => {
      const mine = await createAlter(owner);
      const theirs = await createAlter(other);
      const kept = await createAlter(owner);
      const tag = (await createTag(owner, { name: unique() })).body;
      await members(owner, tag.tagId, { add: [kept.alterId] });
      expectProblem(await members(owner, tag.tagId, { add: [mine.alterId, theirs.alterId], remove: [kept.alterId] }), 404, 'unknown-alter', 'add');
      expectProblem(await members(owner, tag.tagId, { add: [mine.alterId], remove: [999_999_999] }), 404, 'unknown-alter', 'remove');
      expect((await readTag(owner, tag.tagId)).alterIds).toEqual([kept.alterId]);
      expectProblem(await members(owner, tag.tagId, { add: [mine.alterId], remove: [mine.alterId] }), 400, 'validation', 'remove');
      expectProblem(await members(owner, tag.tagId, { add: [mine.alterId, mine.alterId] }), 400, 'validation', 'add');
      expectProblem(await members(owner, tag.tagId, { add: ['1'] }), 400, 'validation', 'add.0');
      expectProblem(await members(owner, 999_999_999, { add: [mine.alterId] }), 404, 'unknown-tag');
      expect((await readTag(owner, tag.tagId)).alterIds).toEqual([kept.alterId]);
    });

    it('an alter naming an unknown tag in tagIds is 404 unknown-tag and changes nothing', async () => {
      const alter = await createAlter(owner);
      const response = await owner.call('POST', `/v1/users/@me/alters/${alter.alterId}/edit`, { tagIds: [999_999_999], pronouns: 'no' });
      expectProblem(response, 404, 'unknown-tag', 'tagIds');
      expect((await readAlter(owner, alter.alterId)).pronouns).toBeNull();
    });
  });

  describe('delete', () => {
    it('removes the tag from every alter in one go; the alters stay', async () => {
      const [a, b] = [await createAlter(owner), await createAlter(owner)];
      const tag = (await createTag(owner, { name: unique() })).body;
      const keep = (await createTag(owner, { name: unique() })).body;
      await members(owner, tag.tagId, { add: [a.alterId, b.alterId] });
      await members(owner, keep.tagId, { add: [a.alterId] });
      const response = await owner.call('POST', `/v1/users/@me/tags/${tag.tagId}/delete`);
      expect(response).toMatchObject({ status: 200, body: { deleted: true } });
      expect((await readAlter(owner, a.alterId)).tagIds).toEqual([keep.tagId]);
      expect((await readAlter(owner, b.alterId)).tagIds).toEqual([]);
      expect(await server.database.db.selectFrom('alter_tags').select('alter_id').where('tag_id', '=', tag.tagId).execute()).toEqual([]);
      expectProblem(await owner.call('GET', `/v1/users/@me/tags/${tag.tagId}`), 404, 'unknown-tag');
      expectProblem(await owner.call('POST', `/v1/users/@me/tags/${tag.tagId}/delete`), 404, 'unknown-tag');
      const system = await owner.call<{ data: System }>('GET', '/v1/users/@me/system');
      expect(system.body.data.tagIds).not.toContain(tag.tagId);
      expect(system.body.data.tagIds).toContain(keep.tagId);
      // The name is free again.
      expect((await createTag(owner, { name: tag.name })).status).toBe(201);
    });

    it('gives one 200 to concurrent deletes of one tag', async () => {
      const tag = (await createTag(owner, { name: unique() })).body;
      const responses = await Promise.all(Array.from({ length: 4 }, () => owner.call('POST', `/v1/users/@me/tags/${tag.tagId}/delete`)));
      expect(responses.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
    });

    it('refuses another system’s tag and a body with keys', async () => {
      const theirs = (await createTag(other, { name: unique() })).body;
      expectProblem(await owner.call('POST', `/v1/users/@me/tags/${theirs.tagId}/delete`), 404, 'unknown-tag');
      expectProblem(await other.call('POST', `/v1/users/@me/tags/${theirs.tagId}/delete`, { force: true }), 400, 'validation', 'force');
      expect((await readTag(other, theirs.tagId)).tagId).toBe(theirs.tagId);
    });
  });

  describe('listing', () => {
    it('pages in id order with max and skip, and validates them', async () => {
      const user = await signIn(server, '200000000000000004', { client: owner.client });
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await createTag(user, { name: `page ${i}` })).body.tagId);
      const page = async (query: string) => (await user.call<Tag[]>('GET', `/v1/users/@me/system/list-tags${query}`)).body.map((tag) => tag.tagId);
      expect(await page('')).toEqual(ids);
      expect(await page('?max=2&skip=1')).toEqual(ids.slice(1, 3));
      expect(await page('?skip=5')).toEqual([]);
      expectProblem(await user.call('GET', '/v1/users/@me/system/list-tags?max=251'), 400, 'max-too-high', 'max');
      expectProblem(await user.call('GET', '/v1/users/@me/system/list-tags?max=0'), 400, 'validation', 'max');
      expectProblem(await user.call('GET', '/v1/users/@me/system/list-tags?skip=-1'), 400, 'validation', 'skip');
    });
  });

  describe('what others see', () => {
    let shower: ApiUser;
    let visibleAlter: Alter;
    let hiddenAlter: Alter;
    let quietAlter: Alter;
    let open: Tag;
    let closed: Tag;
    let secretMembers: Tag;

    beforeAll(async () => {
      shower = await signIn(server, '200000000000000005', { client: owner.client });
      // The system shows its alters and tags.
      expect((await shower.call('POST', '/v1/users/@me/system/edit', { public: 64 | 128 })).status).toBe(200);
      visibleAlter = await createAlter(shower, { public: 1 | 128 });
      hiddenAlter = await createAlter(shower, { public: 128 }); // not visible
      quietAlter = await createAlter(shower, { public: 1 }); // visible, hides its tags
      open = (await createTag(shower, { name: 'open', description: 'd', color: '#111111', icon: 'https://i.example/o.png', public: TAG_ALL })).body;
      closed = (await createTag(shower, { name: 'closed', description: 'secret' })).body;
      secretMembers = (await createTag(shower, { name: 'names only', public: 1 | 2 })).body;
      const everyone = [visibleAlter.alterId, hiddenAlter.alterId, quietAlter.alterId];
      for (const tag of [open, closed, secretMembers]) expect((await members(shower, tag.tagId, { add: everyone })).status).toBe(200);
    });

    const as = (viewer: ApiUser, path: string) => viewer.call<never>('GET', `/v1/users/${shower.userId}${path}`);

    it('shows visible tags with their bits; a hidden tag is 404 and absent from lists and tagIds', async () => {
      const read = await as(owner, `/tags/${open.tagId}`);
      expect(read.body).toEqual({ isSelf: false, data: { ...open, alterIds: [visibleAlter.alterId], redacted: [] } });
      expectProblem(await as(owner, `/tags/${closed.tagId}`), 404, 'unknown-tag');
      const list = (await as(owner, '/system/list-tags')).body as Tag[];
      expect(list.map((tag) => tag.tagId)).toEqual([open.tagId, secretMembers.tagId]);
      const names = list[1];
      expect(names).toMatchObject({ name: 'names only', description: null, color: null, icon: null, alterIds: [] });
      expect(names?.redacted.sort()).toEqual(['alterIds', 'color', 'description', 'icon']);
      const system = ((await as(owner, '/system')).body as { data: System }).data;
      expect(system.tagIds).toEqual([open.tagId, secretMembers.tagId]);
      // The owner sees everything.
      expect((await shower.call<Tag[]>('GET', '/v1/users/@me/system/list-tags')).body.map((tag) => tag.tagId)).toEqual([open.tagId, closed.tagId, secretMembers.tagId]);
      expect((await readTag(shower, closed.tagId)).alterIds).toEqual([visibleAlter.alterId, hiddenAlter.alterId, quietAlter.alterId]);
    });

    it('shows an alter’s tags only where both sides show the membership', async () => {
      const visible = ((await as(owner, `/alters/${visibleAlter.alterId}`)).body as { data: Alter }).data;
      expect(visible.tagIds).toEqual([open.tagId]);
      const quiet = ((await as(owner, `/alters/${quietAlter.alterId}`)).body as { data: Alter }).data;
      expect(quiet.tagIds).toEqual([]);
      expect(quiet.redacted).toContain('tagIds');
      const listed = (await as(owner, '/system/list-alters')).body as Alter[];
      expect(listed.find((alter) => alter.alterId === visibleAlter.alterId)?.tagIds).toEqual([open.tagId]);
      expect((await readAlter(shower, visibleAlter.alterId)).tagIds).toEqual([open.tagId, closed.tagId, secretMembers.tagId]);
    });

    it('refuses the list (403) and 404s every tag once the system hides its tags; alters keep their other fields', async () => {
      const user = await signIn(server, '200000000000000006', { client: owner.client });
      await user.call('POST', '/v1/users/@me/system/edit', { public: 64 });
      const tag = (await createTag(user, { name: 'open', public: TAG_ALL })).body;
      const alter = await createAlter(user, { public: 1 | 2 | 128, tagIds: [tag.tagId] });
      expectProblem(await owner.call('GET', `/v1/users/${user.userId}/system/list-tags`), 403, 'tags-private');
      expectProblem(await owner.call('GET', `/v1/users/${user.userId}/tags/${tag.tagId}`), 404, 'unknown-tag');
      const seen = (await owner.call<{ data: Alter }>('GET', `/v1/users/${user.userId}/alters/${alter.alterId}`)).body.data;
      expect(seen).toMatchObject({ displayName: 'A', tagIds: [] });
      expect(seen.redacted).toContain('tagIds');
      const system = (await owner.call<{ data: System }>('GET', `/v1/users/${user.userId}/system`)).body.data;
      expect(system.tagIds).toEqual([]);
      expect(system.redacted).toContain('tagIds');
    });

    it('refuses writes to another user’s tags', async () => {
      expectProblem(await owner.call('POST', `/v1/users/${shower.userId}/tags/${open.tagId}/edit`, { name: 'mine' }), 403, 'not-matching-oauth');
      expectProblem(await owner.call('POST', `/v1/users/${shower.userId}/tags/${open.tagId}/delete`), 403, 'not-matching-oauth');
      expect((await readTag(shower, open.tagId)).name).toBe('open');
    });
  });
});
