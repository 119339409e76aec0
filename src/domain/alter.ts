// An alter (a member profile of a system): the shape the API returns, the bodies that create and
// edit one, and the limits on each field. One source of truth: request validation, response
// serialization, the TypeScript types and the OpenAPI document all come from these schemas.
import { z } from 'zod';
import { ALTER_PRIVACY_MASK } from './privacy-bits.js';
import { INVISIBLE_OR_BIDI_CONTROL, usernameKey } from './username-key.js';
import { EntityId, GuildId, HexColor, HttpUrl, IsoDateTime, bitmask, perServerMap, readOnly, text } from './values.js';

export const MAX_ALTERS_PER_SYSTEM = 2000;
export const MAX_PROXY_TAGS = 50;
export const MAX_TAGS_PER_ALTER = 500;
export const MAX_FIELD_LENGTH = 150;

export const ALTER_MODES = ['webhook', 'nickname', 'both'] as const;

const USERNAME_SEPARATORS = /[\s@\\/]/u;

/**
 * An identifier: unique per system by `usernameKey` (NFKC_Casefold), so names differing only in
 * case, width or other compatibility forms are the same name. Invisible and direction-control
 * characters are refused outright (they make different names look alike); display names may keep
 * them (emoji sequences need the zero-width joiner and variation selectors).
 */
export const Username = text(100, 1)
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
    'Unique within the system, compared as Unicode NFKC_Casefold: case, width and compatibility forms are ignored (`ß` = `SS`, `Ａ` = `a`). 1 to 100 characters; no whitespace, @, \\ or /, also after NFKC (no fullwidth ＠); no invisible or text-direction control characters.',
  );
export const DisplayName = text(100, 1).describe('Shown on proxied messages and profiles. 1 to 100 characters.');

export const NameMapEntry = z
  .strictObject({ server: GuildId, name: text(100, 1) })
  .describe('The name the alter uses in one server. The first entry for a server wins.');

const ProxyTagId = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'must be 1 to 32 letters, digits, - or _');

export const ProxyTagInput = z
  .strictObject({
    id: ProxyTagId.optional().describe('Kept when given; generated otherwise.'),
    prefix: text(100).nullable().optional(),
    suffix: text(100).nullable().optional(),
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

/** Every field an owner may set, with its input schema. Create and edit both build on this. */
const editable = {
  username: Username,
  displayName: DisplayName,
  nameMap: z.array(NameMapEntry).max(200, 'must have at most 200 servers'),
  color: HexColor.nullable(),
  description: text(1000).nullable(),
  pronouns: text(100).nullable(),
  avatarUrl: HttpUrl.nullable(),
  avatarUrlMap: perServerMap(HttpUrl).describe('Server id → avatar URL used in that server.'),
  webhookAvatarUrl: HttpUrl.nullable(),
  banner: HttpUrl.nullable(),
  alterMode: z.enum(ALTER_MODES).describe('webhook: messages are re-sent as the alter; nickname: the member nickname is set; both.'),
  proxyTags: z.array(ProxyTagInput).max(MAX_PROXY_TAGS, `must have at most ${MAX_PROXY_TAGS} proxy tags`),
  tagIds: TagIds,
  public: bitmask(ALTER_PRIVACY_MASK, 'the alter privacy settings').describe('Privacy bitmask; see the privacy section of the API reference.'),
  flags: z.number().int('must be a whole number').min(0, 'must not be negative').max(2 ** 31 - 1, 'is too large'),
  fields: FieldsInput.describe('`{"<your client id>": "value"}`; any other key is refused. null removes the value.'),
};

const readOnlyAlterFields = {
  alterId: readOnly('alterId'),
  systemId: readOnly('systemId'),
  created: readOnly('created'),
  messageCount: readOnly('messageCount'),
  lastMessageTimestamp: readOnly('lastMessageTimestamp'),
};

export const CreateAlterBody = z.strictObject({
  ...editable,
  nameMap: editable.nameMap.optional(),
  color: editable.color.optional(),
  description: editable.description.optional(),
  pronouns: editable.pronouns.optional(),
  avatarUrl: editable.avatarUrl.optional(),
  avatarUrlMap: editable.avatarUrlMap.optional(),
  webhookAvatarUrl: editable.webhookAvatarUrl.optional(),
  banner: editable.banner.optional(),
  alterMode: editable.alterMode.optional(),
  proxyTags: editable.proxyTags.optional(),
  tagIds: editable.tagIds.optional(),
  public: editable.public.optional(),
  flags: editable.flags.optional(),
  fields: editable.fields.optional(),
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
    username: z.string().nullable(),
    displayName: z.string().nullable(),
    nameMap: z.array(NameMapEntry),
    color: z.string().nullable(),
    description: z.string().nullable(),
    created: IsoDateTime,
    pronouns: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    avatarUrlMap: z.record(z.string(), z.string()),
    webhookAvatarUrl: z.string().nullable(),
    banner: z.string().nullable(),
    lastMessageTimestamp: IsoDateTime.nullable(),
    messageCount: z.number().int().nullable(),
    alterMode: z.enum(ALTER_MODES),
    proxyTags: z.array(ProxyTag),
    tagIds: z.array(z.number().int()),
    public: z.number().int(),
    flags: z.number().int().nullable().describe('The owner’s alone: null for others.'),
    fields: z.record(z.string(), z.string()).describe('Only the calling client’s own value, and only on the owner’s reads.'),
    redacted: z.array(z.string()).describe('Fields withheld from this viewer by the system’s privacy settings (an addition to the origin API).'),
  })
  .meta({ id: 'Alter' });
export type Alter = z.infer<typeof Alter>;

/** An alter as stored, before privacy is applied: what repositories return. */
export interface AlterRecord {
  id: number;
  systemId: number;
  username: string;
  displayName: string;
  nameMap: Array<{ server: string; name: string }>;
  color: string | null;
  description: string | null;
  pronouns: string | null;
  avatarUrl: string | null;
  avatarUrlMap: Record<string, string>;
  webhookAvatarUrl: string | null;
  banner: string | null;
  alterMode: (typeof ALTER_MODES)[number];
  proxyTags: Array<{ id: string; prefix: string | null; suffix: string | null }>;
  public: number;
  flags: number;
  messageCount: number;
  lastMessageAt: number | null;
  createdAt: number;
  tagIds: number[];
  /** The same tags with their privacy bits (whether others may see the membership depends on both). */
  tags: Array<{ id: number; public: number }>;
  /** Integration fields loaded for the request, keyed by client id. */
  fields: Record<string, string>;
}
