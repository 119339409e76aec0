// What other users see of a system and its alters, bit by bit. The tables below are the privacy
// section of the API reference written as data: each row names a bit and the fields it shows, and
// every row is checked with the bit set (shown) and with only the bits that must not matter set
// (hidden, null or empty, and named in `redacted`). Owners always see everything.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { Front, FrontHistory, Switch } from '../../../src/domain/front.js';
import type { System } from '../../../src/domain/system.js';
import { errorTypes, request, signIn, type ApiResponse, type ApiUser, type ErrorBody } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient, type TestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const ALTER_ALL = 1 | 2 | 4 | 8 | 16 | 32 | 64 | 128 | 256 | 512 | 1024;
const SYSTEM_ALL = 1 | 2 | 4 | 8 | 16 | 32 | 64 | 128;
const SYSTEM_SHOWS_ALTERS = 64;
const SYSTEM_SHOWS_TAGS = 128;
const GUILD = '300000000000000001';

/** Alter bits and the fields each shows to others, with the value a hidden field has. */
const ALTER_BITS: Array<{ bit: number; fields: Array<keyof Alter> }> = [
  { bit: 2, fields: ['displayName'] },
  { bit: 4, fields: ['description'] },
  { bit: 8, fields: ['banner'] },
  { bit: 16, fields: ['pronouns'] },
  { bit: 32, fields: ['avatarUrl', 'webhookAvatarUrl', 'color'] },
  { bit: 64, fields: ['proxyTags'] },
  { bit: 128, fields: ['tagIds'] },
  { bit: 256, fields: ['messageCount', 'lastMessageTimestamp'] },
  { bit: 512, fields: ['username'] },
  { bit: 1024, fields: ['birthday'] },
];
const ALTER_HIDDEN: Partial<Record<keyof Alter, unknown>> = {
  displayName: null,
  description: null,
  banner: null,
  pronouns: null,
  avatarUrl: null,
  webhookAvatarUrl: null,
  color: null,
  proxyTags: [],
  flags: null,
  tagIds: [],
  messageCount: null,
  lastMessageTimestamp: null,
  username: null,
  birthday: null,
  autoproxyEnabled: null,
  nameMap: [],
  avatarUrlMap: {},
  fields: {},
};
/** Never shown to others, whatever the bits. */
const ALTER_OWNER_ONLY: Array<keyof Alter> = ['nameMap', 'avatarUrlMap', 'fields', 'flags', 'autoproxyEnabled'];
/** Not covered by any bit: shown to anyone who may see the alter at all. */
const ALTER_ALWAYS: Array<keyof Alter> = ['alterId', 'systemId', 'created', 'alterMode', 'public'];

const SYSTEM_BITS: Array<{ bit: number; field: keyof System; hidden: unknown }> = [
  { bit: 1, field: 'systemName', hidden: null },
  { bit: 2, field: 'systemDisplayTag', hidden: null },
  { bit: 4, field: 'systemDescription', hidden: null },
  { bit: 8, field: 'systemAvatar', hidden: null },
  { bit: 8, field: 'systemColor', hidden: null },
  { bit: 16, field: 'systemBanner', hidden: null },
  { bit: 32, field: 'systemPronouns', hidden: null },
  { bit: 64, field: 'alterIds', hidden: [] },
  { bit: 128, field: 'tagIds', hidden: [] },
  { bit: 256, field: 'subAccounts', hidden: [] },
];
const SYSTEM_OWNER_ONLY: Array<{ field: keyof System; hidden: unknown }> = [
  { field: 'displayTagMap', hidden: {} },
  { field: 'nicknameFormat', hidden: null },
  { field: 'systemAutoproxy', hidden: [] },
  { field: 'systemOperationDM', hidden: null },
  { field: 'latchExpiration', hidden: null },
  { field: 'systemTimezone', hidden: null },
  { field: 'flags', hidden: null },
  { field: 'disabledGuilds', hidden: [] },
];
const SYSTEM_ALWAYS: Array<keyof System> = ['associatedUserId', 'createdAt', 'disabled'];

const sorted = (values: string[]) => [...values].sort();

function expectError(response: ApiResponse, status: number, type: string): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status });
  const body = response.body as ErrorBody;
  expect(Object.keys(body)).toEqual(['errors']);
  for (const error of body.errors) {
    expect(Object.keys(error).every((key) => ['type', 'friendly', 'field'].includes(key))).toBe(true);
    expect(typeof error.friendly).toBe('string');
    expect(error.friendly.length).toBeGreaterThan(0);
  }
  expect(errorTypes(response)).toEqual([type]);
}

/** Someone reading another user's data: a user through the owner's client, one through their own, or a client alone. */
interface Viewer {
  name: string;
  get<T>(path: string): Promise<ApiResponse<T>>;
}

describe.each(DIALECTS)('/v1 privacy for other viewers (%s)', (dialect) => {
  let server: TestServer;
  /** The client every owner signs in through, so one viewer shares it. */
  let app: TestClient;
  const viewers: Viewer[] = [];
  let unique = 0;

  const systemIdOf = async (userId: string): Promise<number> =>
    (await server.database.db.selectFrom('systems').select('id').where('user_id', '=', userId).executeTakeFirstOrThrow()).id;

  /** A tag that shows itself and its members (bits 1 and 32), so only the alter's bits decide its tagIds. */
  const addTag = async (owner: ApiUser): Promise<number> => {
    const created = await owner.call<{ tagId: number }>('POST', '/v1/users/@me/system/create-tag', { name: `tag ${++unique}`, public: 1 | 32 });
    expect(created.status).toBe(201);
    return created.body.tagId;
  };

  /**
   * An alter with every field filled, through the API; message statistics have no write path
   * (the bot keeps them), so they are set in the database. Returns the owner's view.
   */
  const createFullAlter = async (owner: ApiUser, tagId: number, publicBits: number): Promise<Alter> => {
    const n = ++unique;
    const created = await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', {
      username: `alter-${n}`,
      displayName: `Alter ${n}`,
      pronouns: 'they/them',
      birthday: '--02-29',
      autoproxyEnabled: false,
      description: `Description ${n}`,
      avatarUrl: `https://images.example/${n}/avatar.png`,
      webhookAvatarUrl: `https://images.example/${n}/webhook.png`,
      banner: `https://images.example/${n}/banner.png`,
      nameMap: [{ server: GUILD, name: `Server name ${n}` }],
      avatarUrlMap: { [GUILD]: `https://images.example/${n}/server.png` },
      tagIds: [tagId],
      color: '#a1b2c3',
      proxyTags: [{ prefix: `a${n}:`, suffix: null }],
      alterMode: 'both',
      flags: 5,
      public: publicBits,
      fields: { [app.id]: `field-${n}` },
    });
    expect(created.status).toBe(201);
    expect(created.body.redacted).toEqual([]);
    await server.database.db
      .updateTable('alters')
      .set({ message_count: 40 + n, last_message_at: Date.UTC(2024, 0, 2, 3, 4, 5) + n })
      .where('id', '=', created.body.alterId)
      .execute();
    const read = await owner.call<{ isSelf: boolean; data: Alter }>('GET', `/v1/users/@me/alters/${created.body.alterId}`);
    expect(read.status).toBe(200);
    // The owner's own read: everything, nothing redacted.
    expect(read.body.isSelf).toBe(true);
    expect(read.body.data.redacted).toEqual([]);
    for (const field of Object.keys(ALTER_HIDDEN) as Array<keyof Alter>) {
      expect({ field, value: read.body.data[field] }).not.toEqual({ field, value: ALTER_HIDDEN[field] });
    }
    return read.body.data;
  };

  const setSystemPublic = async (owner: ApiUser, bits: number) => {
    const response = await owner.call<System>('POST', '/v1/users/@me/system/edit', { public: bits });
    expect(response.status).toBe(200);
    expect(response.body.public).toBe(bits);
  };

  /** The alter as `viewer` gets it from GET alter, checked to match its entry in list-alters. */
  const viewAs = async (viewer: Viewer, owner: ApiUser, alterId: number): Promise<Alter> => {
    const single = await viewer.get<{ isSelf: boolean; data: Alter }>(`/v1/users/${owner.userId}/alters/${alterId}`);
    expect({ viewer: viewer.name, status: single.status }).toEqual({ viewer: viewer.name, status: 200 });
    expect(single.body.isSelf).toBe(false);
    const list = await viewer.get<Alter[]>(`/v1/users/${owner.userId}/system/list-alters`);
    expect(list.status).toBe(200);
    expect(list.body.find((alter) => alter.alterId === alterId)).toEqual(single.body.data);
    return single.body.data;
  };

  /** Checks a non-owner's view against the owner's: `shown` fields equal, every other bit-governed field hidden. */
  const expectAlterView = (viewer: Viewer, view: Alter, own: Alter, shown: Array<keyof Alter>) => {
    const as = viewer.name;
    for (const field of ALTER_ALWAYS) expect({ as, field, value: view[field] }).toEqual({ as, field, value: own[field] });
    for (const field of Object.keys(ALTER_HIDDEN) as Array<keyof Alter>) {
      const expected = shown.includes(field) ? own[field] : ALTER_HIDDEN[field];
      expect({ as, field, value: view[field] }).toEqual({ as, field, value: expected });
    }
    const redacted = (Object.keys(ALTER_HIDDEN) as Array<keyof Alter>).filter((field) => !shown.includes(field));
    expect({ as, redacted: sorted(view.redacted) }).toEqual({ as, redacted: sorted(redacted) });
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    app = await createTestClient(server, { name: 'Shared app' });
    const sameClient = await signIn(server, '200000000000000101', { client: app });
    const ownClient = await signIn(server, '200000000000000102');
    const machine = await createTestClient(server, { name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['alters:read', 'system:read'] });
    const machineToken = (await oidc.clientCredentialsGrant(machine.config, { scope: 'alters:read system:read' })).access_token;
    viewers.push(
      { name: 'another user through the owner\'s client', get: (path) => sameClient.call('GET', path) },
      { name: 'another user through their own client', get: (path) => ownClient.call('GET', path) },
      { name: 'a client-credentials token', get: (path) => request(server, 'GET', path, { token: machineToken }) },
    );
    // The viewers have systems of their own, so "not the owner" is decided between two systems.
    for (const viewer of [sameClient, ownClient]) expect((await viewer.call('GET', '/v1/users/@me/system')).status).toBe(200);
  });
  afterAll(async () => server?.stop());

  describe('alter bits (the system shows its alters)', () => {
    let owner: ApiUser;
    let tagId: number;
    beforeAll(async () => {
      owner = await signIn(server, '200000000000000001', { client: app });
      // Shows its alters, and its tags so that an alter's tag bit (128) alone decides its tagIds.
      await setSystemPublic(owner, SYSTEM_SHOWS_ALTERS | SYSTEM_SHOWS_TAGS);
      tagId = await addTag(owner);
    });

    it.each(ALTER_BITS)('bit $bit shows $fields', async ({ bit, fields }) => {
      const shownAlter = await createFullAlter(owner, tagId, 1 | bit);
      const visibleOnly = await createFullAlter(owner, tagId, 1);
      // Every other bit: proves no other bit shows these fields.
      const allButThis = await createFullAlter(owner, tagId, ALTER_ALL & ~bit);
      const otherShown = ALTER_BITS.filter((row) => row.bit !== bit).flatMap((row) => row.fields);
      for (const viewer of viewers) {
        expectAlterView(viewer, await viewAs(viewer, owner, shownAlter.alterId), shownAlter, fields);
        expectAlterView(viewer, await viewAs(viewer, owner, visibleOnly.alterId), visibleOnly, []);
        expectAlterView(viewer, await viewAs(viewer, owner, allButThis.alterId), allButThis, otherShown);
      }
    });

    it('never shows per-server maps or integration fields to others, even with every bit set', async () => {
      const alter = await createFullAlter(owner, tagId, ALTER_ALL);
      for (const viewer of viewers) {
        const view = await viewAs(viewer, owner, alter.alterId);
        expectAlterView(viewer, view, alter, ALTER_BITS.flatMap((row) => row.fields));
        expect(sorted(view.redacted)).toEqual(sorted(ALTER_OWNER_ONLY));
      }
    });

    it('shows the owner everything on every read, with redacted [] and isSelf true', async () => {
      const alter = await createFullAlter(owner, tagId, 1);
      const list = await owner.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
      expect(list.body.find((entry) => entry.alterId === alter.alterId)).toEqual(alter);
      for (const entry of list.body) expect(entry.redacted).toEqual([]);
      const byId = await owner.call<{ isSelf: boolean; data: Alter }>('GET', `/v1/users/${owner.userId}/alters/${alter.alterId}`);
      expect(byId.body).toEqual({ isSelf: true, data: alter });
      const byField = await owner.call<Alter>('GET', `/v1/users/@me/fields/alters/${encodeURIComponent(alter.fields[app.id] ?? '')}`);
      expect(byField.body).toEqual(alter);
    });

    it('hides an alter without the visible bit: absent from lists and alterIds, 404 when read', async () => {
      const hidden = await createFullAlter(owner, tagId, ALTER_ALL & ~1);
      const shown = await createFullAlter(owner, tagId, 1);
      for (const viewer of viewers) {
        const list = await viewer.get<Alter[]>(`/v1/users/${owner.userId}/system/list-alters`);
        expect(list.status).toBe(200);
        const ids = list.body.map((alter) => alter.alterId);
        expect(ids).toContain(shown.alterId);
        expect(ids).not.toContain(hidden.alterId);
        expectError(await viewer.get(`/v1/users/${owner.userId}/alters/${hidden.alterId}`), 404, 'unknown-alter');
        const system = await viewer.get<{ data: System }>(`/v1/users/${owner.userId}/system`);
        expect(system.body.data.alterIds).toContain(shown.alterId);
        expect(system.body.data.alterIds).not.toContain(hidden.alterId);
        expect(system.body.data.redacted).not.toContain('alterIds');
      }
      const own = await owner.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
      expect(own.body.map((alter) => alter.alterId)).toContain(hidden.alterId);
    });
  });

  it('hides every alter of a system without bit 64, whatever the alters\' bits', async () => {
    const owner = await signIn(server, '200000000000000003', { client: app });
    const tagId = await addTag(owner);
    const alter = await createFullAlter(owner, tagId, ALTER_ALL);
    await setSystemPublic(owner, SYSTEM_ALL & ~SYSTEM_SHOWS_ALTERS);
    const ownFront = await owner.call('POST', '/v1/users/@me/front', { alter: alter.alterId });
    expect(ownFront.status).toBe(200);
    for (const viewer of viewers) {
      expectError(await viewer.get(`/v1/users/${owner.userId}/system/list-alters`), 403, 'alters-private');
      expectError(await viewer.get(`/v1/users/${owner.userId}/alters/${alter.alterId}`), 404, 'unknown-alter');
      expectError(await viewer.get(`/v1/users/${owner.userId}/front`), 403, 'alters-private');
      const system = await viewer.get<{ data: System }>(`/v1/users/${owner.userId}/system`);
      expect(system.body.data.alterIds).toEqual([]);
      expect(system.body.data.redacted).toContain('alterIds');
    }
    const own = await owner.call<{ data: System }>('GET', '/v1/users/@me/system');
    expect(own.body.data.alterIds).toEqual([alter.alterId]);
  });

  it('pages other viewers through visible alters only, in alterId order', async () => {
    const owner = await signIn(server, '200000000000000004', { client: app });
    await setSystemPublic(owner, SYSTEM_SHOWS_ALTERS);
    const ids: number[] = [];
    for (const visible of [true, false, true, false, true]) {
      const created = await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', {
        username: `paged-${++unique}`,
        displayName: 'Paged',
        public: visible ? 1 : ALTER_ALL & ~1,
      });
      expect(created.status).toBe(201);
      ids.push(created.body.alterId);
    }
    const [first, second, third, , fifth] = ids;
    const page = async (viewer: Viewer | ApiUser, query: string) => {
      const path = `/v1/users/${owner.userId}/system/list-alters${query}`;
      const response = 'get' in viewer ? await viewer.get<Alter[]>(path) : await viewer.call<Alter[]>('GET', path);
      expect(response.status).toBe(200);
      return response.body.map((alter) => alter.alterId);
    };
    for (const viewer of viewers) {
      expect(await page(viewer, '')).toEqual([first, third, fifth]);
      expect(await page(viewer, '?max=2&skip=1')).toEqual([third, fifth]);
      expect(await page(viewer, '?max=2')).toEqual([first, third]);
      expect(await page(viewer, '?skip=3')).toEqual([]);
    }
    expect(await page(owner, '?max=2&skip=1')).toEqual([second, third]);
  });

  describe('system bits', () => {
    let owner: ApiUser;
    let own: System;
    let visibleAlter: number;
    beforeAll(async () => {
      owner = await signIn(server, '200000000000000005', { client: app });
      const edit = await owner.call<System>('POST', '/v1/users/@me/system/edit', {
        systemName: 'The Owners',
        systemDisplayTag: '| owners',
        displayTagMap: { [GUILD]: '| here' },
        systemDescription: 'A system description',
        systemAvatar: 'https://images.example/system/avatar.png',
        systemBanner: 'https://images.example/system/banner.png',
        systemPronouns: 'we/us',
        systemColor: '#5B8C85',
        systemTimezone: 'America/Halifax',
        nicknameFormat: '%display% (owners)',
        systemOperationDM: true,
        latchExpiration: 60_000,
        flags: 3,
        disabledGuilds: [GUILD],
      });
      expect(edit.status).toBe(200);
      await addTag(owner);
      const systemId = await systemIdOf(owner.userId);
      visibleAlter = (await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'shown', displayName: 'Shown', public: 1 })).body.alterId;
      await owner.call('POST', '/v1/users/@me/system/create-alter', { username: 'unshown', displayName: 'Unshown', public: 0 });
      // An autoproxy entry and another account, stored directly (their own suites write them through the API).
      await server.database.db.insertInto('autoproxy').values({ system_id: systemId, scope: '@global', mode: 'latch', alter_id: visibleAlter, last_latch_at: Date.now() }).execute();
      await server.database.db.insertInto('system_sub_accounts').values({ user_id: '200000000000000099', system_id: systemId }).execute();
      own = (await owner.call<{ data: System }>('GET', '/v1/users/@me/system')).body.data;
      expect(own.redacted).toEqual([]);
      for (const { field, hidden } of [...SYSTEM_BITS, ...SYSTEM_OWNER_ONLY]) {
        expect({ field, value: own[field] }).not.toEqual({ field, value: hidden });
      }
      expect(own.alterIds).toHaveLength(2);
    });

    const readAs = async (viewer: Viewer): Promise<System> => {
      const response = await viewer.get<{ data: System }>(`/v1/users/${owner.userId}/system`);
      expect({ viewer: viewer.name, status: response.status }).toEqual({ viewer: viewer.name, status: 200 });
      return response.body.data;
    };

    /** A non-owner's view: the fields of `bits` shown, every other governed field and the owner's settings hidden. */
    const expectSystemView = (viewer: Viewer, view: System, bits: number) => {
      const as = viewer.name;
      for (const field of SYSTEM_ALWAYS) expect({ as, field, value: view[field] }).toEqual({ as, field, value: own[field] });
      expect(view.public).toBe(bits);
      const redacted: string[] = [];
      for (const { bit, field, hidden } of SYSTEM_BITS) {
        const shown = (bits & bit) === bit;
        // Others see only the alters they may see.
        const expected = !shown ? hidden : field === 'alterIds' ? [visibleAlter] : own[field];
        expect({ as, bits, field, value: view[field] }).toEqual({ as, bits, field, value: expected });
        if (!shown) redacted.push(field);
      }
      for (const { field, hidden } of SYSTEM_OWNER_ONLY) {
        expect({ as, field, value: view[field] }).toEqual({ as, field, value: hidden });
        redacted.push(field);
      }
      expect({ as, bits, redacted: sorted(view.redacted) }).toEqual({ as, bits, redacted: sorted(redacted) });
    };

    it.each(SYSTEM_BITS)('bit $bit shows $field', async ({ bit }) => {
      for (const bits of [bit, SYSTEM_ALL & ~bit, 0]) {
        await setSystemPublic(owner, bits);
        for (const viewer of viewers) expectSystemView(viewer, await readAs(viewer), bits);
      }
    });

    it('keeps the owner\'s settings from others with every bit set, and shows the owner everything', async () => {
      await setSystemPublic(owner, SYSTEM_ALL);
      for (const viewer of viewers) expectSystemView(viewer, await readAs(viewer), SYSTEM_ALL);
      const mine = await owner.call<{ data: System }>('GET', '/v1/users/@me/system');
      expect(mine.body.data).toEqual({ ...own, public: SYSTEM_ALL });
    });
  });

  describe('the front', () => {
    let owner: ApiUser;
    let ownerElsewhere: ApiUser;
    let visible: Alter;
    let invisible: Alter;
    beforeAll(async () => {
      owner = await signIn(server, '200000000000000006', { client: app });
      ownerElsewhere = await signIn(server, '200000000000000006');
      await setSystemPublic(owner, SYSTEM_SHOWS_ALTERS);
      const tagId = await addTag(owner);
      visible = await createFullAlter(owner, tagId, 1 | 2 | 16);
      invisible = await createFullAlter(owner, tagId, ALTER_ALL & ~1);
    });

    const read = async <T>(reader: Viewer | ApiUser, path: string): Promise<T> => {
      const response = 'get' in reader ? await reader.get<{ data: T }>(path) : await reader.call<{ data: T }>('GET', path);
      expect(response.status).toBe(200);
      return response.body.data;
    };
    const frontAs = (reader: Viewer | ApiUser) => read<Front>(reader, `/v1/users/${owner.userId}/front`);
    const historyAs = (reader: Viewer | ApiUser, query = '') => read<FrontHistory>(reader, `/v1/users/${owner.userId}/front/history${query}`);
    /** Who made each switch, and whom it names. */
    const summary = (entries: Switch[]) => entries.map((entry) => `${entry.clientId}:${entry.alterIds.join('+')}`);

    it('shows a visible alter at the front, redacted as its bits say, without the app that switched', async () => {
      expect((await owner.call('POST', '/v1/users/@me/front', { alter: String(visible.alterId) })).status).toBe(200);
      for (const viewer of viewers) {
        const front = await frontAs(viewer);
        const expected = await viewAs(viewer, owner, visible.alterId);
        expectAlterView(viewer, expected, visible, ['displayName', 'pronouns']);
        // Which app made the switch, and each app's own front, are the owner's to know.
        expect(front).toEqual({ current: { switchId: expect.any(Number), switchedAt: expect.any(String), alterIds: [visible.alterId], clientId: null, clientName: null }, byApp: [], alters: [expected], redacted: ['byApp'] });
        const history = await historyAs(viewer);
        expect(summary(history.switches)).toEqual([`null:${visible.alterId}`]);
        expect(history.alters).toEqual([expected]);
      }
    });

    it('leaves hidden alters out of every switch (a switch of hidden alters looks like a switch-out), counting every switch in paging', async () => {
      expect((await ownerElsewhere.call('POST', '/v1/users/@me/front', { alters: [invisible.alterId, visible.alterId] })).status).toBe(200);
      expect((await owner.call('POST', '/v1/users/@me/front', { alters: [invisible.alterId] })).status).toBe(200);
      const other = ownerElsewhere.client.id;
      for (const viewer of viewers) {
        const front = await frontAs(viewer);
        expect(summary(front.current ? [front.current] : [])).toEqual(['null:']);
        expect(front.alters).toEqual([]);
        const history = await historyAs(viewer);
        expect(summary(history.switches)).toEqual(['null:', `null:${visible.alterId}`, `null:${visible.alterId}`]);
        expect(history.alters.map((alter) => alter.alterId)).toEqual([visible.alterId]);
        // Nothing anywhere names the hidden alter.
        for (const body of [front, history]) expect(JSON.stringify(body)).not.toContain(invisible.username);
        const [newest, middle] = history.switches;
        expect((await historyAs(viewer, '?max=1')).switches).toEqual([newest]);
        expect((await historyAs(viewer, '?max=1&skip=1')).switches).toEqual([middle]);
        expect((await historyAs(viewer, `?max=1&before=${newest?.switchId}`)).switches).toEqual([middle]);
      }
      const mine = await frontAs(owner);
      expect(summary(mine.current ? [mine.current] : [])).toEqual([`${app.id}:${invisible.alterId}`]);
      expect(summary(mine.byApp)).toEqual([`${app.id}:${invisible.alterId}`, `${other}:${invisible.alterId}+${visible.alterId}`]);
      expect(mine.redacted).toEqual([]);
      expect(mine.alters).toEqual([invisible, visible]);
      const history = await historyAs(owner);
      expect(summary(history.switches)).toEqual([`${app.id}:${invisible.alterId}`, `${other}:${invisible.alterId}+${visible.alterId}`, `${app.id}:${visible.alterId}`]);
      for (const alter of history.alters) expect(alter.redacted).toEqual([]);
    });

    it('refuses the front and its history of a system that hides its alters (403 alters-private)', async () => {
      await setSystemPublic(owner, SYSTEM_ALL & ~SYSTEM_SHOWS_ALTERS);
      try {
        for (const viewer of viewers) {
          for (const path of ['front', 'front/history']) expectError(await viewer.get(`/v1/users/${owner.userId}/${path}`), 403, 'alters-private');
        }
        expect((await frontAs(owner)).current).not.toBeNull();
      } finally {
        await setSystemPublic(owner, SYSTEM_SHOWS_ALTERS);
      }
    });
  });
});
