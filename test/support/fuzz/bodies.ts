// Request bodies per endpoint: valid ones (which mostly succeed) and plausible ones (the real
// fields, often wrong), for alters, systems, fronts, tags, autoproxy, messages and import files.
import fc from 'fast-check';
import { AUTOPROXY_SCOPES, CHANNEL, type Fixtures, GUILD, LATCH_SCOPE, OTHER_GUILD, type RecordedMessage, snowflakeAt } from './fixtures.js';
import { edgeString, LENGTHS, PLAUSIBLE_STRINGS, w } from './generators.js';

/** The body fields of alters and systems: editable, read-only, and response-only. */
export const ALTER_FIELDS = [
  ...['username', 'displayName', 'nameMap', 'color', 'description', 'pronouns', 'avatarUrl', 'avatarUrlMap', 'webhookAvatarUrl', 'banner'],
  ...['alterMode', 'proxyTags', 'tagIds', 'public', 'flags', 'fields', 'alterId', 'systemId', 'created', 'messageCount', 'lastMessageTimestamp', 'redacted'],
];
export const SYSTEM_FIELDS = [
  ...['systemName', 'systemDisplayTag', 'displayTagMap', 'systemDescription', 'systemAvatar', 'systemBanner', 'systemPronouns', 'nicknameFormat'],
  ...['systemOperationDM', 'latchExpiration', 'public', 'flags', 'disabledGuilds', 'disabled', 'associatedUserId', 'alterIds', 'tagIds', 'createdAt'],
  ...['systemAutoproxy', 'subAccounts', 'redacted'],
];

export const snowflake = fc.oneof(
  w(4, fc.bigInt({ min: 10n ** 16n, max: 10n ** 19n }).map(String)),
  w(1, fc.constantFrom('12345678901234567', '99999999999999999999', '0123456789012345678', '1234567890123456', 'abc')),
);
export const shortText = fc.oneof(w(4, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 })), w(1, edgeString));
export const url = fc.oneof(w(3, fc.webUrl()), w(1, fc.constantFrom(...PLAUSIBLE_STRINGS.filter((value) => value.includes(':')))));
export const color = fc.oneof(w(3, fc.stringMatching(/^#[0-9a-fA-F]{6}$/)), w(1, fc.constantFrom('#a1b2c', 'a1b2c3', '#GGGGGG', 'red')));
export const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof(w(4, arbitrary), w(1, fc.constant(null)));

export const validSnowflake = fc.bigInt({ min: 10n ** 16n, max: 10n ** 20n - 1n }).map(String);
export const validText = (max: number) => fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(max, 16) }).filter((value) => value.isWellFormed() && !value.includes('\u0000'));

/** Alter bodies every field of which is valid: these mostly succeed (or meet a duplicate). */
export function validAlter(fixtures: Fixtures, create: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      username: fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/),
      displayName: validText(100),
      nameMap: fc.array(fc.record({ server: validSnowflake, name: validText(100) }), { maxLength: 2 }),
      color: nullable(fc.stringMatching(/^#[0-9a-fA-F]{6}$/)),
      description: nullable(validText(1000)),
      pronouns: nullable(validText(100)),
      avatarUrl: nullable(fc.webUrl()),
      avatarUrlMap: fc.dictionary(validSnowflake, fc.webUrl(), { maxKeys: 2 }),
      alterMode: fc.constantFrom('webhook', 'nickname', 'both'),
      proxyTags: fc.array(fc.record({ prefix: validText(100), suffix: nullable(validText(100)) }), { maxLength: 2 }),
      public: fc.subarray([1, 2, 4, 8, 16, 32, 128, 256, 512]).map((bits) => bits.reduce((all, bit) => all | bit, 0)),
      flags: fc.nat({ max: 2 ** 31 - 1 }),
      fields: fc.option(validText(150)).map((value) => ({ [fixtures.appClientId]: value })),
    },
    { requiredKeys: create ? ['username', 'displayName'] : [] },
  );
}

export function validSystem(): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      systemName: validText(100),
      systemDisplayTag: nullable(validText(100)),
      displayTagMap: fc.dictionary(validSnowflake, validText(100), { maxKeys: 2 }),
      systemDescription: nullable(validText(1000)),
      systemAvatar: nullable(fc.webUrl()),
      systemPronouns: nullable(validText(100)),
      nicknameFormat: fc.constantFrom('%display% (%username%)', '@%username%'),
      systemOperationDM: fc.boolean(),
      latchExpiration: fc.integer({ min: 0, max: 36_000_000 }),
      public: fc.integer({ min: 0, max: 255 }).map((bits) => bits | 64),
      flags: fc.integer({ min: 0, max: 3 }),
      disabledGuilds: fc.uniqueArray(validSnowflake, { maxLength: 2 }),
      disabled: fc.boolean(),
    },
    { requiredKeys: [] },
  );
}

/** Alter bodies near the valid ones: right names, values just inside or outside the limits. */
export function plausibleAlter(fixtures: Fixtures, create: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      username: fc.oneof(w(6, fc.stringMatching(/^[a-z0-9_]{1,12}$/)), w(1, fc.constantFrom('steady', 'STEADY', 'with space', 'a@b', 'a/b', 'a\\b', '')), w(1, edgeString)),
      displayName: shortText,
      nameMap: fc.array(fc.record({ server: snowflake, name: shortText }), { maxLength: 3 }),
      color: nullable(color),
      description: nullable(fc.oneof(shortText, fc.constantFrom(...LENGTHS).map((count) => 'd'.repeat(count)))),
      pronouns: nullable(shortText),
      avatarUrl: nullable(url),
      avatarUrlMap: fc.dictionary(snowflake, url, { maxKeys: 2 }),
      webhookAvatarUrl: nullable(url),
      banner: nullable(url),
      alterMode: fc.constantFrom('webhook', 'nickname', 'both', 'proxy'),
      proxyTags: fc.array(fc.record({ id: fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), prefix: nullable(shortText), suffix: nullable(shortText) }, { requiredKeys: [] }), { maxLength: 3 }),
      tagIds: fc.array(fc.integer({ min: -1, max: 3 }), { maxLength: 2 }),
      public: fc.oneof(fc.integer({ min: 0, max: 1023 }), fc.constantFrom(0, 1, 64, 1023, 1024, -1)),
      flags: fc.oneof(fc.nat(), fc.constantFrom(2 ** 31 - 1, 2 ** 31, -1)),
      fields: fc.oneof(
        w(3, fc.tuple(nullable(shortText)).map(([value]) => ({ [fixtures.appClientId]: value }))),
        w(1, fc.constant({ [fixtures.appClientId]: fixtures.fieldValue })),
        w(1, fc.dictionary(edgeString, nullable(shortText), { maxKeys: 2 })),
      ),
    },
    { requiredKeys: create ? ['username', 'displayName'] : [] },
  );
}

/** System bodies near the valid ones. */
export function plausibleSystem(): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      systemName: shortText,
      systemDisplayTag: nullable(shortText),
      displayTagMap: fc.dictionary(snowflake, shortText, { maxKeys: 2 }),
      systemDescription: nullable(shortText),
      systemAvatar: nullable(url),
      systemBanner: nullable(url),
      systemPronouns: nullable(shortText),
      nicknameFormat: fc.oneof(shortText, fc.constant('%display% (%username%)')),
      systemOperationDM: fc.oneof(w(4, fc.boolean()), w(1, fc.constantFrom(0, 1, 'true'))),
      latchExpiration: fc.oneof(fc.integer({ min: 0, max: 36_000_000 }), fc.constantFrom(36_000_001, -1, 0.5)),
      // 64 stays set on the owner's system so the others' reads of it keep working: clearing it
      // is still possible through the adversarial bodies.
      public: fc.oneof(w(4, fc.integer({ min: 0, max: 255 }).map((bits) => bits | 64)), w(1, fc.constantFrom(256, -1, 1.5))),
      flags: fc.integer({ min: -1, max: 4 }),
      disabledGuilds: fc.array(snowflake, { maxLength: 3 }),
      disabled: fc.oneof(w(4, fc.boolean()), w(1, fc.constant('no'))),
    },
    { requiredKeys: [] },
  );
}

export function plausibleFront(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const ids = [fixtures.ownerAlterId, fixtures.otherShownId, fixtures.otherHiddenId, 999_999];
  const ref = fc.oneof(
    fc.constantFrom(...ids),
    fc.constantFrom(...ids).map(String),
    fc.constantFrom(0, -1, 1.5, 2 ** 53, '01', '', ' 1', '1e3', '0x10', '9007199254740993', null, true, [1], { id: 1 }),
  );
  return fc.record(
    {
      alter: ref,
      alters: fc.oneof(
        w(4, fc.array(ref, { maxLength: 4 })),
        // Repeats, and one over the limit of 150.
        w(1, fc.constantFrom(fixtures.ownerAlterId, String(fixtures.ownerAlterId)).map((id) => [fixtures.ownerAlterId, id])),
        w(1, fc.constant(Array.from({ length: 151 }, () => fixtures.ownerAlterId))),
        w(1, fc.constantFrom<unknown>(null, '1,2', {}, 1)),
      ),
      timestamp: fc.oneof(time, fc.constant(new Date(Date.UTC(2100, 0, 1)).toISOString())),
    },
    { requiredKeys: [] },
  );
}

/** Switches that are valid (some still refused: a switch identical to the current front changes nothing, 409). */
export function validFront(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const own = [fixtures.ownerAlterId, fixtures.anchorAlterId];
  const past = fc.date({ min: new Date(Date.UTC(2000, 0, 1)), max: new Date(Date.UTC(2025, 0, 1)), noInvalidDate: true }).map((date) => date.toISOString());
  return fc.oneof(
    w(2, fc.constantFrom(...own).map((id) => ({ alter: String(id) }))),
    w(3, fc.shuffledSubarray(own).map((alters) => ({ alters }))),
    w(1, fc.tuple(fc.shuffledSubarray(own), past).map(([alters, timestamp]) => ({ alters: alters.map(String), timestamp }))),
  );
}

/** The body fields of tags (editable, read-only, response-only) and of a membership change. */
export const TAG_FIELDS = ['name', 'displayName', 'description', 'color', 'icon', 'public', 'tagId', 'systemId', 'created', 'alterIds', 'redacted'];
export const MEMBERSHIP_FIELDS = ['add', 'remove', 'alterIds'];

/** Tag bodies every field of which is valid. */
export function validTag(create: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      name: fc.oneof(w(3, fc.stringMatching(/^[a-z][a-z0-9 ]{0,11}$/)), w(1, validText(100))),
      displayName: nullable(validText(100)),
      description: nullable(validText(1000)),
      color: nullable(fc.stringMatching(/^#[0-9a-fA-F]{6}$/)),
      icon: nullable(fc.webUrl()),
      public: fc.integer({ min: 0, max: 63 }),
    },
    { requiredKeys: create ? ['name'] : [] },
  );
}

/** Tag bodies near the valid ones. */
export function plausibleTag(create: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      name: fc.oneof(w(4, shortText), w(1, fc.constantFrom('steady crew', 'STEADY CREW', '  ', '', ' padded ', 'n'.repeat(100), 'n'.repeat(101))), w(1, edgeString)),
      displayName: nullable(fc.oneof(shortText, fc.constantFrom('', 'd'.repeat(101)))),
      description: nullable(fc.oneof(shortText, fc.constantFrom(...LENGTHS).map((count) => 'd'.repeat(count)))),
      color: nullable(color),
      icon: nullable(url),
      public: fc.oneof(fc.integer({ min: 0, max: 63 }), fc.constantFrom(64, 128, -1, 1.5)),
    },
    { requiredKeys: create ? ['name'] : [] },
  );
}

/** Membership changes: the owner's alters mostly, others' and ones that are no alter sometimes. */
export function plausibleMembership(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const id = fc.oneof(
    w(6, fc.constantFrom(fixtures.ownerAlterId, fixtures.anchorAlterId)),
    w(1, fc.constantFrom<unknown>(fixtures.otherShownId, fixtures.otherHiddenId, 999_999, 0, -1, 1.5, 2 ** 53, String(fixtures.ownerAlterId), null)),
  );
  return fc.record({ add: fc.array(id, { maxLength: 3 }), remove: fc.array(id, { maxLength: 3 }) }, { requiredKeys: [] });
}

/** The body fields of the proxying writes, and response-only ones a careless client echoes. */
export const AUTOPROXY_FIELDS = ['serverId', 'autoproxyMode', 'autoproxyAlter', 'lastLatchTimestamp', 'revision'];
export const STATE_FIELDS = ['serverId', 'revision', 'at', 'latch', 'mode', 'applied'];
export const MESSAGE_FIELDS = ['messageId', 'originalMessageId', 'channelId', 'guildId', 'alterId', 'autoproxyState', 'senderId', 'timestamp', 'systemId'];
export const REPROXY_FIELDS = ['messageId', 'alterId', 'originalMessageId', 'senderId'];
/** The switch's fields, and response-only ones a careless client echoes. */
export const FRONT_FIELDS = ['alter', 'alters', 'timestamp', 'switchId', 'switchedAt', 'clientId', 'alterIds'];

/** Times as the API takes them: ISO 8601 with an offset, around the edges of what a date can be. */
export const isoTime = fc.oneof(
  w(4, fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString())),
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '2026-11-20T10:00:00Z',
      '2026-11-20T10:00:00+01:00',
      '2026-11-20T10:00:00.123456789-05:30',
      '0000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      // A valid string whose instant falls outside the years 0000 to 9999 in UTC.
      '9999-12-31T23:59:59-23:59',
      '0000-01-01T00:00:00+01:00',
    ),
  },
);
export const badTime = fc.constantFrom<unknown>('now', '', '2026-11-20', '2026-11-20T10:00:00', '2026-02-30T00:00:00Z', '2026-11-20T24:00:00Z', '2026-11-20T10:00:00+24:00', '+010000-01-01T00:00:00Z', 1_795_168_800_000, null);
export const time = fc.oneof(w(4, isoTime), w(1, badTime));

/** Autoproxy scopes: the few usual ones, others that are valid, and near misses. */
export const autoproxyScope = fc.oneof(
  w(8, fc.constantFrom(...AUTOPROXY_SCOPES)),
  w(1, validSnowflake),
  w(1, fc.tuple(validSnowflake, validSnowflake).map(([guild, channel]) => `${guild}/${channel}`)),
  w(1, fc.constantFrom('@GLOBAL', 'global', '@me', `${GUILD}/`, `/${CHANNEL}`, `${GUILD}/${CHANNEL}/${CHANNEL}`, `${GUILD} `, `${GUILD}/@global`, '0', '', LATCH_SCOPE.replace('/', '\\'))),
  w(1, fc.oneof(snowflake, edgeString)),
);

/** Alter references: the owner's (as number or string), the other system's, and ones that are no alter. */
export function alterRef(fixtures: Fixtures): fc.Arbitrary<unknown> {
  const own = [fixtures.ownerAlterId, fixtures.anchorAlterId];
  return fc.oneof(
    w(6, fc.constantFrom(...own)),
    w(3, fc.constantFrom(...own).map(String)),
    w(1, fc.constantFrom<unknown>(fixtures.otherShownId, fixtures.otherHiddenId, 999_999, 0, -1, 1.5, 2 ** 53, '01', '', ' 1', '1e3', '9007199254740993', true, [1], { id: 1 })),
  );
}

/** Autoproxy entries every field of which is valid: these succeed (their alter is the owner's). */
export function validAutoproxy(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const scope = fc.constantFrom(...AUTOPROXY_SCOPES);
  const alter = fc.constantFrom(fixtures.ownerAlterId, fixtures.anchorAlterId).chain((id) => fc.constantFrom<unknown>(id, String(id)));
  return fc.oneof(
    fc.record({ serverId: scope, autoproxyMode: fc.constantFrom('off', 'front', fixtures.appClientId, fixtures.fuzzClient.id) }),
    fc.record({ serverId: scope, autoproxyMode: fc.constant('alter'), autoproxyAlter: alter }),
    fc.record({ serverId: scope, autoproxyMode: fc.constant('latch'), autoproxyAlter: nullable(alter) }, { requiredKeys: ['serverId', 'autoproxyMode'] }),
    fc.record({ serverId: scope, autoproxyMode: fc.constant('latch'), autoproxyAlter: alter, lastLatchTimestamp: nullable(isoTime) }),
  );
}

/** Autoproxy entries near the valid ones. */
export function plausibleAutoproxy(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      serverId: autoproxyScope,
      autoproxyMode: fc.oneof(
        w(6, fc.constantFrom('off', 'front', 'latch', 'alter', fixtures.appClientId, fixtures.victim.id)),
        w(1, fc.constantFrom('OFF', 'Front', 'switch', '', ' off', 'x'.repeat(200), 'x'.repeat(201), `${fixtures.appClientId} `)),
        w(1, edgeString),
      ),
      autoproxyAlter: nullable(alterRef(fixtures)),
      lastLatchTimestamp: nullable(time),
    },
    { requiredKeys: [] },
  );
}

// Import files: PluralKit and Tupperbox shapes with every field optional and often wrong.
export const IMPORT_FIELDS = ['version', 'id', 'name', 'tag', 'description', 'accounts', 'config', 'members', 'groups', 'switches', 'tuppers', 'switchboard'];
export const shortId = fc.oneof(w(4, fc.constantFrom('fobnap', 'sejkut', 'hazrow', 'bmdql', 'zzzzzz')), w(1, edgeString), w(1, fc.nat()));
export const looseText = fc.oneof(w(4, fc.string({ maxLength: 12 })), w(1, edgeString), w(1, fc.constant(null)), w(1, fc.nat()));
export const pkMember = fc.record(
  {
    id: shortId,
    name: looseText,
    display_name: looseText,
    color: fc.oneof(fc.constantFrom('ff6f91', '#FF6F91', 'ggg000', 'fff', ''), looseText),
    avatar_url: fc.oneof(fc.constantFrom('https://cdn.example/a.png', 'http://x.example/a.png', '<https://cdn.example/b.png>'), looseText),
    proxy_tags: fc.array(fc.record({ prefix: looseText, suffix: looseText }, { requiredKeys: [] }), { maxLength: 3 }),
    message_count: fc.oneof(fc.nat(), fc.constant(-1), fc.constant(null)),
    privacy: fc.oneof(fc.record({ visibility: fc.constantFrom('public', 'private', 'x'), name_privacy: fc.constantFrom('public', 'private') }, { requiredKeys: [] }), fc.constant('public')),
    keep_proxy: fc.boolean(),
  },
  { requiredKeys: [] },
);
export const pluralKitFile = fc.record(
  {
    version: fc.constantFrom(1, 2),
    id: shortId,
    name: looseText,
    tag: looseText,
    accounts: fc.constant(['BIG412345678901234567BIG']),
    members: fc.array(pkMember, { maxLength: 4 }),
    groups: fc.array(fc.record({ id: shortId, name: looseText, members: fc.array(shortId, { maxLength: 3 }) }, { requiredKeys: [] }), { maxLength: 2 }),
    switches: fc.array(fc.record({ timestamp: fc.oneof(isoTime, looseText), members: fc.array(shortId, { maxLength: 3 }) }, { requiredKeys: [] }), {
      maxLength: 4,
    }),
  },
  { requiredKeys: ['switches'] },
);
export const tupperboxFile = fc.record(
  {
    tuppers: fc.array(
      fc.record(
        {
          id: fc.oneof(fc.nat(), shortId),
          name: looseText,
          brackets: fc.array(looseText, { maxLength: 5 }),
          posts: fc.oneof(fc.nat(), fc.constant(null)),
          nick: looseText,
          group_id: fc.oneof(fc.nat({ max: 3 }), fc.constant(null)),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 4 },
    ),
    groups: fc.array(fc.record({ id: fc.nat({ max: 3 }), name: looseText, tag: looseText }, { requiredKeys: [] }), { maxLength: 2 }),
  },
  { requiredKeys: ['tuppers'] },
);
const spId = fc.oneof(w(4, fc.constantFrom('64a0000000000000000000a1', '64a0000000000000000000b2', 'abcde', 'cf1', 'g1')), w(1, edgeString), w(1, fc.nat()));
const spTime = fc.oneof(w(3, fc.integer({ min: 1_500_000_000_000, max: 1_800_000_000_000 })), w(1, fc.constant(null)), w(1, looseText));
/** A Simply Plural export: members, custom fronts, groups (parents may loop), front history, custom fields. */
export const simplyPluralFile = fc.record(
  {
    users: fc.array(fc.record({ _id: spId, uid: spId, username: looseText, desc: looseText, color: looseText }, { requiredKeys: [] }), { maxLength: 1 }),
    members: fc.array(
      fc.record(
        {
          _id: spId,
          uid: fc.constant('uid'),
          name: looseText,
          desc: looseText,
          color: fc.oneof(fc.constantFrom('#FF2E8B57', '9b59b6', ''), looseText),
          avatarUuid: looseText,
          avatarUrl: looseText,
          buckets: fc.array(spId, { maxLength: 2 }),
          info: fc.dictionary(fc.constantFrom('f1', 'f2', 'gone'), looseText, { maxKeys: 3 }),
        },
        { requiredKeys: ['_id', 'uid'] },
      ),
      { maxLength: 4 },
    ),
    frontStatuses: fc.array(fc.record({ _id: spId, name: looseText }, { requiredKeys: [] }), { maxLength: 2 }),
    groups: fc.array(
      fc.record({ _id: spId, name: looseText, emoji: looseText, parent: spId, members: fc.array(spId, { maxLength: 3 }) }, { requiredKeys: [] }),
      { maxLength: 3 },
    ),
    frontHistory: fc.array(
      fc.record({ _id: spId, member: spId, live: fc.boolean(), custom: fc.boolean(), startTime: spTime, endTime: spTime }, { requiredKeys: [] }),
      { maxLength: 6 },
    ),
    customFields: fc.array(
      fc.record({ _id: fc.constantFrom('f1', 'f2'), name: looseText, type: fc.oneof(fc.nat({ max: 9 }), looseText), order: looseText }, { requiredKeys: [] }),
      { maxLength: 3 },
    ),
    tokens: fc.constant([{ _id: 't', uid: 'uid', token: 'secret', permission: 1 }]),
  },
  { requiredKeys: ['members'] },
);
/** Account ids as bare integers above 2^53 in the text, as real exports have them. */
export const importFileText = (file: Record<string, unknown>) => JSON.stringify(file).replace(/"BIG(\d+)BIG"/g, '$1');
export const importFile = fc.oneof(pluralKitFile, tupperboxFile, simplyPluralFile) as fc.Arbitrary<Record<string, unknown>>;

/** Engine state changes: aimed at the latch entry with its revision (most apply, or not: a latch never moves back). */
export function validState(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const base = {
    serverId: fc.oneof(w(6, fc.constant(LATCH_SCOPE)), w(1, fc.constantFrom(...AUTOPROXY_SCOPES))),
    revision: fc.oneof(w(6, fc.constant(fixtures.latchRevision)), w(1, fc.nat({ max: 3 }))),
    at: isoTime,
  };
  const latch = fc.constantFrom(fixtures.ownerAlterId, fixtures.anchorAlterId).map((alterId) => ({ alterId }));
  return fc.oneof(
    w(4, fc.record({ ...base, latch })),
    w(1, fc.record({ ...base, latch: fc.constant(null) })),
    // Turning an entry off: never the latch entry, so that latches keep applying.
    w(1, fc.record({ ...base, serverId: fc.constantFrom(...AUTOPROXY_SCOPES), mode: fc.constant('off') })),
  );
}

export function plausibleState(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      serverId: fc.oneof(w(2, fc.constant(LATCH_SCOPE)), w(3, autoproxyScope)),
      revision: fc.oneof(w(4, fc.constantFrom(fixtures.latchRevision, 0, 1, 2)), w(1, fc.constantFrom<unknown>(-1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, '1', null, true))),
      at: time,
      latch: fc.oneof(w(3, alterRef(fixtures).map((alterId) => ({ alterId }))), w(1, fc.constantFrom<unknown>(null, {}, [], 'x', { alterId: 1, extra: 1 }))),
      mode: fc.constantFrom<unknown>('off', 'latch', 'OFF', '', null, 0),
    },
    { requiredKeys: [] },
  );
}

/** Message ids: created between 2020 and 2024 (long past, on any clock the tests run on). */
export const pastMessageId = fc
  .tuple(fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2024, 0, 1) }), fc.nat({ max: 0x3fffff }))
  .map(([at, low]) => snowflakeAt(at, low));

/** Message records every field of which is valid, and replays and conflicts of the owner's message. */
export function validMessage(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const fresh = fc.record(
    {
      messageId: pastMessageId,
      originalMessageId: pastMessageId,
      channelId: fc.oneof(w(3, fc.constant(CHANNEL)), w(1, validSnowflake)),
      guildId: fc.constantFrom(GUILD, OTHER_GUILD),
      alterId: fc.constantFrom(fixtures.ownerAlterId, fixtures.anchorAlterId),
      autoproxyState: validState(fixtures),
    },
    { requiredKeys: ['messageId', 'originalMessageId', 'channelId', 'guildId', 'alterId'] },
  );
  const recorded = fixtures.ownerMessage;
  return fc.oneof<Array<fc.WeightedArbitrary<Record<string, unknown>>>>(
    w(6, fresh),
    w(1, fc.constant({ ...recorded })),
    w(
      1,
      fc
        .tuple(pastMessageId, fc.constantFrom<Partial<RecordedMessage>>({ alterId: fixtures.anchorAlterId }, { channelId: OTHER_GUILD }))
        .map(([id, change]) => ({ ...recorded, messageId: id, ...change })),
    ),
    w(
      1,
      pastMessageId.map((id) => ({ ...recorded, originalMessageId: id })),
    ),
  );
}

export function plausibleMessage(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const id = fc.oneof(
    w(4, pastMessageId),
    w(1, fc.constantFrom(fixtures.ownerMessage.messageId, fixtures.ownerMessage.originalMessageId, fixtures.otherMessage.messageId)),
    // From the future: more than five minutes ahead, or just inside the tolerance of clock skew.
    w(1, fc.constantFrom(snowflakeAt(Date.UTC(2100, 0, 1), 1), '99999999999999999999', '18446744073709551615', '18446744073709551616')),
    w(1, snowflake),
  );
  return fc.record(
    {
      messageId: id,
      originalMessageId: id,
      channelId: fc.oneof(w(3, fc.constant(CHANNEL)), w(1, snowflake)),
      guildId: fc.oneof(w(3, fc.constant(GUILD)), w(1, snowflake)),
      alterId: alterRef(fixtures),
      autoproxyState: fc.oneof(w(2, validState(fixtures)), w(2, plausibleState(fixtures)), w(1, fc.constantFrom<unknown>(null, {}, 'off'))),
    },
    { requiredKeys: [] },
  );
}

/** Re-sends of a fixture pair, either way: the first moves the record, a repeat is a retry, the way back moves it back. */
export function validReproxy(fixtures: Fixtures): fc.Arbitrary<{ from: string; body: Record<string, unknown> }> {
  return fc
    .tuple(fc.constantFrom(...fixtures.reproxyPairs), fc.boolean(), fc.constantFrom(fixtures.ownerAlterId, fixtures.anchorAlterId))
    .map(([[there, back], forth, alterId]) =>
      forth ? { from: there, body: { messageId: back, alterId } } : { from: back, body: { messageId: there, alterId } },
    );
}

export function plausibleReproxy(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const ids = fixtures.reproxyPairs.flat();
  return fc.record(
    {
      messageId: fc.oneof(
        w(3, fc.constantFrom(...ids)),
        w(2, pastMessageId),
        // Ids other records hold (as their message or their original), and ones from the future.
        w(
          1,
          fc.constantFrom(
            fixtures.ownerMessage.messageId,
            fixtures.ownerMessage.originalMessageId,
            fixtures.otherMessage.messageId,
            snowflakeAt(Date.UTC(2100, 0, 1), 1),
          ),
        ),
        w(1, snowflake),
      ),
      alterId: alterRef(fixtures),
    },
    { requiredKeys: [] },
  );
}
