// The shared normalisers of an import (spec import-formats.md §3.1): every value of a file goes
// through one of these, so a bad field is dropped or clamped (with a note) instead of failing the
// import. Pure functions; the notes they leave are grouped into the report's warnings.
import { Username, isBirthday } from '../alter.js';
import { discordImageUrl } from '../image-url.js';
import { clampGraphemes } from '../proxy/text.js';
import { INVISIBLE_OR_BIDI_CONTROL, usernameKey } from '../username-key.js';
import { NAME_MAX, URL_MAX } from '../values.js';

/**
 * Warnings of one import, grouped: "3 alter descriptions were shortened to 1000 characters
 * (Ren, Mina, Sam)" instead of one line per field. Each group names up to five entities.
 */
export class Notes {
  private readonly groups = new Map<string, { render: (count: number, names: string) => string; count: number; names: string[] }>();

  /** Counts one occurrence of the note `key`; `render` words it for the final count. */
  add(key: string, name: string | null, render: (count: number, names: string) => string): void {
    let group = this.groups.get(key);
    if (!group) {
      group = { render, count: 0, names: [] };
      this.groups.set(key, group);
    }
    group.count++;
    if (name !== null && group.names.length < 6) group.names.push(name);
  }

  /** A note that stands alone (said once however often it is added). */
  once(message: string): void {
    this.add(`once:${message}`, null, () => message);
  }

  list(): string[] {
    return [...this.groups.values()].map((group) => {
      const shown = group.names.slice(0, 5).map((name) => JSON.stringify(name));
      const names = shown.length === 0 ? '' : ` (${shown.join(', ')}${group.count > shown.length ? ', …' : ''})`;
      return group.render(group.count, names);
    });
  }
}

/** "1 alter" / "3 alters". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Removes what our text fields refuse (NUL, lone surrogates) and normalises to NFC. */
function clean(value: string): string {
  return value.replaceAll('\u0000', '').toWellFormed().normalize('NFC');
}

export interface TextRule {
  max: number;
  /** How the field is named in warnings, e.g. "alter description". */
  what: string;
}

/**
 * Text: NFC, trimmed, empty → null, clamped to `max` on a grapheme boundary (noted). Anything
 * that is not a string (a number, an object) is dropped with a note; null and absent are null.
 */
export function normaliseText(value: unknown, rule: TextRule, notes: Notes, owner: string | null): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') {
    notes.add(`not-text:${rule.what}`, owner, (n, names) => `${plural(n, rule.what)} ${n === 1 ? 'was' : 'were'} not text and ${n === 1 ? 'was' : 'were'} dropped${names}`);
    return null;
  }
  const text = clean(value).trim();
  if (text === '') return null;
  if (text.length <= rule.max) return text;
  notes.add(`clamp:${rule.what}`, owner, (n, names) => `${plural(n, rule.what)} ${n === 1 ? 'was' : 'were'} shortened to ${rule.max} characters${names}`);
  return clampGraphemes(text, rule.max).trimEnd();
}

/** Colour: an optional `#` and six hex digits, stored as `#RRGGBB`; anything else is dropped with a note. */
export function normaliseColor(value: unknown, what: string, notes: Notes, owner: string | null): string | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'string' ? value.trim().replace(/^#/, '') : undefined;
  if (text === '') return null;
  if (text !== undefined && /^[0-9a-f]{6}$/i.test(text)) return `#${text.toUpperCase()}`;
  notes.add(`color:${what}`, owner, (n, names) => `${plural(n, what)} ${n === 1 ? 'was' : 'were'} not a colour like 3a6ea5 and ${n === 1 ? 'was' : 'were'} dropped${names}`);
  return null;
}

/**
 * URL: absolute https only (as PluralKit requires), `<…>` wrapping removed, in the form Discord
 * accepts (image-url.ts: percent-encoded) and within our limit; otherwise dropped with a note.
 * Never fetched.
 */
export function normaliseUrl(value: unknown, what: string, notes: Notes, owner: string | null): string | null {
  if (value === null || value === undefined) return null;
  let text = typeof value === 'string' ? clean(value).trim() : undefined;
  if (text === '') return null;
  if (text?.startsWith('<') && text.endsWith('>')) text = text.slice(1, -1).trim();
  if (text !== undefined && text.length <= URL_MAX && /^https:/i.test(text)) {
    const accepted = discordImageUrl(text);
    if (accepted !== null) return accepted;
  }
  notes.add(`url:${what}`, owner, (n, names) => `${plural(n, what)} ${n === 1 ? 'was' : 'were'} not an https URL of at most ${URL_MAX} characters and ${n === 1 ? 'was' : 'were'} dropped${names}`);
  return null;
}

/**
 * A birthday as we store it (`YYYY-MM-DD`, or `--MM-DD` without a year) from a file's: a date, or
 * the date of a timestamp (Tupperbox writes `1997-04-12T00:00:00.000Z`), read as written. The years
 * the formats use for "no year" become `--MM-DD`: PluralKit's 0004 (0001 before 2020), Tupperbox's
 * 0000. Anything else that is not a real date is dropped with a note.
 */
export function normaliseBirthday(value: unknown, yearless: readonly string[], notes: Notes, owner: string | null): string | null {
  if (value === null || value === undefined || value === '') return null;
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})(?:$|[T ])/.exec(value.trim()) : null;
  const birthday = match && (yearless.includes(match[1] as string) ? `--${match[2]}-${match[3]}` : `${match[1]}-${match[2]}-${match[3]}`);
  if (birthday && isBirthday(birthday)) return birthday;
  notes.add('birthday', owner, (n, names) => `${plural(n, 'birthday')} ${n === 1 ? 'was' : 'were'} not a date like 1996-07-21 and ${n === 1 ? 'was' : 'were'} dropped${names}`);
  return null;
}

/** A birthday for PluralKit, which marks a hidden year as 0004. */
export function pluralKitBirthday(birthday: string | null): string | null {
  return birthday?.startsWith('--') ? `0004${birthday.slice(1)}` : birthday;
}

/**
 * An instant (ISO 8601 with an offset, any number of fractional digits) as epoch milliseconds,
 * or null when absent or not a time between the years 1 and 9999.
 */
export function parseInstant(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(value.trim());
  if (!match) return null;
  // Date keeps milliseconds only: cut longer fractions ourselves (Date's rounding of them varies).
  const fraction = (match[7] ?? '').slice(0, 3).padEnd(3, '0');
  const iso = `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6] ?? '00'}.${fraction}${match[8]?.toUpperCase()}`;
  const time = Date.parse(iso);
  if (!Number.isFinite(time)) return null;
  const year = new Date(time).getUTCFullYear();
  return year >= 1 && year <= 9999 ? time : null;
}

/** A non-negative whole count (message counts): anything else is 0. */
export function normaliseCount(value: unknown): number {
  const number = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number >= 0 ? Math.min(number, 2 ** 31 - 1) : 0;
}

const CONTROL = /\p{Cc}/u;
const SEPARATOR = /[\s@\\/]/u;

/**
 * A username from a display name (§3.1): NFC, then spaces, `@`, `\`, `/`, invisible and
 * direction-control characters and control characters deleted, and so is any character whose
 * compatibility form holds one of them (fullwidth `＠`); clamped to NAME_MAX. What remains always
 * passes the `Username` rule; null when nothing does (the caller falls back to `pk-<id>`).
 */
export function deriveUsername(name: string): string | null {
  let kept = '';
  for (const char of clean(name)) {
    if (SEPARATOR.test(char) || INVISIBLE_OR_BIDI_CONTROL.test(char) || CONTROL.test(char)) continue;
    if (SEPARATOR.test(char.normalize('NFKC'))) continue;
    kept += char;
  }
  const username = clampGraphemes(kept, NAME_MAX);
  return username !== '' && Username.safeParse(username).success ? username : null;
}

/**
 * Hands out free names among `taken` (keys as `usernameKey` computes them): `base` when free, else
 * the first free of `base-2`, `base-3`, … with the base shortened so the result stays within `max`.
 *
 * In time linear in the names handed out and taken: trying `-2`, `-3`, … afresh for each of 2,000
 * alters of one name was quadratic (an import of such a file froze the service for a minute). The
 * allocator remembers, per shortened base (by key) and suffix width, the first number not yet
 * known to be taken. `taken` only grows, so every number below it stays taken, and each taken key
 * is stepped over at most once: a key `<prefix>-<n>` belongs to one (prefix key, width) pair.
 * That relies on `usernameKey(prefix + '-' + n) === usernameKey(prefix) + '-' + n`, which holds
 * because `-` and ASCII digits are stable under NFKC and case folding (they neither compose with
 * nor change what precedes them).
 */
export class NameAllocator {
  /** `<width>:<key of the shortened base>` → the first suffix number not known to be taken. */
  private readonly nextSuffix = new Map<string, number>();

  constructor(
    private readonly taken: Set<string>,
    private readonly max = NAME_MAX,
  ) {}

  /** The name `base` would get now, without taking it. */
  peek(base: string): string {
    if (!this.taken.has(usernameKey(base))) return base;
    let n = 2;
    for (;;) {
      const width = String(n).length + 1;
      const prefix = clampGraphemes(base, this.max - width);
      const prefixKey = usernameKey(prefix);
      const memo = `${width}:${prefixKey}`;
      const limit = 10 ** (width - 1);
      for (n = Math.max(n, this.nextSuffix.get(memo) ?? n); n < limit; n++) {
        if (!this.taken.has(`${prefixKey}-${n}`)) {
          this.nextSuffix.set(memo, n);
          return `${prefix}-${n}`;
        }
      }
      this.nextSuffix.set(memo, n);
    }
  }

  /** Marks `name` as taken. */
  take(name: string): void {
    this.taken.add(usernameKey(name));
  }

  /** `peek` and `take` in one. */
  claim(base: string): string {
    const name = this.peek(base);
    this.take(name);
    return name;
  }
}

export interface ProxyTagPair {
  prefix: string | null;
  suffix: string | null;
}

/**
 * Proxy tags (§3.1): empty sides become null; pairs empty on both sides and repeated pairs are
 * dropped; a side over NAME_MAX characters drops its pair (noted); at most `max` pairs (noted).
 */
export function normaliseProxyTags(pairs: Array<{ prefix: unknown; suffix: unknown }>, max: number, notes: Notes, owner: string): ProxyTagPair[] {
  const seen = new Set<string>();
  const result: ProxyTagPair[] = [];
  let dropped = 0;
  for (const pair of pairs) {
    const side = (value: unknown) => (typeof value === 'string' && value !== '' ? clean(value) : null);
    const prefix = side(pair.prefix);
    const suffix = side(pair.suffix);
    if (prefix === null && suffix === null) continue;
    if ((prefix?.length ?? 0) > NAME_MAX || (suffix?.length ?? 0) > NAME_MAX) {
      notes.add('proxy-tag-long', owner, (n, names) => `${plural(n, 'proxy tag')} with a side over ${NAME_MAX} characters ${n === 1 ? 'was' : 'were'} dropped${names}`);
      continue;
    }
    const key = JSON.stringify([prefix, suffix]);
    if (seen.has(key)) continue;
    seen.add(key);
    if (result.length >= max) {
      dropped++;
      continue;
    }
    result.push({ prefix, suffix });
  }
  if (dropped > 0) {
    notes.add('proxy-tag-limit', owner, (n, names) => `${plural(n, 'alter')} had more than ${max} proxy tags; the tags after the first ${max} were dropped${names}`);
  }
  return result;
}
