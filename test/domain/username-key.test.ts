// The username key (NFKC_Casefold): which names count as the same name, and which characters a
// username may not contain at all.
import { describe, expect, it } from 'vitest';
import { Username } from '../../src/domain/alter.js';
import { usernameKey } from '../../src/domain/username-key.js';

const messagesOf = (value: string) => {
  const result = Username.safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => issue.message);
};

describe('usernameKey', () => {
  it.each([
    ['composed and decomposed é', ['\u00e9', 'e\u0301', '\u00c9', 'E\u0301']],
    ['fullwidth and ASCII letters', ['Ａ', 'ａ', 'A', 'a']],
    ['fullwidth words', ['ＫＥＳＴＲＥＬ', 'kestrel', 'Kestrel']],
    ['sharp s, capital sharp s and ss', ['straße', 'STRASSE', 'strasse', 'STRAẞE', 'Straße']],
    ['capital, small and final sigma', ['ΟΔΟΣ', 'οδος', 'οδοσ', 'ΟΔΟς']],
    ['İ and i followed by a combining dot', ['\u0130', 'I\u0307', 'i\u0307']],
    ['long s and s', ['\u017fun', 'sun', 'SUN']],
    ['the Kelvin sign and K', ['\u212a', 'K', 'k']],
    ['a ligature and its letters', ['\ufb01sh', 'fish', 'FISH']],
    ['micro sign and mu', ['\u00b5', '\u03bc', '\u039c']],
    ['titlecase and other digraphs', ['\u01c5', '\u01c4', '\u01c6', 'd\u017e', 'D\u017d']],
    ['Greek with ypogegrammeni', ['\u1fb3', '\u1fbc', '\u03b1\u03b9', '\u0391\u0399']],
    ['canonically equivalent orders of ypogegrammeni and a grave', ['\u1fb3\u0300', '\u1fb2', '\u03b1\u0345\u0300', '\u03b1\u0300\u0345']],
    ['Cherokee capital and small letters', ['\u13a0\u13a1', '\uab70\uab71']],
    ['circled and superscript digits', ['\u2460\u00b2', '12']],
    ['a name with and without a zero-width space (stored before they were refused)', ['Kes\u200btrel', 'kestrel']],
  ])('makes %s one name', (_name, spellings) => {
    const keys = new Set(spellings.map(usernameKey));
    expect([...keys]).toHaveLength(1);
  });

  it.each([
    ['I and İ (İ folds to i + combining dot)', 'I', '\u0130'],
    ['i and dotless ı', 'i', '\u0131'],
    ['I and dotless ı', 'I', '\u0131'],
    ['e and é', 'e', '\u00e9'],
    ['o and ö', 'o', '\u00f6'],
    ['Latin a and Cyrillic а (confusable, but a different letter)', 'a', '\u0430'],
    ['ss and s', 'ss', 's'],
  ])('keeps %s apart', (_name, a, b) => {
    expect(usernameKey(a)).not.toBe(usernameKey(b));
  });

  it('is stable: the key of a key is the key', () => {
    const samples = ['Straße', 'ΟΔΟΣ', '\u0130stanbul', 'ＫＥＳＴＲＥＬ', 'e\u0301\u0327', '\u1e9e\u1fb3\u0345', '\u3316', '\u01c5\u13f8', 'Ǆ\u0308'];
    for (let codePoint = 0; codePoint < 0x3400; codePoint++) samples.push(String.fromCodePoint(codePoint));
    for (const sample of samples) expect(usernameKey(usernameKey(sample)), sample).toBe(usernameKey(sample));
  });

  it('folds ASCII to lowercase and leaves it otherwise unchanged', () => {
    expect(usernameKey('Ash_Birch-42.x')).toBe('ash_birch-42.x');
  });
});

describe('Username', () => {
  it.each([
    ['LEFT-TO-RIGHT EMBEDDING', '\u202a'],
    ['RIGHT-TO-LEFT EMBEDDING', '\u202b'],
    ['POP DIRECTIONAL FORMATTING', '\u202c'],
    ['LEFT-TO-RIGHT OVERRIDE', '\u202d'],
    ['RIGHT-TO-LEFT OVERRIDE', '\u202e'],
    ['LEFT-TO-RIGHT ISOLATE', '\u2066'],
    ['RIGHT-TO-LEFT ISOLATE', '\u2067'],
    ['FIRST STRONG ISOLATE', '\u2068'],
    ['POP DIRECTIONAL ISOLATE', '\u2069'],
    ['LEFT-TO-RIGHT MARK', '\u200e'],
    ['RIGHT-TO-LEFT MARK', '\u200f'],
    ['ARABIC LETTER MARK', '\u061c'],
    ['ZERO WIDTH SPACE', '\u200b'],
    ['ZERO WIDTH NON-JOINER', '\u200c'],
    ['ZERO WIDTH JOINER', '\u200d'],
    ['WORD JOINER', '\u2060'],
    ['ZERO WIDTH NO-BREAK SPACE (BOM)', '\ufeff'],
    ['SOFT HYPHEN', '\u00ad'],
    ['VARIATION SELECTOR-16', '\ufe0f'],
    ['HANGUL FILLER', '\u3164'],
    ['a TAG character', '\u{e0041}'],
  ])('refuses %s, with a message saying why', (_name, char) => {
    for (const value of [`kes${char}trel`, `${char}kestrel`, `kestrel${char}`]) {
      expect(messagesOf(value)).toContain(
        'must not contain invisible characters (zero-width spaces and joiners, variation selectors, soft hyphens) or text-direction controls (bidirectional marks, embeddings, overrides, isolates)',
      );
    }
  });

  it.each([
    ['a fullwidth @', 'kes\uff20trel'],
    ['a small @', 'kes\ufe6btrel'],
    ['a fullwidth /', 'kes\uff0ftrel'],
    ['a fullwidth \\', 'kes\uff3ctrel'],
    ['a spacing accent (its normal form is a space and a combining accent)', 'kes\u00b4trel'],
    ['ﷺ (its normal form has spaces)', '\ufdfa'],
  ])('refuses %s, a look-alike of a character usernames may not contain', (_name, value) => {
    expect(messagesOf(value)).toEqual([
      'must not contain characters whose normal form has a space, @, \\ or / (such as fullwidth ＠ or ／, or a spacing accent like ´)',
    ]);
  });

  it.each(['Kestrel', 'straße', 'ΟΔΟΣ', 'İstanbul', 'ｋｅｓｔｒｅｌ', 'e\u0301', '\u3316'.repeat(100), '🌸', 'キロ'])('accepts %s', (value) => {
    expect(messagesOf(value)).toEqual([]);
  });
});
