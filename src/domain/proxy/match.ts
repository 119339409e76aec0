// Matching one (alter, tag) pair against T (R5), the tag-only form (R5.7) included. This is the
// truth of whether a pair matches; the tag index only decides which pairs are worth asking.
import { cutsToken, tokenSpans, type Span } from './markup.js';
import { codePointBefore, isGraphemeBoundary, isSelector, isWhitespace, keyOf, segmentGraphemes, unitsOf, type GraphemeView } from './text.js';

/** A tag as compared: the keys (text.ts `keyOf`) of its code points other than selectors. */
export type TagKeys = {
  prefix: readonly number[];
  suffix: readonly number[];
  /** Of `prefix.trimEnd()` and `suffix.trimStart()`, for the tag-only form. */
  loosePrefix: readonly number[];
  looseSuffix: readonly number[];
};

/**
 * A text tags are matched against (T, or T trimmed for the tag-only form). Its Discord tokens and
 * grapheme segmentation are found on first need: most messages never reach an edge check.
 */
export class Subject {
  private spans: Span[] | undefined;
  private view: GraphemeView | undefined;

  constructor(readonly text: string) {}

  private readonly graphemeView = (): GraphemeView => (this.view ??= segmentGraphemes(this.text));

  /** R5.5 and R5.6 for one edge. */
  edgeAllowed(index: number): boolean {
    if (index <= 0 || index >= this.text.length) return true;
    if (!isGraphemeBoundary(this.text, index, this.graphemeView)) return false;
    this.spans ??= tokenSpans(this.text);
    return this.spans.length === 0 || !cutsToken(this.spans, index);
  }
}

/**
 * Where the prefix region ends when `keys` start `text`, else -1. Selectors are skipped on both
 * sides, and the ones right after the last matched code point belong to the prefix (R5.3). A tag
 * side without keys is absent: it removes nothing, not even a leading selector.
 */
export function matchPrefix(text: string, keys: readonly number[], caseSensitive: boolean): number {
  if (keys.length === 0) return 0;
  let i = 0;
  for (const key of keys) {
    while (i < text.length && isSelector(text.charCodeAt(i))) i++;
    if (i >= text.length) return -1;
    const codePoint = text.codePointAt(i) as number;
    if (keyOf(codePoint, caseSensitive) !== key) return -1;
    i += unitsOf(codePoint);
  }
  while (i < text.length && isSelector(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Where the suffix region starts when `keys` end `text`, else -1. Trailing selectors are skipped;
 * the region starts at the suffix's first code point, so a selector just before it stays with the
 * text (R5.3).
 */
export function matchSuffix(text: string, keys: readonly number[], caseSensitive: boolean): number {
  let j = text.length;
  if (keys.length === 0) return j;
  for (let k = keys.length - 1; k >= 0; k--) {
    while (j > 0 && isSelector(text.charCodeAt(j - 1))) j--;
    if (j <= 0) return -1;
    const codePoint = codePointBefore(text, j);
    if (keyOf(codePoint, caseSensitive) !== keys[k]) return -1;
    j -= unitsOf(codePoint);
  }
  return j;
}

function blankBetween(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isWhitespace(text.charCodeAt(i))) return false;
  return true;
}

/** R5.1–R5.6: the inner text between the tag's regions, or null. */
export function matchRegular(tag: TagKeys, t: Subject, caseSensitive: boolean): string | null {
  const end = matchPrefix(t.text, tag.prefix, caseSensitive);
  if (end < 0) return null;
  const start = matchSuffix(t.text, tag.suffix, caseSensitive);
  if (start < end || !t.edgeAllowed(end) || !t.edgeAllowed(start)) return null;
  return t.text.slice(end, start);
}

/** R5.7 on trimmed T: the loose tag sides with only whitespace, or nothing, between them. */
export function matchTagOnly(tag: TagKeys, trimmed: Subject, caseSensitive: boolean): boolean {
  const end = matchPrefix(trimmed.text, tag.loosePrefix, caseSensitive);
  if (end < 0) return false;
  const start = matchSuffix(trimmed.text, tag.looseSuffix, caseSensitive);
  return start >= end && blankBetween(trimmed.text, end, start) && trimmed.edgeAllowed(end) && trimmed.edgeAllowed(start);
}

/** The whole of R5 for one pair: the inner text ('' for the tag-only form), or null. */
export function matchTag(tag: TagKeys, t: Subject, trimmed: Subject, caseSensitive: boolean): string | null {
  return matchRegular(tag, t, caseSensitive) ?? (matchTagOnly(tag, trimmed, caseSensitive) ? '' : null);
}
