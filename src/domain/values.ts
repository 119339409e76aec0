// The value types shared by alters and systems, each a zod schema with the limit and the wording
// a person sees when a value is refused. Every string goes through `text`: PostgreSQL refuses NUL
// characters and neither database can store a lone UTF-16 surrogate faithfully, so both are
// refused up front instead of failing (or being silently altered) at write time.
import { z } from 'zod';
import { IMAGE_URL_RULE, discordImageUrl, EXPIRING_LINK_RULE, isExpiringAttachmentLink } from './image-url.js';

// The text limits, named once: the API's schemas, the bot's options (setMaxLength) and an import's
// normalisation all read these, so a limit changes in one place.
/** Names and other short text: usernames, display names, tag names, pronouns, display tags, proxy tag sides, nickname formats. */
export const NAME_MAX = 100;
/** Descriptions of alters, systems and tags. */
export const DESCRIPTION_MAX = 1000;
/** Links (avatars, banners, icons). */
export const URL_MAX = 2048;

export function text(max: number, min = 0) {
  return z
    .string()
    .min(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`)
    .max(max, `must be at most ${max} characters`)
    .refine((value) => value.isWellFormed() && !value.includes('\u0000'), 'must be valid Unicode text without NUL characters');
}

/** A Discord guild (server) id: a snowflake, as a string. */
export const GuildId = z.string().regex(/^[1-9][0-9]{16,19}$/, 'must be a Discord server id (17 to 20 digits)');

/** A Discord user id: a snowflake, as a string. */
export const UserId = z.string().regex(/^[1-9][0-9]{16,19}$/, 'must be a Discord user id (17 to 20 digits)');

/**
 * An image URL (every URL field here is an image Discord shows): http(s) only, so no javascript: or
 * data:, stored in the percent-encoded form Discord accepts (image-url.ts, the rule the bot applies
 * too before it sends one).
 */
export const HttpUrl = text(URL_MAX)
  .refine((value) => discordImageUrl(value) !== null, IMAGE_URL_RULE)
  // Its own problem type (422): the request is well-formed, the link would only break.
  .refine((value) => !isExpiringAttachmentLink(value), { message: EXPIRING_LINK_RULE, params: { problem: 'expiring-image-link' } })
  .overwrite((value) => discordImageUrl(value) ?? value);

export const HexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a color like #a1b2c3');

/** A record keyed by guild id, with a cap on its size. */
export function perServerMap<T extends z.ZodType>(value: T, maxEntries = 200) {
  return z
    .record(GuildId, value)
    .refine((map) => Object.keys(map).length <= maxEntries, `must have at most ${maxEntries} servers`);
}

/** A privacy or flag bitmask that may only use the given bits. */
export function bitmask(allowedBits: number, what: string) {
  return z
    .number()
    .int('must be a whole number')
    .min(0, 'must not be negative')
    .max(allowedBits, `must only use the bits of ${what}`)
    .refine((value) => (value & ~allowedBits) === 0, `must only use the bits of ${what}`);
}

/** A positive id that is a safe integer, given as a number. */
export const EntityId = z.number().int('must be a whole number').positive('must be positive').max(Number.MAX_SAFE_INTEGER, 'is too large');

/** A positive id given as a string of digits (path parameters and the spec's string fields). */
export const EntityIdString = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, { error: 'must be a positive whole number', abort: true })
  .refine((value) => Number(value) <= Number.MAX_SAFE_INTEGER, 'is too large')
  .transform(Number);

/** A field that clients may not send: it is set by the service. */
export function readOnly(name: string) {
  return z.never({ error: `${name} is set by the service and cannot be changed` }).optional();
}

/**
 * An ISO 8601 date-time with an offset. Its UTC instant must stay within the years 0000–9999: an
 * offset can push a valid-looking 9999-12-31T23:59-23:59 past them, and such a time can be stored
 * but never written back as ISO 8601 (every later read would fail).
 */
export const IsoDateTime = z.iso
  .datetime({ offset: true, abort: true })
  .refine((value) => {
    const year = new Date(value).getUTCFullYear();
    return year >= 0 && year <= 9999;
  }, 'must be within the years 0000 to 9999 in UTC');

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * A birthday as stored: `YYYY-MM-DD` (years 0001 to 9999), or `--MM-DD` without a year (ISO 8601's
 * form for a day of any year). Only days that exist: `--02-29` is one (it exists in leap years),
 * `2023-02-29` is not.
 */
export function isBirthday(value: string): boolean {
  const match = /^(\d{4}|-)-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const year = match[1] === '-' ? null : Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (year === 0 || month < 1 || month > 12 || day < 1) return false;
  const days = [31, year === null || isLeapYear(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
  return day <= days;
}
