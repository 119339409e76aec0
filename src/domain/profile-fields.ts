// Custom profile fields (issue 30): a system defines its own fields (a name, a kind, who may see it,
// an order), at most MAX_PROFILE_FIELDS, and each alter holds a value for any of them. Two tables
// here are the one source of truth: PROFILE_FIELD_KINDS (what a value of each kind must be) and
// PROFILE_FIELD_FIELDS (the definition's fields an owner sets, in the style of ALTER_FIELDS: the
// create and edit bodies, the answer, the record and the columns, db/profile-field-columns.ts,
// follow from its rows). Who sees a value is decided in privacy.ts (viewAlter, viewProfileField)
// and spelled in SQL by db/privacy-conditions.ts, both from `fieldShown` below.
import { z } from 'zod';
import { answersOf, createShapeOf, defaultsOf, inputsOf, pickFields, type Shown, type ValuesOf } from './fields.js';
import { discordImageUrl, IMAGE_URL_RULE } from './image-url.js';
import { AlterPrivacy } from './privacy-bits.js';
import { Problem } from './problems.js';
import { TagName } from './tag.js';
import { DESCRIPTION_MAX, EntityId, HexColor, IsoDateTime, URL_MAX, isBirthday, readOnly, text } from './values.js';

/** A system's fields at most: Simply Plural's users rarely have more than a few dozen. */
export const MAX_PROFILE_FIELDS = 100;
/** A text or Markdown value at most (the description's limit: a field is a part of a profile). */
export const PROFILE_FIELD_TEXT_MAX = DESCRIPTION_MAX;

/** `YYYY-MM-DD`, a day that exists (the birthday's rule, with a year). */
const DateValue = z
  .string()
  .refine((value) => /^\d{4}-/.test(value) && isBirthday(value), 'must be a date like 1996-07-21')
  .describe('`YYYY-MM-DD`.');
/** `--MM-DD`: a day of any year (ISO 8601's form; `--02-29` exists). */
const MonthDayValue = z
  .string()
  .refine((value) => value.startsWith('--') && isBirthday(value), 'must be a day of the year like --07-21')
  .describe('`--MM-DD` (`--02-29` is valid).');
/** An http(s) link, stored in the percent-encoded form Discord accepts (the image links' rule: the bot shows it in an embed). */
const LinkValue = text(URL_MAX)
  .refine((value) => discordImageUrl(value) !== null, IMAGE_URL_RULE)
  .overwrite((value) => discordImageUrl(value) ?? value)
  .describe('An http:// or https:// link.');

/**
 * What a value of each kind must be, as stored (every value is stored as text). The kinds an
 * import has no counterpart for become `text`.
 */
export const PROFILE_FIELD_KINDS = {
  text: text(PROFILE_FIELD_TEXT_MAX, 1).describe(`Plain text, 1 to ${PROFILE_FIELD_TEXT_MAX} characters.`),
  markdown: text(PROFILE_FIELD_TEXT_MAX, 1).describe(`Text shown as Markdown (Discord's), 1 to ${PROFILE_FIELD_TEXT_MAX} characters.`),
  date: DateValue,
  'month-day': MonthDayValue,
  colour: HexColor.describe('`#rrggbb`.'),
  link: LinkValue,
} satisfies Record<string, z.ZodType<string, string>>;
export type ProfileFieldKind = keyof typeof PROFILE_FIELD_KINDS;
export const PROFILE_FIELD_KIND_NAMES = Object.keys(PROFILE_FIELD_KINDS) as ProfileFieldKind[];

/** The alter privacy bits a field may follow (`visible` is every field's condition already). */
const FOLLOWED_BITS = Object.fromEntries(Object.entries(AlterPrivacy).filter(([name]) => name !== 'visible')) as Omit<typeof AlterPrivacy, 'visible'>;
type FollowedBit = keyof typeof FOLLOWED_BITS;

/**
 * Who besides the owner sees a field's values, in the levels every stored field has (fields.ts
 * Shown): `owner` (no one else, the default), `everyone` (whoever sees the alter), or the name of
 * an alter privacy bit (`description`, `pronouns`, `birthday`…): shown where the alter shows that.
 */
export const PROFILE_FIELD_PRIVACY = ['owner', 'everyone', ...(Object.keys(FOLLOWED_BITS) as FollowedBit[])] as const;
export type ProfileFieldPrivacy = (typeof PROFILE_FIELD_PRIVACY)[number];

/** The privacy level as the filter tests it (fields.ts Shown). */
export function fieldShown(privacy: ProfileFieldPrivacy): Shown {
  return privacy === 'owner' || privacy === 'everyone' ? privacy : FOLLOWED_BITS[privacy];
}

/** The bit each followed level tests, for the SQL spelling of the same rule (db/privacy-conditions.ts). */
export const PROFILE_FIELD_PRIVACY_BITS: ReadonlyArray<readonly [ProfileFieldPrivacy, number]> = Object.entries(FOLLOWED_BITS) as Array<[FollowedBit, number]>;

/** A field's name: any text, trimmed, unique in the system ignoring case and look-alike forms (as tag names). */
export const ProfileFieldName = TagName;

/** A row of the table, with its types kept (the default is checked against the value). */
function field<I extends z.ZodType, V extends z.ZodType, D extends z.output<V> | undefined = undefined>(row: {
  input: I;
  value: V;
  default?: D;
  note?: string;
}) {
  return { ...row, shown: 'everyone' as const } as { input: I; value: V; default: D; shown: 'everyone'; note?: string };
}

/**
 * A field definition's fields that its owner sets, one row each: the create and edit bodies, the
 * answer, ProfileFieldRecord and the columns (db/profile-field-columns.ts) follow. A definition is
 * shown whole to whoever may see the field at all (viewProfileField), hence `everyone`.
 */
export const PROFILE_FIELD_FIELDS = {
  name: field({ input: ProfileFieldName, value: z.string() }),
  kind: field({
    input: z.enum(PROFILE_FIELD_KIND_NAMES).describe('text, markdown, date (`YYYY-MM-DD`), month-day (`--MM-DD`), colour (`#rrggbb`) or link. Changing it keeps only the values valid as the new kind.'),
    value: z.enum(PROFILE_FIELD_KIND_NAMES),
    default: 'text',
  }),
  privacy: field({
    input: z
      .enum(PROFILE_FIELD_PRIVACY)
      .describe('Who else sees its values: `owner` (no one, the default), `everyone` (whoever sees the alter), or an alter privacy bit’s name (`description`, `pronouns`, `birthday`…): shown where the alter shows that.'),
    value: z.enum(PROFILE_FIELD_PRIVACY),
    default: 'owner',
  }),
};
type Fields = typeof PROFILE_FIELD_FIELDS;
export type ProfileFieldFieldName = keyof Fields;
const FIELD_NAMES = Object.keys(PROFILE_FIELD_FIELDS) as ProfileFieldFieldName[];

export type ProfileFieldValues = ValuesOf<Fields>;
export const PROFILE_FIELD_DEFAULTS = defaultsOf(PROFILE_FIELD_FIELDS);
export const PROFILE_FIELD_INPUTS = inputsOf(PROFILE_FIELD_FIELDS);

export function pickProfileFieldFields<T extends object>(source: T): Pick<T, ProfileFieldFieldName & keyof T> {
  return pickFields(source, FIELD_NAMES);
}

const readOnlyFields = {
  fieldId: readOnly('fieldId'),
  systemId: readOnly('systemId'),
  position: z.never({ error: 'position is set by POST /users/{user}/system/order-profile-fields' }).optional(),
  created: readOnly('created'),
};

export const CreateProfileFieldBody = z.strictObject({ ...createShapeOf(PROFILE_FIELD_FIELDS), ...readOnlyFields }).meta({ id: 'CreateProfileFieldBody' });
export type CreateProfileFieldInput = z.infer<typeof CreateProfileFieldBody>;

export const EditProfileFieldBody = z.strictObject({ ...z.strictObject(PROFILE_FIELD_INPUTS).partial().shape, ...readOnlyFields }).meta({ id: 'EditProfileFieldBody' });
export type EditProfileFieldInput = z.infer<typeof EditProfileFieldBody>;

export const OrderProfileFieldsBody = z
  .strictObject({
    fieldIds: z
      .array(EntityId)
      .max(MAX_PROFILE_FIELDS, `must have at most ${MAX_PROFILE_FIELDS} fields`)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a field')
      .describe('Every field of the system, in the new order (a list that leaves one out, or names another system’s, is refused).'),
  })
  .meta({ id: 'OrderProfileFieldsBody' });
export type OrderProfileFieldsInput = z.infer<typeof OrderProfileFieldsBody>;

/** A field definition as the API returns it. */
export const ProfileField = z
  .strictObject({
    fieldId: z.number().int(),
    systemId: z.string(),
    ...answersOf(PROFILE_FIELD_FIELDS),
    position: z.number().int().describe('Its place in the system’s order, from 0: alter cards list the fields in this order.'),
    created: IsoDateTime,
  })
  .meta({ id: 'ProfileField' });
export type ProfileField = z.infer<typeof ProfileField>;

/** A field definition as stored. */
export interface ProfileFieldRecord extends ProfileFieldValues {
  id: number;
  systemId: number;
  position: number;
  createdAt: number;
}

/** One of an alter's values as loaded, with the privacy of its field (the filter tests it, as a tag's bits). */
export interface ProfileFieldValueRecord {
  fieldId: number;
  value: string;
  privacy: ProfileFieldPrivacy;
}

// ---------------------------------------------------------------------------------------------
// Values, written with the alter

/** A field id as a key of `profileFields` (JSON object keys are strings). */
const FieldKey = z.string().regex(/^[1-9][0-9]{0,15}$/, 'must be a profile field id');

/**
 * `profileFields` of an alter's create or edit: field id → value (null removes it). The value is
 * checked against its field's kind once the fields are known (checkProfileFieldValues).
 */
export const ProfileFieldsInput = z
  .record(FieldKey, text(Math.max(PROFILE_FIELD_TEXT_MAX, URL_MAX)).nullable())
  .refine((map) => Object.keys(map).length <= MAX_PROFILE_FIELDS, `must have at most ${MAX_PROFILE_FIELDS} fields`)
  .describe('Profile field id → value, checked against the field’s kind (see `GET /users/{user}/system/list-profile-fields`); `null` removes a value; fields left out keep theirs.');
export type ProfileFieldsInput = z.infer<typeof ProfileFieldsInput>;

/** An alter's values as the API returns them: only those the viewer may see. */
export const ProfileFieldsAnswer = z
  .record(z.string(), z.string())
  .describe('The alter’s custom profile field values, keyed by field id: only the fields this viewer may see (each field’s `privacy`). The system’s order is the fields’ `position`.');

/** The value of a kind as stored, or the reason it is not one (for a person: no field path). */
export function parseProfileFieldValue(kind: ProfileFieldKind, value: string): { ok: true; value: string } | { ok: false; reason: string } {
  const parsed = PROFILE_FIELD_KINDS[kind].safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: parsed.error.issues[0]?.message ?? 'is not valid' };
}

/**
 * The values to write for an alter: each key a field of the system and each value valid for its
 * kind (stored in its normal form), else the Problem naming the first that is not.
 */
export function checkProfileFieldValues(fields: ReadonlyMap<number, Pick<ProfileFieldRecord, 'id' | 'kind' | 'name'>>, input: ProfileFieldsInput): Map<number, string | null> {
  const values = new Map<number, string | null>();
  for (const [key, value] of Object.entries(input)) {
    const definition = fields.get(Number(key));
    if (definition === undefined) throw new Problem('unknown-profile-field', `profileFields.${key}: the system has no profile field ${key}`, `profileFields.${key}`);
    if (value === null) {
      values.set(definition.id, null);
      continue;
    }
    const parsed = parseProfileFieldValue(definition.kind, value);
    if (!parsed.ok) throw new Problem('validation', `profileFields.${key}: ${parsed.reason} (“${definition.name}” is a ${definition.kind} field)`, `profileFields.${key}`);
    values.set(definition.id, parsed.value);
  }
  return values;
}
