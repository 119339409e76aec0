// The shared normalisers of an import (import-formats.md §3.1), one table per value kind.
import { describe, expect, it } from 'vitest';
import { Username } from '../../../src/domain/alter.js';
import {
  Notes,
  deriveUsername,
  NameAllocator,
  normaliseColor,
  normaliseCount,
  normaliseProxyTags,
  normaliseText,
  normaliseUrl,
  parseInstant,
} from '../../../src/domain/import/normalise.js';
import { clampGraphemes } from '../../../src/domain/proxy/text.js';
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
    ['https://cdn.example/my pic.png', 'https://cdn.example/my%20pic.png'],
    ['https://user:pw@cdn.example/a.png', null],
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

describe('NameAllocator.peek', () => {
  it.each([
    ['alex', [], 'alex'],
    ['alex', ['alex'], 'alex-2'],
    ['Alex', ['alex', 'alex-2'], 'Alex-3'],
    ['STRASSE', ['straße'], 'STRASSE-2'],
    ['x'.repeat(100), ['x'.repeat(100)], `${'x'.repeat(98)}-2`],
  ] as const)('%s among %j → %s', (base, taken, expected) => {
    expect(new NameAllocator(new Set(taken.map(usernameKey))).peek(base)).toBe(expected);
  });
});

describe('NameAllocator', () => {
  /** A set that counts lookups: the allocator's cost, independent of the machine's speed. */
  class CountingSet extends Set<string> {
    lookups = 0;
    override has(key: string): boolean {
      this.lookups++;
      return super.has(key);
    }
  }

  it('hands out what peek would, one after another', () => {
    const taken = new Set(['alex', 'alex-3'].map(usernameKey));
    const allocator = new NameAllocator(taken);
    expect(['Alex', 'alex', 'ALEX', 'alex-2', 'alex'].map((name) => allocator.claim(name))).toEqual(['Alex-2', 'alex-4', 'ALEX-5', 'alex-2-2', 'alex-6']);
  });

  it('peeks without taking', () => {
    const allocator = new NameAllocator(new Set([usernameKey('ash')]));
    expect(allocator.peek('Ash')).toBe('Ash-2');
    expect(allocator.peek('Ash')).toBe('Ash-2');
    allocator.take('Ash-2');
    expect(allocator.peek('ash')).toBe('ash-3');
  });

  it('shortens long names for wider suffixes, past -9 and -99', () => {
    const base = 'x'.repeat(100);
    const allocator = new NameAllocator(new Set());
    const names = Array.from({ length: 101 }, () => allocator.claim(base));
    expect(names[0]).toBe(base);
    expect(names[8]).toBe(`${'x'.repeat(98)}-9`);
    expect(names[9]).toBe(`${'x'.repeat(97)}-10`);
    expect(names[100]).toBe(`${'x'.repeat(96)}-101`);
    expect(new Set(names.map(usernameKey)).size).toBe(101);
    expect(names.every((name) => name.length <= 100)).toBe(true);
  });

  it('never cuts a grapheme when it shortens', () => {
    const base = `${'x'.repeat(97)}👨‍👩‍👧`;
    const allocator = new NameAllocator(new Set([usernameKey(base)]));
    expect(allocator.claim(base)).toBe(`${'x'.repeat(97)}-2`);
  });

  // 2,000 alters of one name tried -2, -3, … afresh each: about two million lookups, and an import
  // of such a file froze the service for over a minute (issue 26).
  it.each([
    ['one name 2,000 times', Array.from({ length: 2000 }, () => 'N'.repeat(100))],
    ['2,000 spellings of one name', Array.from({ length: 2000 }, (_, i) => [...'nnnnnnnnnnn'].map((c, bit) => ((i >> bit) & 1 ? c.toUpperCase() : c)).join(''))],
    ['names that are each other’s suffixed forms', Array.from({ length: 2000 }, (_, i) => (i % 2 ? `ash-${i}` : 'ash'))],
  ])('takes time linear in the names: %s', (_what, names) => {
    const taken = new CountingSet();
    const allocator = new NameAllocator(taken);
    const given = names.map((name) => allocator.claim(name));
    expect(new Set(given.map(usernameKey)).size).toBe(names.length);
    expect(taken.lookups).toBeLessThan(names.length * 4);
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
