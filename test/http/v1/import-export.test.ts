// Import and export over HTTP (issue 12), on every dialect: the two sample files with their
// documented mapping, broken files of every kind, dry runs, idempotency, re-imports, the modes,
// the limits and the export → import round trip, field by field.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { ImportReport } from '../../../src/domain/import/model.js';
import type { System } from '../../../src/domain/system.js';
import { errorTypes, request, signIn, type ApiResponse, type ApiUser, type ErrorBody } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { describeDifference, snapshotDatabase } from '../../support/snapshot.js';
import { startTestServer, type TestServer } from '../../support/server.js';
import { SAMPLES } from '../../support/samples.js';

const pkText = readFileSync(`${SAMPLES}/pluralkit-v2.json`, 'utf8');
const tbText = readFileSync(`${SAMPLES}/tupperbox.json`, 'utf8');
const pkFile = () => JSON.parse(pkText) as Record<string, unknown> & { members: Array<Record<string, unknown>> };

let nextUser = 0;
const newUserId = () => `2000000000000${String(40000 + ++nextUser)}`;

type Report = ImportReport;

describe.each(DIALECTS)('import and export (%s)', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => server?.stop());

  const importFile = (user: ApiUser, body: string | Uint8Array, query = '', headers: Record<string, string> = {}) =>
    request<{ data: Report }>(server, 'POST', `/v1/users/@me/system/import${query}`, { token: user.token, raw: body, headers: { 'content-type': 'application/json', ...headers } });
  const listAlters = async (user: ApiUser) => {
    const response = await user.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
    expect(response.status).toBe(200);
    return response.body;
  };
  const readSystem = async (user: ApiUser) => (await user.call<{ data: System }>('GET', '/v1/users/@me/system')).body.data;
  const ok = (response: ApiResponse<{ data: Report }>) => {
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body)).toEqual(['data']);
    return response.body.data;
  };
  const systemIdOf = async (user: ApiUser) => Number((await listAlters(user))[0]?.systemId ?? (await server.database.db.selectFrom('systems').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow()).id);
  const tagsOf = async (user: ApiUser) => {
    const systemId = await systemIdOf(user);
    return server.database.db.selectFrom('tags').selectAll().where('system_id', '=', systemId).orderBy('id').execute();
  };
  const switchesOf = async (user: ApiUser) => {
    const systemId = await systemIdOf(user);
    const rows = await server.database.db
      .selectFrom('switches as s')
      .leftJoin('switch_members as m', 'm.switch_id', 's.id')
      .leftJoin('alters as a', 'a.id', 'm.alter_id')
      .select(['s.id', 's.switched_at', 's.client_id', 'a.username', 'm.position'])
      .where('s.system_id', '=', systemId)
      .orderBy('s.switched_at')
      .orderBy('m.position')
      .execute();
    const byId = new Map<number, { at: number; clientId: string; members: string[] }>();
    for (const row of rows) {
      const entry = byId.get(Number(row.id)) ?? { at: Number(row.switched_at), clientId: row.client_id, members: [] };
      if (row.username) entry.members.push(row.username);
      byId.set(Number(row.id), entry);
    }
    return [...byId.values()];
  };
  /** The whole database, for "changed nothing" (token bookkeeping aside). */
  const snapshot = () => snapshotDatabase(server.database.db, { exclude: ['oidc_payloads'] });
  const expectUnchanged = async (before: Awaited<ReturnType<typeof snapshot>>) => {
    const after = await snapshot();
    expect(after.digest, describeDifference(before, after)).toBe(before.digest);
  };

  describe('the PluralKit sample', () => {
    let user: ApiUser;
    let report: Report;
    beforeAll(async () => {
      user = await signIn(server, newUserId());
      report = ok(await importFile(user, pkText, '?history=true'));
    });

    it('answers the report', () => {
      expect(report).toEqual({
        format: 'pluralkit',
        mode: 'merge',
        dryRun: false,
        history: true,
        counts: {
          alters: { created: 5, updated: 0, unchanged: 0, deleted: 0 },
          tags: { created: 2, updated: 0, unchanged: 0, deleted: 0 },
          switches: { created: 4, unchanged: 0, deleted: 0 },
          profileFields: { created: 0, matched: 0, deleted: 0 },
        },
        renames: [],
        skipped: [],
        warnings: [
          'linked Discord accounts are never imported from a file; add your other accounts with /system accounts add (or POST /system/accounts/code)',
          '1 of 5 alters kept their proxy tags in sent messages (keep_proxy / show_brackets); here that is one setting for the whole system, which was left off',
        ],
        notImported: {},
      });
    });

    it('creates the alters with the documented mapping', async () => {
      const alters = await listAlters(user);
      const tags = await tagsOf(user);
      const tagId = (name: string) => tags.find((tag) => tag.name === name)?.id;
      const pick = (alter: Alter) => ({
        username: alter.username, displayName: alter.displayName, color: alter.color, pronouns: alter.pronouns, avatarUrl: alter.avatarUrl,
        webhookAvatarUrl: alter.webhookAvatarUrl, banner: alter.banner, created: alter.created, lastMessageTimestamp: alter.lastMessageTimestamp,
        messageCount: alter.messageCount, alterMode: alter.alterMode, proxyTags: alter.proxyTags.map(({ prefix, suffix }) => [prefix, suffix]),
        public: alter.public, flags: alter.flags, tagIds: alter.tagIds, birthday: alter.birthday, autoproxyEnabled: alter.autoproxyEnabled,
      });
      expect(alters.map(pick)).toEqual([
        {
          username: 'TomásFerreira', displayName: 'Tomás ⚓', color: '#E07A5F', pronouns: 'he/him', avatarUrl: 'https://media.example.test/members/tomas.png', webhookAvatarUrl: null,
          banner: null, created: '2022-11-03T09:44:51.307Z', lastMessageTimestamp: '2025-04-06T10:12:09.384Z', messageCount: 2718, alterMode: 'webhook',
          proxyTags: [['to:', null], ['(', ')']], public: 2047, flags: 0, tagIds: [tagId('Dock Hands')], birthday: '1996-07-21', autoproxyEnabled: true,
        },
        {
          username: 'ソラ', displayName: 'ソラ', color: '#8ECAE6', pronouns: 'she/they', avatarUrl: 'https://media.example.test/members/sora.webp', webhookAvatarUrl: null,
          banner: null, created: '2022-11-03T09:47:30.000Z', lastMessageTimestamp: '2025-04-05T19:21:44.200Z', messageCount: 143, alterMode: 'webhook',
          proxyTags: [[null, '-so'], ['ソ:', null]], public: 249, flags: 0, tagIds: [tagId('Dock Hands')], birthday: '--05-19', autoproxyEnabled: true,
        },
        {
          username: 'AnaïsDusk', displayName: 'Anaïs', color: null, pronouns: null, avatarUrl: 'https://media.example.test/members/anais.png',
          webhookAvatarUrl: 'https://media.example.test/members/anais-webhook.png', banner: 'https://media.example.test/banners/anais.png', created: '2023-02-11T20:15:33.900Z',
          lastMessageTimestamp: '2025-03-31T23:59:59.999Z', messageCount: 655, alterMode: 'webhook', proxyTags: [['{', '}'], ['ï>', null], ['"', '"']], public: 128, flags: 0,
          tagIds: [tagId('Lamp Watch')], birthday: null, autoproxyEnabled: true,
        },
        {
          username: '🪐Vega', displayName: 'Vega 🪐', color: '#B8A1E3', pronouns: 'xe/xem', avatarUrl: null, webhookAvatarUrl: null, banner: null, created: '2023-09-09T09:09:09.000Z',
          lastMessageTimestamp: null, messageCount: 0, alterMode: 'webhook', proxyTags: [], public: 2 | 4 | 8 | 16 | 32 | 128 | 256 | 512 | 1024, flags: 0, tagIds: [tagId('Lamp Watch')], birthday: '2000-01-30', autoproxyEnabled: false,
        },
        {
          username: "JoO'Hara", displayName: "Jo O'Hara", color: '#2A9D8F', pronouns: 'any/all', avatarUrl: 'https://media.example.test/members/jo.jpg', webhookAvatarUrl: null,
          banner: null, created: '2020-02-29T16:30:00.000Z', lastMessageTimestamp: '2024-10-15T07:45:00.000Z', messageCount: 18206, alterMode: 'webhook',
          proxyTags: [['j;', null], ['jo:', null], ['<', '>']], public: 1 | 2 | 4 | 8 | 16 | 64 | 128 | 512 | 1024, flags: 0, tagIds: [tagId('Dock Hands')], birthday: null, autoproxyEnabled: true,
        },
      ]);
    });

    it('updates the system, never its sub-accounts', async () => {
      const system = await readSystem(user);
      expect(system).toMatchObject({
        systemName: 'The Tidewater Relay', systemDisplayTag: '~ 🌊 TR', systemDescription: 'Made up for the tests of switchboard.\nEvery member here is invented.',
        systemPronouns: 'we/ours', systemAvatar: 'https://media.example.test/system/tidewater.png', systemBanner: null, createdAt: '2022-11-03T09:41:17.662Z',
        public: 1 | 2 | 8 | 16 | 32 | 128, flags: 0, subAccounts: [],
        // Issue 27: the colour and the time zone come in; the file's null latch timeout is PluralKit's six hours.
        systemColor: '#5B8C85', systemTimezone: 'America/Halifax', latchExpiration: 21_600_000,
      });
    });

    it('creates the groups as tags and the switches as front history, by the importing client', async () => {
      expect((await tagsOf(user)).map((tag) => [tag.name, tag.display_name, tag.color, tag.public])).toEqual([
        ['Lamp Watch', '🔦 Lamp Watch', '#264653', 63],
        ['Dock Hands', null, null, 1 | 2 | 8 | 16],
      ]);
      expect(await switchesOf(user)).toEqual([
        { at: Date.UTC(2025, 3, 1, 7, 30), clientId: user.client.id, members: ['🪐Vega'] },
        { at: Date.UTC(2025, 3, 5, 19, 20, 7, 654), clientId: user.client.id, members: ['AnaïsDusk', 'ソラ'] },
        { at: Date.UTC(2025, 3, 5, 23, 10, 48, 500), clientId: user.client.id, members: [] },
        { at: Date.UTC(2025, 3, 6, 10), clientId: user.client.id, members: ['TomásFerreira'] },
      ]);
      // The newest switch is the front the API shows.
      const front = await user.call<{ data: { current: Array<{ alterId: number }> } }>('GET', '/v1/users/@me/front');
      expect(front.status).toBe(200);
    });

    it('imports again without duplicates: everything matches, switches are skipped by time', async () => {
      const again = ok(await importFile(user, pkText, '?history=true'));
      expect(again.counts).toEqual({
        alters: { created: 0, updated: 0, unchanged: 5, deleted: 0 },
        tags: { created: 0, updated: 0, unchanged: 2, deleted: 0 },
        switches: { created: 0, unchanged: 4, deleted: 0 },
        profileFields: { created: 0, matched: 0, deleted: 0 },
      });
      expect(await listAlters(user)).toHaveLength(5);
      expect(await switchesOf(user)).toHaveLength(4);
    });

    it('follows a member renamed in PluralKit (matched by its id), and message counts only grow', async () => {
      const file = pkFile();
      Object.assign(file.members[0] as object, { name: 'Tomás Renamed', message_count: 5 });
      const renamed = ok(await importFile(user, JSON.stringify(file)));
      expect(renamed.counts.alters).toEqual({ created: 0, updated: 1, unchanged: 4, deleted: 0 });
      const ren = (await listAlters(user)).find((alter) => alter.username === 'TomásRenamed');
      expect(ren).toMatchObject({ messageCount: 2718, displayName: 'Tomás ⚓' });
    });
  });

  it('imports the Tupperbox sample with the documented mapping', async () => {
    const user = await signIn(server, newUserId());
    const report = ok(await importFile(user, tbText));
    expect(report).toMatchObject({ format: 'tupperbox', counts: { alters: { created: 6 }, tags: { created: 2 }, switches: { created: 0 } }, skipped: [], renames: [] });
    const alters = await listAlters(user);
    expect(
      alters.map((alter) => [
        alter.username,
        alter.displayName,
        alter.proxyTags.map(({ prefix, suffix }) => [prefix, suffix]),
        alter.messageCount,
        alter.public,
        alter.color,
        alter.birthday,
      ]),
    ).toEqual([
      ['Moss', 'Moss', [['m:', null]], 275, 0, null, null],
      [
        'InesHarrow',
        'Ines',
        [
          ['[', ']'],
          ['ih;', null],
        ],
        3388,
        0,
        null,
        '1997-04-12',
      ],
      ['Åke-Tove', 'Åke-Tove', [[null, '-at']], 64, 0, null, null],
      [
        'Sage',
        'Sage',
        [
          ['((', '))'],
          ['‹', '›'],
          ['"', '"'],
        ],
        1201,
        0,
        null,
        '1979-11-05',
      ],
      ['BeantheBold', 'Bean', [['🦊', '🦊']], 9, 0, null, '--09-12'],
      [
        'RowanDawn',
        'Rowan@Dawn',
        [
          ['r!', null],
          ['R!', null],
        ],
        9840,
        0,
        null,
        null,
      ],
    ]);
    expect((await tagsOf(user)).map((tag) => tag.name)).toEqual(['Harbour Folk', 'Small Boats']);
    const forest = (await tagsOf(user))[0]?.id;
    expect(alters.filter((alter) => alter.tagIds.includes(Number(forest))).map((alter) => alter.username)).toEqual(['InesHarrow', 'Åke-Tove']);
    // A second import changes nothing.
    expect(ok(await importFile(user, tbText)).counts.alters).toEqual({ created: 0, updated: 0, unchanged: 6, deleted: 0 });
  });

  it('a dry run answers the same report and writes nothing', async () => {
    const user = await signIn(server, newUserId());
    const before = await snapshot();
    const preview = ok(await importFile(user, pkText, '?dryRun=true&history=true'));
    await expectUnchanged(before);
    const applied = ok(await importFile(user, pkText, '?history=true'));
    expect({ ...preview, dryRun: false }).toEqual(applied);
  });

  describe('Idempotency-Key', () => {
    it('a repeated applied import answers the first report without importing again', async () => {
      const user = await signIn(server, newUserId());
      const first = await importFile(user, tbText, '', { 'idempotency-key': 'confirm-1' });
      expect(ok(first).counts.alters.created).toBe(6);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const before = await snapshot();
      const second = await importFile(user, tbText, '', { 'idempotency-key': 'confirm-1' });
      expect(ok(second)).toEqual(ok(first));
      expect(second.headers.get('idempotent-replayed')).toBe('true');
      await expectUnchanged(before);
    });

    it('concurrent requests with one key import once', async () => {
      const user = await signIn(server, newUserId());
      const responses = await Promise.all([1, 2, 3].map(() => importFile(user, pkText, '?history=true', { 'idempotency-key': 'double-click' })));
      const reports = responses.map(ok);
      expect(reports.every((report) => JSON.stringify(report) === JSON.stringify(reports[0]))).toBe(true);
      expect(reports[0]?.counts.alters.created).toBe(5);
      expect(responses.filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(2);
      expect(await listAlters(user)).toHaveLength(5);
      expect(await switchesOf(user)).toHaveLength(4);
    });

    it('the same key with another file or options is refused (409) and changes nothing', async () => {
      const user = await signIn(server, newUserId());
      ok(await importFile(user, tbText, '', { 'idempotency-key': 'k' }));
      const before = await snapshot();
      for (const [body, query] of [[pkText, ''], [tbText, '?mode=add']] as const) {
        const response = await importFile(user, body, query, { 'idempotency-key': 'k' });
        expect(response.status).toBe(409);
        expect(errorTypes(response)).toEqual(['idempotency-key-reused']);
      }
      await expectUnchanged(before);
      // Keys are per system: another user may use the same one.
      const other = await signIn(server, newUserId());
      expect(ok(await importFile(other, pkText, '', { 'idempotency-key': 'k' })).counts.alters.created).toBe(5);
    });

    it('refuses a malformed key', async () => {
      const user = await signIn(server, newUserId());
      const response = await importFile(user, tbText, '', { 'idempotency-key': 'x'.repeat(101) });
      expect(response.status).toBe(400);
      expect(errorTypes(response)).toEqual(['validation']);
    });
  });

  describe('modes', () => {
    it('add creates everything again under new names', async () => {
      const user = await signIn(server, newUserId());
      ok(await importFile(user, tbText));
      const added = ok(await importFile(user, tbText, '?mode=add'));
      expect(added.counts.alters).toEqual({ created: 6, updated: 0, unchanged: 0, deleted: 0 });
      expect(added.renames.map((rename) => [rename.source, rename.id, rename.name, rename.to])).toEqual([
        ['tupperbox', '7730411', 'Moss', 'Moss-2'],
        ['tupperbox', '7730412', 'Ines Harrow', 'InesHarrow-2'],
        ['tupperbox', '7730413', 'Åke-Tove', 'Åke-Tove-2'],
        ['tupperbox', '7730414', 'Sage', 'Sage-2'],
        ['tupperbox', '7730415', 'Bean the Bold', 'BeantheBold-2'],
        ['tupperbox', '7730416', 'Rowan@Dawn', 'RowanDawn-2'],
        ['tupperbox', '4401', 'Harbour Folk', 'Harbour Folk-2'],
        ['tupperbox', '4402', 'Small Boats', 'Small Boats-2'],
      ]);
      expect(await listAlters(user)).toHaveLength(12);
    });

    it('merge matches alters created by hand by their username, and keeps the rest', async () => {
      const user = await signIn(server, newUserId());
      const kit = await user.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'MOSS', displayName: 'Mossy', color: '#123456', public: 1 });
      await user.call('POST', '/v1/users/@me/system/create-alter', { username: 'keeper', displayName: 'Keeper' });
      const report = ok(await importFile(user, tbText));
      expect(report.counts.alters).toEqual({ created: 5, updated: 1, unchanged: 0, deleted: 0 });
      const alters = await listAlters(user);
      expect(alters.find((alter) => alter.alterId === kit.body.alterId)).toMatchObject({ username: 'Moss', displayName: 'Moss', color: '#123456', public: 1, messageCount: 275 });
      expect(alters.map((alter) => alter.username)).toContain('keeper');
    });

    it('replace makes the system the file: others deleted, matched ones kept by id', async () => {
      const user = await signIn(server, newUserId());
      ok(await importFile(user, pkText, '?history=true'));
      const ren = (await listAlters(user)).find((alter) => alter.username === 'TomásFerreira');
      await user.call('POST', '/v1/users/@me/system/create-alter', { username: 'extra', displayName: 'Extra' });
      const file = pkFile();
      file.members = file.members.filter((member) => member.id === 'wyvkop' || member.id === 'pelgix');
      file.groups = [];
      file.switches = [{ timestamp: '2025-04-06T10:00:00Z', members: ['wyvkop'] }];
      const report = ok(await importFile(user, JSON.stringify(file), '?mode=replace&history=true'));
      // The two kept alters change only by leaving the deleted groups: the groups' deletion, not the alters' change (as the API's).
      expect(report.counts).toEqual({
        alters: { created: 0, updated: 0, unchanged: 2, deleted: 4 },
        tags: { created: 0, updated: 0, unchanged: 0, deleted: 2 },
        switches: { created: 0, unchanged: 1, deleted: 3 },
        profileFields: { created: 0, matched: 0, deleted: 0 },
      });
      const alters = await listAlters(user);
      expect(alters.map((alter) => [alter.alterId, alter.username, alter.tagIds])).toEqual([[ren?.alterId, 'TomásFerreira', []], [expect.any(Number), 'ソラ', []]]);
      expect(await switchesOf(user)).toEqual([{ at: Date.UTC(2025, 3, 6, 10), clientId: user.client.id, members: ['TomásFerreira'] }]);
    });
  });

  // Issue 26: a 249 KB file of 2,000 members sharing one 100-character name took 84 s to answer,
  // and the service answered nothing else meanwhile. Now it is read and planned in linear time, in
  // the import worker (bench/import.ts measures it: the worst shapes and the longest stall).
  describe('worst shapes', () => {
    const sameName = (count: number) =>
      JSON.stringify({ version: 2, id: 'worst', name: 'Worst', members: Array.from({ length: count }, (_, i) => ({ id: `m${String(i).padStart(5, '0')}`, name: 'N'.repeat(100) })), groups: [{ id: 'every', name: 'Every', members: Array.from({ length: count }, (_, i) => `m${String(i).padStart(5, '0')}`) }], switches: [] });

    it('names 2,000 alters of one name apart, previewed and applied', { timeout: 60_000 }, async () => {
      const user = await signIn(server, newUserId());
      const file = sameName(2000);
      const preview = ok(await importFile(user, file, '?dryRun=true'));
      expect(preview.counts.alters.created).toBe(2000);
      expect(preview.renames).toHaveLength(1999);
      expect(preview.renames[1998]).toMatchObject({ id: 'm01999', to: `${'N'.repeat(95)}-2000` });
      const applied = ok(await importFile(user, file));
      expect(applied.renames).toEqual(preview.renames);
      const systemId = await systemIdOf(user);
      const { count } = await server.database.db.selectFrom('alter_tags as m').innerJoin('alters as a', 'a.id', 'm.alter_id').select((eb) => eb.fn.countAll<number>().as('count')).where('a.system_id', '=', systemId).executeTakeFirstOrThrow();
      expect(Number(count)).toBe(2000);
    });
  });

  describe('broken files', () => {
    let user: ApiUser;
    beforeAll(async () => {
      user = await signIn(server, newUserId());
      ok(await importFile(user, tbText));
    });

    const refused = async (body: string | Uint8Array, status: number, type: string, message: RegExp, query = '', headers: Record<string, string> = {}) => {
      const before = await snapshot();
      const response = await importFile(user, body, query, headers);
      expect({ status: response.status, types: errorTypes(response) }, JSON.stringify(response.body)).toEqual({ status, types: [type] });
      expect((response.body as unknown as ErrorBody).errors[0]?.friendly).toMatch(message);
      await expectUnchanged(before);
    };

    it.each([
      ['not JSON', 'this is not json', 400, 'invalid-json', /not valid JSON/],
      ['empty', '', 400, 'invalid-json', /the file is empty/],
      ['a JSON array', '[]', 422, 'invalid-import', /must be a JSON object/],
      ['of no known format', '{"alters": [], "system": {}}', 422, 'invalid-import', /"switches" key.*"tuppers" key/],
      ['nothing usable', '{"tuppers": [{"id": 1, "name": ""}, {"name": "no id"}]}', 422, 'invalid-import', /nothing in the file can be imported: 1: no name; \(no id\) "no id": no usable id/],
      ['more members than a system holds', JSON.stringify({ switches: [], members: Array.from({ length: 2001 }, (_, i) => ({ id: `m${i}`, name: `member ${i}` })) }), 409, 'too-many-alters', /2007 alters \(6 kept, 2001 new\).*at most 2000/],
      ['more switches than allowed', JSON.stringify({ switches: Array.from({ length: 100_001 }, () => ({})) }), 409, 'too-many-entries', /100001 switches/],
      ['an invalid mode', tbText, 400, 'validation', /mode: must be one of merge, add, replace/, '?mode=overwrite'],
      ['an unknown query parameter', tbText, 400, 'validation', /unknown query parameter/, '?force=true'],
    ])('%s: refused, nothing written', async (_name, body, status, type, message, query = '') => {
      await refused(body, status, type, message, query);
    });

    it('a body over 32 MiB is 413', async () => {
      await refused(`{"tuppers": [], "pad": "${'x'.repeat(32 * 1024 * 1024)}"}`, 413, 'body-too-large', /larger than 32 MiB/);
    });

    it('a body that is not JSON by its media type is 415', async () => {
      await refused(tbText, 415, 'unsupported-media-type', /JSON/, '', { 'content-type': 'text/plain' });
    });

    it('bytes that are not UTF-8 are 422', async () => {
      await refused(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]), 422, 'invalid-import', /not UTF-8/);
    });

    it('reads UTF-8 with a BOM whatever charset or JSON media type is claimed', async () => {
      const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(tbText)]);
      for (const contentType of ['application/json; charset=iso-8859-1', 'text/json', 'application/vnd.pluralkit+json']) {
        const response = await importFile(user, bom, '?dryRun=true', { 'content-type': contentType });
        expect(ok(response).counts.alters.unchanged).toBe(6);
      }
    });

    it('bad colours, odd brackets, oversized fields, duplicate names and huge ids: imported with warnings', async () => {
      const fresh = await signIn(server, newUserId());
      const file = {
        tuppers: [
          { id: 'HUGE', name: 'Same', brackets: ['a:', '', 'b:'], description: 'd'.repeat(1500) },
          { id: 2, name: 'same', brackets: ['c:', ''] },
        ],
        groups: [],
      };
      // A bare integer above 2^53 in the text, as a file would have it.
      const text = JSON.stringify(file).replace('"HUGE"', '98765432109876543210');
      const report = ok(await importFile(fresh, text));
      expect(report.counts.alters.created).toBe(2);
      expect(report.renames).toEqual([{ source: 'tupperbox', id: '2', name: 'same', to: 'same-2' }]);
      expect(report.warnings).toEqual(expect.arrayContaining([
        '1 tupper had an odd number of brackets; the last one, without a partner, was dropped ("Same")',
        '1 tupper description was shortened to 1000 characters ("Same")',
      ]));
      const links = await server.database.db.selectFrom('import_alter_links').select('source_entity_id').where('system_id', '=', await systemIdOf(fresh)).orderBy('source_entity_id').execute();
      expect(links.map((link) => link.source_entity_id)).toEqual(['2', '98765432109876543210']);

      const pk = pkFile();
      Object.assign(pk.members[0] as object, { color: 'ggg000' });
      Object.assign(pk.members[1] as object, { color: 'red', avatar_url: 'http://insecure.example/a.png' });
      const pkReport = ok(await importFile(fresh, JSON.stringify(pk)));
      expect(pkReport.warnings).toEqual(expect.arrayContaining([
        '2 member colours were not a colour like 3a6ea5 and were dropped ("Tomás Ferreira", "ソラ")',
        '1 member avatar was not an https URL of at most 2048 characters and was dropped ("ソラ")',
      ]));
    });
  });

  describe('export', () => {
    it('is a PluralKit file PluralKit accepts, as a download, for the owner only', async () => {
      const user = await signIn(server, newUserId());
      ok(await importFile(user, pkText, '?history=true'));
      const response = await user.call<Record<string, unknown>>('GET', '/v1/users/@me/system/export');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="system.json"');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      // Streamed as it is written, never built as one string (issue 26, item 6): a large system's
      // file could pass V8's longest string and answer 500.
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      expect(response.headers.get('content-length')).toBeNull();
      const file = response.body;
      expect(file).toMatchObject({ version: 2, id: 'qmvzle', name: 'The Tidewater Relay', tag: '~ 🌊 TR', color: '5b8c85' });
      expect(file).not.toHaveProperty('accounts');
      expect(file).not.toHaveProperty('config');
      const members = file.members as Array<Record<string, unknown>>;
      expect(members.map((member) => member.id)).toEqual(['wyvkop', 'pelgix', 'dunqaf', 'robmex', 'kwtfa']);
      expect(members[0]).toMatchObject({ uuid: '3e58d0a4-91c2-4f7b-b6e3-5a0c9d18f201', color: 'e07a5f', name: 'TomásFerreira', display_name: 'Tomás ⚓' });
      expect((file.switches as unknown[])[0]).toEqual({ timestamp: '2025-04-06T10:00:00.000Z', members: ['wyvkop'] });
      for (const member of members) if (member.color !== null) expect(member.color).toMatch(/^[0-9a-f]{6}$/);

      const other = await signIn(server, newUserId());
      const refused = await other.call('GET', `/v1/users/${user.userId}/system/export`);
      expect(refused.status).toBe(403);
      expect(errorTypes(refused)).toEqual(['not-matching-oauth']);
    });

    it('round-trips every field into a fresh system', async () => {
      const user = await signIn(server, newUserId());
      ok(await importFile(user, pkText, '?history=true'));
      const edit = await user.call('POST', '/v1/users/@me/system/edit', {
        displayTagMap: { '300000000000000001': '[LH]' }, nicknameFormat: '%display% (%username%)', systemOperationDM: false, latchExpiration: 120_000,
        public: 1 | 4 | 64, flags: 1 | 2 | 4, disabledGuilds: ['300000000000000002'], systemBanner: 'http://banner.example/long.png', systemDisplayTag: `| ${'t'.repeat(95)}`,
        systemTimezone: 'Europe/Berlin', systemColor: '#123ABC',
      });
      expect(edit.status).toBe(200);
      const [ren] = await listAlters(user);
      const edited = await user.call('POST', `/v1/users/@me/alters/${ren?.alterId}/edit`, {
        nameMap: [{ server: '300000000000000001', name: 'Ren here' }], avatarUrlMap: { '300000000000000001': 'https://cdn.example/ren-here.png' },
        alterMode: 'both', flags: 5, public: 1 | 128, avatarUrl: `https://cdn.example/${'a'.repeat(400)}.png`, webhookAvatarUrl: 'http://plain.example/ren.png',
        proxyTags: [{ prefix: 'p'.repeat(100), suffix: 's'.repeat(100) }, { prefix: 'ren:' }], birthday: '--02-29', autoproxyEnabled: false,
      });
      expect(edited.status).toBe(200);

      const exported = await user.call<Record<string, unknown>>('GET', '/v1/users/@me/system/export');
      expect(exported.status).toBe(200);
      const fresh = await signIn(server, newUserId());
      const report = ok(await importFile(fresh, JSON.stringify(exported.body), '?history=true'));
      expect(report).toMatchObject({ skipped: [], renames: [], counts: { alters: { created: 5 }, tags: { created: 2 }, switches: { created: 4 } } });

      const comparable = (alters: Alter[], tagNames: Map<number, string>) =>
        alters.map(({ alterId: _id, systemId: _system, proxyTags, tagIds, ...rest }) => ({
          ...rest,
          proxyTags: proxyTags.map(({ prefix, suffix }) => [prefix, suffix]),
          tags: tagIds.map((id) => tagNames.get(id)),
        }));
      const names = async (u: ApiUser) => new Map((await tagsOf(u)).map((tag) => [Number(tag.id), tag.name]));
      expect(comparable(await listAlters(fresh), await names(fresh))).toEqual(comparable(await listAlters(user), await names(user)));

      const systemFields = ({ associatedUserId: _u, alterIds: _a, tagIds: _t, ...rest }: System) => rest;
      expect(systemFields(await readSystem(fresh))).toEqual(systemFields(await readSystem(user)));

      const tagRows = async (u: ApiUser) => (await tagsOf(u)).map(({ id: _id, system_id: _s, ...rest }) => rest);
      expect(await tagRows(fresh)).toEqual(await tagRows(user));
      const history = async (u: ApiUser) => (await switchesOf(u)).map(({ at, members }) => ({ at, members }));
      expect(await history(fresh)).toEqual(await history(user));

      // The export imported back into the system it came from changes nothing.
      const back = ok(await importFile(user, JSON.stringify(exported.body), '?history=true'));
      expect(back.counts).toEqual({
        alters: { created: 0, updated: 0, unchanged: 5, deleted: 0 },
        tags: { created: 0, updated: 0, unchanged: 2, deleted: 0 },
        switches: { created: 0, unchanged: 4, deleted: 0 },
        profileFields: { created: 0, matched: 0, deleted: 0 },
      });
    });

    describe('custom profile fields through our own key', () => {
      interface Field { fieldId: number; name: string; kind: string; privacy: string }
      const createField = async (user: ApiUser, body: Record<string, unknown>) => {
        const response = await user.call<Field>('POST', '/v1/users/@me/system/create-profile-field', body);
        expect(response.status, JSON.stringify(response.body)).toBe(201);
        return response.body;
      };
      const fieldsOf = async (user: ApiUser) => (await user.call<Field[]>('GET', '/v1/users/@me/system/list-profile-fields')).body;
      /** Each alter's values by field name (ids differ between systems). */
      const valuesOf = async (user: ApiUser) => {
        const names = new Map((await fieldsOf(user)).map((field) => [String(field.fieldId), field.name]));
        const rows = await server.database.db
          .selectFrom('profile_field_values as v')
          .innerJoin('alters as a', 'a.id', 'v.alter_id')
          .select(['a.username', 'v.field_id', 'v.value'])
          .where('v.system_id', '=', await systemIdOf(user))
          .execute();
        return rows.map((row) => `${row.username}: ${names.get(String(row.field_id)) ?? '(gone)'} = ${row.value}`).sort();
      };
      const exportOf = async (user: ApiUser) => JSON.stringify((await user.call<Record<string, unknown>>('GET', '/v1/users/@me/system/export')).body);

      it('are counted in the report, created then matched by name, the same in a preview; replace deletes those the file lacks', async () => {
        const user = await signIn(server, newUserId());
        ok(await importFile(user, pkText));
        const role = await createField(user, { name: 'Role', kind: 'text' });
        const met = await createField(user, { name: 'Met', kind: 'date', privacy: 'everyone' });
        const [first, second] = await listAlters(user);
        expect((await user.call('POST', `/v1/users/@me/alters/${first?.alterId}/edit`, { profileFields: { [role.fieldId]: 'host', [met.fieldId]: '2024-01-02' } })).status).toBe(200);
        const file = await exportOf(user);

        // Into a fresh system: created, and the preview says the same.
        const fresh = await signIn(server, newUserId());
        const preview = ok(await importFile(fresh, file, '?dryRun=true'));
        const applied = ok(await importFile(fresh, file));
        expect(applied.counts.profileFields).toEqual({ created: 2, matched: 0, deleted: 0 });
        expect({ ...applied, dryRun: true }).toEqual(preview);
        expect((await fieldsOf(fresh)).map(({ name, kind, privacy }) => [name, kind, privacy])).toEqual([['Role', 'text', 'owner'], ['Met', 'date', 'everyone']]);
        expect(await valuesOf(fresh)).toEqual(await valuesOf(user));

        // Back into the system it came from: matched by name, nothing created.
        expect(ok(await importFile(user, file)).counts.profileFields).toEqual({ created: 0, matched: 2, deleted: 0 });
        expect((await fieldsOf(user)).map((field) => field.fieldId)).toEqual([role.fieldId, met.fieldId]);

        // Replace: a field the file lacks goes with its values; matched alters' values become the file's.
        const extra = await createField(user, { name: 'Extra' });
        await user.call('POST', `/v1/users/@me/alters/${first?.alterId}/edit`, { profileFields: { [role.fieldId]: 'changed', [extra.fieldId]: 'x' } });
        await user.call('POST', `/v1/users/@me/alters/${second?.alterId}/edit`, { profileFields: { [role.fieldId]: 'not in the file' } });
        // The list shows the edit (and holds it in its cache) before the import replaces it.
        const listedRole = async () => (await listAlters(user)).find((alter) => alter.alterId === first?.alterId)?.profileFields[role.fieldId];
        expect(await listedRole()).toBe('changed');
        const replacePreview = ok(await importFile(user, file, '?mode=replace&dryRun=true'));
        const replaced = ok(await importFile(user, file, '?mode=replace'));
        expect(await listedRole()).toBe('host');
        expect(replaced.counts.profileFields).toEqual({ created: 0, matched: 2, deleted: 1 });
        expect({ ...replaced, dryRun: true }).toEqual(replacePreview);
        expect(replaced.warnings).toContain('1 custom profile field not in the file will be deleted with its values (replace mode): "Extra"');
        expect((await fieldsOf(user)).map((field) => field.name)).toEqual(['Role', 'Met']);
        expect(await valuesOf(user)).toEqual(await valuesOf(fresh));

        // A file that says nothing of fields (PluralKit's own, without our key) leaves them, even in replace mode.
        const plain = ok(await importFile(user, pkText, '?mode=replace'));
        expect(plain.counts.profileFields).toEqual({ created: 0, matched: 0, deleted: 0 });
        expect((await fieldsOf(user)).map((field) => field.name)).toEqual(['Role', 'Met']);
        expect(await valuesOf(user)).toEqual(await valuesOf(fresh));

        // Our own key with no fields at all: the system had none, so replace deletes them.
        const none = JSON.parse(file) as { switchboard: { profileFields: unknown[]; alters: Record<string, { profileFields?: unknown }> } };
        none.switchboard.profileFields = [];
        for (const alter of Object.values(none.switchboard.alters)) delete alter.profileFields;
        expect(ok(await importFile(user, JSON.stringify(none), '?mode=replace')).counts.profileFields).toEqual({ created: 0, matched: 0, deleted: 2 });
        expect(await fieldsOf(user)).toEqual([]);
        expect(await valuesOf(user)).toEqual([]);
        expect((await listAlters(user)).map((alter) => alter.profileFields)).toEqual((await listAlters(user)).map(() => ({})));
      });

      it('a file whose fields would pass the cap is refused, preview or not, and changes nothing', async () => {
        const user = await signIn(server, newUserId());
        ok(await importFile(user, pkText));
        for (let i = 0; i < 99; i++) await createField(user, { name: `Field ${i}` });
        const file = pkFile();
        (file as Record<string, unknown>).switchboard = { version: 1, profileFields: [{ id: 'a', name: 'New A' }, { id: 'b', name: 'New B' }] };
        const before = await snapshot();
        for (const query of ['?dryRun=true', '']) {
          const refused = await importFile(user, JSON.stringify(file), query);
          expect(refused.status, JSON.stringify(refused.body)).toBe(409);
          expect(errorTypes(refused)).toEqual(['too-many-profile-fields']);
        }
        await expectUnchanged(before);
      });
    });
  });
});
