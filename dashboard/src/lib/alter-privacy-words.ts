// An alter's privacy (its `public` bitmask) in the words the alters screen shows and filters by.
// The bits are the service's (src/domain/privacy-bits.ts, which the dashboard's build cannot
// import: it is built from dashboard/ alone); test/dashboard/alter-privacy-words.test.ts holds
// these copies to them. The rule they follow is src/domain/privacy.ts's: without its `listed` bit
// (1) an alter does not exist for anyone else, whatever its other bits say, and without the
// system's alter-list bit (64) no alter does.

/** Every bit of an alter's privacy, as the bot's `/alter privacy` names them. */
export const ALTER_PRIVACY_PARTS = [
  { bit: 1, label: 'that the alter exists' },
  { bit: 2, label: 'display name' },
  { bit: 512, label: 'username' },
  { bit: 4, label: 'description' },
  { bit: 16, label: 'pronouns' },
  { bit: 32, label: 'avatar and color' },
  { bit: 8, label: 'banner' },
  { bit: 64, label: 'proxy tags' },
  { bit: 128, label: 'tags' },
  { bit: 256, label: 'message count and last message' },
  { bit: 1024, label: 'birthday' },
] as const;

/** The bit without which nobody else sees the alter at all. */
export const ALTER_LISTED_BIT = 1;
/** Every part shown: what "Make all public" sets. */
export const ALTER_ALL_PUBLIC = ALTER_PRIVACY_PARTS.reduce((all, part) => all | part.bit, 0);
/** Nothing shown: what "Make all private" sets (and a new alter's default). */
export const ALTER_ALL_PRIVATE = 0;
/** The system's bit that shows its alter list at all. */
export const SYSTEM_ALTERS_BIT = 64;

export type PrivacyLevel = 'public' | 'partly' | 'private';

/** The three levels, in the words the screen uses (the filter offers them in this order). */
export const PRIVACY_WORDS: Record<PrivacyLevel, string> = {
  public: 'Visible to everyone',
  partly: 'Partly visible',
  private: 'Only you',
};

/** Which level an alter's bits are: all shown, listed with some parts hidden, or not listed (and so seen by nobody else). */
export function privacyLevel(bits: number): PrivacyLevel {
  if ((bits & ALTER_ALL_PUBLIC) === ALTER_ALL_PUBLIC) return 'public';
  if ((bits & ALTER_LISTED_BIT) === 0) return 'private';
  return 'partly';
}

/** The parts a partly visible alter keeps to its owner ("birthday, description"), for the row's detail. */
export function hiddenParts(bits: number): string[] {
  return ALTER_PRIVACY_PARTS.filter((part) => (bits & part.bit) === 0).map((part) => part.label);
}
