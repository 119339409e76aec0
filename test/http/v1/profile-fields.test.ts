// Custom profile fields over HTTP with real tokens, on every dialect: definitions created, edited,
// reordered and deleted (values with them, in one transaction), the cap, values written with the
// alter and checked per kind, what other users see (per field, in the query and the answer, on
// every alter read), and the events of field changes.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import { MAX_PROFILE_FIELDS, type ProfileField } from '../../../src/domain/profile-fields.js';
import { errorFields, errorTypes, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const SHOWS_ALTERS = 64;
/** visible, name, description. */
const ALTER_SHOWN = 1 | 2 | 4;

describe.each(DIALECTS)('profile fields (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  let counter = 0;
  const unique = (base = 'field') => `${base} ${++counter}`;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, '200000000000000801');
    other = await signIn(server, '200000000000000802');
    expect((await other.call('GET', '/v1/users/@me/system')).status).toBe(200);
  });
  afterAll(async () => server?.stop());

  const createField = (user: ApiUser, body: Record<string, unknown>) => user.call<ProfileField>('POST', '/v1/users/@me/system/create-profile-field', body);
  const newField = async (user: ApiUser, body: Record<string, unknown> = {}) => {
    const response = await createField(user, { name: unique(), ...body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  };
  const listFields = async (user: ApiUser, of = '@me') => user.call<ProfileField[]>('GET', `/v1/users/${of}/system/list-profile-fields`);
  const createAlter = async (user: ApiUser, body: Record<string, unknown> = {}) => {
    const response = await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: `alter${++counter}`, displayName: 'A', ...body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  };
  const editAlter = (user: ApiUser, id: number, body: unknown) => user.call<Alter>('POST', `/v1/users/@me/alters/${id}/edit`, body);
  const readAlter = async (user: ApiUser, id: number, of = '@me') => (await user.call<{ data: Alter }>('GET', `/v1/users/${of}/alters/${id}`)).body.data;
  const valueRows = async (fieldId: number) =>
    Number((await server.database.db.selectFrom('profile_field_values').select((eb) => eb.fn.countAll<number>().as('n')).where('field_id', '=', fieldId).executeTakeFirstOrThrow()).n);
  const expectProblem = (response: ApiResponse, status: number, type: string, field?: string) => {
    expect({ status: response.status, types: errorTypes(response) }).toEqual({ status, types: [type] });
    if (field !== undefined) expect(errorFields(response)).toEqual([field]);
  };

  it('creates a field with defaults (text, owner only, last in the order) and refuses bad definitions', async () => {
    const first = await newField(owner, { name: '  Likes  ' });
    expect(first).toMatchObject({ name: 'Likes', kind: 'text', privacy: 'owner', systemId: expect.any(String) });
    const second = await newField(owner, { kind: 'colour', privacy: 'everyone' });
    expect(second.position).toBe(first.position + 1);
    expectProblem(await createField(owner, { name: 'LIKES' }), 409, 'duplicate', 'name');
    expectProblem(await createField(owner, { name: unique(), kind: 'number' }), 400, 'validation', 'kind');
    expectProblem(await createField(owner, { name: unique(), privacy: 'friends' }), 400, 'validation', 'privacy');
    expectProblem(await createField(owner, { name: unique(), position: 0 }), 400, 'read-only-field', 'position');
    expectProblem(await createField(owner, {}), 400, 'validation', 'name');
  });

  it('checks each value by its field’s kind, stores it in its normal form, and writes nothing of a refused edit', async () => {
    const fields = {
      text: await newField(owner, { kind: 'text' }),
      markdown: await newField(owner, { kind: 'markdown' }),
      date: await newField(owner, { kind: 'date' }),
      monthDay: await newField(owner, { kind: 'month-day' }),
      colour: await newField(owner, { kind: 'colour' }),
      link: await newField(owner, { kind: 'link' }),
    };
    const good = {
      [fields.text.fieldId]: 'plain',
      [fields.markdown.fieldId]: '**bold**',
      [fields.date.fieldId]: '2024-02-29',
      [fields.monthDay.fieldId]: '--02-29',
      [fields.colour.fieldId]: '#A1b2c3',
      [fields.link.fieldId]: 'https://example.com/a b',
    };
    const alter = await createAlter(owner, { profileFields: good });
    expect(alter.profileFields).toEqual({ ...good, [fields.link.fieldId]: 'https://example.com/a%20b' });
    expect((await readAlter(owner, alter.alterId)).profileFields).toEqual(alter.profileFields);

    const bad: Array<[number, string]> = [
      [fields.text.fieldId, ''],
      [fields.text.fieldId, 'x'.repeat(1001)],
      [fields.date.fieldId, '2023-02-29'],
      [fields.date.fieldId, '--02-10'],
      [fields.monthDay.fieldId, '2024-02-10'],
      [fields.monthDay.fieldId, '--13-01'],
      [fields.colour.fieldId, 'red'],
      [fields.link.fieldId, 'javascript:alert(1)'],
    ];
    for (const [fieldId, value] of bad) {
      const response = await editAlter(owner, alter.alterId, { description: 'changed', profileFields: { [fieldId]: value } });
      expect(response.status, `${fieldId} ${value}`).toBe(400);
      expect(errorFields(response)).toEqual([`profileFields.${fieldId}`]);
    }
    const after = await readAlter(owner, alter.alterId);
    expect(after.description).toBeNull();
    expect(after.profileFields).toEqual(alter.profileFields);

    expectProblem(await editAlter(owner, alter.alterId, { profileFields: { 987654321: 'x' } }), 404, 'unknown-profile-field', 'profileFields.987654321');
    const theirs = await newField(other);
    expectProblem(await editAlter(owner, alter.alterId, { profileFields: { [theirs.fieldId]: 'x' } }), 404, 'unknown-profile-field');
    expectProblem(await editAlter(owner, alter.alterId, { profileFields: { abc: 'x' } }), 400, 'validation');

    // null removes one value; the others stay.
    const removed = await editAlter(owner, alter.alterId, { profileFields: { [fields.text.fieldId]: null } });
    expect(removed.status).toBe(200);
    expect(Object.keys(removed.body.profileFields)).not.toContain(String(fields.text.fieldId));
    expect(removed.body.profileFields[fields.markdown.fieldId]).toBe('**bold**');
  });

  it('edits a definition; a new kind keeps only the values valid as that kind', async () => {
    const field = await newField(owner, { kind: 'text' });
    const dated = await createAlter(owner, { profileFields: { [field.fieldId]: '2001-05-06' } });
    const worded = await createAlter(owner, { profileFields: { [field.fieldId]: 'not a date' } });
    const edited = await owner.call<ProfileField>('POST', `/v1/users/@me/profile-fields/${field.fieldId}/edit`, { kind: 'date', privacy: 'description' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ fieldId: field.fieldId, kind: 'date', privacy: 'description', name: field.name });
    expect((await readAlter(owner, dated.alterId)).profileFields[field.fieldId]).toBe('2001-05-06');
    expect((await readAlter(owner, worded.alterId)).profileFields[field.fieldId]).toBeUndefined();
    expect((await owner.call('POST', `/v1/users/@me/profile-fields/${field.fieldId}/edit`, {})).status).toBe(200);
    expectProblem(await owner.call('POST', '/v1/users/@me/profile-fields/987654321/edit', { name: 'x' }), 404, 'unknown-profile-field');
    const theirs = await newField(other);
    expectProblem(await owner.call('POST', `/v1/users/@me/profile-fields/${theirs.fieldId}/edit`, { name: 'x' }), 404, 'unknown-profile-field');
  });

  it('reorders: the list follows; a list that leaves one out or names another’s is refused and changes nothing', async () => {
    const before = (await listFields(owner)).body.map((field) => field.fieldId);
    const reversed = [...before].reverse();
    const ordered = await owner.call<ProfileField[]>('POST', '/v1/users/@me/system/order-profile-fields', { fieldIds: reversed });
    expect(ordered.status).toBe(200);
    expect(ordered.body.map((field) => field.fieldId)).toEqual(reversed);
    expect(ordered.body.map((field) => field.position)).toEqual(reversed.map((_, index) => index));
    expect((await listFields(owner)).body.map((field) => field.fieldId)).toEqual(reversed);
    expectProblem(await owner.call('POST', '/v1/users/@me/system/order-profile-fields', { fieldIds: reversed.slice(1) }), 400, 'validation', 'fieldIds');
    expectProblem(await owner.call('POST', '/v1/users/@me/system/order-profile-fields', { fieldIds: [...reversed.slice(1), 987654321] }), 404, 'unknown-profile-field', 'fieldIds');
    expectProblem(await owner.call('POST', '/v1/users/@me/system/order-profile-fields', { fieldIds: [reversed[0], reversed[0]] }), 400, 'validation');
    expect((await listFields(owner)).body.map((field) => field.fieldId)).toEqual(reversed);
  });

  it('deletes a field with every alter’s value of it', async () => {
    const field = await newField(owner);
    const kept = await newField(owner);
    const alter = await createAlter(owner, { profileFields: { [field.fieldId]: 'gone soon', [kept.fieldId]: 'stays' } });
    expect(await valueRows(field.fieldId)).toBe(1);
    const deleted = await owner.call('POST', `/v1/users/@me/profile-fields/${field.fieldId}/delete`);
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 200, body: { deleted: true } });
    expect(await valueRows(field.fieldId)).toBe(0);
    expect((await readAlter(owner, alter.alterId)).profileFields).toEqual({ [kept.fieldId]: 'stays' });
    expectProblem(await owner.call('POST', `/v1/users/@me/profile-fields/${field.fieldId}/delete`), 404, 'unknown-profile-field');
    expectProblem(await owner.call('GET', `/v1/users/@me/profile-fields/${field.fieldId}`), 404, 'unknown-profile-field');
  });

  it(`holds a system to ${MAX_PROFILE_FIELDS} fields`, async () => {
    const capped = await signIn(server, '200000000000000803');
    for (let i = 0; i < MAX_PROFILE_FIELDS; i++) expect((await createField(capped, { name: `f${i}` })).status).toBe(201);
    expectProblem(await createField(capped, { name: 'one too many' }), 409, 'too-many-profile-fields');
    expect((await listFields(capped)).body).toHaveLength(MAX_PROFILE_FIELDS);
  });

  describe('as another user sees them', () => {
    let shower: ApiUser;
    let fields: Record<'secret' | 'open' | 'followsDescription' | 'followsBanner', ProfileField>;
    let alter: Alter;
    let hiddenAlter: Alter;

    beforeAll(async () => {
      shower = await signIn(server, '200000000000000804');
      expect((await shower.call('POST', '/v1/users/@me/system/edit', { public: SHOWS_ALTERS })).status).toBe(200);
      fields = {
        secret: await newField(shower, { privacy: 'owner' }),
        open: await newField(shower, { privacy: 'everyone' }),
        followsDescription: await newField(shower, { privacy: 'description' }),
        followsBanner: await newField(shower, { privacy: 'banner' }),
      };
      const values = Object.fromEntries(Object.values(fields).map((field) => [field.fieldId, `value of ${field.name}`]));
      alter = await createAlter(shower, { public: ALTER_SHOWN, profileFields: values });
      hiddenAlter = await createAlter(shower, { public: 0, profileFields: values });
    });

    it('the owner sees every value on every read', async () => {
      expect(Object.keys(alter.profileFields)).toHaveLength(4);
      expect((await readAlter(shower, alter.alterId)).profileFields).toEqual(alter.profileFields);
      const listed = (await shower.call<Alter[]>('GET', '/v1/users/@me/system/list-alters')).body;
      expect(listed.find((entry) => entry.alterId === alter.alterId)?.profileFields).toEqual(alter.profileFields);
    });

    it('others see only the fields shown to them, on the alter read, the list and the searched list', async () => {
      const valueOf = (field: ProfileField) => alter.profileFields[field.fieldId];
      const expected = { [fields.open.fieldId]: valueOf(fields.open), [fields.followsDescription.fieldId]: valueOf(fields.followsDescription) };
      expect((await readAlter(other, alter.alterId, shower.userId)).profileFields).toEqual(expected);
      const listed = (await other.call<Alter[]>('GET', `/v1/users/${shower.userId}/system/list-alters`)).body;
      expect(listed.map((entry) => entry.alterId)).toEqual([alter.alterId]);
      expect(listed[0]?.profileFields).toEqual(expected);
      const sorted = (await other.call<Alter[]>('GET', `/v1/users/${shower.userId}/system/list-alters?sort=name`)).body;
      expect(sorted[0]?.profileFields).toEqual(expected);
      expect((await other.call('GET', `/v1/users/${shower.userId}/alters/${hiddenAlter.alterId}`)).status).toBe(404);
    });

    it('others list only the definitions anyone besides the owner may see, and read no other', async () => {
      const listed = await listFields(other, shower.userId);
      expect(listed.status).toBe(200);
      expect(listed.body.map((field) => field.fieldId)).toEqual([fields.open.fieldId, fields.followsDescription.fieldId, fields.followsBanner.fieldId]);
      expectProblem(await other.call('GET', `/v1/users/${shower.userId}/profile-fields/${fields.secret.fieldId}`), 404, 'unknown-profile-field');
      expect((await other.call('GET', `/v1/users/${shower.userId}/profile-fields/${fields.open.fieldId}`)).body).toMatchObject({ isSelf: false, data: { name: fields.open.name } });
      // A system that hides its alters hides its fields too.
      expectProblem(await listFields(shower, owner.userId), 403, 'alters-private');
    });

    it('a field made private disappears from others’ reads at once', async () => {
      expect((await shower.call('POST', `/v1/users/@me/profile-fields/${fields.open.fieldId}/edit`, { privacy: 'owner' })).status).toBe(200);
      const followed = fields.followsDescription.fieldId;
      expect((await readAlter(other, alter.alterId, shower.userId)).profileFields).toEqual({ [followed]: alter.profileFields[followed] });
      expect((await shower.call('POST', `/v1/users/@me/profile-fields/${fields.open.fieldId}/edit`, { privacy: 'everyone' })).status).toBe(200);
    });
  });

  // The lists read the values from memory (db/repositories/profile-value-cache.ts): every write
  // that changes what a list shows must show on the next list, for the owner and for others.
  it('shows every change of values, of a field’s privacy, kind or existence and of an alter’s bits on the next list', async () => {
    const lister = await signIn(server, '200000000000000809');
    expect((await lister.call('POST', '/v1/users/@me/system/edit', { public: SHOWS_ALTERS })).status).toBe(200);
    const open = await newField(lister, { privacy: 'everyone' });
    const follows = await newField(lister, { privacy: 'description' });
    const worded = await newField(lister, { kind: 'text', privacy: 'everyone' });
    const alter = await createAlter(lister, { public: ALTER_SHOWN, profileFields: { [open.fieldId]: 'one', [follows.fieldId]: 'two', [worded.fieldId]: 'not a date' } });
    /** The alter's values on the owner's list and on another user's, each read twice (the second from memory). */
    const lists = async () => {
      const valuesOn = async (user: ApiUser, of: string) => {
        const listed = await user.call<Alter[]>('GET', `/v1/users/${of}/system/list-alters`);
        expect(listed.status).toBe(200);
        return listed.body.find((entry) => entry.alterId === alter.alterId)?.profileFields;
      };
      const owner = await valuesOn(lister, '@me');
      const others = await valuesOn(other, lister.userId);
      expect({ owner: await valuesOn(lister, '@me'), others: await valuesOn(other, lister.userId) }, 'the second read answers as the first').toEqual({ owner, others });
      return { owner, others };
    };
    expect(await lists()).toEqual({
      owner: { [open.fieldId]: 'one', [follows.fieldId]: 'two', [worded.fieldId]: 'not a date' },
      others: { [open.fieldId]: 'one', [follows.fieldId]: 'two', [worded.fieldId]: 'not a date' },
    });

    // A value changed, one removed.
    expect((await editAlter(lister, alter.alterId, { profileFields: { [open.fieldId]: 'uno', [follows.fieldId]: null } })).status).toBe(200);
    expect(await lists()).toEqual({ owner: { [open.fieldId]: 'uno', [worded.fieldId]: 'not a date' }, others: { [open.fieldId]: 'uno', [worded.fieldId]: 'not a date' } });
    expect((await editAlter(lister, alter.alterId, { profileFields: { [follows.fieldId]: 'two' } })).status).toBe(200);

    // A field made private: others no longer see its value.
    expect((await lister.call('POST', `/v1/users/@me/profile-fields/${open.fieldId}/edit`, { privacy: 'owner' })).status).toBe(200);
    expect((await lists()).others).toEqual({ [follows.fieldId]: 'two', [worded.fieldId]: 'not a date' });

    // The alter hides its description: the field that follows it is hidden too.
    expect((await editAlter(lister, alter.alterId, { public: ALTER_SHOWN & ~4 })).status).toBe(200);
    expect((await lists()).others).toEqual({ [worded.fieldId]: 'not a date' });
    expect((await editAlter(lister, alter.alterId, { public: ALTER_SHOWN })).status).toBe(200);
    expect((await lists()).others).toEqual({ [follows.fieldId]: 'two', [worded.fieldId]: 'not a date' });

    // A new kind drops the values that are not of it; a deleted field takes its values.
    expect((await lister.call('POST', `/v1/users/@me/profile-fields/${worded.fieldId}/edit`, { kind: 'date' })).status).toBe(200);
    expect(await lists()).toEqual({ owner: { [open.fieldId]: 'uno', [follows.fieldId]: 'two' }, others: { [follows.fieldId]: 'two' } });
    expect((await lister.call('POST', `/v1/users/@me/profile-fields/${follows.fieldId}/delete`)).status).toBe(200);
    expect(await lists()).toEqual({ owner: { [open.fieldId]: 'uno' }, others: {} });

    // The lists do answer from memory: a write that notes no change (made here behind the service's
    // back) is not seen until one that does.
    await server.database.db.updateTable('profile_field_values').set({ value: 'behind its back' }).where('field_id', '=', open.fieldId).where('alter_id', '=', alter.alterId).execute();
    expect((await lists()).owner).toEqual({ [open.fieldId]: 'uno' });
    const another = await newField(lister, { privacy: 'everyone' });
    expect((await editAlter(lister, alter.alterId, { profileFields: { [another.fieldId]: 'noted' } })).status).toBe(200);
    expect((await lists()).owner).toEqual({ [open.fieldId]: 'behind its back', [another.fieldId]: 'noted' });
  });

  it('keeps fields and values through an export and an import (the switchboard key), matching fields by name', async () => {
    const from = await signIn(server, '200000000000000806');
    const to = await signIn(server, '200000000000000807');
    const colour = await newField(from, { name: 'Colour', kind: 'colour', privacy: 'everyone' });
    const notes = await newField(from, { name: 'Notes', kind: 'markdown' });
    const alter = await createAlter(from, { profileFields: { [colour.fieldId]: '#abcdef', [notes.fieldId]: '*hi*' } });
    const exported = await from.call<Record<string, unknown>>('GET', '/v1/users/@me/system/export');
    expect(exported.status).toBe(200);
    expect(exported.body.switchboard).toMatchObject({ profileFields: [{ id: String(colour.fieldId), name: 'Colour', kind: 'colour', privacy: 'everyone' }, { id: String(notes.fieldId), name: 'Notes' }] });

    // The target already has a field of one of the names (another kind): it is matched, not doubled.
    const existing = await newField(to, { name: 'notes', kind: 'text' });
    const imported = await to.call<{ data: { warnings: string[] } }>('POST', '/v1/users/@me/system/import', exported.body);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const fields = (await listFields(to)).body;
    expect(fields.map((field) => [field.name, field.kind, field.privacy])).toEqual([['notes', 'text', 'owner'], ['Colour', 'colour', 'everyone']]);
    const copy = (await to.call<Alter[]>('GET', '/v1/users/@me/system/list-alters')).body.find((entry) => entry.username === alter.username);
    expect(copy?.profileFields).toEqual({ [existing.fieldId]: '*hi*', [String(fields[1]?.fieldId)]: '#abcdef' });

    // Again: nothing new.
    expect((await to.call('POST', '/v1/users/@me/system/import', exported.body)).status).toBe(200);
    expect((await listFields(to)).body).toHaveLength(2);
  });

  it('appends the fields to PluralKit descriptions only when asked, and only those the description’s readers may see', async () => {
    const user = await signIn(server, '200000000000000808');
    const open = await newField(user, { name: 'Likes', privacy: 'everyone' });
    const secret = await newField(user, { name: 'Secret' });
    const shown = await createAlter(user, { description: 'Hi.', public: 1 | 4, profileFields: { [open.fieldId]: 'tea', [secret.fieldId]: 'shh' } });
    const hidden = await createAlter(user, { public: 1, profileFields: { [open.fieldId]: 'coffee', [secret.fieldId]: 'psst' } });
    type File = { members: Array<{ name: string; description: string | null }> };
    const plain = await user.call<File>('GET', '/v1/users/@me/system/export');
    expect(plain.body.members.find((member) => member.name === shown.username)?.description).toBe('Hi.');
    const asked = await user.call<File>('GET', '/v1/users/@me/system/export?profileFieldsInDescription=true');
    expect(asked.status).toBe(200);
    expect(asked.body.members.find((member) => member.name === shown.username)?.description).toBe('Hi.\n\n**Likes:** tea');
    // A private description may carry every field.
    expect(asked.body.members.find((member) => member.name === hidden.username)?.description).toBe('**Likes:** coffee\n**Secret:** psst');
    expectProblem(await user.call('GET', '/v1/users/@me/system/export?profileFieldsInDescription=yes'), 400, 'validation');
  });

  it('tells apps of field changes through events, as the owner sees them', async () => {
    const app = await createTestClient(server, { name: 'Field app', grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'], scopes: ['openid', 'alters:read', 'alters:write', 'system:read', 'events:manage'] });
    const appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    const user = await signIn(server, '200000000000000805', { client: app, scope: 'openid alters:read alters:write system:read' });
    type Feed = { data: { events: Array<{ type: string; data: Record<string, unknown> }>; next: string } };
    const start = await request<Feed>(server, 'GET', '/v1/events/feed', { token: appToken });
    const field = await newField(user, { kind: 'colour', privacy: 'everyone' });
    const second = await newField(user);
    expect((await user.call('POST', `/v1/users/@me/profile-fields/${field.fieldId}/edit`, { name: 'Colour' })).status).toBe(200);
    expect((await user.call('POST', '/v1/users/@me/system/order-profile-fields', { fieldIds: [second.fieldId, field.fieldId] })).status).toBe(200);
    const alter = await createAlter(user, { profileFields: { [field.fieldId]: '#123456' } });
    expect((await user.call('POST', `/v1/users/@me/profile-fields/${field.fieldId}/delete`)).status).toBe(200);
    const feed = await request<Feed>(server, 'GET', `/v1/events/feed?after=${start.body.data.next}`, { token: appToken });
    expect(feed.body.data.events.map((event) => event.type)).toEqual([
      'profile-field.created',
      'profile-field.created',
      'profile-field.updated',
      'profile-fields.ordered',
      'alter.created',
      'profile-field.deleted',
    ]);
    const [created, , updated, ordered, alterCreated, deleted] = feed.body.data.events;
    expect(created?.data.field).toMatchObject({ fieldId: field.fieldId, kind: 'colour', privacy: 'everyone' });
    expect(updated?.data.field).toMatchObject({ fieldId: field.fieldId, name: 'Colour' });
    expect(ordered?.data.fieldIds).toEqual([second.fieldId, field.fieldId]);
    expect(alterCreated?.data.alter).toMatchObject({ alterId: alter.alterId, profileFields: { [field.fieldId]: '#123456' } });
    expect(deleted?.data.fieldId).toBe(field.fieldId);
  });
});
