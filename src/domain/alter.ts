// An alter (a member profile of a system): the shape the API returns, the bodies that create and
// edit one, and the limits on each field. One source of truth: request validation, response
// serialization, the TypeScript types and the OpenAPI document all come from these schemas, and the
// fields an owner sets are one table (ALTER_FIELDS) that also gives each its default and privacy.
import { z } from 'zod';
import { ALTER_PRIVACY_MASK, AlterPrivacy } from './privacy-bits.js';
import { Problem } from './problems.js';
import { codePointLength } from './proxy/text.js';
import { INVISIBLE_OR_BIDI_CONTROL, usernameKey } from './username-key.js';
import { answersOf, defaultsOf, hiddenAs, inputsOf, pickFields, type DefaultedOf, type FieldGroup, type ValuesOf } from './fields.js';
import { DESCRIPTION_MAX, EntityId, GuildId, HexColor, HttpUrl, IsoDateTime, NAME_MAX, bitmask, isBirthday, perServerMap, readOnly, text } from './values.js';
import { ProfileFieldsAnswer, ProfileFieldsInput, type ProfileFieldValueRecord } from './profile-fields.js';

export { isBirthday };

export const MAX_ALTERS_PER_SYSTEM = 2000;
export const MAX_PROXY_TAGS = 50;
export const MAX_TAGS_PER_ALTER = 500;
export const MAX_FIELD_LENGTH = 150;
/**
 * The most characters a system's alters may store in all (their text and JSON columns: names,
 * per-server maps, description, links, proxy tags), enforced by the database on every write that
 * grows them (migration 2026-11-27T10-system-size, which says why this number). Each field has its
 * own limit too, but 2,000 alters at every limit would store about 470 MiB.
 */
export const MAX_SYSTEM_ALTER_CHARS = 16 * 1024 * 1024;

/** The fields the size counts, as the migration's columns (JSON ones by their JSON text). */
const SIZED_FIELDS = ['username', 'displayName', 'nameMap', 'color', 'description', 'pronouns', 'avatarUrl', 'avatarUrlMap', 'webhookAvatarUrl', 'banner', 'proxyTags'] as const;

/**
 * What an alter's fields add to its system's size (systems.alter_chars): the characters of each
 * counted field as stored, JSON ones as their JSON text. Fields `values` leaves out count nothing.
 */
export function storedAlterChars(values: Partial<Pick<AlterFieldValues, (typeof SIZED_FIELDS)[number]>>): number {
  let size = 0;
  for (const name of SIZED_FIELDS) {
    const value = values[name];
    if (value === undefined || value === null) continue;
    // Code points, as the databases' length() counts them.
    size += codePointLength(typeof value === 'string' ? value : JSON.stringify(value));
  }
  return size;
}

/** The Problem of a write that would grow a system past MAX_SYSTEM_ALTER_CHARS (every writer answers it). */
export function systemTooLargeProblem(detail = ''): Problem {
  return new Problem(
    'system-too-large',
    `this would make the system's alters store more than ${MAX_SYSTEM_ALTER_CHARS.toLocaleString('en-US')} characters of text in all (names, per-server names and avatars, descriptions, links, proxy tags)${detail}; shorten or remove some first`,
  );
}

export const ALTER_MODES = ['webhook', 'nickname', 'both'] as const;

const USERNAME_SEPARATORS = /[\s@\\/]/u;

/**
 * An identifier: unique per system by `usernameKey` (NFKC_Casefold), so names differing only in
 * case, width or other compatibility forms are the same name. Invisible and direction-control
 * characters are refused outright (they make different names look alike); display names may keep
 * them (emoji sequences need the zero-width joiner and variation selectors).
 */
export const Username = text(NAME_MAX, 1)
  .regex(/^[^\s@\\/]+$/u, 'must not contain spaces, @, \\ or /')
  .refine(
    (value) => !INVISIBLE_OR_BIDI_CONTROL.test(value),
    'must not contain invisible characters (zero-width spaces and joiners, variation selectors, soft hyphens) or text-direction controls (bidirectional marks, embeddings, overrides, isolates)',
  )
  .refine(
    (value) => USERNAME_SEPARATORS.test(value) || !USERNAME_SEPARATORS.test(usernameKey(value)),
    // Also bounds the key's length: the longest expansions (`ﷺ`) contain spaces.
    'must not contain characters whose normal form has a space, @, \\ or / (such as fullwidth ＠ or ／, or a spacing accent like ´)',
  )
  .describe(
    `Unique within the system, compared as Unicode NFKC_Casefold: case, width and compatibility forms are ignored (\`ß\` = \`SS\`, \`Ａ\` = \`a\`). 1 to ${NAME_MAX} characters; no whitespace, @, \\ or /, also after NFKC (no fullwidth ＠); no invisible or text-direction control characters.`,
  );
export const DisplayName = text(NAME_MAX, 1).describe(`Shown on proxied messages and profiles. 1 to ${NAME_MAX} characters.`);

export const NameMapEntry = z
  .strictObject({ server: GuildId, name: text(NAME_MAX, 1) })
  .describe('The name the alter uses in one server. The first entry for a server wins.');

export const Birthday = z
  .string()
  .refine(isBirthday, 'must be a date like 1996-07-21, or --07-21 without a year')
  .describe('`YYYY-MM-DD`, or `--MM-DD` without a year (`--02-29` is valid). Others see it only through its own privacy bit (1024).');

const ProxyTagId = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1 to 32 letters, digits, - or _');

export const ProxyTagInput = z
  .strictObject({
    id: ProxyTagId.optional().describe('Kept when given; generated otherwise.'),
    prefix: text(NAME_MAX).nullable().optional(),
    suffix: text(NAME_MAX).nullable().optional(),
  })
  .refine((tag) => Boolean(tag.prefix) || Boolean(tag.suffix), 'a proxy tag needs a prefix or a suffix');

export const ProxyTag = z
  .strictObject({ id: z.string(), prefix: z.string().nullable(), suffix: z.string().nullable() })
  .describe('A message that starts with `prefix` and ends with `suffix` is sent as this alter.');

const TagIds = z
  .array(EntityId)
  .max(MAX_TAGS_PER_ALTER, `must have at most ${MAX_TAGS_PER_ALTER} tags`)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a tag')
  .describe('Ids of tags of the same system.');

/**
 * Per-integration values, keyed by OAuth client id. A client writes and reads only its own key;
 * `null` removes it.
 */
const FieldsInput = z.record(z.string().max(200), text(MAX_FIELD_LENGTH, 1).nullable());

/** Who besides the owner sees an alter field: an `AlterPrivacy` bit, 'owner' or 'everyone' (fields.ts). */
export type FieldPrivacy = (typeof AlterPrivacy)[keyof typeof AlterPrivacy] | 'owner' | 'everyone';
export type AlterFieldGroup = FieldGroup;
export { hiddenAs };

/** A row of the table, with its types kept (the default is checked against the value). */
function field<I extends z.ZodType, V extends z.ZodType, const S extends FieldPrivacy, D extends z.output<V> | undefined = undefined>(row: {
  input: I;
  value: V;
  default?: D;
  shown: S;
  note?: string;
}) {
  return row as { input: I; value: V; default: D; shown: S; note?: string };
}

/**
 * The alter's fields that its owner sets and that are stored with it, one row each. Validation, the
 * answer, AlterRecord, the privacy filter (privacy.ts), the columns (db/alter-columns.ts) and the
 * export's own key all follow from these rows.
 *
 * The groups only keep the order of the origin API's answers, which put `created` after the first,
 * the message stats after the second and `tagIds` after the third; a new field may join any group.
 */
export const ALTER_FIELDS = {
  identity: {
    username: field({ input: Username, value: z.string(), shown: AlterPrivacy.username }),
    displayName: field({ input: DisplayName, value: z.string(), shown: AlterPrivacy.name }),
    nameMap: field({ input: z.array(NameMapEntry).max(200, 'must have at most 200 servers'), value: z.array(NameMapEntry), default: [], shown: 'owner' }),
    color: field({ input: HexColor.nullable(), value: z.string().nullable(), default: null, shown: AlterPrivacy.avatar }),
    description: field({ input: text(DESCRIPTION_MAX).nullable(), value: z.string().nullable(), default: null, shown: AlterPrivacy.description }),
  },
  profile: {
    pronouns: field({ input: text(NAME_MAX).nullable(), value: z.string().nullable(), default: null, shown: AlterPrivacy.pronouns }),
    birthday: field({ input: Birthday.nullable(), value: z.string().nullable(), default: null, shown: AlterPrivacy.birthday }),
    avatarUrl: field({ input: HttpUrl.nullable(), value: z.string().nullable(), default: null, shown: AlterPrivacy.avatar }),
    avatarUrlMap: field({
      input: perServerMap(HttpUrl).describe('Server id → avatar URL used in that server.'),
      value: z.record(z.string(), z.string()),
      default: {},
      shown: 'owner',
    }),
    webhookAvatarUrl: field({ input: HttpUrl.nullable(), value: z.string().nullable(), default: null, shown: AlterPrivacy.avatar }),
    banner: field({ input: HttpUrl.nullable(), value: z.string().nullable(), default: null, shown: AlterPrivacy.banner }),
  },
  proxying: {
    alterMode: field({
      input: z.enum(ALTER_MODES).describe('webhook: messages are re-sent as the alter; nickname: the member nickname is set; both.'),
      value: z.enum(ALTER_MODES),
      default: 'webhook',
      shown: 'everyone',
    }),
    proxyTags: field({
      input: z.array(ProxyTagInput).max(MAX_PROXY_TAGS, `must have at most ${MAX_PROXY_TAGS} proxy tags`),
      value: z.array(ProxyTag),
      default: [],
      shown: AlterPrivacy.proxyTags,
    }),
    autoproxyEnabled: field({
      input: z
        .boolean()
        .describe('false: `front` and `latch` autoproxy never send as this alter (PluralKit’s per-member autoproxy off); its proxy tags and `alter` mode entries still do.'),
      value: z.boolean(),
      default: true,
      shown: 'owner',
      note: 'The owner’s alone: null for others.',
    }),
  },
  settings: {
    public: field({
      input: bitmask(ALTER_PRIVACY_MASK, 'the alter privacy settings').describe('Privacy bitmask; see the privacy section of the API reference.'),
      value: z.number().int(),
      default: 0,
      shown: 'everyone',
    }),
    flags: field({
      input: z.number().int('must be a whole number').min(0, 'must not be negative').max(2 ** 31 - 1, 'is too large'),
      value: z.number().int(),
      default: 0,
      shown: 'owner',
      note: 'The owner’s alone: null for others.',
    }),
  },
};

const { identity, profile, proxying, settings } = ALTER_FIELDS;
/** Every row, out of its group. */
const FIELDS = { ...identity, ...profile, ...proxying, ...settings };
export const ALTER_FIELD_ROWS = FIELDS;
type Fields = typeof FIELDS;
export type AlterFieldName = keyof Fields;
const FIELD_NAMES = Object.keys(FIELDS) as AlterFieldName[];

/** The stored fields' values, as an AlterRecord holds them. */
export type AlterFieldValues = ValuesOf<Fields>;

type Defaulted = DefaultedOf<Fields>;

/** What a new alter stores for each field its create (or import) leaves out. */
export const ALTER_DEFAULTS = defaultsOf(FIELDS);

/** The stored fields `source` has (undefined ones left out), in the table's order. */
export function pickAlterFields<T extends object>(source: T): Pick<T, AlterFieldName & keyof T> {
  return pickFields(source, FIELD_NAMES);
}

/** Every stored field as an owner sends it: the export's own key carries them all. */
export const ALTER_FIELD_INPUTS = inputsOf(FIELDS);

/** Every field an owner may set, with its input schema. Create and edit both build on this. */
const editable = {
  ...inputsOf(identity),
  ...inputsOf(profile),
  ...inputsOf(proxying),
  tagIds: TagIds,
  ...inputsOf(settings),
  fields: FieldsInput.describe('`{"<your client id>": "value"}`; any other key is refused. null removes the value.'),
  profileFields: ProfileFieldsInput,
};

const readOnlyAlterFields = {
  alterId: readOnly('alterId'),
  systemId: readOnly('systemId'),
  created: readOnly('created'),
  messageCount: readOnly('messageCount'),
  lastMessageTimestamp: readOnly('lastMessageTimestamp'),
};

type GivenOnCreate = Exclude<AlterFieldName, Defaulted>;
type CreateShape = { [K in keyof typeof editable]: K extends GivenOnCreate ? (typeof editable)[K] : z.ZodOptional<(typeof editable)[K]> };

/** A create must give the fields without a default; it may leave out the rest. */
function createShape(): CreateShape {
  const given = new Set<string>(FIELD_NAMES.filter((name) => FIELDS[name].default === undefined));
  return Object.fromEntries(Object.entries(editable).map(([name, schema]) => [name, given.has(name) ? schema : schema.optional()])) as CreateShape;
}

export const CreateAlterBody = z.strictObject({
  ...createShape(),
  ...readOnlyAlterFields,
});
export type CreateAlterInput = z.infer<typeof CreateAlterBody>;

export const EditAlterBody = z.strictObject({
  ...z.strictObject(editable).partial().shape,
  ...readOnlyAlterFields,
});
export type EditAlterInput = z.infer<typeof EditAlterBody>;

/**
 * The alter as the API returns it. Every field is always present. Fields the viewer may not see
 * are null (maps empty) and named in `redacted`; an owner's own reads have `redacted: []`.
 */
export const Alter = z
  .strictObject({
    alterId: z.number().int(),
    systemId: z.string(),
    ...answersOf(identity),
    created: IsoDateTime,
    ...answersOf(profile),
    lastMessageTimestamp: IsoDateTime.nullable(),
    messageCount: z.number().int().nullable(),
    ...answersOf(proxying),
    tagIds: z.array(z.number().int()),
    ...answersOf(settings),
    fields: z.record(z.string(), z.string()).describe('Only the calling client’s own value, and only on the owner’s reads.'),
    profileFields: ProfileFieldsAnswer,
    redacted: z.array(z.string()).describe('Fields withheld from this viewer by the system’s privacy settings (an addition to the origin API).'),
  })
  .meta({ id: 'Alter' });
export type Alter = z.infer<typeof Alter>;

/** An alter as stored, before privacy is applied: what repositories return. */
export interface AlterRecord extends AlterFieldValues {
  id: number;
  systemId: number;
  messageCount: number;
  lastMessageAt: number | null;
  createdAt: number;
  tagIds: number[];
  /** The same tags with their privacy bits (whether others may see the membership depends on both). */
  tags: Array<{ id: number; public: number }>;
  /** Integration fields loaded for the request, keyed by client id. */
  fields: Record<string, string>;
  /** Custom profile field values loaded for the request (for others, only those they may see), each with its field's privacy. */
  profileFields: ProfileFieldValueRecord[];
}
