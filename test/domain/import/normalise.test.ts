// The shared normalisers of an import (import-formats.md §3.1), one table per value kind.
import { describe, expect, it } from 'vitest';
import { Username } from '../../../src/domain/alter.js';
import {
  Notes,
  clampGraphemes,
  deriveUsername,
  freeName,
  normaliseColor,
  normaliseCount,
  normaliseProxyTags,
  normaliseText,
  normaliseUrl,
  parseInstant,
} from '../../../src/domain/import/normalise.js';
import { usernameKey } from '../../../src/domain/username-key.js';

describe('normaliseText', () => {
  it.each([
    ['trims and keeps text', '  hello  ', 10, 'hello', 0],
    ['empty is null', '   ', 10, null, 0],
    ['null stays null', null, 10, null, 0],
    ['absent stays null', undefined, 10, null, 0],
    ['NFC', 'e\u0301', 10, 'é', 0],
    ['NUL removed', 'a\u0000b', 10, 'ab', 0],
    ['a lone surrogate becomes U+FFFD', 'a\ud800b', 10, 'a\ufffdb', 0],
    ['clamped to the limit, noted', 'abcdefghij', 5, 'abcde', 1],
    ['never splits an emoji', 'ab👍🏽cd', 4, 'ab', 1],
    ['a number is not text, noted', 42, 10, null, 1],
  ] as const)('%s', (_name, input, max, expected, noteCount) => {
    const notes = new Notes();
    expect(normaliseText(input, { max, what: 'field' }, notes, 'x')).toBe(expected);
    expect(notes.list()).toHaveLength(noteCount);
  });

  it('groups notes and names up to five entities', () => {
    const notes = new Notes();
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) normaliseText('x'.repeat(20), { max: 10, what: 'alter description' }, notes, name);
    expect(notes.list()).toEqual(['7 alter descriptions were shortened to 10 characters ("a", "b", "c", "d", "e", …)']);
  });
});

describe('normaliseColor', () => {
  it.each([
    ['3a6ea5', '#3A6EA5'],
    ['3A6EA5', '#3A6EA5'],
    ['#ff6f91', '#FF6F91'],
    [' ff6f91 ', '#FF6F91'],
    ['', null],
    [null, null],
    ['ggg000', null],
    ['fff', null],
    ['ff6f91aa', null],
    ['red', null],
    ['##ff6f91', null],
    [123456, null],
  ] as const)('%j → %j', (input, expected) => {
    const notes = new Notes();
    expect(normaliseColor(input, 'colour', notes, 'x')).toBe(expected);
    expect(notes.list()).toHaveLength(expected === null && input !== null && input !== '' ? 1 : 0);
  });
});

describe('normaliseUrl', () => {
  it.each([
    ['https://cdn.example/a.png', 'https://cdn.example/a.png'],
    ['<https://cdn.example/a.png>', 'https://cdn.example/a.png'],
    ['http://cdn.example/a.png', null],
    ['javascript:alert(1)', null],
    ['not a url', null],
    [`https://cdn.example/${'a'.repeat(2100)}`, null],
    ['', null],
    [null, null],
  ] as const)('%s', (input, expected) => {
    expect(normaliseUrl(input, 'avatar', new Notes(), 'x')).toBe(expected);
  });
});

describe('parseInstant', () => {
  it.each([
    ['2023-06-10T14:22:31.481205Z', Date.UTC(2023, 5, 10, 14, 22, 31, 481)],
    ['2025-03-01T22:40:12.5Z', Date.UTC(2025, 2, 1, 22, 40, 12, 500)],
    ['2023-06-10T14:26:10Z', Date.UTC(2023, 5, 10, 14, 26, 10)],
    ['2023-06-10T16:26:10+02:00', Date.UTC(2023, 5, 10, 14, 26, 10)],
    ['2023-06-10T14:26:10.999999999Z', Date.UTC(2023, 5, 10, 14, 26, 10, 999)],
    ['2023-06-10', null],
    ['yesterday', null],
    ['0000-01-01T00:00:00Z', null],
    [1686406991000, null],
  ] as const)('%s', (input, expected) => {
    expect(parseInstant(input)).toBe(expected);
  });
});

describe('normaliseCount', () => {
  it.each([
    [1532, 1532],
    [null, 0],
    [-3, 0],
    [1.5, 0],
    ['87', 87],
    [2 ** 40, 2 ** 31 - 1],
  ] as const)('%j → %j', (input, expected) => expect(normaliseCount(input)).toBe(expected));
});

describe('deriveUsername', () => {
  it.each([
    ['Ren Kōsaka', 'RenKōsaka'],
    ['Élodie / Night', 'ÉlodieNight'],
    ['🌙 Luna', '🌙Luna'],
    ["Sam O'Neil", "SamO'Neil"],
    ['Juniper@Night', 'JuniperNight'],
    ['back\\slash', 'backslash'],
    ['zero\u200bwidth', 'zerowidth'],
    ['bidi\u202eoverride', 'bidioverride'],
    ['tab\there', 'tabhere'],
    ['full＠width', 'fullwidth'],
    ['   ', null],
    ['@@@', null],
    ['x'.repeat(150), 'x'.repeat(100)],
  ] as const)('%j → %j', (input, expected) => {
    const derived = deriveUsername(input);
    expect(derived).toBe(expected);
    if (derived !== null) expect(Username.safeParse(derived).success).toBe(true);
  });
});

describe('freeName', () => {
  it.each([
    ['alex', [], 'alex'],
    ['alex', ['alex'], 'alex-2'],
    ['Alex', ['alex', 'alex-2'], 'Alex-3'],
    ['STRASSE', ['straße'], 'STRASSE-2'],
    ['x'.repeat(100), ['x'.repeat(100)], `${'x'.repeat(98)}-2`],
  ] as const)('%s among %j → %s', (base, taken, expected) => {
    expect(freeName(base, new Set(taken.map(usernameKey)))).toBe(expected);
  });
});

describe('normaliseProxyTags', () => {
  const tags = (pairs: Array<[unknown, unknown]>, max = 50) => {
    const notes = new Notes();
    return { tags: normaliseProxyTags(pairs.map(([prefix, suffix]) => ({ prefix, suffix })), max, notes, 'x'), notes: notes.list() };
  };
  it.each([
    ['empty sides become null', [['k:', '']], [{ prefix: 'k:', suffix: null }], 0],
    ['a pair empty on both sides is dropped', [['', ''], [null, null]], [], 0],
    ['repeated pairs are dropped', [['[', ']'], ['[', ']']], [{ prefix: '[', suffix: ']' }], 0],
    ['quotes are kept', [['"', '"']], [{ prefix: '"', suffix: '"' }], 0],
    ['case-different pairs are both kept', [['j!', ''], ['J!', '']], [{ prefix: 'j!', suffix: null }, { prefix: 'J!', suffix: null }], 0],
    ['a side over 100 drops the pair, noted', [['x'.repeat(101), ''], ['a:', '']], [{ prefix: 'a:', suffix: null }], 1],
    ['non-strings are none', [[5, ']']], [{ prefix: null, suffix: ']' }], 0],
  ] as const)('%s', (_name, pairs, expected, noteCount) => {
    const result = tags(pairs as unknown as Array<[unknown, unknown]>);
    expect(result.tags).toEqual(expected);
    expect(result.notes).toHaveLength(noteCount);
  });

  it('keeps at most the limit, noting the rest', () => {
    const result = tags(Array.from({ length: 60 }, (_, i) => [`p${i}:`, ''] as [string, string]));
    expect(result.tags).toHaveLength(50);
    expect(result.notes).toEqual(['1 alter had more than 50 proxy tags; the tags after the first 50 were dropped ("x")']);
  });
});

describe('clampGraphemes', () => {
  it('cuts at a grapheme boundary within the limit', () => {
    expect(clampGraphemes('👨‍👩‍👧x', 5)).toBe('');
    expect(clampGraphemes('ab👨‍👩‍👧', 9)).toBe('ab');
    expect(clampGraphemes('abc', 3)).toBe('abc');
  });
});
