// An alter's privacy bitmask (`public`) in words: one setting per bit of the domain's AlterPrivacy,
// each either shown to everyone who can see the alter or kept to its system. The table is keyed by
// the domain's bit names, so a new bit there is a type error here until it has its words.
import { AlterPrivacy } from '../../../../src/domain/privacy-bits.js';

export type AlterPrivacyBit = keyof typeof AlterPrivacy;

export interface PrivacySetting {
  bit: AlterPrivacyBit;
  /** The setting's label: what it governs. */
  label: string;
  /** The words of its "shown" choice. */
  shown: string;
}

const WORDS = {
  visible: { label: 'The alter itself (in lists and lookups)', shown: 'Everyone' },
  name: { label: 'Display name', shown: 'Everyone who sees the alter' },
  username: { label: 'Username', shown: 'Everyone who sees the alter' },
  description: { label: 'Description', shown: 'Everyone who sees the alter' },
  pronouns: { label: 'Pronouns', shown: 'Everyone who sees the alter' },
  avatar: { label: 'Avatar and colour', shown: 'Everyone who sees the alter' },
  banner: { label: 'Banner', shown: 'Everyone who sees the alter' },
  proxyTags: { label: 'Proxy tags', shown: 'Everyone who sees the alter' },
  tags: { label: 'Tags it is in', shown: 'Everyone who sees the alter' },
  messageStats: { label: 'Message count and last message', shown: 'Everyone who sees the alter' },
  birthday: { label: 'Birthday', shown: 'Everyone who sees the alter' },
} satisfies Record<AlterPrivacyBit, Omit<PrivacySetting, 'bit'>>;

/** Every setting, "the alter itself" first: without it the alter does not exist for others. */
export const ALTER_PRIVACY_SETTINGS: readonly PrivacySetting[] = (Object.keys(AlterPrivacy) as AlterPrivacyBit[]).map((bit) => ({ bit, ...WORDS[bit] }));

export function isShown(mask: number, bit: AlterPrivacyBit): boolean {
  const value = AlterPrivacy[bit];
  return (mask & value) === value;
}

export function withShown(mask: number, bit: AlterPrivacyBit, shown: boolean): number {
  const value = AlterPrivacy[bit];
  return shown ? mask | value : mask & ~value;
}
