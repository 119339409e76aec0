// The /v1 authorization matrix: every endpoint against every way a request can be (un)authorized.
// The endpoints are listed once; each group of cases runs over all of them, so a route added
// without the authentication hook, or with the wrong scope or write flag, fails here.
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { Autoproxy } from '../../../src/domain/autoproxy.js';
import type { Front, FrontHistory } from '../../../src/domain/front.js';
import type { MessageInfo } from '../../../src/domain/proxied-message.js';
import type { ProxyProfile } from '../../../src/domain/proxy-profile.js';
import { ALTER_PRIVACY_MASK } from '../../../src/domain/privacy-bits.js';
import { isScope } from '../../../src/domain/scopes.js';
import type { System } from '../../../src/domain/system.js';
import type { Tag } from '../../../src/domain/tag.js';
import { ALL_API_SCOPES, errorFields, errorTypes, request, signIn, type ApiResponse, type ApiUser, type ErrorBody } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient, obtainTokens } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const OWNER = '200000000000000001';
const OTHER = '200000000000000002';
const NEVER_SIGNED_IN = '200000000000000009';
const GUILD = '300000000000000001';
const CHANNEL = '400000000000000001';
/** Each autoproxy write has its own entry, so one endpoint's cases never move another's. */
const SET_SCOPE = GUILD;
const REMOVE_SCOPE = `${GUILD}/400000000000000002`;
const LATCH_SCOPE = `${GUILD}/400000000000000003`;

const API_SCOPES = ALL_API_SCOPES.split(' ').filter(isScope);

/**
 * What the cases need to fill in paths and bodies: the owner's alter and its field value, a second
 * alter of the owner, the revision of the owner's latch entry, a message the owner recorded, and
 * the message to reproxy next (`prepare` records a fresh one: each reproxy moves its record).
 */
interface Fixture {
  alterId: number;
  secondAlterId: number;
  fieldValue: string;
  latchRevision: number;
  messageId: string;
  reproxy: { from: string; original: string; to: string };
  /** The owner's tag, and the alter and tag the delete cases delete next (`prepare` makes fresh ones). */
  tagId: number;
  doomedAlterId: number;
  doomedTagId: number;
  /** The owner's newest switch, which the switch edit and delete cases act on (`prepare` makes a fresh one). */
  switchId: number;
  /** The owner's profile field, and the one the delete cases delete next (`prepare` makes a fresh one). */
  profileFieldId: number;
  doomedProfileFieldId: number;
  /** The order the reorder cases send (`prepare` makes one that moves the fixture's field). */
  profileFieldOrder: number[];
}

interface Endpoint {
  method: 'GET' | 'POST';
  path: string;
  /** Query string the endpoint needs (appended to the path). */
  query?: string;
  scope: string;
  writes: boolean;
  /** Not under /v1/users/{user}: the cases about whose {user} it is do not apply. */
  userless?: boolean;
  body?: (fixture: Fixture) => unknown;
  /** Makes the write one that would change something (e.g. an entry to remove), before a case snapshots. */
  prepare?: (owner: ApiUser, fixture: Fixture) => Promise<void>;
  /** Status of a successful call. */
  ok: number;
}

let unique = 0;
const next = () => ++unique;
/** The alter edit-alters-privacy's row changes (made by its `prepare`, per database), and its privacy bits now. */
const privacyProbe = { alterId: 0, bits: 0 };

/** A Discord snowflake created at `time` (epoch ms), unique by its low bits. */
const snowflake = (time: number) => ((BigInt(time - 1_420_070_400_000) << 22n) | BigInt(next())).toString();
/** A fresh pair of message ids: every call records a message never seen before. */
const messageIds = () => ({ messageId: snowflake(Date.now()), originalMessageId: snowflake(Date.now() - 1) });
/** Engine decisions in increasing time, so each one moves the latch (a latch never moves back). */
const decisionTime = () => new Date(Date.UTC(2026, 10, 1) + next() * 1000).toISOString();

const ENDPOINTS: Endpoint[] = [
  { method: 'POST', path: '/v1/users/{user}/system/create-alter', scope: 'alters:write', writes: true, ok: 201, body: () => ({ username: `probe-${next()}`, displayName: 'Probe' }) },
  { method: 'POST', path: '/v1/users/{user}/alters/{alter}/edit', scope: 'alters:write', writes: true, ok: 200, body: () => ({ description: `edited ${next()}` }) },
  { method: 'GET', path: '/v1/users/{user}/system', scope: 'system:read', writes: false, ok: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/edit', scope: 'system:write', writes: true, ok: 200, body: () => ({ systemDescription: `edited ${next()}` }) },
  { method: 'GET', path: '/v1/users/{user}/fields/alters/{id}', scope: 'alters:read', writes: false, ok: 200 },
  { method: 'GET', path: '/v1/users/{user}/system/list-alters', scope: 'alters:read', writes: false, ok: 200 },
  { method: 'GET', path: '/v1/users/{user}/alters/{alter}', scope: 'alters:read', writes: false, ok: 200 },
  {
    method: 'POST', path: '/v1/users/{user}/front', scope: 'system:ai-ap', writes: true, ok: 200,
    body: (fixture) => ({ alters: [String(fixture.alterId), fixture.secondAlterId] }),
    // A switch identical to the current front changes nothing (409): make the front another one first.
    prepare: async (owner) => {
      expect([200, 409]).toContain((await owner.call('POST', '/v1/users/@me/front', { alters: [] })).status);
    },
  },
  { method: 'GET', path: '/v1/users/{user}/front', scope: 'system:read', writes: false, ok: 200 },
  { method: 'GET', path: '/v1/users/{user}/front/history', scope: 'system:read', writes: false, ok: 200 },
  { method: 'GET', path: '/v1/users/{user}/front/stats', scope: 'system:read', writes: false, ok: 200 },
  {
    // The newest switch (the second alter, after the first alone) gains the first as a co-fronter.
    method: 'POST', path: '/v1/users/{user}/front/switches/{switch}/edit', scope: 'system:ai-ap', writes: true, ok: 200,
    prepare: async (owner, fixture) => {
      fixture.switchId = await freshSwitch(owner, fixture);
    },
    body: (fixture) => ({ alters: [fixture.secondAlterId, fixture.alterId] }),
  },
  {
    method: 'POST', path: '/v1/users/{user}/front/switches/{switch}/delete', scope: 'system:ai-ap', writes: true, ok: 200,
    prepare: async (owner, fixture) => {
      fixture.switchId = await freshSwitch(owner, fixture);
    },
  },
  { method: 'GET', path: '/v1/users/{user}/autoproxy', scope: 'system:read', writes: false, ok: 200 },
  {
    method: 'POST', path: '/v1/users/{user}/autoproxy', scope: 'system:write', writes: true, ok: 200,
    body: (fixture) => ({ serverId: SET_SCOPE, autoproxyMode: next() % 2 ? 'alter' : 'latch', autoproxyAlter: String(fixture.alterId) }),
  },
  {
    method: 'POST', path: '/v1/users/{user}/autoproxy/remove', scope: 'system:write', writes: true, ok: 200,
    body: () => ({ serverId: REMOVE_SCOPE }),
    prepare: async (owner) => {
      expect((await owner.call('POST', '/v1/users/@me/autoproxy', { serverId: REMOVE_SCOPE, autoproxyMode: 'front' })).status).toBe(200);
    },
  },
  {
    method: 'POST', path: '/v1/users/{user}/autoproxy/state', scope: 'messages:write', writes: true, ok: 200,
    body: (fixture) => ({ serverId: LATCH_SCOPE, revision: fixture.latchRevision, at: decisionTime(), latch: { alterId: fixture.alterId } }),
  },
  { method: 'GET', path: '/v1/users/{user}/proxy-profile', query: `?guild=${GUILD}`, scope: 'messages:write', writes: false, ok: 200 },
  {
    method: 'POST', path: '/v1/users/{user}/messages', scope: 'messages:write', writes: true, ok: 201,
    body: (fixture) => ({ ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: fixture.alterId }),
  },
  {
    method: 'POST', path: '/v1/users/{user}/messages/{message}/reproxy', scope: 'messages:write', writes: true, ok: 200,
    body: (fixture) => ({ messageId: fixture.reproxy.to, alterId: fixture.secondAlterId }),
    prepare: async (owner, fixture) => {
      const message = messageIds();
      expect((await owner.call('POST', '/v1/users/@me/messages', { ...message, channelId: CHANNEL, guildId: GUILD, alterId: fixture.alterId })).status).toBe(201);
      fixture.reproxy = { from: message.messageId, original: message.originalMessageId, to: snowflake(Date.now()) };
    },
  },
  { method: 'GET', path: '/v1/messages/{message}', scope: 'messages:read', writes: false, userless: true, ok: 200 },
  {
    method: 'POST', path: '/v1/users/{user}/alters/{alter}/delete', scope: 'alters:write', writes: true, ok: 200,
    prepare: async (owner, fixture) => {
      fixture.doomedAlterId = await freshAlter(owner);
    },
  },
  {
    method: 'POST', path: '/v1/users/{user}/system/edit-alters-privacy', scope: 'alters:write', writes: true, ok: 200,
    // An alter of its own, whose privacy each call moves to a value it did not have.
    body: () => ({ alterIds: [privacyProbe.alterId], public: (privacyProbe.bits = (privacyProbe.bits + 1) % (ALTER_PRIVACY_MASK + 1)) }),
    prepare: async (owner) => {
      if (privacyProbe.alterId !== 0) return;
      const made = await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: `probe-${next()}`, displayName: 'Privacy probe' });
      expect(made.status).toBe(201);
      privacyProbe.alterId = made.body.alterId;
      privacyProbe.bits = made.body.public;
    },
  },
  { method: 'POST', path: '/v1/users/{user}/system/create-tag', scope: 'alters:write', writes: true, ok: 201, body: () => ({ name: `probe ${next()}` }) },
  { method: 'GET', path: '/v1/users/{user}/tags/{tag}', scope: 'alters:read', writes: false, ok: 200 },
  { method: 'GET', path: '/v1/users/{user}/system/list-tags', scope: 'alters:read', writes: false, ok: 200 },
  { method: 'POST', path: '/v1/users/{user}/tags/{tag}/edit', scope: 'alters:write', writes: true, ok: 200, body: () => ({ description: `edited ${next()}` }) },
  {
    method: 'POST', path: '/v1/users/{user}/tags/{tag}/alters', scope: 'alters:write', writes: true, ok: 200,
    body: (fixture) => ({ add: [fixture.secondAlterId] }),
    prepare: async (owner, fixture) => {
      expect((await owner.call('POST', `/v1/users/@me/tags/${fixture.tagId}/alters`, { remove: [fixture.secondAlterId] })).status).toBe(200);
    },
  },
  {
    method: 'POST', path: '/v1/users/{user}/tags/{tag}/delete', scope: 'alters:write', writes: true, ok: 200,
    prepare: async (owner, fixture) => {
      fixture.doomedTagId = await freshTag(owner);
    },
  },
  { method: 'POST', path: '/v1/users/{user}/system/create-profile-field', scope: 'alters:write alters:read', writes: true, ok: 201, body: () => ({ name: `probe ${next()}` }) },
  { method: 'GET', path: '/v1/users/{user}/system/list-profile-fields', scope: 'alters:read', writes: false, ok: 200 },
  { method: 'GET', path: '/v1/users/{user}/profile-fields/{field}', scope: 'alters:read', writes: false, ok: 200 },
  { method: 'POST', path: '/v1/users/{user}/profile-fields/{field}/edit', scope: 'alters:write alters:read', writes: true, ok: 200, body: () => ({ name: `edited ${next()}` }) },
  {
    method: 'POST', path: '/v1/users/{user}/system/order-profile-fields', scope: 'alters:write alters:read', writes: true, ok: 200,
    // The fixture's field moves to the other end each time.
    body: (fixture) => ({ fieldIds: fixture.profileFieldOrder }),
    prepare: async (owner, fixture) => {
      const listed = await owner.call<Array<{ fieldId: number }>>('GET', '/v1/users/@me/system/list-profile-fields');
      const ids = listed.body.map((field) => field.fieldId);
      const rest = ids.filter((id) => id !== fixture.profileFieldId);
      fixture.profileFieldOrder = ids[0] === fixture.profileFieldId ? [...rest, fixture.profileFieldId] : [fixture.profileFieldId, ...rest];
    },
  },
  {
    method: 'POST', path: '/v1/users/{user}/profile-fields/{field}/delete', scope: 'alters:write', writes: true, ok: 200,
    prepare: async (owner, fixture) => {
      fixture.doomedProfileFieldId = await freshProfileField(owner);
    },
  },
  // Endpoints needing two scopes list both, space-separated (as the API reference does).
  {
    method: 'POST', path: '/v1/users/{user}/system/import', scope: 'alters:write system:write', writes: true, ok: 200,
    body: () => {
      const n = next();
      return { tuppers: [{ id: n, name: `imported ${n}`, brackets: [`i${n}:`, ''] }], groups: [] };
    },
  },
  { method: 'GET', path: '/v1/users/{user}/system/export', scope: 'system:read alters:read', writes: false, ok: 200 },
];

/** A new alter of `owner`, for a case that deletes one. */
async function freshAlter(owner: ApiUser): Promise<number> {
  const created = await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: `doomed-${next()}`, displayName: 'Doomed' });
  expect(created.status).toBe(201);
  return created.body.alterId;
}

/** A switch to the second alter right after one to the first alone: the owner's newest, its id. */
async function freshSwitch(owner: ApiUser, fixture: Fixture): Promise<number> {
  expect((await owner.call('POST', '/v1/users/@me/front', { alters: [fixture.alterId] })).status).toBe(200);
  const pushed = await owner.call<{ data: { switchId: number } }>('POST', '/v1/users/@me/front', { alters: [fixture.secondAlterId] });
  expect(pushed.status).toBe(200);
  return pushed.body.data.switchId;
}

/** A new profile field of `owner`, for a case that deletes one. */
async function freshProfileField(owner: ApiUser): Promise<number> {
  const created = await owner.call<{ fieldId: number }>('POST', '/v1/users/@me/system/create-profile-field', { name: `doomed ${next()}` });
  expect(created.status).toBe(201);
  return created.body.fieldId;
}

/** A new tag of `owner`, for a case that deletes one. */
async function freshTag(owner: ApiUser): Promise<number> {
  const created = await owner.call<Tag>('POST', '/v1/users/@me/system/create-tag', { name: `doomed ${next()}` });
  expect(created.status).toBe(201);
  return created.body.tagId;
}
const WRITES = ENDPOINTS.filter((endpoint) => endpoint.writes);
const READS = ENDPOINTS.filter((endpoint) => !endpoint.writes);
/** The endpoints under /v1/users/{user}, and the rest. */
const USER_ENDPOINTS = ENDPOINTS.filter((endpoint) => !endpoint.userless);
const USER_READS = READS.filter((endpoint) => !endpoint.userless);
const USERLESS = ENDPOINTS.filter((endpoint) => endpoint.userless);

/** The concrete path of `endpoint` for `{user}` (ignored by userless endpoints), with its query. */
function pathOf(endpoint: Endpoint, user: string, fixture: Fixture): string {
  const path = endpoint.path
    .replace('{user}', user)
    .replace('{alter}/delete', `${fixture.doomedAlterId}/delete`)
    .replace('{tag}/delete', `${fixture.doomedTagId}/delete`)
    .replace('{tag}', String(fixture.tagId))
    .replace('{field}/delete', `${fixture.doomedProfileFieldId}/delete`)
    .replace('{field}', String(fixture.profileFieldId))
    .replace('{switch}', String(fixture.switchId))
    .replace('{alter}', String(fixture.alterId))
    .replace('{id}', encodeURIComponent(fixture.fieldValue))
    .replace('{message}/reproxy', `${fixture.reproxy.from}/reproxy`)
    .replace('{message}', fixture.messageId);
  return path + (endpoint.query ?? '');
}

/** Appends `query` ("?a=b") to a path that may already have one. */
function withQuery(path: string, query: string | undefined): string {
  if (!query) return path;
  return path.includes('?') ? `${path}&${query.slice(1)}` : path + query;
}

/** Every error, whatever produced it, has exactly {errors: [{type, friendly, field?}, …]}. */
function expectError(response: ApiResponse, status: number, type: string): void {
  expect({ status: response.status, body: response.body }).toMatchObject({ status });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = response.body as ErrorBody;
  expect(Object.keys(body)).toEqual(['errors']);
  expect(Array.isArray(body.errors)).toBe(true);
  expect(body.errors.length).toBeGreaterThan(0);
  for (const error of body.errors) {
    expect(Object.keys(error).every((key) => ['type', 'friendly', 'field'].includes(key))).toBe(true);
    expect(typeof error.type).toBe('string');
    expect(typeof error.friendly).toBe('string');
    expect(error.friendly.length).toBeGreaterThan(0);
    if ('field' in error) expect(typeof error.field).toBe('string');
  }
  expect(errorTypes(response)).toEqual([type]);
}

/** The owner's message as anyone but the owner sees it under default privacy: the sender, nothing else. */
function expectPublicMessageView(response: ApiResponse): void {
  const info = (response.body as { data: MessageInfo }).data;
  expect(info.senderId).toBe(OWNER);
  expect(info.alter).toBeNull();
  expect(info.alterDeleted).toBeNull();
  expect(info.system).toMatchObject({ associatedUserId: OWNER, systemName: null });
  expect(info.system?.redacted).toContain('systemName');
}

function expectInvalidToken(response: ApiResponse): void {
  expectError(response, 401, 'invalid-auth');
  expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
}

/** RFC 7009 revocation with client_secret_basic; the answer has no body. */
async function revoke(server: TestServer, client: { id: string; secret: string | undefined }, token: string): Promise<number> {
  const response = await fetch(`${server.url}/auth/oauth2/revoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret ?? '')}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token }).toString(),
  });
  await response.arrayBuffer();
  return response.status;
}

describe.each(DIALECTS)('/v1 authorization (%s)', (dialect) => {
  let server: TestServer;
  let shortLived: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  /** The owner, signed in through a second client. */
  let ownerElsewhere: ApiUser;
  let machineToken: string;
  let fixture: Fixture;

  const call = (endpoint: Endpoint, user: string, options: { token?: string; headers?: Record<string, string>; query?: string } = {}) =>
    request(server, endpoint.method, withQuery(pathOf(endpoint, user, fixture), options.query), {
      token: options.token,
      headers: options.headers,
      body: endpoint.body?.(fixture),
    });

  /**
   * The owner's view of whatever a write endpoint changes, to prove a refused write changed nothing.
   * The proxying writes also show the proxy profile, whose revision any write it shows moves.
   */
  const snapshot = async (endpoint: Endpoint): Promise<unknown> => {
    const profile = `/v1/users/@me/proxy-profile?guild=${GUILD}`;
    const paths = {
      '/v1/users/{user}/system/create-alter': ['/v1/users/@me/system/list-alters'],
      '/v1/users/{user}/alters/{alter}/edit': [`/v1/users/@me/alters/${fixture.alterId}`],
      '/v1/users/{user}/system/edit': ['/v1/users/@me/system'],
      '/v1/users/{user}/system/import': ['/v1/users/@me/system/list-alters'],
      '/v1/users/{user}/front': ['/v1/users/@me/front', '/v1/users/@me/front/history?max=100'],
      '/v1/users/{user}/front/switches/{switch}/edit': ['/v1/users/@me/front/history?max=100'],
      '/v1/users/{user}/front/switches/{switch}/delete': ['/v1/users/@me/front/history?max=100'],
      '/v1/users/{user}/autoproxy': ['/v1/users/@me/autoproxy', profile],
      '/v1/users/{user}/autoproxy/remove': ['/v1/users/@me/autoproxy', profile],
      '/v1/users/{user}/autoproxy/state': ['/v1/users/@me/autoproxy', profile],
      '/v1/users/{user}/messages': [`/v1/users/@me/alters/${fixture.alterId}`, profile],
      // The record as found by its original message's id, which a reproxy keeps.
      '/v1/users/{user}/messages/{message}/reproxy': [`/v1/messages/${fixture.reproxy.original}`, `/v1/users/@me/alters/${fixture.secondAlterId}`],
      '/v1/users/{user}/alters/{alter}/delete': ['/v1/users/@me/system/list-alters', profile],
      '/v1/users/{user}/system/create-tag': ['/v1/users/@me/system/list-tags'],
      '/v1/users/{user}/system/edit-alters-privacy': ['/v1/users/@me/system/list-alters'],
      '/v1/users/{user}/tags/{tag}/edit': [`/v1/users/@me/tags/${fixture.tagId}`],
      '/v1/users/{user}/tags/{tag}/alters': [`/v1/users/@me/tags/${fixture.tagId}`, `/v1/users/@me/alters/${fixture.secondAlterId}`],
      '/v1/users/{user}/tags/{tag}/delete': ['/v1/users/@me/system/list-tags'],
      '/v1/users/{user}/system/create-profile-field': ['/v1/users/@me/system/list-profile-fields'],
      '/v1/users/{user}/profile-fields/{field}/edit': ['/v1/users/@me/system/list-profile-fields'],
      '/v1/users/{user}/system/order-profile-fields': ['/v1/users/@me/system/list-profile-fields'],
      '/v1/users/{user}/profile-fields/{field}/delete': ['/v1/users/@me/system/list-profile-fields'],
    }[endpoint.path];
    if (!paths) throw new Error(`no snapshot for ${endpoint.path}`);
    const bodies: unknown[] = [];
    for (const path of paths) {
      const response = await owner.call('GET', path);
      expect(response.status).toBe(200);
      bodies.push(response.body);
    }
    return bodies.length === 1 ? bodies[0] : bodies;
  };

  beforeAll(async () => {
    privacyProbe.alterId = 0;
    server = await startTestServer(dialect);
    // A second server whose access tokens live one second.
    shortLived = await startTestServer(dialect, { ACCESS_TOKEN_TTL: '1' });
    // First-party clients, the bot's kind: only they record proxied messages.
    owner = await signIn(server, OWNER, { client: await createTestClient(server, { firstParty: true }) });
    other = await signIn(server, OTHER, { client: await createTestClient(server, { firstParty: true }) });
    ownerElsewhere = await signIn(server, OWNER, { client: await createTestClient(server, { firstParty: true }) });
    const machine = await createTestClient(server, { name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'], scopes: API_SCOPES });
    machineToken = (await oidc.clientCredentialsGrant(machine.config, { scope: ALL_API_SCOPES })).access_token;

    const fieldValue = 'discord-member 42';
    const created = await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', {
      username: 'fixture',
      displayName: 'Fixture',
      fields: { [owner.client.id]: fieldValue },
    });
    expect(created.status).toBe(201);
    const alterId = created.body.alterId;
    const latch = await owner.call<{ data: Autoproxy }>('POST', '/v1/users/@me/autoproxy', { serverId: LATCH_SCOPE, autoproxyMode: 'latch' });
    expect(latch.status).toBe(200);
    const message = messageIds();
    expect((await owner.call('POST', '/v1/users/@me/messages', { ...message, channelId: CHANNEL, guildId: GUILD, alterId })).status).toBe(201);
    const second = await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'second', displayName: 'Second' });
    expect(second.status).toBe(201);
    // Until a case prepares one, the reproxy cases name a message never recorded (they are refused before looking).
    const reproxy = { from: snowflake(Date.now()), original: message.originalMessageId, to: snowflake(Date.now()) };
    const tag = await owner.call<Tag>('POST', '/v1/users/@me/system/create-tag', { name: 'fixture' });
    expect(tag.status).toBe(201);
    fixture = {
      alterId, secondAlterId: second.body.alterId, fieldValue, latchRevision: latch.body.data.revision, messageId: message.messageId, reproxy,
      tagId: tag.body.tagId, doomedAlterId: await freshAlter(owner), doomedTagId: await freshTag(owner), switchId: 0,
      profileFieldId: await freshProfileField(owner), doomedProfileFieldId: await freshProfileField(owner), profileFieldOrder: [],
    };
    fixture.switchId = await freshSwitch(owner, fixture);
  });
  afterAll(async () => {
    await shortLived?.stop();
    await server?.stop();
  });

  it('has a row for every operation the API reference documents, with the documented scope', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: Array<Record<string, string[]>> }>>;
    };
    // /v1/events and /v1/guilds belong to apps (client-credentials tokens), not users: their matrices
    // are test/events/authorization.test.ts and test/http/v1/guilds.test.ts. Images take either of
    // two scopes and a file body: theirs is test/http/v1/images.test.ts. Deleting the system would
    // take this file's fixtures with it: test/http/v1/delete-system.test.ts has its matrix. The
    // accounts endpoints need a second account and a code per case: test/http/v1/accounts.test.ts.
    // The apps endpoints concern the token's account, not a system, and need a scope no other
    // endpoint does: test/http/v1/apps.test.ts has their matrix.
    const apart = (path: string) =>
      path.startsWith('/v1/events/') || path.startsWith('/v1/guilds/') || path.endsWith('/images') || path === '/v1/users/{user}/system/delete' || path.startsWith('/v1/users/{user}/system/accounts/') || path.startsWith('/v1/users/{user}/apps');
    const documented = Object.entries(doc.paths).filter(([path]) => !apart(path)).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.security?.[0]?.oauth2?.join(' ')}`),
    );
    expect(documented.sort()).toEqual(ENDPOINTS.map((endpoint) => `${endpoint.method} ${endpoint.path} ${endpoint.scope}`).sort());
  });

  it('accepts the owner\'s token on every endpoint (the baseline the refusals below differ from)', async () => {
    for (const endpoint of ENDPOINTS) {
      await endpoint.prepare?.(owner, fixture);
      const response = await call(endpoint, '@me', { token: owner.token });
      expect({ endpoint: endpoint.path, status: response.status }).toEqual({ endpoint: endpoint.path, status: endpoint.ok });
    }
  });

  it.each(ENDPOINTS)('$method $path: no Authorization header is 401 no-access-token with a bare Bearer challenge', async (endpoint) => {
    const response = await call(endpoint, '@me');
    expectError(response, 401, 'no-access-token');
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer\b/);
    // RFC 6750 §3.1: a request without credentials gets no error code.
    expect(challenge).not.toContain('error=');
  });

  it.each(ENDPOINTS)('$method $path: a malformed Authorization header is 401 invalid-auth', async (endpoint) => {
    for (const authorization of ['Basic abc', 'Bearer', `Bearer ${owner.token} b`]) {
      const response = await call(endpoint, '@me', { headers: { authorization } });
      expectError(response, 401, 'invalid-auth');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    }
  });

  it.each(ENDPOINTS)('$method $path: an unknown token is 401 invalid_token', async (endpoint) => {
    expectInvalidToken(await call(endpoint, '@me', { token: 'x'.repeat(43) }));
    // One character off a live token: the lookup must be exact.
    const altered = owner.token.slice(0, -1) + (owner.token.endsWith('A') ? 'B' : 'A');
    expectInvalidToken(await call(endpoint, '@me', { token: altered }));
  });

  it('refuses an expired token on every endpoint with 401 invalid_token', async () => {
    const client = await createTestClient(shortLived);
    // No openid scope: an id_token that lives one second would fail openid-client's own checks.
    const { tokens } = await obtainTokens(client, { userId: OWNER, scope: ALL_API_SCOPES });
    expect(tokens.expires_in).toBe(1);
    const deadline = Date.now() + 3000;
    let status = 0;
    do {
      status = (await request(shortLived, 'GET', '/v1/users/@me/system', { token: tokens.access_token })).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
    } while (status === 200 && Date.now() < deadline);
    expect(status).toBe(401);
    for (const endpoint of ENDPOINTS) {
      const response = await request(shortLived, endpoint.method, pathOf(endpoint, '@me', fixture), { token: tokens.access_token, body: endpoint.body?.(fixture) });
      expectInvalidToken(response);
    }
  });

  describe('a revoked token', () => {
    let revoked: string;
    beforeAll(async () => {
      revoked = (await signIn(server, OWNER, { client: owner.client })).token;
      expect((await request(server, 'GET', '/v1/users/@me/system', { token: revoked })).status).toBe(200);
      expect(await revoke(server, owner.client, revoked)).toBe(200);
    });

    it.each(ENDPOINTS)('$method $path: 401 invalid_token', async (endpoint) => {
      expectInvalidToken(await call(endpoint, '@me', { token: revoked }));
    });
  });

  it.each(ENDPOINTS)('$method $path: a refresh token is not a bearer token (401 invalid_token)', async (endpoint) => {
    expect(owner.refreshToken).toBeTruthy();
    expectInvalidToken(await call(endpoint, '@me', { token: owner.refreshToken ?? '' }));
  });

  describe('a token without the endpoint\'s scope', () => {
    const lacking = new Map<string, string>();
    beforeAll(async () => {
      expect(API_SCOPES).toHaveLength(7);
      for (const scope of API_SCOPES) {
        const rest = API_SCOPES.filter((s) => s !== scope).join(' ');
        lacking.set(scope, (await signIn(server, OWNER, { client: owner.client, scope: `openid ${rest}` })).token);
      }
    });

    it.each(ENDPOINTS)('$method $path: 403 invalid-scopes naming $scope', async (endpoint) => {
      // An endpoint needing several scopes refuses a token lacking any one of them.
      for (const missing of endpoint.scope.split(' ')) {
        const response = await call(endpoint, '@me', { token: lacking.get(missing) });
        expectError(response, 403, 'invalid-scopes');
        const challenge = response.headers.get('www-authenticate') ?? '';
        expect(challenge).toMatch(/^Bearer\b/);
        expect(challenge).toContain('error="insufficient_scope"');
        expect(challenge).toContain(`scope="${endpoint.scope}"`);
      }
    });

    it('lets the same tokens through where they do hold the scope', async () => {
      for (const endpoint of READS) {
        const holder = [...lacking.entries()].find(([scope]) => !endpoint.scope.split(' ').includes(scope));
        const response = await call(endpoint, '@me', { token: holder?.[1] });
        expect({ path: endpoint.path, status: response.status }).toEqual({ path: endpoint.path, status: 200 });
      }
    });
  });

  it.each(ENDPOINTS)('$method $path: a token in the query string is 400 token-in-query', async (endpoint) => {
    const response = await call(endpoint, '@me', { query: `?access_token=${encodeURIComponent(owner.token)}` });
    expectError(response, 400, 'token-in-query');
  });

  describe('another user\'s token', () => {
    it.each(WRITES)('$method $path: writing to the owner\'s id is 403 not-matching-oauth and changes nothing', async (endpoint) => {
      await endpoint.prepare?.(owner, fixture);
      const before = await snapshot(endpoint);
      expectError(await call(endpoint, OWNER, { token: other.token }), 403, 'not-matching-oauth');
      expect(await snapshot(endpoint)).toEqual(before);
    });

    // The message lookup has no {user}: the owner's message, as another user sees it.
    const reads: Array<{ path: string; status: number; type?: string }> = [
      { path: '/v1/users/{user}/system', status: 200 },
      { path: '/v1/users/{user}/system/list-alters', status: 403, type: 'alters-private' },
      { path: '/v1/users/{user}/alters/{alter}', status: 404, type: 'unknown-alter' },
      { path: '/v1/users/{user}/front', status: 403, type: 'alters-private' },
      { path: '/v1/users/{user}/front/history', status: 403, type: 'alters-private' },
      { path: '/v1/users/{user}/front/stats', status: 403, type: 'alters-private' },
      { path: '/v1/users/{user}/fields/alters/{id}', status: 403, type: 'not-matching-oauth' },
      { path: '/v1/users/{user}/autoproxy', status: 403, type: 'not-matching-oauth' },
      { path: '/v1/users/{user}/proxy-profile', status: 403, type: 'not-matching-oauth' },
      { path: '/v1/users/{user}/system/export', status: 403, type: 'not-matching-oauth' },
      { path: '/v1/messages/{message}', status: 200 },
      { path: '/v1/users/{user}/tags/{tag}', status: 404, type: 'unknown-tag' },
      { path: '/v1/users/{user}/system/list-tags', status: 403, type: 'tags-private' },
      { path: '/v1/users/{user}/system/list-profile-fields', status: 403, type: 'alters-private' },
      { path: '/v1/users/{user}/profile-fields/{field}', status: 404, type: 'unknown-profile-field' },
    ];
    it('covers every read endpoint', () => {
      expect(reads.map((read) => read.path).sort()).toEqual(READS.map((endpoint) => endpoint.path).sort());
    });

    it.each(reads)('GET $path of the owner (default privacy) is $status $type', async ({ path, status, type }) => {
      const endpoint = READS.find((read) => read.path === path);
      if (!endpoint) throw new Error(`unknown endpoint ${path}`);
      const response = await call(endpoint, OWNER, { token: other.token });
      if (type) {
        expectError(response, status, type);
        return;
      }
      expect(response.status).toBe(200);
      if (endpoint.userless) {
        expectPublicMessageView(response);
        return;
      }
      const system = (response.body as { data: System }).data;
      expect(system.associatedUserId).toBe(OWNER);
      expect(system.systemName).toBeNull();
      expect(system.alterIds).toEqual([]);
      expect(system.redacted).toEqual(expect.arrayContaining(['systemName', 'alterIds', 'nicknameFormat']));
    });
  });

  it.each(WRITES)('$method $path: {user} as the token\'s own numeric id writes like @me', async (endpoint) => {
    await endpoint.prepare?.(owner, fixture);
    const before = await snapshot(endpoint);
    const body = endpoint.body?.(fixture);
    const response = await request(server, endpoint.method, pathOf(endpoint, OWNER, fixture), { token: owner.token, body });
    expect(response.status).toBe(endpoint.ok);
    const after = await snapshot(endpoint);
    expect(after).not.toEqual(before);
    const sent = body as Record<string, unknown>;
    type Entries = [{ data: Autoproxy[] }, ProxyProfile];
    const entry = (snapshotted: unknown) => (snapshotted as Entries)[0].data.find((found) => found.serverId === sent.serverId);
    if (endpoint.path.endsWith('/alters/{alter}/delete')) {
      expect(response.body).toEqual({ deleted: true });
      type Listed = [Alter[], ProxyProfile];
      expect((before as Listed)[0].map((alter) => alter.alterId)).toContain(fixture.doomedAlterId);
      expect((after as Listed)[0].map((alter) => alter.alterId)).not.toContain(fixture.doomedAlterId);
      expect((after as Listed)[1].revision).toBeGreaterThan((before as Listed)[1].revision);
    } else if (endpoint.path.endsWith('/create-tag')) {
      expect((after as Tag[]).map((tag) => tag.name)).toContain(sent.name);
    } else if (endpoint.path.endsWith('/tags/{tag}/edit')) {
      expect((after as { data: Tag }).data.description).toBe(sent.description);
    } else if (endpoint.path.endsWith('/tags/{tag}/alters')) {
      const [tag, alter] = after as [{ data: Tag }, { data: Alter }];
      expect(tag.data.alterIds).toContain(fixture.secondAlterId);
      expect(alter.data.tagIds).toContain(fixture.tagId);
    } else if (endpoint.path.endsWith('/tags/{tag}/delete')) {
      expect(response.body).toEqual({ deleted: true });
      expect((after as Tag[]).map((tag) => tag.tagId)).not.toContain(fixture.doomedTagId);
    } else if (endpoint.path.endsWith('/create-profile-field')) {
      expect((after as Array<{ name: string }>).map((field) => field.name)).toContain(sent.name);
    } else if (endpoint.path.endsWith('/profile-fields/{field}/edit')) {
      expect((after as Array<{ fieldId: number; name: string }>).find((field) => field.fieldId === fixture.profileFieldId)?.name).toBe(sent.name);
    } else if (endpoint.path.endsWith('/order-profile-fields')) {
      expect((after as Array<{ fieldId: number }>).map((field) => field.fieldId)).toEqual(sent.fieldIds);
    } else if (endpoint.path.endsWith('/profile-fields/{field}/delete')) {
      expect(response.body).toEqual({ deleted: true });
      expect((after as Array<{ fieldId: number }>).map((field) => field.fieldId)).not.toContain(fixture.doomedProfileFieldId);
    } else if (endpoint.path.endsWith('/create-alter')) {
      expect((after as Alter[]).map((alter) => alter.username)).toContain(sent.username);
    } else if (endpoint.path.endsWith('/edit-alters-privacy')) {
      expect((after as Alter[]).find((alter) => alter.alterId === privacyProbe.alterId)?.public).toBe(sent.public);
    } else if (endpoint.path.endsWith('/alters/{alter}/edit')) {
      expect((after as { data: Alter }).data.description).toBe(sent.description);
    } else if (endpoint.path.endsWith('/system/import')) {
      const tupper = (sent.tuppers as Array<{ name: string }>)[0];
      expect((after as Alter[]).map((alter) => alter.username)).toContain(tupper?.name.replace(' ', ''));
    } else if (endpoint.path.endsWith('/system/edit')) {
      expect((after as { data: System }).data.systemDescription).toBe(sent.systemDescription);
    } else if (endpoint.path.endsWith('/autoproxy')) {
      expect(entry(after)).toMatchObject({
        autoproxyMode: sent.autoproxyMode,
        autoproxyAlter: sent.autoproxyAlter,
        revision: (entry(before)?.revision ?? 0) + 1,
      });
      expect((after as Entries)[1].revision).toBeGreaterThan((before as Entries)[1].revision);
    } else if (endpoint.path.endsWith('/autoproxy/remove')) {
      expect(response.body).toEqual({ removed: true });
      expect(entry(before)).toBeDefined();
      expect(entry(after)).toBeUndefined();
    } else if (endpoint.path.endsWith('/autoproxy/state')) {
      expect(response.body).toMatchObject({ applied: true, revision: (after as Entries)[1].revision });
      expect(entry(after)).toMatchObject({ autoproxyAlter: String(fixture.alterId), lastLatchTimestamp: sent.at, revision: fixture.latchRevision });
    } else if (endpoint.path.endsWith('/reproxy')) {
      const [info, alter] = after as [{ data: MessageInfo }, { data: Alter }];
      expect(info.data).toMatchObject({ messageId: sent.messageId, originalMessageId: fixture.reproxy.original, alter: { alterId: fixture.secondAlterId } });
      expect(alter.data.messageCount).toBe(((before as [unknown, { data: Alter }])[1].data.messageCount ?? 0) + 1);
    } else if (endpoint.path.endsWith('/switches/{switch}/edit')) {
      const newest = (after as { data: FrontHistory }).data.switches[0];
      expect(newest).toMatchObject({ switchId: fixture.switchId, alterIds: [fixture.secondAlterId, fixture.alterId] });
    } else if (endpoint.path.endsWith('/switches/{switch}/delete')) {
      expect((after as { data: FrontHistory }).data.switches.map((entry) => entry.switchId)).not.toContain(fixture.switchId);
    } else if (endpoint.path.endsWith('/messages')) {
      const [beforeAlter, afterAlter] = [before, after].map((snapshotted) => (snapshotted as [{ data: Alter }])[0].data);
      expect(afterAlter?.messageCount).toBe((beforeAlter?.messageCount ?? 0) + 1);
      const recorded = await owner.call<{ data: MessageInfo }>('GET', `/v1/messages/${String(sent.originalMessageId)}`);
      expect(recorded.status).toBe(200);
      expect(recorded.body.data).toMatchObject({ messageId: sent.messageId, senderId: OWNER, alter: { alterId: fixture.alterId } });
    } else {
      const [front, history] = (after as [{ data: Front }, { data: FrontHistory }]).map((snapshotted) => snapshotted.data) as [Front, FrontHistory];
      expect(front.current).toMatchObject({ alterIds: [fixture.alterId, fixture.secondAlterId], clientId: owner.client.id });
      expect(history.switches[0]).toEqual(front.current);
    }
  });

  describe('an alter id of another user\'s system under @me', () => {
    let theirs: Alter;
    beforeAll(async () => {
      const created = await other.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'theirs', displayName: 'Theirs', public: 1 });
      expect(created.status).toBe(201);
      theirs = created.body;
    });

    it('is 404 unknown-alter to read, edit or push to the front, and their alter is untouched', async () => {
      expectError(await owner.call('GET', `/v1/users/@me/alters/${theirs.alterId}`), 404, 'unknown-alter');
      expectError(await owner.call('POST', `/v1/users/@me/alters/${theirs.alterId}/edit`, { displayName: 'Hijacked' }), 404, 'unknown-alter');
      const push = await owner.call('POST', '/v1/users/@me/front', { alter: String(theirs.alterId) });
      expectError(push, 404, 'unknown-alter');
      expect(errorFields(push)).toEqual(['alter']);
      const coFront = await owner.call('POST', '/v1/users/@me/front', { alters: [fixture.alterId, String(theirs.alterId)] });
      expectError(coFront, 404, 'unknown-alter');
      expect(errorFields(coFront)).toEqual(['alters.1']);
      const ownFront = await owner.call<{ data: FrontHistory }>('GET', '/v1/users/@me/front/history?max=100');
      expect(ownFront.body.data.switches.flatMap((entry) => entry.alterIds)).not.toContain(theirs.alterId);
      const after = await other.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${theirs.alterId}`);
      expect(after.body.data).toEqual(theirs);
      expect((await other.call<{ data: FrontHistory }>('GET', '/v1/users/@me/front/history')).body.data.switches).toEqual([]);
    });

    it('is 404 unknown-alter to autoproxy as, latch onto, record or reproxy a message as, and nothing changes', async () => {
      const writes: Array<[string, () => unknown, string]> = [
        ['/autoproxy', () => ({ serverId: SET_SCOPE, autoproxyMode: 'alter', autoproxyAlter: String(theirs.alterId) }), 'autoproxyAlter'],
        ['/autoproxy/state', () => ({ serverId: LATCH_SCOPE, revision: fixture.latchRevision, at: decisionTime(), latch: { alterId: theirs.alterId } }), 'latch.alterId'],
        ['/messages', () => ({ ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: theirs.alterId }), 'alterId'],
        ['/reproxy', () => ({ messageId: fixture.reproxy.to, alterId: theirs.alterId }), 'alterId'],
      ];
      for (const [suffix, body, field] of writes) {
        const endpoint = WRITES.find((write) => write.path.endsWith(suffix));
        if (!endpoint) throw new Error(`no write endpoint ends with ${suffix}`);
        await endpoint.prepare?.(owner, fixture);
        const before = await snapshot(endpoint);
        const response = await owner.call(endpoint.method, pathOf(endpoint, '@me', fixture), body());
        expectError(response, 404, 'unknown-alter');
        expect(errorFields(response)).toEqual([field]);
        expect(await snapshot(endpoint)).toEqual(before);
      }
      const after = await other.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${theirs.alterId}`);
      expect(after.body.data).toEqual(theirs);
    });
  });

  describe('the same user through another client', () => {
    it('sees the same system and alters, without the first client\'s fields', async () => {
      const mine = await owner.call<{ data: System }>('GET', '/v1/users/@me/system');
      const theirs = await ownerElsewhere.call<{ data: System }>('GET', '/v1/users/@me/system');
      expect(theirs.status).toBe(200);
      expect(theirs.body).toEqual(mine.body);

      const alter = await owner.call<{ isSelf: boolean; data: Alter }>('GET', `/v1/users/@me/alters/${fixture.alterId}`);
      expect(alter.body.data.fields).toEqual({ [owner.client.id]: fixture.fieldValue });
      const elsewhere = await ownerElsewhere.call<{ isSelf: boolean; data: Alter }>('GET', `/v1/users/@me/alters/${fixture.alterId}`);
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.body).toEqual({ isSelf: true, data: { ...alter.body.data, fields: {} } });

      const list = await ownerElsewhere.call<Alter[]>('GET', '/v1/users/@me/system/list-alters');
      expect(list.status).toBe(200);
      expect(list.body.find((entry) => entry.alterId === fixture.alterId)?.fields).toEqual({});
      for (const entry of list.body) expect(entry.fields).toEqual({});
    });

    it('cannot set the first client\'s field (400 validation naming it), on create or edit', async () => {
      const key = `fields.${owner.client.id}`;
      const before = await snapshot(WRITES[0] as Endpoint);
      const create = await ownerElsewhere.call('POST', '/v1/users/@me/system/create-alter', { username: `taker-${next()}`, displayName: 'Taker', fields: { [owner.client.id]: 'stolen' } });
      expectError(create, 400, 'validation');
      expect(errorFields(create)).toEqual([key]);
      expect(await snapshot(WRITES[0] as Endpoint)).toEqual(before);

      const edit = await ownerElsewhere.call('POST', `/v1/users/@me/alters/${fixture.alterId}/edit`, { fields: { [owner.client.id]: 'stolen' } });
      expectError(edit, 400, 'validation');
      expect(errorFields(edit)).toEqual([key]);
      const alter = await owner.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${fixture.alterId}`);
      expect(alter.body.data.fields).toEqual({ [owner.client.id]: fixture.fieldValue });
    });

    it('cannot look an alter up by the first client\'s field value, and keeps its own field apart', async () => {
      const path = `/v1/users/@me/fields/alters/${encodeURIComponent(fixture.fieldValue)}`;
      expect((await owner.call<Alter>('GET', path)).body.alterId).toBe(fixture.alterId);
      expectError(await ownerElsewhere.call('GET', path), 404, 'unknown-alter');

      const own = await ownerElsewhere.call<Alter>('POST', `/v1/users/@me/alters/${fixture.alterId}/edit`, { fields: { [ownerElsewhere.client.id]: fixture.fieldValue } });
      expect(own.status).toBe(200);
      expect(own.body.fields).toEqual({ [ownerElsewhere.client.id]: fixture.fieldValue });
      expect((await ownerElsewhere.call<Alter>('GET', path)).body.alterId).toBe(fixture.alterId);
      const alter = await owner.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${fixture.alterId}`);
      expect(alter.body.data.fields).toEqual({ [owner.client.id]: fixture.fieldValue });
    });
  });

  describe('a client-credentials token (no user)', () => {
    it.each(USER_ENDPOINTS)('$method $path: @me is 403 user-token-required', async (endpoint) => {
      expectError(await call(endpoint, '@me', { token: machineToken }), 403, 'user-token-required');
    });

    it.each(USERLESS)('$method $path: needs no user; the client sees the public view', async (endpoint) => {
      const response = await call(endpoint, '@me', { token: machineToken });
      expect(response.status).toBe(endpoint.ok);
      expectPublicMessageView(response);
    });

    it.each(WRITES)('$method $path: writing to a user id is 403 user-token-required and changes nothing', async (endpoint) => {
      await endpoint.prepare?.(owner, fixture);
      const before = await snapshot(endpoint);
      expectError(await call(endpoint, OWNER, { token: machineToken }), 403, 'user-token-required');
      expect(await snapshot(endpoint)).toEqual(before);
    });

    it('reads another user\'s system by id, with their privacy applied', async () => {
      const response = await request<{ data: System }>(server, 'GET', `/v1/users/${OWNER}/system`, { token: machineToken });
      expect(response.status).toBe(200);
      expect(response.body.data.associatedUserId).toBe(OWNER);
      expect(response.body.data.systemName).toBeNull();
      expect(response.body.data.redacted).toContain('systemName');
    });

    it.each([
      { path: '/v1/users/{user}/autoproxy' },
      { path: '/v1/users/{user}/proxy-profile' },
      { path: '/v1/users/{user}/system/export' },
    ])('GET $path of a user id is 403 not-matching-oauth: only the owner reads it', async ({ path }) => {
      const endpoint = USER_READS.find((read) => read.path === path);
      if (!endpoint) throw new Error(`unknown endpoint ${path}`);
      expectError(await call(endpoint, OWNER, { token: machineToken }), 403, 'not-matching-oauth');
    });
  });

  it.each(USER_READS)('$method $path of a user who never signed in is 404 no-system', async (endpoint) => {
    expectError(await call(endpoint, NEVER_SIGNED_IN, { token: owner.token }), 404, 'no-system');
  });

  it.each(USERLESS)('$method $path of a message never recorded is 404 unknown-message', async (endpoint) => {
    const path = pathOf(endpoint, '@me', { ...fixture, messageId: snowflake(Date.now()) });
    expectError(await request(server, endpoint.method, path, { token: owner.token }), 404, 'unknown-message');
  });
});
