// A tag (PluralKit's "group"): a named set of a system's alters. The shape the API returns, the
// bodies that create and edit one, the membership change, and the limits. Membership itself is
// stored once (alter_tags) and changes either from the alter (`tagIds`) or from the tag.
import { z } from 'zod';
import { TAG_PRIVACY_MASK } from './privacy-bits.js';
import { usernameKey } from './username-key.js';
import { EntityId, HexColor, HttpUrl, IsoDateTime, bitmask, readOnly, text } from './values.js';

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
  .max(100, 'must be at most 100 characters')
  .refine((value) => value.isWellFormed() && !value.includes('\u0000'), 'must be valid Unicode text without NUL characters')
  // A name of only invisible characters has an empty key: it could not be told apart, nor typed.
  .refine((value) => !value.isWellFormed() || usernameKey(value).trim() !== '', 'must contain a visible character')
  .describe('1 to 100 characters, trimmed. Unique within the system ignoring case and look-alike forms (as usernames).');

const editable = {
  name: TagName,
  displayName: text(100, 1).nullable().describe('Shown instead of the name where set. 1 to 100 characters.'),
  description: text(1000).nullable(),
  color: HexColor.nullable(),
  icon: HttpUrl.nullable().describe('An image URL.'),
  public: bitmask(TAG_PRIVACY_MASK, 'the tag privacy settings').describe('Privacy bitmask: 1 visible, 2 name, 4 description, 8 icon, 16 color, 32 member list. 0 (the default) is private.'),
};

const readOnlyTagFields = {
  tagId: readOnly('tagId'),
  systemId: readOnly('systemId'),
  created: readOnly('created'),
  alterIds: z.never({ error: 'alterIds cannot be set here: change members with POST /tags/{tag}/alters or an alter’s tagIds' }).optional(),
};

export const CreateTagBody = z.strictObject({
  name: editable.name,
  displayName: editable.displayName.optional(),
  description: editable.description.optional(),
  color: editable.color.optional(),
  icon: editable.icon.optional(),
  public: editable.public.optional(),
  ...readOnlyTagFields,
});
export type CreateTagInput = z.infer<typeof CreateTagBody>;

export const EditTagBody = z.strictObject({
  ...z.strictObject(editable).partial().shape,
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
    name: z.string().nullable(),
    displayName: z.string().nullable(),
    description: z.string().nullable(),
    color: z.string().nullable(),
    icon: z.string().nullable(),
    public: z.number().int(),
    alterIds: z.array(z.number().int()).describe('Members in id order. For other viewers: only members whose membership both sides show (see Privacy).'),
    created: IsoDateTime,
    redacted: z.array(z.string()).describe('Fields withheld from this viewer by the privacy settings.'),
  })
  .meta({ id: 'Tag' });
export type Tag = z.infer<typeof Tag>;

/** A tag as stored, before privacy is applied. */
export interface TagRecord {
  id: number;
  systemId: number;
  name: string;
  displayName: string | null;
  description: string | null;
  color: string | null;
  icon: string | null;
  public: number;
  createdAt: number;
  /** Members with their privacy bits (the tag's member list filters on them). */
  members: Array<{ id: number; public: number }>;
}
