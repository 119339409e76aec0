// The privacy rule's visibility tests as SQL conditions. What "visible to other users" means is
// defined once, in domain/privacy.ts (ALTER_VISIBLE_BIT, TAG_VISIBLE_BIT and `hasBits`, which its
// filter uses); this module is only how that same test is spelled in SQL, so lists and pages can be
// filtered in the query. Repositories use these and never write a `public &` condition themselves.
import { sql, type RawBuilder } from 'kysely';
import { ALTER_VISIBLE_BIT, TAG_VISIBLE_BIT } from '../domain/privacy.js';
import { PROFILE_FIELD_PRIVACY_BITS } from '../domain/profile-fields.js';

/** `hasBits(column, bits)` of domain/privacy.ts in SQL: every bit of `bits` is set in `column`. */
export function hasBitsCondition(column: string, bits: number): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(column)} & ${sql.lit(bits)}) = ${sql.lit(bits)}`;
}

/** The alter is visible to other users (what viewAlter requires of its bits). */
export const alterVisibleCondition = (column: 'alters.public' = 'alters.public') => hasBitsCondition(column, ALTER_VISIBLE_BIT);

/** The tag is visible to other users (what viewTag requires of its bits). */
export const tagVisibleCondition = (column: 'tags.public' = 'tags.public') => hasBitsCondition(column, TAG_VISIBLE_BIT);

/**
 * Another viewer sees a profile field's values on this alter (profileFieldShown in privacy.ts):
 * the field is everyone's, or follows an alter bit the alter has set. `owner` fields never match.
 */
export function profileFieldShownCondition(privacyColumn: string, alterPublicColumn: 'alters.public' = 'alters.public'): RawBuilder<boolean> {
  const followed = PROFILE_FIELD_PRIVACY_BITS.map(([name, bit]) => sql`(${sql.ref(privacyColumn)} = ${sql.lit(name)} and ${hasBitsCondition(alterPublicColumn, bit)})`);
  return sql<boolean>`(${sql.ref(privacyColumn)} = ${sql.lit('everyone')} or ${sql.join(followed, sql` or `)})`;
}

/** Someone besides the owner may see the field's values on some alter (viewProfileField lists it to them). */
export const profileFieldSharedCondition = (privacyColumn: string) => sql<boolean>`${sql.ref(privacyColumn)} <> ${sql.lit('owner')}`;
