// The privacy bitmasks of the origin API (`public` on alters and systems). A set bit makes that
// part visible to other users; 0, the default, keeps everything private.
export const AlterPrivacy = {
  visible: 1,
  name: 2,
  description: 4,
  banner: 8,
  pronouns: 16,
  avatar: 32,
  /** The origin left 64 unused; its proxy tags would name an alter whose name is hidden. */
  proxyTags: 64,
  tags: 128,
  messageStats: 256,
  username: 512,
  /** Its own bit, private by default (as PluralKit's birthday privacy). */
  birthday: 1024,
} as const;

export const SystemPrivacy = {
  name: 1,
  displayTag: 2,
  description: 4,
  avatar: 8,
  banner: 16,
  pronouns: 32,
  alters: 64,
  tags: 128,
  /** The system's other Discord accounts (`subAccounts`): private by default, as it ties identities together. */
  subAccounts: 256,
} as const;

/** A tag's bitmask (PluralKit's group privacy, as bits). */
export const TagPrivacy = {
  visible: 1,
  name: 2,
  description: 4,
  icon: 8,
  color: 16,
  members: 32,
} as const;

const union = (bits: Record<string, number>) => Object.values(bits).reduce((all, bit) => all | bit, 0);

export const ALTER_PRIVACY_MASK = union(AlterPrivacy);
export const SYSTEM_PRIVACY_MASK = union(SystemPrivacy);
export const TAG_PRIVACY_MASK = union(TagPrivacy);

/**
 * System flags: 1 keeps proxy tags in the sent text, 2 appends pronouns to the proxied name,
 * 4 makes proxy tags match without regard to case (PluralKit's default is case-sensitive, and so
 * is ours: the bit is off unless the owner sets it).
 */
export const SystemFlags = { keepProxy: 1, showPronouns: 2, tagsIgnoreCase: 4 } as const;
export const SYSTEM_FLAGS_MASK = union(SystemFlags);
