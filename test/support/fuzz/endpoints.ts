// The table of /v1 endpoints (path, methods, bodies, success status and schema) and the requests
// generated from it, including paths that are no endpoint.
import fc from 'fast-check';
import { z } from 'zod';
import { Alter } from '../../../src/domain/alter.js';
import { Autoproxy } from '../../../src/domain/autoproxy.js';
import { Delivery as EventDelivery, Endpoint as EventEndpoint, EVENT_TYPES, EventEnvelope } from '../../../src/domain/events.js';
import { Front, FrontHistory, PushFrontResponse } from '../../../src/domain/front.js';
import { FrontStats } from '../../../src/domain/front-stats.js';
import { GuildSettings } from '../../../src/domain/guild.js';
import { ImportReport } from '../../../src/domain/import/model.js';
import { MessageInfo, ProxiedMessage, RecordMessageResponse } from '../../../src/domain/proxied-message.js';
import { ProxyProfile } from '../../../src/domain/proxy-profile.js';
import { System } from '../../../src/domain/system.js';
import { Tag } from '../../../src/domain/tag.js';
import { ALTER_FIELDS, AUTOPROXY_FIELDS, autoproxyScope, FRONT_FIELDS, IMPORT_FIELDS, importFile, importFileText, MEMBERSHIP_FIELDS, MESSAGE_FIELDS, plausibleAlter, plausibleAutoproxy, plausibleFront, plausibleMembership, plausibleMessage, plausibleReproxy, plausibleState, plausibleSystem, plausibleTag, REPROXY_FIELDS, STATE_FIELDS, SYSTEM_FIELDS, TAG_FIELDS, validAlter, validAutoproxy, validFront, validMessage, validReproxy, validSnowflake, validState, validSystem, validTag } from './bodies.js';
import type { Expectation } from './contract.js';
import { accountEndpoints, profileFieldEndpoints } from './fields-and-accounts.js';
import type { FuzzRequest } from './exchange.js';
import { AUTOPROXY_SCOPES, type Fixtures, GUILD, OTHER, OTHER_GUILD, OWNER, snowflakeAt, STRANGER } from './fixtures.js';
import { edgeString, extraHeaders, jsonBody, jsonContentType, JUNK_BODIES, KNOWN_METHODS, methodFor, urlComponent, w, withWrongFields } from './generators.js';
import { assemble, queryString, type RequestParts, v1Authorization } from './requests.js';

export interface V1Endpoint {
  name: string;
  method: 'GET' | 'POST';
  success: number;
  schema: z.ZodType;
  path: fc.Arbitrary<string>;
  query: Record<string, string[]> | undefined;
  body: fc.Arbitrary<string | Uint8Array> | undefined;
  /** A well-formed request (the owner's token, JSON, a real path) whose body may still be wrong. */
  clean: {
    method?: fc.Arbitrary<string>;
    path: fc.Arbitrary<string>;
    query?: fc.Arbitrary<string>;
    body?: fc.Arbitrary<string>;
    /** A path and a body that go together (instead of `path` and `body`). */
    pathAndBody?: fc.Arbitrary<[string, string]>;
    extra?: fc.Arbitrary<Array<[string, string]>>;
  };
  otherRoutes?: Expectation['otherRoutes'];
  alsoSuccess?: number;
  unchanged?: Expectation['unchanged'];
  revalidates?: boolean;
  /** The token of clean requests, when not the owner's (the events routes take a client's own). */
  cleanToken?: string;
}

export function v1Endpoints(fixtures: Fixtures): V1Endpoint[] {
  const { ownerAlterId, anchorAlterId, otherShownId, otherHiddenId } = fixtures;
  const user = fc.oneof(w(6, fc.constant('@me')), w(4, urlComponent([OWNER, OTHER, STRANGER])));
  const own = fc.constantFrom('@me', '@me', OWNER);
  // Edits never name the anchor alter, so its integration field stays findable.
  const editable = urlComponent([...[ownerAlterId, ownerAlterId, otherShownId, otherHiddenId, 999_999, 0].map(String), '9007199254740993']);
  const readable = urlComponent([...[ownerAlterId, anchorAlterId, otherShownId, otherHiddenId, 999_999, 0].map(String), '9007199254740993']);
  const fieldId = urlComponent([fixtures.fieldValue, fixtures.fieldValue, 'ext-missing', 'x'.repeat(150), 'x'.repeat(151)]);
  const page = { max: ['1', '20', '100', '250'], skip: ['0', '1', '3'] };
  const validPage = fc.record({ max: fc.integer({ min: 1, max: 100 }), skip: fc.nat({ max: 5 }) }, { requiredKeys: [] }).map((query) => {
    const pairs = Object.entries(query).map(([name, value]) => `${name}=${value}`);
    return pairs.length ? `?${pairs.join('&')}` : '';
  });
  // Bodies of clean requests: valid, near-valid, and valid but for one to three fields.
  const cleanBody = (fields: readonly string[], valid: fc.Arbitrary<Record<string, unknown>>, plausible: fc.Arbitrary<Record<string, unknown>>) =>
    fc.oneof(w(3, valid.map((body) => JSON.stringify(body))), w(1, plausible.map((body) => JSON.stringify(body))), w(2, withWrongFields(fields, valid)));
  const alterBody = (create: boolean) => cleanBody(ALTER_FIELDS, validAlter(fixtures, create), plausibleAlter(fixtures, create));
  const systemBody = cleanBody(SYSTEM_FIELDS, validSystem(), plausibleSystem());
  // Bases of adversarial bodies.
  const alterBase = (create: boolean) => fc.oneof(validAlter(fixtures, create), plausibleAlter(fixtures, create));
  const systemBase = fc.oneof(validSystem(), plausibleSystem());
  const frontBody = cleanBody(FRONT_FIELDS, validFront(fixtures), plausibleFront(fixtures));
  const switchIds = [fixtures.ownerSwitchId, fixtures.otherSwitchId, 999_999].map(String);
  const validHistoryPage = fc
    .record(
      { max: fc.integer({ min: 1, max: 100 }), skip: fc.nat({ max: 5 }), before: fc.constantFrom(fixtures.ownerSwitchId, fixtures.ownerSwitchId + 1) },
      { requiredKeys: [] },
    )
    .map((query) => {
      const pairs = Object.entries(query).map(([name, value]) => `${name}=${value}`);
      return pairs.length ? `?${pairs.join('&')}` : '';
    });
  const validStatsQuery = fc
    .record(
      {
        from: fc.integer({ min: 0, max: 400 }).map((days) => new Date(Date.now() - days * 86_400_000).toISOString()),
        primary: fc.constantFrom('true', 'false'),
        tag: fc.constant(String(fixtures.ownerTagId)),
      },
      { requiredKeys: [] },
    )
    .map((query) => {
      const pairs = Object.entries(query).map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
      return pairs.length ? `?${pairs.join('&')}` : '';
    });
  const frontStats = z.strictObject({ data: FrontStats });
  const alterRead = z.strictObject({ isSelf: z.boolean(), data: Alter });
  const front = z.strictObject({ data: Front });
  const frontHistory = z.strictObject({ data: FrontHistory });
  const pushed = PushFrontResponse;
  const at = (suffix: string) => (u: string) => `/v1/users/${u}${suffix}`;
  // Proxying.
  const entries = z.strictObject({ data: z.array(Autoproxy) });
  const entrySet = z.strictObject({ data: Autoproxy });
  const removed = z.strictObject({ removed: z.boolean() });
  const applied = z.strictObject({ applied: z.boolean(), revision: z.number().int() });
  const json = (body: unknown) => body as Record<string, unknown> | undefined;
  const autoproxyBody = cleanBody(AUTOPROXY_FIELDS, validAutoproxy(fixtures), plausibleAutoproxy(fixtures));
  const removeBody = cleanBody(['serverId'], fc.record({ serverId: fc.constantFrom(...AUTOPROXY_SCOPES) }), fc.record({ serverId: autoproxyScope }, { requiredKeys: [] }));
  const stateBody = cleanBody(STATE_FIELDS, validState(fixtures), plausibleState(fixtures));
  const messageBody = cleanBody(MESSAGE_FIELDS, validMessage(fixtures), plausibleMessage(fixtures));
  const guilds = [GUILD, OTHER_GUILD, '300000000000000049'];
  const messages = [fixtures.ownerMessage, fixtures.otherMessage].flatMap((message) => [message.messageId, message.originalMessageId]);
  const messageId = urlComponent([...messages, snowflakeAt(Date.UTC(2024, 0, 1), 7), '12345', '99999999999999999999', '018446744073709551']);
  const reproxyIds = urlComponent([...fixtures.reproxyPairs.flat(), ...messages, snowflakeAt(Date.UTC(2024, 0, 1), 7), '12345']);
  // The valid re-send of a pair (mostly), with a plausible body instead, or with wrong fields.
  const cleanReproxy = fc
    .tuple(
      own,
      validReproxy(fixtures),
      fc.oneof(
        w(4, fc.constant(undefined)),
        w(
          1,
          plausibleReproxy(fixtures).map((body) => JSON.stringify(body)),
        ),
        w(1, fc.constant(null)),
      ),
    )
    .chain(([u, { from, body }, instead]) =>
      (instead === null ? withWrongFields(REPROXY_FIELDS, fc.constant(body)) : fc.constant(instead ?? JSON.stringify(body))).map((text): [string, string] => [
        `/v1/users/${u}/messages/${from}/reproxy`,
        text,
      ]),
    );
  const ifNoneMatch = fc.oneof(
    w(3, fc.constant<Array<[string, string]>>([])),
    {
      weight: 2,
      arbitrary: fc
        .constantFrom('*', fixtures.profileETag, `W/${fixtures.profileETag}`, `"x", ${fixtures.profileETag}`, '"p1-0-0"', '', 'W/*, *')
        .map((value): Array<[string, string]> => [['if-none-match', value]]),
    },
  );
  // Tags. Only the delete properties name the doomed alters and tags, so nothing the others need vanishes.
  const tagRead = z.strictObject({ isSelf: z.boolean(), data: Tag });
  const deleted = z.strictObject({ deleted: z.literal(true) });
  const tagBody = (create: boolean) => cleanBody(TAG_FIELDS, validTag(create), plausibleTag(create));
  const tagBase = (create: boolean) => fc.oneof(validTag(create), plausibleTag(create));
  const ownTags = [fixtures.ownerTagId, fixtures.otherShownTagId, fixtures.otherHiddenTagId, 999_999, 0].map(String);
  const tagId = urlComponent([...ownTags, '9007199254740993']);
  // Delete paths never hold another id that could be one of the owner's (not even `1` among the
  // edge strings, nor its percent-encoding): that would delete a fixture the other properties need.
  const notAnId = edgeString.filter((value) => value.isWellFormed() && !/\d/.test(value)).map(encodeURIComponent);
  const deletable = (ids: number[]) => fc.oneof(w(8, fc.constantFrom(...ids.map(String))), w(2, notAnId), w(1, fc.constantFrom('-1', '1.5', '1e3', '0x1', '9007199254740993')));
  const doomedAlter = deletable([...fixtures.doomedAlterIds, otherShownId, otherHiddenId, 999_999, 0]);
  const doomedTag = deletable([...fixtures.doomedTagIds, fixtures.otherShownTagId, 999_999, 0]);
  const membershipBody = cleanBody(MEMBERSHIP_FIELDS, plausibleMembership(fixtures), plausibleMembership(fixtures));
  const emptyBody = fc.oneof(w(4, fc.constant('{}')), w(1, withWrongFields(['confirm', 'force', 'alterId'], fc.constant({}))));
  const tagEndpoints: V1Endpoint[] = [
    {
      name: 'deleteAlter', method: 'POST', success: 200, schema: deleted,
      path: fc.tuple(user, doomedAlter).map(([u, a]) => `/v1/users/${u}/alters/${a}/delete`), query: undefined, body: jsonBody(['confirm'], fc.constant({})),
      clean: { path: fc.tuple(own, fc.constantFrom(...fixtures.doomedAlterIds, 999_999)).map(([u, a]) => `/v1/users/${u}/alters/${a}/delete`), body: emptyBody },
    },
    {
      name: 'createTag', method: 'POST', success: 201, schema: Tag,
      path: user.map(at('/system/create-tag')), query: undefined, body: jsonBody(TAG_FIELDS, tagBase(true)),
      clean: { path: own.map(at('/system/create-tag')), body: tagBody(true) },
    },
    {
      name: 'readTag', method: 'GET', success: 200, schema: tagRead,
      path: fc.tuple(user, tagId).map(([u, t]) => `/v1/users/${u}/tags/${t}`), query: undefined, body: undefined,
      clean: { path: fc.constantFrom(`@me/tags/${fixtures.ownerTagId}`, `${OTHER}/tags/${fixtures.otherShownTagId}`, `${OTHER}/tags/${fixtures.otherHiddenTagId}`, `${OWNER}/tags/${fixtures.ownerTagId}`).map((rest) => `/v1/users/${rest}`) },
    },
    {
      name: 'listTags', method: 'GET', success: 200, schema: z.array(Tag),
      path: user.map(at('/system/list-tags')), query: page, body: undefined,
      clean: { path: fc.constantFrom('@me', OWNER, OTHER).map(at('/system/list-tags')), query: validPage },
    },
    {
      name: 'editTag', method: 'POST', success: 200, schema: Tag,
      path: fc.tuple(user, tagId).map(([u, t]) => `/v1/users/${u}/tags/${t}/edit`), query: undefined, body: jsonBody(TAG_FIELDS, tagBase(false)),
      clean: { path: own.map((u) => `/v1/users/${u}/tags/${fixtures.ownerTagId}/edit`), body: tagBody(false) },
    },
    {
      name: 'tagMembers', method: 'POST', success: 200, schema: Tag,
      path: fc.tuple(user, tagId).map(([u, t]) => `/v1/users/${u}/tags/${t}/alters`), query: undefined, body: jsonBody(MEMBERSHIP_FIELDS, plausibleMembership(fixtures)),
      clean: { path: own.map((u) => `/v1/users/${u}/tags/${fixtures.ownerTagId}/alters`), body: membershipBody },
    },
    {
      name: 'deleteTag', method: 'POST', success: 200, schema: deleted,
      path: fc.tuple(user, doomedTag).map(([u, t]) => `/v1/users/${u}/tags/${t}/delete`), query: undefined, body: jsonBody(['confirm'], fc.constant({})),
      clean: { path: fc.tuple(own, fc.constantFrom(...fixtures.doomedTagIds, 999_999)).map(([u, t]) => `/v1/users/${u}/tags/${t}/delete`), body: emptyBody },
    },
  ];
  return [
    ...tagEndpoints,
    {
      name: 'createAlter', method: 'POST', success: 201, schema: Alter,
      path: user.map(at('/system/create-alter')), query: undefined, body: jsonBody(ALTER_FIELDS, alterBase(true)),
      clean: { path: own.map(at('/system/create-alter')), body: alterBody(true) },
    },
    {
      name: 'editAlter', method: 'POST', success: 200, schema: Alter,
      path: fc.tuple(user, editable).map(([u, a]) => `/v1/users/${u}/alters/${a}/edit`), query: undefined, body: jsonBody(ALTER_FIELDS, alterBase(false)),
      clean: { path: own.map((u) => `/v1/users/${u}/alters/${ownerAlterId}/edit`), body: alterBody(false) },
    },
    {
      name: 'editSystem', method: 'POST', success: 200, schema: System,
      path: user.map(at('/system/edit')), query: undefined, body: jsonBody(SYSTEM_FIELDS, systemBase),
      clean: { path: own.map(at('/system/edit')), body: systemBody },
    },
    {
      name: 'pushFront', method: 'POST', success: 200, schema: pushed,
      path: user.map(at('/front')), query: undefined, body: jsonBody(FRONT_FIELDS, fc.oneof(validFront(fixtures), plausibleFront(fixtures))),
      clean: { path: own.map(at('/front')), body: frontBody },
      otherRoutes: { GET: { success: 200, schema: front, readOnly: true } },
    },
    {
      name: 'readSystem', method: 'GET', success: 200, schema: z.strictObject({ data: System }),
      path: user.map(at('/system')), query: undefined, body: undefined,
      clean: { path: fc.constantFrom('@me', OWNER, OTHER).map(at('/system')) },
    },
    {
      name: 'readAlter', method: 'GET', success: 200, schema: alterRead,
      path: fc.tuple(user, readable).map(([u, a]) => `/v1/users/${u}/alters/${a}`), query: undefined, body: undefined,
      clean: { path: fc.constantFrom(`@me/alters/${ownerAlterId}`, `@me/alters/${anchorAlterId}`, `${OTHER}/alters/${otherShownId}`, `${OTHER}/alters/${otherHiddenId}`).map((rest) => `/v1/users/${rest}`) },
    },
    {
      name: 'fieldLookup', method: 'GET', success: 200, schema: Alter,
      path: fc.tuple(user, fieldId).map(([u, id]) => `/v1/users/${u}/fields/alters/${id}`), query: undefined, body: undefined,
      clean: { path: fc.tuple(own, fc.constantFrom(fixtures.fieldValue, fixtures.fieldValue, 'ext-missing')).map(([u, id]) => `/v1/users/${u}/fields/alters/${id}`) },
    },
    {
      name: 'listAlters', method: 'GET', success: 200, schema: z.array(Alter),
      path: user.map(at('/system/list-alters')), query: page, body: undefined,
      clean: { path: fc.constantFrom('@me', OWNER, OTHER).map(at('/system/list-alters')), query: validPage },
    },
    {
      name: 'readFront', method: 'GET', success: 200, schema: front,
      path: user.map(at('/front')), query: undefined, body: undefined,
      clean: { path: fc.constantFrom('@me', OWNER, OTHER).map(at('/front')) },
      otherRoutes: { POST: { success: 200, schema: pushed, readOnly: false } },
    },
    {
      name: 'readFrontHistory', method: 'GET', success: 200, schema: frontHistory,
      path: user.map(at('/front/history')), query: { ...page, before: switchIds }, body: undefined,
      clean: { path: fc.constantFrom('@me', OWNER, OTHER).map(at('/front/history')), query: validHistoryPage },
    },
    {
      name: 'readFrontStats', method: 'GET', success: 200, schema: frontStats,
      path: user.map(at('/front/stats')),
      query: {
        from: ['2026-01-01T00:00:00Z', '2000-01-01T00:00:00.000+14:00', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '2026-01-01', 'yesterday', ''],
        to: ['2026-02-01T00:00:00Z', '2099-01-01T00:00:00Z', '0000-01-02T00:00:00Z', '1970-01-01T00:00:00-12:00'],
        tag: [String(fixtures.ownerTagId), '999999', '0', 'x'],
        primary: ['true', 'false', '1', ''],
        boundaries: ['2026-01-15T00:00:00Z', '2026-01-10T03:30:00Z,2026-01-20T00:00:00+05:45', '', ',', 'x', '2026-01-20T00:00:00Z,2026-01-10T00:00:00Z', '2026-01-15T00:00:00Z,2026-01-15T00:00:00Z'],
      },
      body: undefined,
      clean: { path: fc.constantFrom('@me', OWNER, OTHER).map(at('/front/stats')), query: validStatsQuery },
    },
    {
      name: 'readAutoproxy', method: 'GET', success: 200, schema: entries,
      path: user.map(at('/autoproxy')), query: undefined, body: undefined,
      clean: { path: fc.constantFrom('@me', OWNER, OTHER).map(at('/autoproxy')) },
      otherRoutes: { POST: { success: 200, schema: entrySet, readOnly: false } },
    },
    {
      name: 'setAutoproxy', method: 'POST', success: 200, schema: entrySet,
      path: user.map(at('/autoproxy')), query: undefined, body: jsonBody(AUTOPROXY_FIELDS, fc.oneof(validAutoproxy(fixtures), plausibleAutoproxy(fixtures))),
      clean: { path: own.map(at('/autoproxy')), body: autoproxyBody },
      otherRoutes: { GET: { success: 200, schema: entries, readOnly: true } },
    },
    {
      name: 'removeAutoproxy', method: 'POST', success: 200, schema: removed,
      path: user.map(at('/autoproxy/remove')), query: undefined, body: jsonBody(['serverId'], fc.record({ serverId: autoproxyScope }, { requiredKeys: [] })),
      clean: { path: own.map(at('/autoproxy/remove')), body: removeBody },
      unchanged: (response) => json(response.json)?.removed === false,
    },
    {
      name: 'autoproxyState', method: 'POST', success: 200, schema: applied,
      path: user.map(at('/autoproxy/state')), query: undefined, body: jsonBody(STATE_FIELDS, fc.oneof(validState(fixtures), plausibleState(fixtures))),
      clean: { path: own.map(at('/autoproxy/state')), body: stateBody },
      unchanged: (response) => json(response.json)?.applied === false,
    },
    {
      name: 'proxyProfile', method: 'GET', success: 200, schema: ProxyProfile,
      path: user.map(at('/proxy-profile')), query: { guild: guilds }, body: undefined,
      clean: {
        // HEAD revalidates too (as its GET, without a body).
        method: fc.oneof(w(4, fc.constant('GET')), w(1, fc.constant('HEAD'))),
        path: fc.constantFrom('@me', '@me', OWNER, OTHER).map(at('/proxy-profile')),
        query: fc.oneof(w(4, fc.constantFrom(...guilds)), w(1, validSnowflake)).map((guild) => `?guild=${guild}`),
        extra: ifNoneMatch,
      },
      revalidates: true,
    },
    {
      name: 'recordMessage', method: 'POST', success: 201, schema: RecordMessageResponse,
      path: user.map(at('/messages')), query: undefined, body: jsonBody(MESSAGE_FIELDS, fc.oneof(validMessage(fixtures), plausibleMessage(fixtures))),
      clean: { path: own.map(at('/messages')), body: messageBody },
      // The same record again: 200, and nothing is counted twice.
      alsoSuccess: 200,
      unchanged: (response) => response.status === 200,
    },
    {
      name: 'reproxyMessage', method: 'POST', success: 200, schema: z.strictObject({ data: ProxiedMessage }),
      path: fc.tuple(user, reproxyIds).map(([u, id]) => `/v1/users/${u}/messages/${id}/reproxy`), query: undefined,
      body: jsonBody(REPROXY_FIELDS, fc.oneof(validReproxy(fixtures).map(({ body }) => body), plausibleReproxy(fixtures))),
      clean: { path: cleanReproxy.map(([path]) => path), pathAndBody: cleanReproxy },
    },
    {
      name: 'exportSystem', method: 'GET', success: 200, schema: z.record(z.string(), z.unknown()),
      path: user.map(at('/system/export')), query: undefined, body: undefined,
      clean: { path: own.map(at('/system/export')) },
    },
    {
      // No replace mode here (import-export.test.ts covers it): it would delete the fixtures later cases use.
      name: 'importSystem', method: 'POST', success: 200, schema: z.strictObject({ data: ImportReport }),
      path: user.map(at('/system/import')), query: { mode: ['merge', 'add', 'Merge', '', 'overwrite'], dryRun: ['true', 'false', '1'], history: ['true', 'false', 'yes'], customFronts: ['import', 'skip', 'maybe'], friendsArePublic: ['true', 'false', 'yes'] },
      body: fc.oneof(w(3, importFile.map(importFileText)), w(3, jsonBody(IMPORT_FIELDS, importFile))),
      clean: {
        path: own.map(at('/system/import')),
        query: fc.tuple(fc.constantFrom('merge', 'add'), fc.boolean(), fc.boolean()).map(([mode, dryRun, history]) => `?mode=${mode}&dryRun=${dryRun}&history=${history}`),
        body: fc.oneof(w(3, importFile.map(importFileText)), w(1, withWrongFields(IMPORT_FIELDS, importFile))),
        extra: fc.oneof(w(3, fc.constant<Array<[string, string]>>([])), w(1, fc.constantFrom('k1', 'k2', '', 'x'.repeat(101)).map((key): Array<[string, string]> => [['idempotency-key', key]]))),
      },
      unchanged: (response) => (json(response.json)?.data as { dryRun?: boolean } | undefined)?.dryRun === true || response.headers['idempotent-replayed'] === 'true',
    },
    {
      name: 'readMessage', method: 'GET', success: 200, schema: z.strictObject({ data: MessageInfo }),
      path: messageId.map((id) => `/v1/messages/${id}`), query: undefined, body: undefined,
      clean: { path: fc.constantFrom(...messages, snowflakeAt(Date.UTC(2024, 0, 1), 7)).map((id) => `/v1/messages/${id}`) },
    },
    ...eventEndpoints(fixtures),
    ...guildEndpoints(fixtures),
    ...profileFieldEndpoints(fixtures),
    ...accountEndpoints(),
  ];
}

/** /v1/guilds: servers' settings, with a first-party client's client-credentials token. */
export function guildEndpoints(fixtures: Fixtures): V1Endpoint[] {
  const cleanToken = fixtures.guildsToken;
  const guilds = ['140000000000000001', '140000000000000002'];
  const guild = urlComponent([...guilds, '1', '0', '99999999999999999999999']);
  const ids = fc.constantFrom('150000000000000001', '150000000000000002', '150000000000000003');
  const idList = fc.uniqueArray(ids, { maxLength: 3 });
  const listEdit = fc
    .record({ add: idList, remove: idList }, { requiredKeys: [] })
    .filter((edit) => !(edit.add ?? []).some((id) => (edit.remove ?? []).includes(id)));
  const actor = fc.record({ userId: fc.constant('150000000000000009'), permission: fc.constantFrom('manage-guild', 'manager-role') });
  const validEdit = fc.record(
    {
      actor,
      logChannel: fc.option(ids, { nil: null }),
      logIgnored: listEdit,
      blacklist: listEdit,
      blocks: fc.record({ add: fc.uniqueArray(fc.record({ id: ids, kind: fc.constantFrom('user', 'role'), reason: fc.option(fc.constantFrom('spam', 'x'.repeat(300)), { nil: null }) }), { maxLength: 2, selector: (block) => block.id }), remove: fc.constant([] as string[]) }, { requiredKeys: [] }),
      requireTag: fc.boolean(),
      managerRoles: listEdit,
      proxyDelayMs: fc.integer({ min: 0, max: 3000 }),
      logCleanupBots: listEdit,
    },
    { requiredKeys: ['actor'] },
  );
  const plausibleEdit = fc.record(
    {
      actor: fc.oneof(actor, fc.record({ userId: edgeString, permission: edgeString }), edgeString),
      logChannel: fc.oneof(edgeString, fc.constant(null), fc.integer()),
      blacklist: fc.oneof(listEdit, fc.record({ add: fc.array(edgeString, { maxLength: 3 }) }), edgeString),
      blocks: fc.oneof(fc.record({ add: fc.array(fc.record({ id: edgeString, kind: edgeString, reason: edgeString }), { maxLength: 2 }) }), edgeString),
      requireTag: fc.oneof(fc.boolean(), edgeString),
      proxyDelayMs: fc.oneof(fc.integer({ min: -10, max: 5000 }), fc.double(), edgeString),
    },
    { requiredKeys: [] },
  );
  const fields = ['actor', 'logChannel', 'logIgnored', 'blacklist', 'blocks', 'requireTag', 'managerRoles', 'proxyDelayMs', 'logCleanupBots'];
  const settings = z.strictObject({ ...GuildSettings.shape });
  return [
    {
      name: 'guildSettings', method: 'GET', success: 200, schema: settings, cleanToken, revalidates: true,
      path: guild.map((id) => `/v1/guilds/${id}/settings`), query: undefined, body: undefined,
      clean: { path: fc.constantFrom(...guilds).map((id) => `/v1/guilds/${id}/settings`) },
    },
    {
      name: 'editGuildSettings', method: 'POST', success: 200, schema: settings, cleanToken,
      path: guild.map((id) => `/v1/guilds/${id}/settings/edit`), query: undefined, body: jsonBody(fields, fc.oneof(validEdit, plausibleEdit)),
      clean: { path: fc.constantFrom(...guilds).map((id) => `/v1/guilds/${id}/settings/edit`), body: fc.oneof(w(3, validEdit.map((body) => JSON.stringify(body))), w(1, plausibleEdit.map((body) => JSON.stringify(body))), w(2, withWrongFields(fields, validEdit))) },
    },
  ];
}

/** /v1/events: a client's own webhook endpoints, with its client-credentials token. */
export function eventEndpoints(fixtures: Fixtures): V1Endpoint[] {
  const cleanToken = fixtures.eventsToken;
  const known = [...fixtures.endpointIds, 'ep_AAAAAAAAAAAAAAAA', 'ep_short'];
  const endpoint = urlComponent(known);
  const ownEndpoint = fc.constantFrom(...fixtures.endpointIds);
  const types = fc.subarray([...EVENT_TYPES], { minLength: 1 });
  const hookUrl = fc.constantFrom('https://hooks.example/in', 'https://hooks.example:8443/a?b=c', 'http://hooks.example/in', 'https://u:p@hooks.example/', 'https://hooks.example/#x', 'ftp://hooks.example/', 'https://127.0.0.1/in', '');
  const validCreate = fc.record({ url: fc.constantFrom('https://hooks.example/in', 'https://hooks.example:8443/a?b=c'), eventTypes: types, description: fc.option(fc.constantFrom('main', 'x'.repeat(200)), { nil: undefined }) }, { requiredKeys: ['url', 'eventTypes'] });
  const plausibleCreate = fc.record(
    {
      url: fc.oneof(hookUrl, edgeString),
      eventTypes: fc.oneof(types, fc.array(fc.oneof(fc.constantFrom(...EVENT_TYPES), edgeString), { maxLength: 12 })),
      description: fc.oneof(edgeString, fc.constant(null)),
    },
    { requiredKeys: [] },
  );
  const validEdit = fc.record({ url: fc.constant('https://hooks.example/edited'), eventTypes: types, description: fc.constantFrom('edited', null), enabled: fc.boolean() }, { requiredKeys: [] });
  const plausibleEdit = fc.record(
    {
      url: fc.oneof(hookUrl, edgeString),
      eventTypes: fc.array(fc.oneof(fc.constantFrom(...EVENT_TYPES), edgeString), { maxLength: 12 }),
      enabled: fc.oneof(fc.boolean(), edgeString),
      description: edgeString,
    },
    { requiredKeys: [] },
  );
  const createFields = ['url', 'eventTypes', 'description'];
  const editFields = [...createFields, 'enabled'];
  const since = fc.record({ since: fc.constantFrom('2026-01-01T00:00:00Z', '2026-11-23T10:00:00.000+01:00', 'yesterday', '9999-12-31T23:59:00-23:59') }, { requiredKeys: [] });
  const empty = fc.oneof(w(4, fc.constant('{}')), w(1, fc.constant('')), w(1, withWrongFields(['since'], fc.constant({}))));
  const deliveryId = urlComponent(['msg_1', '1', 'msg_0', 'msg_9007199254740993', 'msg_']);
  const endpointSchema = z.strictObject({ data: EventEndpoint });
  const secretAnswer = z.strictObject({ data: EventEndpoint, secret: z.string().startsWith('whsec_') });
  const queued = z.strictObject({ queued: z.number().int() });
  const at = (suffix: string) => (id: string) => `/v1/events/endpoints/${id}${suffix}`;
  return [
    {
      name: 'createEndpoint', method: 'POST', success: 201, schema: secretAnswer, cleanToken,
      path: fc.constant('/v1/events/endpoints'), query: undefined, body: jsonBody(createFields, fc.oneof(validCreate, plausibleCreate)),
      clean: { path: fc.constant('/v1/events/endpoints'), body: fc.oneof(w(3, validCreate.map((body) => JSON.stringify(body))), w(1, plausibleCreate.map((body) => JSON.stringify(body))), w(2, withWrongFields(createFields, validCreate))) },
      otherRoutes: { GET: { success: 200, schema: z.strictObject({ data: z.array(EventEndpoint) }), readOnly: true } },
    },
    {
      name: 'editEndpoint', method: 'POST', success: 200, schema: endpointSchema, cleanToken,
      path: endpoint.map(at('/edit')), query: undefined, body: jsonBody(editFields, fc.oneof(validEdit, plausibleEdit)),
      clean: { path: ownEndpoint.map(at('/edit')), body: fc.oneof(w(3, validEdit.map((body) => JSON.stringify(body))), w(1, plausibleEdit.map((body) => JSON.stringify(body))), w(2, withWrongFields(editFields, validEdit))) },
    },
    {
      name: 'readEndpoint', method: 'GET', success: 200, schema: z.union([endpointSchema, z.strictObject({ data: z.array(EventEndpoint) })]), cleanToken,
      path: fc.oneof(fc.constant('/v1/events/endpoints'), endpoint.map(at(''))), query: undefined, body: undefined,
      clean: { path: fc.oneof(fc.constant('/v1/events/endpoints'), ownEndpoint.map(at(''))) },
      otherRoutes: { POST: { success: 201, schema: secretAnswer, readOnly: false } },
    },
    {
      name: 'eventFeed', method: 'GET', success: 200, schema: z.strictObject({ data: z.strictObject({ events: z.array(EventEnvelope), next: z.string(), more: z.boolean() }) }), cleanToken,
      path: fc.constant('/v1/events/feed'), query: { after: ['0', '1', '-1', 'x', '12345678901234567', ''], max: ['1', '100', '500', '501', '0', 'a'] }, body: undefined,
      clean: { path: fc.constant('/v1/events/feed'), query: fc.constantFrom('', '?after=0', '?after=0&max=5', '?max=1') },
    },
    {
      name: 'endpointDeliveries', method: 'GET', success: 200, schema: z.strictObject({ data: z.array(EventDelivery) }), cleanToken,
      path: endpoint.map(at('/deliveries')), query: { max: ['1', '50', '100', '101', '0'], before: ['msg_1', '5', 'msg_x'], status: ['pending', 'failed', 'lost'] }, body: undefined,
      clean: { path: ownEndpoint.map(at('/deliveries')), query: fc.constantFrom('', '?max=10', '?status=failed&before=msg_9') },
    },
    {
      name: 'rotateEndpointSecret', method: 'POST', success: 200, schema: secretAnswer.extend({ previousSecretExpiresAt: z.string() }), cleanToken,
      path: endpoint.map(at('/rotate-secret')), query: undefined, body: jsonBody(['since'], fc.constant({})),
      clean: { path: ownEndpoint.map(at('/rotate-secret')), body: empty },
    },
    {
      name: 'replayEndpoint', method: 'POST', success: 200, schema: queued, cleanToken,
      path: endpoint.map(at('/replay')), query: undefined, body: jsonBody(['since'], since),
      clean: { path: ownEndpoint.map(at('/replay')), body: fc.oneof(w(3, since.map((body) => JSON.stringify(body))), w(1, withWrongFields(['since'], since))) },
    },
    {
      name: 'replayDelivery', method: 'POST', success: 200, schema: queued, cleanToken,
      path: deliveryId.map((id) => `/v1/events/deliveries/${id}/replay`), query: undefined, body: jsonBody(['since'], fc.constant({})),
      clean: { path: deliveryId.map((id) => `/v1/events/deliveries/${id}/replay`), body: empty },
    },
    {
      name: 'deleteEndpoint', method: 'POST', success: 200, schema: z.strictObject({ deleted: z.literal(true) }), cleanToken,
      path: urlComponent([...fixtures.doomedEndpointIds, 'ep_AAAAAAAAAAAAAAAA']).map(at('/delete')), query: undefined, body: jsonBody(['since'], fc.constant({})),
      clean: { path: fc.constantFrom(...fixtures.doomedEndpointIds, 'ep_AAAAAAAAAAAAAAAA').map(at('/delete')), body: empty },
    },
  ];
}

/** A quarter of the cases are clean requests (so that many succeed), the rest adversarial in every part. */
export function v1Request(fixtures: Fixtures, endpoint: V1Endpoint): fc.Arbitrary<FuzzRequest> {
  // GETs mostly carry no body, sometimes one (with or without a content type).
  const getBody = fc.oneof(w(8, fc.constant(undefined)), w(1, jsonBody(['a'], fc.constant({ a: 1 }))));
  const { cleanToken } = endpoint;
  const adversarial = fc.record({
    method: methodFor(endpoint.method),
    path: endpoint.path,
    query: queryString(endpoint.query ?? {}),
    authorization: cleanToken === undefined ? v1Authorization(fixtures) : fc.oneof(w(3, fc.constant(`Bearer ${cleanToken}`)), w(2, v1Authorization(fixtures))),
    contentType: endpoint.method === 'POST' ? jsonContentType : fc.oneof(w(4, fc.constant(undefined)), w(1, jsonContentType)),
    body: endpoint.body ?? getBody,
    extra: extraHeaders,
  });
  const clean: fc.Arbitrary<RequestParts> = fc.record({
    method: endpoint.clean.method ?? fc.constant<string>(endpoint.method),
    path: endpoint.clean.path,
    query: endpoint.clean.query ?? fc.constant(''),
    authorization: fc.constant(`Bearer ${cleanToken ?? fixtures.owner.token}`),
    contentType: fc.constant(endpoint.method === 'POST' ? 'application/json' : undefined),
    body: endpoint.clean.body ?? fc.constant(undefined),
    extra: endpoint.clean.extra ?? fc.constant<Array<[string, string]>>([]),
  });
  const { pathAndBody } = endpoint.clean;
  const paired = pathAndBody ? fc.tuple(clean, pathAndBody).map(([parts, [path, body]]) => ({ ...parts, path, body })) : clean;
  return fc.oneof(w(1, paired), w(3, adversarial)).map(assemble);
}

export const ENDPOINT_PATH =
  /^\/v1\/(users\/[^/]+\/(system|system\/edit|system\/import|system\/export|system\/create-alter|system\/list-alters|front|front\/history|alters\/[^/]+|alters\/[^/]+\/edit|alters\/[^/]+\/delete|system\/create-tag|system\/list-tags|tags\/[^/]+|tags\/[^/]+\/(edit|alters|delete)|fields\/alters\/[^/]+|autoproxy|autoproxy\/remove|autoproxy\/state|proxy-profile|messages|messages\/[^/]+\/reproxy|system\/(create|list|order)-profile-fields?|profile-fields\/[^/]+|profile-fields\/[^/]+\/(edit|delete)|system\/accounts\/(code|redeem)|system\/accounts\/[^/]+\/remove)|messages\/[^/]+)$/;

/** Paths under /v1 that are no endpoint, or almost one. */
export function otherV1Request(fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const segment = urlComponent([
    ...['users', '@me', 'system', 'alters', 'fields', 'front', 'history', 'edit', 'create-alter', 'list-alters', String(fixtures.ownerAlterId)],
    ...['tags', 'create-tag', 'list-tags', 'delete', String(fixtures.ownerTagId)],
    ...['autoproxy', 'remove', 'state', 'proxy-profile', 'messages', 'reproxy', fixtures.ownerMessage.messageId],
    ...['profile-fields', 'create-profile-field', 'list-profile-fields', 'order-profile-fields', String(fixtures.ownerFieldId), 'accounts', 'code', 'redeem'],
  ]);
  const path = fc.oneof(
    fc.constantFrom(
      ...['/v1', '/v1/', '/v1//', '/v1/users', '/v1/users/', '/v1/users/@me', '/v1/users/@me/', '/v1/users/@me/alters', '/v1/users/@me/fields/alters'],
      ...['/v1/users/@me/fields/alters/', '/v1/users/@me/system/', '/v1/users/@me/system/edit/', '/v1/users/@me//system', '/v1/openapi.json'],
      ...['/v1/users/@me/system/delete', '/v1/users/@me/alters/1/delete', '/v1/USERS/@me/system', '/v1/users/@me/system%2Fedit'],
      ...['/v1/users/@me/system/edit%00', '/v1/users/@me/system/../system/edit'],
      ...['/v1/messages', '/v1/messages/', `/v1/messages/${fixtures.ownerMessage.messageId}/`, `/v1/users/@me/messages/${fixtures.ownerMessage.messageId}`],
      ...[`/v1/messages/${fixtures.ownerMessage.messageId}/reproxy`, `/v1/users/@me/messages/${fixtures.ownerMessage.messageId}/reproxy/`, '/v1/users/@me/messages/reproxy'],
      ...['/v1/users/@me/autoproxy/', '/v1/users/@me/autoproxy/delete', '/v1/users/@me/autoproxy/state/x', '/v1/users/@me/proxy-profile/', '/v1/users/@me/proxy_profile'],
    ),
    fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => `/v1/${segments.join('/')}`),
  ).filter((candidate) => !ENDPOINT_PATH.test(candidate));
  return fc
    .record({
      method: fc.constantFrom(...KNOWN_METHODS),
      path,
      query: queryString({}),
      authorization: v1Authorization(fixtures),
      contentType: jsonContentType,
      body: fc.oneof(fc.constant(undefined), fc.constantFrom(...JUNK_BODIES)),
      extra: extraHeaders,
    })
    .map(assemble);
}
