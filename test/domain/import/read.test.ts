// Reading files: bytes to JSON (UTF-8, BOM, exact big integers), format detection by keys, and
// both sample files mapped as import-formats.md §3 documents, field by field; broken files of
// every kind the document lists.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFormat, readImportFile } from '../../../src/domain/import/detect.js';
import { decodeImportText, parseImportJson } from '../../../src/domain/import/json.js';
import type { SourceAlter } from '../../../src/domain/import/model.js';
import { Problem } from '../../../src/domain/problems.js';
import { SAMPLES } from '../../support/samples.js';

const pk = () => JSON.parse(readFileSync(`${SAMPLES}/pluralkit-v2.json`, 'utf8')) as Record<string, unknown> & { members: Array<Record<string, unknown>>; groups: Array<Record<string, unknown>>; switches: unknown[] };
const tb = () => JSON.parse(readFileSync(`${SAMPLES}/tupperbox.json`, 'utf8')) as Record<string, unknown> & { tuppers: Array<Record<string, unknown>>; groups: Array<Record<string, unknown>> };

function refusal(action: () => unknown): { type: string; friendly: string } {
  try {
    action();
  } catch (error) {
    if (error instanceof Problem) return { type: error.type, friendly: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('bytes to JSON', () => {
  it('drops a BOM and reads UTF-8', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"name":"ソラ"}')]);
    expect(parseImportJson(decodeImportText(bytes))).toEqual({ name: 'ソラ' });
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(refusal(() => decodeImportText(new Uint8Array([0x7b, 0xff, 0x7d])))).toMatchObject({ type: 'invalid-import' });
  });

  it.each([
    ['a bare integer above 2^53', '{"accounts":[412345678901234567]}', { accounts: ['412345678901234567'] }],
    ['a negative one', '{"a":-412345678901234567}', { a: '-412345678901234567' }],
    ['digits inside a string stay as they are', '{"a":"412345678901234567","b":1}', { a: '412345678901234567', b: 1 }],
    ['an escaped quote before the digits', '{"a":"x\\"","b":412345678901234567}', { a: 'x"', b: '412345678901234567' }],
    ['a decimal keeps being a number', '{"a":1234567890123456.5}', { a: 1234567890123456.5 }],
    ['small integers stay numbers', '{"a":[1,22,333]}', { a: [1, 22, 333] }],
  ])('%s', (_name, text, expected) => {
    expect(parseImportJson(text)).toEqual(expected);
  });

  it.each([
    ['empty', ''],
    ['not JSON', 'hello'],
    ['cut short', '{"switches": ['],
  ])('refuses %s with invalid-json', (_name, text) => {
    expect(refusal(() => parseImportJson(text))).toMatchObject({ type: 'invalid-json' });
  });
});

describe('detectFormat', () => {
  it.each([
    ['Tupperbox', { tuppers: [], groups: [] }, 'tupperbox'],
    ['tuppers wins over switches (PluralKit order)', { tuppers: [], switches: [] }, 'tupperbox'],
    ['PluralKit v2', { version: 2, switches: [] }, 'pluralkit'],
    ['PluralKit v1', { version: 1, switches: [], members: [] }, 'pluralkit-legacy'],
    ['PluralKit without version (2019)', { switches: [], members: [] }, 'pluralkit-legacy'],
    ['PluralKit missing its switches key', { version: 2, id: 'abcdef', members: [] }, 'pluralkit'],
    ['unknown keys', { alters: [], system: {} }, undefined],
    ['an array', [], undefined],
    ['a string', 'switches', undefined],
  ] as const)('%s', (_name, file, expected) => {
    expect(detectFormat(file)).toBe(expected);
  });
});

const byId = (alters: SourceAlter[], id: string) => {
  const alter = alters.find((a) => a.id === id);
  if (!alter) throw new Error(`no alter ${id}`);
  return alter;
};

describe('the PluralKit sample', () => {
  const source = readImportFile(pk());

  it('is PluralKit v2 from system qmvzle, with nothing skipped', () => {
    expect(source).toMatchObject({ format: 'pluralkit', source: 'pluralkit', sourceSystemId: 'qmvzle', skipped: [] });
    expect(source.alters.map((a) => a.id)).toEqual(['wyvkop', 'pelgix', 'dunqaf', 'robmex', 'kwtfa']);
  });

  it('maps the system (§3.3)', () => {
    expect(source.system).toEqual({
      name: 'The Tidewater Relay',
      displayTag: '~ 🌊 TR',
      description: 'Made up for the tests of switchboard.\nEvery member here is invented.',
      pronouns: 'we/ours',
      avatar: 'https://media.example.test/system/tidewater.png',
      banner: null,
      // Issue 27: the colour and the time zone are imported; a null latch timeout is PluralKit's 6 hours.
      color: '#5B8C85',
      timezone: 'America/Halifax',
      latchExpiration: 6 * 60 * 60 * 1000,
      createdAt: Date.UTC(2022, 10, 3, 9, 41, 17, 662),
      // name 1, tag 2, avatar 8, banner 16, pronouns 32, group list 128; description and member list private
      public: 1 | 2 | 8 | 16 | 32 | 128,
    });
  });

  it.each([
    ['wyvkop', { username: 'TomásFerreira', displayName: 'Tomás ⚓', color: '#E07A5F', pronouns: 'he/him', messageCount: 2718, public: 2047, birthday: '1996-07-21', autoproxyEnabled: true, keepProxy: false, proxyTags: [{ prefix: 'to:', suffix: null }, { prefix: '(', suffix: ')' }] }],
    ['pelgix', { username: 'ソラ', displayName: 'ソラ', birthday: '--05-19', color: '#8ECAE6', public: 1 | 8 | 16 | 32 | 64 | 128, proxyTags: [{ prefix: null, suffix: '-so' }, { prefix: 'ソ:', suffix: null }], lastMessageAt: Date.UTC(2025, 3, 5, 19, 21, 44, 200) }],
    ['dunqaf', { username: 'AnaïsDusk', displayName: 'Anaïs', color: null, webhookAvatarUrl: 'https://media.example.test/members/anais-webhook.png', banner: 'https://media.example.test/banners/anais.png', public: 128, keepProxy: true, proxyTags: [{ prefix: '{', suffix: '}' }, { prefix: 'ï>', suffix: null }, { prefix: '"', suffix: '"' }] }],
    ['robmex', { username: '🪐Vega', displayName: 'Vega 🪐', public: 2 | 512 | 4 | 8 | 16 | 32 | 256 | 128 | 1024, birthday: '2000-01-30', autoproxyEnabled: false, proxyTags: [], messageCount: 0, lastMessageAt: null }],
    ['kwtfa', { username: "JoO'Hara", displayName: "Jo O'Hara", color: '#2A9D8F', public: 1 | 2 | 512 | 4 | 8 | 16 | 64 | 128 | 1024, birthday: null, messageCount: 18206, createdAt: Date.UTC(2020, 1, 29, 16, 30) }],
  ] as const)('maps member %s (§3.2)', (id, expected) => {
    expect(byId(source.alters, id)).toMatchObject(expected);
  });

  it('maps groups to tags with their privacy and members, and switches oldest first', () => {
    expect(source.tags).toEqual([
      { id: 'vlemzu', uuid: '6b2c4d8e-0f1a-4b3c-9d5e-7f8a9b0c1d01', name: 'Lamp Watch', displayName: '🔦 Lamp Watch', description: 'Whoever keeps the lamps lit at night.', color: '#264653', icon: null, public: 63, createdAt: Date.UTC(2023, 2, 15, 18), memberIds: ['dunqaf', 'robmex'] },
      { id: 'hobzid', uuid: '6b2c4d8e-0f1a-4b3c-9d5e-7f8a9b0c1d02', name: 'Dock Hands', displayName: null, description: 'Mends the nets and the ropes.', color: null, icon: null, public: 1 | 2 | 8 | 16, createdAt: Date.UTC(2024, 5, 1, 6, 45, 0, 250), memberIds: ['wyvkop', 'pelgix', 'kwtfa'] },
    ]);
    expect(source.switches).toEqual([
      { at: Date.UTC(2025, 3, 1, 7, 30), memberIds: ['robmex'] },
      { at: Date.UTC(2025, 3, 5, 19, 20, 7, 654), memberIds: ['dunqaf', 'pelgix'] },
      { at: Date.UTC(2025, 3, 5, 23, 10, 48, 500), memberIds: [] },
      { at: Date.UTC(2025, 3, 6, 10), memberIds: ['wyvkop'] },
    ]);
  });

  it('warns about what it leaves: accounts (the system colour and birthdays are imported now)', () => {
    expect(source.warnings).toEqual(['linked Discord accounts are never imported from a file; add your other accounts with /system accounts add (or POST /system/accounts/code)']);
  });

  it.each([
    ['a date', '1996-07-21', '1996-07-21'],
    ['year 0004: no year', '0004-02-29', '--02-29'],
    ['year 0001 (files before 2020): no year', '0001-12-31', '--12-31'],
    ['a day that does not exist', '2023-02-29', null],
    ['not a date', 'July 21st', null],
  ])('reads a member birthday: %s', (_, birthday, expected) => {
    const file = pk();
    Object.assign(file.members[0] as object, { birthday });
    const source = readImportFile(file);
    expect(source.alters[0]?.birthday).toBe(expected);
    if (expected === null) expect(source.warnings).toContain('1 birthday was not a date like 1996-07-21 and was dropped ("Tomás Ferreira")');
  });

  it('ignores a time zone tzdb does not know, and takes UTC as unset', () => {
    const file = pk();
    file.config = { timezone: 'Mars/Olympus_Mons' };
    const source = readImportFile(file);
    expect(source.system.timezone).toBeUndefined();
    expect(source.warnings).toContain('the time zone "Mars/Olympus_Mons" is not one we know and was ignored');
    file.config = { timezone: 'UTC' };
    expect(readImportFile(file).system.timezone).toBeNull();
  });
});

describe('the Tupperbox sample', () => {
  const source = readImportFile(tb());

  it.each([
    ['7730411', { username: 'Moss', displayName: 'Moss', proxyTags: [{ prefix: 'm:', suffix: null }], messageCount: 275, keepProxy: false, lastMessageAt: Date.UTC(2025, 2, 18, 16, 42, 27) }],
    ['7730412', { username: 'InesHarrow', displayName: 'Ines', birthday: '1997-04-12', proxyTags: [{ prefix: '[', suffix: ']' }, { prefix: 'ih;', suffix: null }], messageCount: 3388 }],
    ['7730413', { username: 'Åke-Tove', birthday: null, proxyTags: [{ prefix: null, suffix: '-at' }], lastMessageAt: null }],
    ['7730414', { username: 'Sage', keepProxy: true, proxyTags: [{ prefix: '((', suffix: '))' }, { prefix: '‹', suffix: '›' }, { prefix: '"', suffix: '"' }] }],
    ['7730415', { username: 'BeantheBold', displayName: 'Bean', birthday: '--09-12', proxyTags: [{ prefix: '🦊', suffix: '🦊' }] }],
    ['7730416', { username: 'RowanDawn', displayName: 'Rowan@Dawn', proxyTags: [{ prefix: 'r!', suffix: null }, { prefix: 'R!', suffix: null }], messageCount: 9840 }],
  ] as const)('maps tupper %s (§3.5)', (id, expected) => {
    const alter = byId(source.alters, id);
    expect(alter).toMatchObject(expected);
    // Tupperbox has no privacy, colour, pronouns or proxy avatar: a merge leaves ours.
    expect(alter.public).toBeUndefined();
    expect(alter.color).toBeUndefined();
    expect(alter.pronouns).toBeUndefined();
  });

  it('maps groups by group_id, without a system tag (the tuppers disagree)', () => {
    expect(source.tags.map((tag) => [tag.id, tag.name, tag.memberIds])).toEqual([
      ['4401', 'Harbour Folk', ['7730412', '7730413']],
      ['4402', 'Small Boats', ['7730415']],
    ]);
    expect(source.system).toEqual({});
    expect(source.warnings).toEqual(expect.arrayContaining([expect.stringContaining('3 tuppers had their own tags'), expect.stringContaining('1 group tag was not imported')]));
  });

  it('takes a tag every tagged tupper shares as the system tag (PluralKit #9)', () => {
    const file = tb();
    file.groups = [];
    for (const tupper of file.tuppers) tupper.tag = tupper.id === 7730411 ? null : '🌲';
    expect(readImportFile(file).system).toEqual({ displayTag: '🌲' });
  });
});

describe('broken files', () => {
  it.each([
    ['not an object', [], 'invalid-import', /JSON object/],
    ['of no known format', { system: {}, alters: [] }, 'invalid-import', /"switches" key.*"tuppers" key/],
    ['members not a list', { switches: [], members: {} }, 'invalid-import', /"members" must be a list/],
    ['switches not a list', { version: 2, switches: { a: 1 } }, 'invalid-import', /"switches" must be a list/],
    ['more members than any system holds', { switches: [], members: Array.from({ length: 10_001 }, () => ({})) }, 'too-many-alters', /10001 members/],
    ['more switches than PluralKit allows', { switches: Array.from({ length: 100_001 }, () => ({})) }, 'too-many-entries', /100001 switches/],
    ['nothing usable', { switches: [], members: [{ id: 'aaaaa', name: '' }, { name: 'no id' }] }, 'invalid-import', /nothing in the file can be imported: aaaaa: no name/],
  ])('%s: refused', (_name, file, type, message) => {
    const refused = refusal(() => readImportFile(file));
    expect(refused.type).toBe(type);
    expect(refused.friendly).toMatch(message);
  });

  it('an odd bracket list loses its last bracket, with a warning', () => {
    const file = tb();
    file.tuppers = [{ id: 1, name: 'Odd', brackets: ['a:', '', 'b:'] }];
    const source = readImportFile(file);
    expect(source.alters[0]?.proxyTags).toEqual([{ prefix: 'a:', suffix: null }]);
    expect(source.warnings).toContain('1 tupper had an odd number of brackets; the last one, without a partner, was dropped ("Odd")');
  });

  it('bad colours, oversized fields and non-https links are dropped or clamped per field', () => {
    const file = pk();
    Object.assign(file.members[0] as object, { color: 'ggg000', description: 'd'.repeat(1200), avatar_url: 'http://insecure.example/a.png', display_name: 'n'.repeat(150) });
    const source = readImportFile(file);
    expect(source.alters[0]).toMatchObject({ color: null, description: 'd'.repeat(1000), avatarUrl: null, displayName: 'n'.repeat(100) });
    expect(source.warnings).toEqual(expect.arrayContaining([
      '1 member colour was not a colour like 3a6ea5 and was dropped ("Tomás Ferreira")',
      '1 member description was shortened to 1000 characters ("Tomás Ferreira")',
      '1 member avatar was not an https URL of at most 2048 characters and was dropped ("Tomás Ferreira")',
      '1 member display name was shortened to 100 characters ("Tomás Ferreira")',
    ]));
  });

  it('entities without an id or name are skipped by their id and name; repeated ids too', () => {
    const file = pk();
    file.members.push({ id: 'nonamx', name: '  ' }, { name: 'No Id' }, { id: 'wyvkop', name: 'Again' }, 'junk' as unknown as Record<string, unknown>);
    const source = readImportFile(file);
    expect(source.skipped).toEqual([
      { source: 'pluralkit', id: 'nonamx', name: '  ', reason: 'no name' },
      { source: 'pluralkit', id: '', name: 'No Id', reason: 'no usable id' },
      { source: 'pluralkit', id: 'wyvkop', name: 'Again', reason: 'the file has an earlier member with the same id' },
      { source: 'pluralkit', id: '', name: '', reason: 'not a member object' },
    ]);
    expect(source.alters).toHaveLength(5);
  });

  it('duplicate names are both read (the plan renames the second)', () => {
    const file = pk();
    file.members.push({ ...file.members[0], id: 'dupdup', uuid: null });
    expect(readImportFile(file).alters.filter((a) => a.username === 'TomásFerreira').map((a) => a.id)).toEqual(['wyvkop', 'dupdup']);
  });

  it('huge ids: Tupperbox ids above 2^53 are kept exactly as text, accounts never read', () => {
    const text = '{"tuppers":[{"id":12345678901234567890,"name":"Big","brackets":["b:",""]}],"groups":[]}';
    expect(readImportFile(parseImportJson(text)).alters[0]?.id).toBe('12345678901234567890');
  });

  it('switches naming unknown members, without a time, or too large are left out with warnings', () => {
    const file = pk();
    file.switches = [
      { timestamp: '2025-01-01T00:00:00Z', members: ['wyvkop', 'zzzzzz'] },
      { timestamp: 'not a time', members: [] },
      { timestamp: '2025-01-02T00:00:00Z', members: Array.from({ length: 151 }, () => 'wyvkop') },
      { timestamp: '2025-01-01T00:00:00.000Z', members: [] },
    ];
    const source = readImportFile(file);
    expect(source.switches).toEqual([{ at: Date.UTC(2025, 0, 1), memberIds: ['wyvkop'] }]);
    expect(source.warnings).toEqual(expect.arrayContaining([
      '1 switch without a valid timestamp was left out',
      '1 switch with more than 150 members was left out',
      '1 switch entry named members not in the file (or skipped) and was left out',
      '1 switch repeated the time of another and was left out',
    ]));
  });

  it('reads older files: flat v1 privacy, a privacy string, single prefix/suffix', () => {
    const source = readImportFile({
      version: 1,
      switches: [],
      members: [
        { id: 'abcde', name: 'Old', prefix: 'o:', suffix: null, privacy: 'public', visibility: 'public', name_privacy: 'public' },
        { id: 'fghij', name: 'Older', prefix: null, suffix: '-o' },
      ],
    });
    expect(source.format).toBe('pluralkit-legacy');
    expect(source.alters[0]).toMatchObject({ proxyTags: [{ prefix: 'o:', suffix: null }], public: 1 | 2 | 512 });
    expect(source.alters[1]).toMatchObject({ proxyTags: [{ prefix: null, suffix: '-o' }], public: 0 });
    expect(source.warnings).toContain('1 member had no privacy settings and was imported as private ("Older")');
  });
});

// Issue 26: a report echoed every skipped entity with the file's name unshortened (7 MB per import,
// kept for replays).
describe('skipped entities in a report', () => {
  it('lists the first 100, ids and names shortened, and counts the rest', () => {
    const long = 'x'.repeat(10_000);
    const members = [{ id: 'okay1', name: 'Kept' }, ...Array.from({ length: 500 }, (_, i) => ({ id: `${long}${i}`, name: long }))];
    const source = readImportFile({ version: 2, id: 'skips', members, switches: [] });
    expect(source.skipped).toHaveLength(100);
    for (const entry of source.skipped) {
      expect(entry.id.length).toBeLessThanOrEqual(100);
      expect(entry.name.length).toBeLessThanOrEqual(100);
    }
    expect(source.skipped[0]).toMatchObject({ name: `${'x'.repeat(99)}…`, reason: 'no usable id' });
    expect(source.warnings).toContain('400 more entries were skipped and are not listed');
  });
});

