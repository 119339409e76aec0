// A system (one Discord user's profile record that owns alters): the shape the API returns, the
// body that edits it, and the limits on each field.
import { z } from 'zod';
import { Autoproxy, type AutoproxyRecord } from './autoproxy.js';
import { answerOf, defaultsOf, type AnswerOf, type FieldGroup, type ValuesOf } from './fields.js';
import { SYSTEM_FLAGS_MASK, SYSTEM_PRIVACY_MASK, SystemPrivacy } from './privacy-bits.js';
import { DESCRIPTION_MAX, GuildId, HexColor, HttpUrl, IsoDateTime, NAME_MAX, bitmask, perServerMap, readOnly, text } from './values.js';

export const MAX_LATCH_EXPIRATION_MS = 36_000_000;
/** A new system's latch timeout: six hours, as PluralKit's. Systems made before it keep theirs (0: never). */
export const DEFAULT_LATCH_EXPIRATION_MS = 6 * 60 * 60 * 1000;
export const DEFAULT_NICKNAME_FORMAT = '@%username%';
export const DEFAULT_SYSTEM_NAME = 'My system';

/**
 * An IANA time zone name (`Europe/Berlin`, `America/Argentina/Buenos_Aires`, `UTC`), as this
 * runtime's Intl knows it. Offsets (`+01:00`) and abbreviations other than tzdb's own are refused.
 */
export function isTimeZone(value: string): boolean {
  if (value.length > 64 || !/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const TimeZone = z
  .string()
  .refine(isTimeZone, 'must be an IANA time zone name such as Europe/Berlin, America/New_York or UTC')
  .describe('An IANA time zone name (`Europe/Berlin`); null means UTC. What the bot’s times and periods mean; the API takes absolute times.');

/** Who besides the owner sees a system field: a `SystemPrivacy` bit, 'owner' or 'everyone' (fields.ts). */
type SystemFieldPrivacy = (typeof SystemPrivacy)[keyof typeof SystemPrivacy] | 'owner' | 'everyone';

/**
 * A row of the table, with its types kept (the default is checked against the value). `key` is the
 * field's name in the API and the export's own key; the row's own name is the record's.
 */
function field<
  const K extends string,
  I extends z.ZodType,
  V extends z.ZodType,
  const S extends SystemFieldPrivacy,
  D extends z.output<V> | undefined = undefined,
>(row: { key: K; input: I; value: V; default?: D; shown: S; note?: string }) {
  return row as { key: K; input: I; value: V; default: D; shown: S; note?: string };
}

/**
 * The system's fields that its owner sets and that are stored with it, one row each. The edit body,
 * the answer, SystemRecord, the privacy filter (privacy.ts), the columns (db/system-columns.ts), an
 * import's source and plan and the export's own key all follow from these rows.
 *
 * The groups only keep the order of the answer, which puts the lists, `createdAt` and the autoproxy
 * entries after the first and `subAccounts` after the second; a new field may join any group.
 */
export const SYSTEM_FIELDS = {
  profile: {
    name: field({ key: 'systemName', input: text(NAME_MAX, 1), value: z.string(), default: DEFAULT_SYSTEM_NAME, shown: SystemPrivacy.name }),
    displayTag: field({ key: 'systemDisplayTag', input: text(NAME_MAX).nullable().describe('Appended to proxied names.'), value: z.string().nullable(), default: null, shown: SystemPrivacy.displayTag }),
    displayTagMap: field({
      key: 'displayTagMap',
      input: perServerMap(text(NAME_MAX)).describe('Server id → display tag used in that server.'),
      value: z.record(z.string(), z.string()),
      default: {},
      shown: 'owner',
    }),
    description: field({ key: 'systemDescription', input: text(DESCRIPTION_MAX).nullable(), value: z.string().nullable(), default: null, shown: SystemPrivacy.description }),
    avatar: field({ key: 'systemAvatar', input: HttpUrl.nullable(), value: z.string().nullable(), default: null, shown: SystemPrivacy.avatar }),
    banner: field({ key: 'systemBanner', input: HttpUrl.nullable(), value: z.string().nullable(), default: null, shown: SystemPrivacy.banner }),
    pronouns: field({ key: 'systemPronouns', input: text(NAME_MAX).nullable(), value: z.string().nullable(), default: null, shown: SystemPrivacy.pronouns }),
    color: field({ key: 'systemColor', input: HexColor.nullable().describe('Shown to others with the system avatar (privacy bit 8).'), value: z.string().nullable(), default: null, shown: SystemPrivacy.avatar }),
    nicknameFormat: field({
      key: 'nicknameFormat',
      input: text(NAME_MAX, 1).describe('Nickname template for nickname mode: %username% and %display% are replaced; cut to 32 characters.'),
      value: z.string(),
      default: DEFAULT_NICKNAME_FORMAT,
      shown: 'owner',
    }),
  },
  settings: {
    operationDm: field({ key: 'systemOperationDM', input: z.boolean().describe('Whether the owner is sent a direct message about changes.'), value: z.boolean(), default: true, shown: 'owner' }),
    latchExpiration: field({
      key: 'latchExpiration',
      input: z
        .number()
        .int('must be a whole number of milliseconds')
        .min(0, 'must not be negative')
        .max(MAX_LATCH_EXPIRATION_MS, `must be at most ${MAX_LATCH_EXPIRATION_MS} (10 hours)`)
        .describe(`Milliseconds after which a latch expires; 0 means never. New systems start at ${DEFAULT_LATCH_EXPIRATION_MS} (6 hours).`),
      value: z.number().int(),
      default: DEFAULT_LATCH_EXPIRATION_MS,
      shown: 'owner',
      note: 'Milliseconds; 0 means never. The owner’s alone: null for others.',
    }),
    timezone: field({ key: 'systemTimezone', input: TimeZone.nullable(), value: z.string().nullable(), default: null, shown: 'owner', note: 'The owner’s alone: null for others (and null, for the owner, means UTC).' }),
    public: field({
      key: 'public',
      input: bitmask(SYSTEM_PRIVACY_MASK, 'the system privacy settings').describe('Privacy bitmask; see the privacy section of the API reference.'),
      value: z.number().int(),
      default: 0,
      shown: 'everyone',
    }),
    flags: field({
      key: 'flags',
      input: bitmask(SYSTEM_FLAGS_MASK, 'the system flags').describe('1: keep proxy tags in the sent text; 2: append pronouns to the proxied name; 4: proxy tags match without regard to case.'),
      value: z.number().int(),
      default: 0,
      shown: 'owner',
    }),
    disabledGuilds: field({
      key: 'disabledGuilds',
      input: z
        .array(GuildId)
        .max(200, 'must have at most 200 servers')
        .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a server'),
      value: z.array(z.string()),
      default: [],
      shown: 'owner',
    }),
  },
  state: {
    disabled: field({ key: 'disabled', input: z.boolean().describe('When true the system proxies nowhere.'), value: z.boolean(), default: false, shown: 'everyone' }),
  },
};

const { profile, settings, state } = SYSTEM_FIELDS;
/** Every row, out of its group. */
const FIELDS = { ...profile, ...settings, ...state };
type Fields = typeof FIELDS;
export type SystemFieldName = keyof Fields;
export const SYSTEM_FIELD_NAMES = Object.keys(FIELDS) as SystemFieldName[];
/** The field's name in the API and the export's own key. */
export type SystemFieldKey = Fields[SystemFieldName]['key'];

/** The stored fields' values, as a SystemRecord holds them. */
export type SystemFieldValues = ValuesOf<Fields>;

/** What a new system stores (every field has a default: a first sign-in makes one). */
export const SYSTEM_DEFAULTS: SystemFieldValues = defaultsOf(FIELDS);

/** The rows of a group by their API name. */
type Keyed<G extends FieldGroup & Record<string, { key: string }>, P extends 'input'> = { [N in keyof G as G[N]['key']]: G[N][P] };
function keyed<G extends FieldGroup & Record<string, { key: string }>>(group: G, map: (row: G[keyof G]) => z.ZodType) {
  return Object.fromEntries(Object.values(group).map((row) => [row.key, map(row as G[keyof G])]));
}
const inputsByKey = <G extends FieldGroup & Record<string, { key: string }>>(group: G) => keyed(group, (row) => row.input) as Keyed<G, 'input'>;
type AnswersByKey<G extends FieldGroup & Record<string, { key: string }>> = { [N in keyof G as G[N]['key']]: AnswerOf<G[N]> };
const answersByKey = <G extends FieldGroup & Record<string, { key: string }>>(group: G) => keyed(group, answerOf) as AnswersByKey<G>;

/** Every stored field as an owner sends it, by its API name: the edit body and the export's own key. */
export const SYSTEM_FIELD_INPUTS = { ...inputsByKey(profile), ...inputsByKey(settings), ...inputsByKey(state) };
export type SystemFieldInputs = { [K in keyof typeof SYSTEM_FIELD_INPUTS]: z.output<(typeof SYSTEM_FIELD_INPUTS)[K]> };

/** The record's values of the fields `input` (by API names) has; undefined ones are left out. */
export function systemValuesOf(input: Partial<SystemFieldInputs>): Partial<SystemFieldValues> {
  const values: Record<string, unknown> = {};
  for (const name of SYSTEM_FIELD_NAMES) {
    const value = (input as Record<string, unknown>)[FIELDS[name].key];
    if (value !== undefined) values[name] = value;
  }
  return values as Partial<SystemFieldValues>;
}

/** Every stored field of `record` by its API name (the export's own key). */
export function systemInputsOf(record: SystemFieldValues): SystemFieldInputs {
  return Object.fromEntries(SYSTEM_FIELD_NAMES.map((name) => [FIELDS[name].key, record[name]])) as SystemFieldInputs;
}

export const EditSystemBody = z.strictObject({
  ...z.strictObject(SYSTEM_FIELD_INPUTS).partial().shape,
  associatedUserId: readOnly('associatedUserId'),
  alterIds: readOnly('alterIds'),
  tagIds: readOnly('tagIds'),
  createdAt: readOnly('createdAt'),
  systemAutoproxy: readOnly('systemAutoproxy'),
  subAccounts: readOnly('subAccounts'),
});
export type EditSystemInput = z.infer<typeof EditSystemBody>;

/**
 * The system as the API returns it. Every field is always present; fields withheld from the viewer
 * are null (or empty) and named in `redacted`.
 */
export const System = z
  .strictObject({
    associatedUserId: z.string(),
    ...answersByKey(profile),
    alterIds: z.array(z.number().int()).describe('For other viewers: only alters they may see, and only when the system shows its alters.'),
    tagIds: z.array(z.number().int()),
    createdAt: IsoDateTime,
    systemAutoproxy: z.array(Autoproxy),
    ...answersByKey(settings),
    subAccounts: z.array(z.string()),
    ...answersByKey(state),
    redacted: z.array(z.string()).describe('Fields withheld from this viewer by the system’s privacy settings (an addition to the origin API).'),
  })
  .meta({ id: 'System' });
export type System = z.infer<typeof System>;

/**
 * A system as stored, before privacy is applied. Its revision (the proxy profile's version) is not
 * part of it: every write to the system's alters, tags or front moves the revision, and a record
 * that held it was dropped from the cache by each of them, so the next write read it again
 * (SystemLookup.revisionOf holds it apart).
 */
export interface SystemRecord extends SystemFieldValues {
  id: number;
  userId: string;
  createdAt: number;
}

/** What a full system read needs beyond the row; loaded according to the privacy policy. */
export interface SystemDetails {
  alterIds: number[];
  tagIds: number[];
  autoproxy: AutoproxyRecord[];
  subAccounts: string[];
}
