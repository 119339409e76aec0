// The Simply Plural import over HTTP (issue 30), on every dialect: the sample mapped into alters,
// tags and switches, the report's notImported, custom fronts imported or skipped, friendsArePublic,
// the modes, idempotent re-import by import links, refusals that change nothing (§8), and the
// file's secrets (tokens, push tokens, IP addresses, friends' ids) found nowhere in the database
// after an import, nor in the service's log (a process of its own, logging everything).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/db/database.js';
import type { ImportReport } from '../../../src/domain/import/model.js';
import { AlterPrivacy } from '../../../src/domain/privacy-bits.js';
import { ALL_API_SCOPES, errorTypes, request, signIn, type ApiResponse, type ApiUser, type ErrorBody } from '../../support/api.js';
import { createTestDatabase, DIALECTS } from '../../support/dialects.js';
import { createTestClient, obtainTokens } from '../../support/oauth.js';
import { SAMPLES } from '../../support/samples.js';
import { freePort, startTestServer, type TestServer } from '../../support/server.js';
import { startService, stopService, waitReady } from '../../support/service-process.js';
import { describeDifference, snapshotDatabase } from '../../support/snapshot.js';

const spText = readFileSync(`${SAMPLES}/simply-plural.json`, 'utf8');
const spFile = () => JSON.parse(spText) as Record<string, Array<Record<string, unknown>>>;
const T0 = Date.UTC(2026, 4, 18, 8);
const H = 3_600_000;
/** What the sample holds that must never be stored, logged or echoed. */
const SECRETS = ['U1AtQVBJLVRPS0VO', 'fcm-PUSH-TOKEN-SECRET', '198.51.100.77', '2001:db8::beef', 'FRIENDUIDsecretXq9Lm2Pz7Rt4', 'c0ffeec0ffee'];

let nextUser = 0;
const newUserId = () => `2000000000000${String(60000 + ++nextUser)}`;

interface AlterBody {
  alterId: number;
  username: string;
  displayName: string;
  color: string | null;
  avatarUrl: string | null;
  pronouns: string | null;
  description: string | null;
  public: number;
}

describe.each(DIALECTS)('Simply Plural import (%s)', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.stop());

  const importFile = (user: ApiUser, body: string, query = '', headers: Record<string, string> = {}) =>
    request<{ data: ImportReport }>(server, 'POST', `/v1/users/@me/system/import${query}`, { token: user.token, raw: body, headers: { 'content-type': 'application/json', ...headers } });
  const ok = (response: ApiResponse<{ data: ImportReport }>) => {
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };
  const listAlters = async (user: ApiUser) => (await user.call<AlterBody[]>('GET', '/v1/users/@me/system/list-alters')).body;
  const systemIdOf = async (user: ApiUser) => Number((await server.database.db.selectFrom('systems').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow()).id);
  const tagsOf = async (user: ApiUser) => server.database.db.selectFrom('tags').selectAll().where('system_id', '=', await systemIdOf(user)).orderBy('id').execute();
  const membersOf = async (user: ApiUser, tagName: string) => {
    const rows = await server.database.db
      .selectFrom('alter_tags as at')
      .innerJoin('tags as t', 't.id', 'at.tag_id')
      .innerJoin('alters as a', 'a.id', 'at.alter_id')
      .select('a.username')
      .where('t.system_id', '=', await systemIdOf(user))
      .where('t.name', '=', tagName)
      .orderBy('a.username')
      .execute();
    return rows.map((row) => row.username);
  };
  const switchesOf = async (user: ApiUser) => {
    const rows = await server.database.db
      .selectFrom('switches as s')
      .leftJoin('switch_members as m', 'm.switch_id', 's.id')
      .leftJoin('alters as a', 'a.id', 'm.alter_id')
      .select(['s.id', 's.switched_at', 'a.username', 'm.position'])
      .where('s.system_id', '=', await systemIdOf(user))
      .orderBy('s.switched_at')
      .orderBy('m.position')
      .execute();
    const byId = new Map<number, [number, string[]]>();
    for (const row of rows) {
      const entry = byId.get(Number(row.id)) ?? [(Number(row.switched_at) - T0) / H, []];
      if (row.username) entry[1].push(row.username);
      byId.set(Number(row.id), entry);
    }
    return [...byId.values()].map(([at, members]) => [at, members.join('+')]);
  };
  const snapshot = () => snapshotDatabase(server.database.db, { exclude: ['oidc_payloads'] });
  const expectUnchanged = async (before: Awaited<ReturnType<typeof snapshot>>) => {
    const after = await snapshot();
    expect(after.digest, describeDifference(before, after)).toBe(before.digest);
  };

  describe('the sample, with its history', () => {
    let user: ApiUser;
    let report: ImportReport;
    beforeAll(async () => {
      user = await signIn(server, newUserId());
      report = ok(await importFile(user, spText, '?history=true'));
    });

    it('answers the report: format, counts, and what it left out by kind', () => {
      expect(report).toMatchObject({
        format: 'simplyplural',
        mode: 'merge',
        dryRun: false,
        history: true,
        counts: {
          alters: { created: 8, updated: 0, unchanged: 0, deleted: 0 },
          tags: { created: 3, updated: 0, unchanged: 0, deleted: 0 },
          switches: { created: 10, unchanged: 0, deleted: 0 },
          profileFields: { created: 5, matched: 0, deleted: 0 },
        },
        renames: [],
        skipped: [],
      });
      expect(report.notImported).toEqual({
        customStatuses: 2,
        notes: 1,
        boardMessages: 1,
        polls: 1,
        reminders: 2,
        chatMessages: 1,
        friends: 1,
        comments: 2,
        avatarsOnSimplyPluralHost: 5,
      });
      expect(report.warnings.join('\n')).toMatch(/5 custom profile fields will be created: "Birthday", "Favourite colour", "Role"/);
      expect(report.warnings.join('\n')).toMatch(/5 avatars were uploaded to Simply Plural's image host, which is gone/);
    });

    it('creates the members and custom fronts as private alters with the documented mapping', async () => {
      const alters = await listAlters(user);
      expect(alters.map((alter) => [alter.username, alter.displayName, alter.pronouns, alter.color, alter.avatarUrl, alter.public])).toEqual([
        ['Ash', 'Ash', 'they/them', '#4A90D9', null, 0],
        ['Bea', 'Bea', 'she/her', '#FF8A3C', 'https://images.example.invalid/bea.png', 0],
        ['CyBrightwater', 'Cy Brightwater', 'he/him', '#9B59B6', 'https://cdn.discordapp.com/attachments/100000000000000001/100000000000000002/cy.png', 0],
        ['Dee✨', 'Dee ✨', 'she/they', '#6A5ACD', null, 0],
        ['Eli', 'Eli', null, null, null, 0],
        ['Fox', 'Fox', null, '#7ED321', null, 0],
        ['Foggy', 'Foggy', null, '#9E9E9E', null, 0],
        ['Resting', 'Resting', null, '#34495E', null, 0],
      ]);
      expect(alters[0]?.description).toBe('Host. Plans the week.\n\n**Ask @Bea about nights.**');
    });

    it('makes groups tags (emoji before the display name) and puts custom fronts in "Custom fronts"', async () => {
      expect((await tagsOf(user)).map((tag) => [tag.name, tag.display_name, tag.public])).toEqual([
        ['Guardians', '🛡️ Guardians', 0],
        ['Late Crew', '🌙 Late Crew', 0],
        ['Custom fronts', null, 0],
      ]);
      expect(await membersOf(user, 'Guardians')).toEqual(['Ash', 'Bea', 'CyBrightwater']);
      expect(await membersOf(user, 'Custom fronts')).toEqual(['Foggy', 'Resting']);
    });

    it('keeps each group’s parent with its tag’s import link, and in the export’s own key, which an import reads back', async () => {
      const links = await server.database.db
        .selectFrom('import_tag_links as l')
        .innerJoin('tags as t', 't.id', 'l.tag_id')
        .select(['t.name', 'l.source', 'l.source_parent_id'])
        .where('l.system_id', '=', await systemIdOf(user))
        .orderBy('t.id')
        .execute();
      expect(links).toEqual([
        { name: 'Guardians', source: 'simplyplural', source_parent_id: null },
        { name: 'Late Crew', source: 'simplyplural', source_parent_id: '64c0000000000000000000a1' },
        { name: 'Custom fronts', source: 'simplyplural', source_parent_id: null },
      ]);
      const exported = (await request<{ groups: Array<{ id: string; name: string }>; switchboard: { tags: Record<string, { parent?: string }> } }>(server, 'GET', '/v1/users/@me/system/export', { token: user.token })).body;
      const hid = (name: string) => exported.groups.find((group) => group.name === name)?.id ?? '';
      expect(exported.switchboard.tags[hid('Late Crew')]?.parent).toBe(hid('Guardians'));
      expect(exported.switchboard.tags[hid('Guardians')]?.parent).toBeUndefined();

      const other = await signIn(server, newUserId());
      ok(await importFile(other, JSON.stringify(exported)));
      const again = await request<{ switchboard: { tags: Record<string, { parent?: string }> }; groups: Array<{ id: string; name: string }> }>(server, 'GET', '/v1/users/@me/system/export', { token: other.token });
      const hid2 = (name: string) => again.body.groups.find((group) => group.name === name)?.id ?? '';
      expect(again.body.switchboard.tags[hid2('Late Crew')]?.parent).toBe(hid2('Guardians'));
    });

    it('turns the front history into switches', async () => {
      expect(await switchesOf(user)).toEqual([
        [0, 'Ash'], [2, 'Ash+Bea'], [4, 'Bea'], [6, 'Foggy'], [7, 'CyBrightwater'], [10, ''], [12, 'Resting'], [20, 'Ash'], [22, 'Bea'], [23, 'Bea+Ash'],
      ]);
    });

    it('sets the system: the username as its name, the description with mentions as names, the time zone', async () => {
      const system = (await user.call<{ data: Record<string, unknown> }>('GET', '/v1/users/@me/system')).body.data;
      expect(system).toMatchObject({ systemName: 'lantern-house', systemDescription: 'The Lantern House system. Ask @Ash anything.', systemTimezone: 'Europe/Lisbon', systemAvatar: null });
    });

    it('imports again without duplicates: everything matches by its import link, switches by time', async () => {
      const before = await snapshot();
      const again = ok(await importFile(user, spText, '?history=true'));
      expect(again.counts).toEqual({
        alters: { created: 0, updated: 0, unchanged: 8, deleted: 0 },
        tags: { created: 0, updated: 0, unchanged: 3, deleted: 0 },
        switches: { created: 0, unchanged: 10, deleted: 0 },
        profileFields: { created: 0, matched: 5, deleted: 0 },
      });
      // The system's revision moves with every applied import; its alters, tags, switches and links do not.
      const after = await snapshot();
      for (const table of ['alters', 'tags', 'alter_tags', 'switches', 'switch_members', 'import_alter_links', 'import_tag_links', 'profile_fields', 'profile_field_values'] as const) {
        expect(after.tables[table], table).toBe(before.tables[table]);
      }
    });

    it('follows a member renamed in Simply Plural (matched by its _id)', async () => {
      const file = spFile();
      file.members = (file.members ?? []).map((doc, i) => (i === 0 ? { ...doc, name: 'Ashen' } : doc));
      const renamed = ok(await importFile(user, JSON.stringify(file)));
      // Ash, and Bea: her Role mentions Ash, and a mention is written as the member's name.
      expect(renamed.counts.alters).toMatchObject({ created: 0, updated: 2 });
      const alters = await user.call<Array<AlterBody & { profileFields: Record<string, string> }>>('GET', '/v1/users/@me/system/list-alters');
      expect(alters.body.map((alter) => alter.username)).toContain('Ashen');
      expect(Object.values(alters.body.find((alter) => alter.username === 'Bea')?.profileFields ?? {})).toContain('Protector, see @Ashen');
    });

    it('stores none of the file’s secrets', async () => {
      const rows = JSON.stringify((await snapshotDatabase(server.database.db)).rows);
      expect(rows).toContain('lantern-house');
      for (const secret of SECRETS) expect(rows).not.toContain(secret);
      expect(JSON.stringify(report)).not.toMatch(new RegExp(SECRETS.map((s) => s.replace(/[.:]/g, '\\$&')).join('|')));
    });
  });

  it('a preview answers the same report and writes nothing', async () => {
    const user = await signIn(server, newUserId());
    const before = await snapshot();
    const preview = ok(await importFile(user, spText, '?dryRun=true&history=true'));
    await expectUnchanged(before);
    expect({ ...ok(await importFile(user, spText, '?history=true')), dryRun: true }).toEqual(preview);
  });

  it('customFronts=skip leaves them out: no tag, their intervals a gap or a switch-out', async () => {
    const user = await signIn(server, newUserId());
    const report = ok(await importFile(user, spText, '?history=true&customFronts=skip'));
    expect(report.counts.alters.created).toBe(6);
    expect(report.notImported).toMatchObject({ customFronts: 2, frontHistoryIntervals: 2 });
    expect((await tagsOf(user)).map((tag) => tag.name)).toEqual(['Guardians', 'Late Crew']);
    expect(await switchesOf(user)).toEqual([[0, 'Ash'], [2, 'Ash+Bea'], [4, 'Bea'], [6, ''], [7, 'CyBrightwater'], [10, ''], [20, 'Ash'], [22, 'Bea'], [23, 'Bea+Ash']]);
  });

  it('friendsArePublic=true makes public what friends could see, and nothing else', async () => {
    const user = await signIn(server, newUserId());
    ok(await importFile(user, spText, '?friendsArePublic=true'));
    const publicOnes = (await listAlters(user)).filter((alter) => alter.public !== 0);
    expect(publicOnes.map((alter) => alter.username)).toEqual(['Ash', 'CyBrightwater', 'Eli', 'Fox', 'Foggy']);
    expect(publicOnes.every((alter) => (alter.public & AlterPrivacy.birthday) === 0)).toBe(true);
    expect((await tagsOf(user)).map((tag) => [tag.name, tag.public !== 0])).toEqual([['Guardians', true], ['Late Crew', false], ['Custom fronts', false]]);
  });

  it('modes: add creates everything again under new names; replace makes the system the file', async () => {
    const user = await signIn(server, newUserId());
    ok(await importFile(user, spText));
    const added = ok(await importFile(user, spText, '?mode=add'));
    expect(added.counts.alters.created).toBe(8);
    expect(added.renames.map((rename) => rename.to)).toContain('Ash-2');
    const replaced = ok(await importFile(user, spText, '?mode=replace'));
    expect(replaced.counts.alters).toMatchObject({ created: 0, deleted: 8 });
    expect(await listAlters(user)).toHaveLength(8);
  });

  it('replace deletes the profile fields the file lacks, with their values; a file without custom fields has none', async () => {
    const user = await signIn(server, newUserId());
    ok(await importFile(user, spText));
    const created = await user.call<{ fieldId: number }>('POST', '/v1/users/@me/system/create-profile-field', { name: 'Made here' });
    expect(created.status).toBe(201);
    const bea = (await listAlters(user)).find((alter) => alter.username === 'Bea');
    expect((await user.call('POST', `/v1/users/@me/alters/${bea?.alterId}/edit`, { profileFields: { [created.body.fieldId]: 'kept?' } })).status).toBe(200);
    const fieldNames = async () => (await user.call<Array<{ name: string }>>('GET', '/v1/users/@me/system/list-profile-fields')).body.map((field) => field.name);
    const valueCount = async () => Number((await server.database.db.selectFrom('profile_field_values').select((eb) => eb.fn.countAll().as('n')).where('system_id', '=', await systemIdOf(user)).executeTakeFirstOrThrow()).n);
    const fileValues = await valueCount() - 1;

    const preview = ok(await importFile(user, spText, '?mode=replace&dryRun=true'));
    const replaced = ok(await importFile(user, spText, '?mode=replace'));
    expect(replaced.counts.profileFields).toEqual({ created: 0, matched: 5, deleted: 1 });
    expect({ ...replaced, dryRun: true }).toEqual(preview);
    expect(await fieldNames()).toEqual(['Birthday', 'Favourite colour', 'Role', 'First noticed', 'Last checkup']);
    expect(await valueCount()).toBe(fileValues);

    const noFields = spFile();
    delete noFields.customFields;
    for (const user of noFields.users ?? []) delete user.fields;
    const emptied = ok(await importFile(user, JSON.stringify(noFields), '?mode=replace'));
    expect(emptied.counts.profileFields).toEqual({ created: 0, matched: 0, deleted: 5 });
    expect(await fieldNames()).toEqual([]);
    expect(await valueCount()).toBe(0);
  });

  it('an import that changes only an alter’s custom profile field values updates it (merge sets, replace clears), preview equal to import; the same file again leaves it', async () => {
    const user = await signIn(server, newUserId());
    ok(await importFile(user, spText));
    // The sample with one member's values (`info`, by custom field id) as given.
    const withInfo = (base: string, name: string, info: (current: Record<string, unknown>) => Record<string, unknown>) => {
      const file = JSON.parse(base) as Record<string, Array<Record<string, unknown>>>;
      for (const member of file.members ?? []) if (member.name === name) member.info = info((member.info ?? {}) as Record<string, unknown>);
      return JSON.stringify(file);
    };
    const ROLE = '66d00000000000000000aa03';
    const CHECKUP = '66d00000000000000000aa05';
    const librarian = withInfo(spText, 'Cy Brightwater', (info) => ({ ...info, [ROLE]: 'Librarian' }));
    const unchecked = withInfo(librarian, 'Bea', ({ [CHECKUP]: _gone, ...info }) => info);
    const valuesOf = async (username: string) => {
      const alters = await user.call<Array<AlterBody & { profileFields: Record<string, string> }>>('GET', '/v1/users/@me/system/list-alters');
      return Object.values(alters.body.find((alter) => alter.username === username)?.profileFields ?? {});
    };
    expect(await valuesOf('CyBrightwater')).toEqual(['Archivist']);
    expect(await valuesOf('Bea')).toHaveLength(2);

    for (const [file, query, username, values] of [[librarian, '', 'CyBrightwater', ['Librarian']], [unchecked, '?mode=replace', 'Bea', ['Protector, see @Ash']]] as const) {
      const preview = ok(await importFile(user, file, `${query}${query ? '&' : '?'}dryRun=true`));
      const applied = ok(await importFile(user, file, query));
      expect(applied.counts).toEqual({
        alters: { created: 0, updated: 1, unchanged: 7, deleted: 0 },
        tags: { created: 0, updated: 0, unchanged: 3, deleted: 0 },
        switches: { created: 0, unchanged: 0, deleted: 0 },
        profileFields: { created: 0, matched: 5, deleted: 0 },
      });
      expect({ ...applied, dryRun: true }).toEqual(preview);
      expect(await valuesOf(username)).toEqual(values);
      // The same file again: nothing to change, nothing written but the system's revision.
      const before = await snapshot();
      expect(ok(await importFile(user, file, query)).counts.alters).toEqual({ created: 0, updated: 0, unchanged: 8, deleted: 0 });
      const after = await snapshot();
      for (const table of ['alters', 'alter_tags', 'profile_fields', 'profile_field_values', 'events'] as const) expect(after.tables[table], table).toBe(before.tables[table]);
    }
  });

  it('records a member’s pkId as a PluralKit link: a later PluralKit import of that member updates the same alter', async () => {
    const user = await signIn(server, newUserId());
    ok(await importFile(user, spText));
    const before = await listAlters(user);
    const cy = before.find((alter) => alter.username === 'CyBrightwater');
    const links = await server.database.db
      .selectFrom('import_alter_links')
      .select(['source', 'source_system_id', 'source_entity_id', 'alter_id'])
      .where('system_id', '=', await systemIdOf(user))
      .where('source', '=', 'pluralkit')
      .orderBy('source_entity_id')
      .execute();
    expect(links.map((link) => [link.source_system_id, link.source_entity_id, Number(link.alter_id)])).toEqual([
      ['', 'ashxx', before.find((alter) => alter.username === 'Ash')?.alterId],
      ['', 'cybrw', cy?.alterId],
    ]);

    // A PluralKit export of that member, renamed there: no name would match it.
    const pluralKit = {
      version: 2, id: 'qwert', name: 'Lantern House', switches: [], groups: [],
      members: [{ id: 'cybrw', uuid: '0b5e3c1a-0000-4000-8000-00000000c3c3', name: 'Cyrus', display_name: 'Cyrus', pronouns: 'he/him', privacy: { visibility: 'private' } }],
    };
    const report = ok(await importFile(user, JSON.stringify(pluralKit)));
    expect(report.counts.alters).toEqual({ created: 0, updated: 1, unchanged: 0, deleted: 0 });
    const after = await listAlters(user);
    expect(after).toHaveLength(before.length);
    expect(after.find((alter) => alter.alterId === cy?.alterId)?.username).toBe('Cyrus');
    // The PluralKit import keeps its own link too, and a second one matches by it.
    expect(ok(await importFile(user, JSON.stringify(pluralKit))).counts.alters).toEqual({ created: 0, updated: 0, unchanged: 1, deleted: 0 });
    expect(await listAlters(user)).toHaveLength(before.length);
  });

  describe('brought after a PluralKit import: members land on the alters of their pkId', () => {
    /** A PluralKit export naming the sample's two linked members otherwise (no name would match), and one member more. */
    const pluralKit = JSON.stringify({
      version: 2, id: 'lantn', name: 'Lantern House', switches: [], groups: [],
      members: [
        { id: 'ashxx', uuid: '0b5e3c1a-0000-4000-8000-00000000a1a1', name: 'Ashen', privacy: { visibility: 'private' } },
        { id: 'cybrw', uuid: '0b5e3c1a-0000-4000-8000-00000000c3c3', name: 'Cyrus', privacy: { visibility: 'private' } },
        { id: 'zenzz', uuid: '0b5e3c1a-0000-4000-8000-00000000e5e5', name: 'Zen', privacy: { visibility: 'private' } },
      ],
    });
    const fromPluralKit = async () => {
      const user = await signIn(server, newUserId());
      ok(await importFile(user, pluralKit));
      const ids = new Map((await listAlters(user)).map((alter) => [alter.username, alter.alterId]));
      return { user, ids };
    };

    it('merge: matched by the PluralKit link, in a preview as in the import, and by its own links after', async () => {
      const { user, ids } = await fromPluralKit();
      const preview = ok(await importFile(user, spText, '?dryRun=true'));
      const report = ok(await importFile(user, spText));
      expect({ ...report, dryRun: true }).toEqual(preview);
      // Six members and two custom fronts: Ash and Cy are the PluralKit alters, renamed to the file's names.
      expect(report.counts.alters).toEqual({ created: 6, updated: 2, unchanged: 0, deleted: 0 });
      const after = new Map((await listAlters(user)).map((alter) => [alter.username, alter.alterId]));
      expect(after.size).toBe(9);
      expect([after.get('Ash'), after.get('CyBrightwater'), after.get('Zen')]).toEqual([ids.get('Ashen'), ids.get('Cyrus'), ids.get('Zen')]);
      expect(ok(await importFile(user, spText)).counts.alters).toEqual({ created: 0, updated: 0, unchanged: 8, deleted: 0 });
      // And PluralKit again finds them by its own links.
      expect(ok(await importFile(user, pluralKit)).counts.alters).toMatchObject({ created: 0, deleted: 0 });
      expect(new Set((await listAlters(user)).map((alter) => alter.alterId))).toEqual(new Set(after.values()));
    });

    it('replace keeps the linked alters and deletes the rest; add matches nothing', async () => {
      const { user, ids } = await fromPluralKit();
      const preview = ok(await importFile(user, spText, '?mode=replace&dryRun=true'));
      const replaced = ok(await importFile(user, spText, '?mode=replace'));
      expect({ ...replaced, dryRun: true }).toEqual(preview);
      expect(replaced.counts.alters).toEqual({ created: 6, updated: 2, unchanged: 0, deleted: 1 });
      const after = new Map((await listAlters(user)).map((alter) => [alter.username, alter.alterId]));
      expect([after.get('Ash'), after.get('CyBrightwater'), after.has('Zen')]).toEqual([ids.get('Ashen'), ids.get('Cyrus'), false]);

      const other = await fromPluralKit();
      const added = ok(await importFile(other.user, spText, '?mode=add'));
      expect(added.counts.alters).toEqual({ created: 8, updated: 0, unchanged: 0, deleted: 0 });
      expect(await listAlters(other.user)).toHaveLength(11);
    });

    it('two members with one pkId: the first in the file takes its alter, the other matches by name or is created, with a warning', async () => {
      const { user, ids } = await fromPluralKit();
      const file = spFile();
      const members = file.members ?? [];
      // Bea, before Cy in the file, names Cy's PluralKit member too.
      const bea = members.find((member) => member.name === 'Bea');
      if (!bea) throw new Error('the sample has Bea');
      bea.pkId = 'cybrw';
      const preview = ok(await importFile(user, JSON.stringify(file), '?dryRun=true'));
      const report = ok(await importFile(user, JSON.stringify(file)));
      expect({ ...report, dryRun: true }).toEqual(preview);
      expect(report.warnings.join('\n')).toContain('1 member named a PluralKit member id an earlier member already had; only the first is linked to it and matched by it ("Cy Brightwater")');
      const after = new Map((await listAlters(user)).map((alter) => [alter.username, alter.alterId]));
      expect(after.get('Bea')).toBe(ids.get('Cyrus'));
      expect(after.get('Ash')).toBe(ids.get('Ashen'));
      expect([...ids.values()]).not.toContain(after.get('CyBrightwater'));
      expect(report.counts.alters).toEqual({ created: 6, updated: 2, unchanged: 0, deleted: 0 });
    });
  });

  it('the 2022 flat array imports, with a warning that it is a guess', async () => {
    const user = await signIn(server, newUserId());
    const file = spFile();
    const flat = ['users', 'members', 'frontStatuses', 'groups', 'frontHistory', 'tokens', 'securityLogs', 'friends'].flatMap((key) => file[key] ?? []);
    const report = ok(await importFile(user, JSON.stringify(flat), '?history=true'));
    expect(report.format).toBe('simplyplural');
    expect(report.counts.alters.created).toBe(8);
    expect(report.warnings.join('\n')).toMatch(/from 2022.*which is a guess/);
  });

  describe('refusals change nothing', () => {
    let user: ApiUser;
    beforeAll(async () => {
      user = await signIn(server, newUserId());
      ok(await importFile(user, spText));
    });

    it.each([
      ['the June 2022 bug ({})', '{}', 422, 'invalid-import', /the file is empty/],
      ['no members', JSON.stringify({ ...spFile(), members: [] }), 422, 'invalid-import', /no member to import: its "members" list is missing or empty/],
      ['members without ids', JSON.stringify({ ...spFile(), members: [{ name: 'x' }] }), 422, 'invalid-import', /none of its 1 member has a usable id/],
      ['a collection that is not a list', JSON.stringify({ ...spFile(), groups: 7 }), 422, 'invalid-import', /"groups" must be a list/],
      ['a flat array without members', JSON.stringify(spFile().frontHistory), 422, 'invalid-import', /no document of the file looks like a member/],
      ['an unknown customFronts choice', spText, 400, 'validation', /customFronts: must be import or skip/, '?customFronts=maybe'],
      ['more custom fronts than alters fit', JSON.stringify({ ...spFile(), frontStatuses: Array.from({ length: 2000 }, (_, i) => ({ _id: `cf${i}`, name: `front ${i}` })) }), 409, 'too-many-alters', /at most 2000/],
    ])('%s', async (_name, body, status, type, message, query = '') => {
      const before = await snapshot();
      const response = await importFile(user, body, query);
      expect({ status: response.status, types: errorTypes(response) }, JSON.stringify(response.body)).toEqual({ status, types: [type] });
      expect((response.body as unknown as ErrorBody).errors[0]?.friendly).toMatch(message);
      await expectUnchanged(before);
    });

    it('an Idempotency-Key reused with another read choice is refused', async () => {
      ok(await importFile(user, spText, '', { 'idempotency-key': 'sp-1' }));
      expect(ok(await importFile(user, spText, '', { 'idempotency-key': 'sp-1' })).counts.alters.unchanged).toBe(8);
      const before = await snapshot();
      const response = await importFile(user, spText, '?friendsArePublic=true', { 'idempotency-key': 'sp-1' });
      expect({ status: response.status, types: errorTypes(response) }).toEqual({ status: 409, types: ['idempotency-key-reused'] });
      await expectUnchanged(before);
    });
  });
});

describe('the service’s log after a Simply Plural import', () => {
  it('holds none of the file’s secrets, logging everything', { timeout: 120_000 }, async () => {
    const testDatabase = await createTestDatabase('sqlite');
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-sp-log-'));
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = startService({
      NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: base, DATA_DIR: dataDir, DATABASE_URL: testDatabase.url,
      AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'trace', LOG_FORMAT: 'json',
    });
    try {
      await waitReady(service, base);
      const registration = openDatabase(testDatabase.url);
      let token: string;
      try {
        const client = await createTestClient({ url: base, database: registration } as Pick<TestServer, 'url' | 'database'> as TestServer);
        token = (await obtainTokens(client, { userId: newUserId(), scope: `openid offline_access ${ALL_API_SCOPES}` })).tokens.access_token;
      } finally {
        await registration.close();
      }
      for (const query of ['?dryRun=true&history=true', '?history=true']) {
        const response = await fetch(`${base}/v1/users/@me/system/import${query}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: spText });
        expect(response.status).toBe(200);
      }
      const log = service.output();
      expect(log).toMatch(/system\/import/);
      for (const secret of SECRETS) expect(log).not.toContain(secret);
    } finally {
      await stopService(service);
      await testDatabase.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
