// Text primitives the rules are phrased in: code points rather than UTF-16 units, the two variation
// selectors that compare as nothing, the exact whitespace set of String.prototype.trim, per code
// point case folding, and extended grapheme cluster boundaries.

export const MAX_CONTENT_CODE_POINTS = 2000;

/** U+FE0E and U+FE0F: clients add or drop them at will, so they never decide a match (R5.3). */
export function isSelector(unit: number): boolean {
  return unit === 0xfe0e || unit === 0xfe0f;
}

/**
 * The set String.prototype.trim removes, spelled out (Terms) so that U+200B and U+0085 visibly stay
 * out; test/domain/proxy checks it against trim for every BMP unit.
 */
export function isWhitespace(unit: number): boolean {
  if (unit <= 0x20) return unit === 0x20 || (unit >= 0x09 && unit <= 0x0d);
  if (unit < 0xa0) return false;
  return (
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x2028 ||
    unit === 0x2029 ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

/** The same set as a regular-expression class body, for the mention block pattern. */
export const WHITESPACE_CLASS = '\\t-\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isWhitespace(text.charCodeAt(i))) return false;
  return true;
}

/** UTF-16 units taken by a code point. */
export function unitsOf(codePoint: number): number {
  return codePoint > 0xffff ? 2 : 1;
}

/** The code point that ends just before `end` (a lone surrogate counts as itself). */
export function codePointBefore(text: string, end: number): number {
  const low = text.charCodeAt(end - 1);
  if (low >= 0xdc00 && low <= 0xdfff && end >= 2) {
    const high = text.charCodeAt(end - 2);
    if (high >= 0xd800 && high <= 0xdbff) return ((high - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
  }
  return low;
}

/** Code points other than selectors, in order: what a tag is compared and weighed by. */
export function significantCodePoints(text: string): number[] {
  const out: number[] = [];
  for (const char of text) {
    const codePoint = char.codePointAt(0) as number;
    if (!isSelector(codePoint)) out.push(codePoint);
  }
  return out;
}

export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
}

/** Discord counts code points (R9); the UTF-16 length is an upper bound, so most texts skip the count. */
export function exceedsContentLimit(text: string): boolean {
  return text.length > MAX_CONTENT_CODE_POINTS && codePointLength(text) > MAX_CONTENT_CODE_POINTS;
}

// Folded keys: two code points are equal case-insensitively exactly when their keys are equal (D3).
// A lowercase mapping of one code point may be several (U+0130 → i + U+0307); those strings get
// negative keys, which no code point has. Both tables only memoize fixed Unicode facts, so sharing
// them across calls keeps the engine pure from the caller's view. The cache is capped so messages
// full of distinct code points cannot grow it without bound; past the cap folding is computed.
const FOLD_CACHE_LIMIT = 4096;
const foldCache = new Map<number, number>();
const multiFoldKeys = new Map<string, number>();

export function foldKey(codePoint: number): number {
  if (codePoint < 0x80) return codePoint >= 0x41 && codePoint <= 0x5a ? codePoint + 0x20 : codePoint;
  const cached = foldCache.get(codePoint);
  if (cached !== undefined) return cached;
  const lower = String.fromCodePoint(codePoint).toLowerCase();
  const first = lower.codePointAt(0) as number;
  let key: number;
  if (lower.length === unitsOf(first)) {
    key = first;
  } else {
    key = multiFoldKeys.get(lower) ?? -(multiFoldKeys.size + 1);
    multiFoldKeys.set(lower, key);
  }
  if (foldCache.size < FOLD_CACHE_LIMIT) foldCache.set(codePoint, key);
  return key;
}

export function keyOf(codePoint: number, caseSensitive: boolean): number {
  return caseSensitive ? codePoint : foldKey(codePoint);
}

// Grapheme clusters do not depend on the locale; naming one keeps the results independent of the
// host's default. Made on first use: a segmenter costs a few MB of ICU data, and most messages
// never need one.
let graphemes: Intl.Segmenter | undefined;

export type GraphemeView = ReturnType<Intl.Segmenter['segment']>;

export function segmentGraphemes(text: string): GraphemeView {
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  return graphemes.segment(text);
}

/**
 * Whether `index` is an extended grapheme cluster boundary of `text` (UAX #29). Below U+0300 no
 * code point extends, prepends or joins, so two such neighbours always break except CR LF; only
 * other neighbourhoods pay for the segmenter, which is created on first need.
 */
export function isGraphemeBoundary(text: string, index: number, view: () => GraphemeView): boolean {
  if (index <= 0 || index >= text.length) return true;
  const before = codePointBefore(text, index);
  const after = text.codePointAt(index) as number;
  if (before < 0x300 && after < 0x300) return !(before === 0x0d && after === 0x0a);
  return view().containing(index)?.index === index;
}

/**
 * The longest prefix of `value` within `max` UTF-16 units that ends on a grapheme boundary, so no
 * emoji, flag or accented letter is split. UTF-16 units bound code points from above, so a text
 * cut to Discord's limits this way fits whichever of the two Discord counts.
 */
export function clampGraphemes(value: string, max: number): string {
  if (value.length <= max) return value;
  if (max <= 0) return '';
  // The cluster that straddles `max` starts at the cut; walking every cluster from the start cost
  // 0.2 ms per 100 characters, which an import pays for each name it shortens.
  const view = () => segmentGraphemes(value);
  if (isGraphemeBoundary(value, max, view)) return value.slice(0, max);
  return value.slice(0, view().containing(max)?.index ?? 0);
}

/** `value` within `max` UTF-16 units, cut at a grapheme boundary and marked with "…" when cut. */
export function shortenGraphemes(value: string, max: number): string {
  if (value.length <= max) return value;
  if (max <= 1) return max === 1 ? '…' : '';
  return `${clampGraphemes(value, max - 1).trimEnd()}…`;
}
