// A tag (PluralKit's "group"): a named set of a system's alters. The shape the API returns, the
// bodies that create and edit one, the membership change, and the limits. Membership itself is
// stored once (alter_tags) and changes either from the alter (`tagIds`) or from the tag.
import { z } from 'zod';
import { answersOf, createShapeOf, defaultsOf, inputsOf, pickFields, type ValuesOf } from './fields.js';
import { TAG_PRIVACY_MASK, TagPrivacy } from './privacy-bits.js';
import { usernameKey } from './username-key.js';
import { DESCRIPTION_MAX, EntityId, HexColor, HttpUrl, IsoDateTime, NAME_MAX, bitmask, readOnly, text } from './values.js';

export const MAX_TAGS_PER_SYSTEM = 500;
/** One membership change names at most this many alters (a system's whole alter cap). */
export const MAX_MEMBERSHIP_CHANGE = 2000;

/**
 * Any text (spaces allowed: "Sleep crew"), trimmed. Unique within the system compared as
 * usernames are (usernameKey: case, width and compatibility forms ignored).
 */
export const TagName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(NAME_MAX, `must be at most ${NAME_MAX} characters`)
  .refine((value) => value.isWellFormed() && !value.includes('\u0000'), 'must be valid Unicode text without NUL characters')
  // A name of only invisible characters has an empty key: it could not be told apart, nor typed.
  .refine((value) => !value.isWellFormed() || usernameKey(value).trim() !== '', 'must contain a visible character')
  .describe(`1 to ${NAME_MAX} characters, trimmed. Unique within the system ignoring case and look-alike forms (as usernames).`);

/** Who besides the owner sees a tag field: a `TagPrivacy` bit or 'everyone' (fields.ts). */
type TagFieldPrivacy = (typeof TagPrivacy)[keyof typeof TagPrivacy] | 'everyone';

/** A row of the table, with its types kept (the default is checked against the value). */
function field<I extends z.ZodType, V extends z.ZodType, const S extends TagFieldPrivacy, D extends z.output<V> | undefined = undefined>(row: {
  input: I;
  value: V;
  default?: D;
  shown: S;
}) {
  return row as { input: I; value: V; default: D; shown: S };
}

/**
 * The tag's fields that its owner sets and that are stored with it, one row each. The create and
 * edit bodies, the answer, TagRecord, the privacy filter (privacy.ts), the columns
 * (db/tag-columns.ts), an import's source and plan and the export's own key all follow from these.
 */
export const TAG_FIELDS = {
  name: field({ input: TagName, value: z.string(), shown: TagPrivacy.name }),
  displayName: field({
    input: text(NAME_MAX, 1).nullable().describe(`Shown instead of the name where set. 1 to ${NAME_MAX} characters.`),
    value: z.string().nullable(),
    default: null,
    shown: TagPrivacy.name,
  }),
  description: field({ input: text(DESCRIPTION_MAX).nullable(), value: z.string().nullable(), default: null, shown: TagPrivacy.description }),
  color: field({ input: HexColor.nullable(), value: z.string().nullable(), default: null, shown: TagPrivacy.color }),
  icon: field({ input: HttpUrl.nullable().describe('An image URL.'), value: z.string().nullable(), default: null, shown: TagPrivacy.icon }),
  public: field({
    input: bitmask(TAG_PRIVACY_MASK, 'the tag privacy settings').describe('Privacy bitmask: 1 visible, 2 name, 4 description, 8 icon, 16 color, 32 member list. 0 (the default) is private.'),
    value: z.number().int(),
    default: 0,
    shown: 'everyone',
  }),
};
type Fields = typeof TAG_FIELDS;
export type TagFieldName = keyof Fields;
export const TAG_FIELD_NAMES = Object.keys(TAG_FIELDS) as TagFieldName[];

/** The stored fields' values, as a TagRecord holds them. */
export type TagFieldValues = ValuesOf<Fields>;

/** What a new tag stores for each field its create (or import) leaves out. */
export const TAG_DEFAULTS = defaultsOf(TAG_FIELDS);

/** Every stored field as an owner sends it: the export's own key carries them all. */
export const TAG_FIELD_INPUTS = inputsOf(TAG_FIELDS);

/** The stored fields `source` has (undefined ones left out), in the table's order. */
export function pickTagFields<T extends object>(source: T): Pick<T, TagFieldName & keyof T> {
  return pickFields(source, TAG_FIELD_NAMES);
}

const readOnlyTagFields = {
  tagId: readOnly('tagId'),
  systemId: readOnly('systemId'),
  created: readOnly('created'),
  alterIds: z.never({ error: 'alterIds cannot be set here: change members with POST /tags/{tag}/alters or an alter’s tagIds' }).optional(),
};

export const CreateTagBody = z.strictObject({
  ...createShapeOf(TAG_FIELDS),
  ...readOnlyTagFields,
});
export type CreateTagInput = z.infer<typeof CreateTagBody>;

export const EditTagBody = z.strictObject({
  ...z.strictObject(TAG_FIELD_INPUTS).partial().shape,
  ...readOnlyTagFields,
});
export type EditTagInput = z.infer<typeof EditTagBody>;

const AlterIdList = z
  .array(EntityId)
  .max(MAX_MEMBERSHIP_CHANGE, `must have at most ${MAX_MEMBERSHIP_CHANGE} alters`)
  .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an alter');

export const TagMembershipBody = z
  .strictObject({
    add: AlterIdList.optional().describe('Alters to add (already members are left as they are).'),
    remove: AlterIdList.optional().describe('Alters to remove (non-members are left as they are).'),
  })
  .refine((body) => !(body.add ?? []).some((id) => (body.remove ?? []).includes(id)), { message: 'must not name an alter that add also names', path: ['remove'] })
  .meta({ id: 'TagMembershipBody' });
export type TagMembershipInput = z.infer<typeof TagMembershipBody>;

/**
 * The tag as the API returns it. Fields the viewer may not see are null (`alterIds` empty) and
 * named in `redacted`; the owner's own reads have `redacted: []`.
 */
export const Tag = z
  .strictObject({
    tagId: z.number().int(),
    systemId: z.string(),
    ...answersOf(TAG_FIELDS),
    alterIds: z.array(z.number().int()).describe('Members in id order. For other viewers: only members whose membership both sides show (see Privacy).'),
    created: IsoDateTime,
    redacted: z.array(z.string()).describe('Fields withheld from this viewer by the privacy settings.'),
  })
  .meta({ id: 'Tag' });
export type Tag = z.infer<typeof Tag>;

/** A tag as stored, before privacy is applied. */
export interface TagRecord extends TagFieldValues {
  id: number;
  systemId: number;
  createdAt: number;
  /** Members with their privacy bits (the tag's member list filters on them). */
  members: Array<{ id: number; public: number }>;
}
