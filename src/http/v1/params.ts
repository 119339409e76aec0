// Path and query parameters shared by the /v1 routes.
import { z } from 'zod';
import { MAX_FIELD_LENGTH } from '../../domain/alter.js';
import { EntityIdString, text } from '../../domain/values.js';

/**
 * `{user}`: a Discord user id or `@me`. One string pattern (UserId's pattern or the literal)
 * rather than a zod union, so the document shows one string with an example instead of
 * "string | (string | string)"; it accepts exactly what the union did.
 */
export const UserRef = z
  .string()
  .regex(/^(?:@me|[1-9][0-9]{16,19})$/, 'must be @me or a Discord user id (17 to 20 digits)')
  .meta({ description: 'A Discord user id, or @me for the token’s own user.', examples: ['@me', '123456789012345678'] });

export const UserParams = z.strictObject({ user: UserRef });
export const AlterParams = z.strictObject({ user: UserRef, alter: EntityIdString.describe('The alter id.') });
export const TagParams = z.strictObject({ user: UserRef, tag: EntityIdString.describe('The tag id.') });
export const ProfileFieldParams = z.strictObject({ user: UserRef, field: EntityIdString.describe('The profile field id.') });
export const FieldParams = z.strictObject({
  user: UserRef,
  id: text(MAX_FIELD_LENGTH, 1).describe('The value of the calling client’s integration field.'),
});

/** A non-negative whole number given in the query string. */
const wholeNumber = (max: number, tooBig: string) =>
  z
    .string()
    .regex(/^[0-9]{1,12}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().max(max, tooBig));

export function pageQuery(maxPage: number, defaultPage: number) {
  return z.strictObject({
    max: wholeNumber(maxPage, `must be at most ${maxPage}`)
      .pipe(z.number().min(1, 'must be at least 1'))
      .optional()
      .describe(`Entries per page, 1 to ${maxPage} (default ${defaultPage}).`),
    skip: wholeNumber(1_000_000_000, 'is too large').optional().describe('Entries to skip (default 0).'),
  });
}

/** Routes without query parameters refuse any, like unknown body keys. */
export const NoQuery = z.strictObject({});
