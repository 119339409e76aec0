// The Simply Plural reader against simply-plural-export.md: one table per rule (detection, the 2022
// flat array, colours, avatars, mentions, times, the front-history sweep of §7.4, group nesting,
// privacy, custom fields, custom fronts, what is left out, refusals), each row named by what it
// covers, and the project's sample mapped field by field. Secrets in a file never reach the model.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectFormat, readImportFile } from '../../../src/domain/import/detect.js';
import type { ImportReadOptions, ImportSource } from '../../../src/domain/import/model.js';
import { Notes } from '../../../src/domain/import/normalise.js';
import {
  CUSTOM_FRONTS_TAG_ID,
  classifyDocument,
  fieldValue,
  readFrontHistory,
  resolveParents,
  rewriteMentions,
  spAvatar,
  spColor,
  spTime,
} from '../../../src/domain/import/simplyplural.js';
import { AlterPrivacy } from '../../../src/domain/privacy-bits.js';
import { Problem } from '../../../src/domain/problems.js';
import { SAMPLES } from '../../support/samples.js';

const NOW = Date.UTC(2026, 4, 21);
const H = 3_600_000;
const T0 = Date.UTC(2026, 4, 18, 8);
const UID = 'Zq4Wm8Rt2Yx6Lp0Nc3Vb7Hj5Kd1A';
const sampleText = readFileSync(`${SAMPLES}/simply-plural.json`, 'utf8');
const sample = () => JSON.parse(sampleText) as Record<string, Array<Record<string, unknown>>>;

type Doc = Record<string, unknown>;
const member = (id: string, extra: Doc = {}): Doc => ({ _id: id, uid: UID, name: id.toUpperCase(), ...extra });
const read = (file: unknown, options: Partial<ImportReadOptions> = {}): ImportSource => readImportFile(file, { now: NOW, ...options });
/** Every alter's custom field values, in the file's member order: what the reader put on each alter. */
const fieldValues = (source: ImportSource) =>
  source.alters.flatMap((alter) => Object.entries(alter.profileFields ?? {}).map(([fieldId, value]) => ({ alterId: alter.id, fieldId, value })));
/** A minimal export: the user and these collections. */
const exportOf = (collections: Record<string, unknown>) => ({ users: [{ _id: UID, uid: UID, username: 'sys' }], ...collections });

function refusal(action: () => unknown): { type: string; friendly: string } {
  try {
    action();
  } catch (error) {
    if (error instanceof Problem) return { type: error.type, friendly: error.message };
    throw error;
  }
  throw new Error('not refused');
}

describe('detection by keys', () => {
  it.each([
    ['the current shape: members with _id and uid', { members: [member('a')] }, 'simplyplural'],
    ['its own collections, members empty', { members: [], frontHistory: [] }, 'simplyplural'],
    ['the 2022 flat array of documents', [member('a'), { _id: 'f1', uid: UID, member: 'a', startTime: T0 }], 'simplyplural'],
    ['a PluralKit file (members with id and a version)', { version: 2, id: 'abcde', members: [{ id: 'abcde', name: 'x' }], switches: [] }, 'pluralkit'],
    ['a Tupperbox file', { tuppers: [] }, 'tupperbox'],
    ['a PluralKit file wins over Simply Plural keys', { switches: [], frontHistory: [] }, 'pluralkit-legacy'],
    ['members without _id are not Simply Plural', { members: [{ id: 'a' }] }, undefined],
    ['an array of anything else', [1, 2, 3], undefined],
  ])('%s', (_name, file, format) => {
    expect(detectFormat(file)).toBe(format);
  });
});

describe('the 2022 flat array, classified by shape (P1)', () => {
  const custom = new Set(['cf1']);
  it.each([
    ['a user: _id = uid, username', { _id: UID, uid: UID, username: 'x' }, 'users'],
    ['private settings: _id = uid, latestVersion (ignored)', { _id: UID, uid: UID, latestVersion: 76 }, null],
    ['front history: member and startTime', { _id: 'h', uid: UID, member: 'a', startTime: 1 }, 'frontHistory'],
    ['a group: parent and emoji', { _id: 'g', uid: UID, name: 'g', parent: 'root', emoji: '' }, 'groups'],
    ['a note: title and note', { _id: 'n', uid: UID, title: 't', note: 'b' }, 'notes'],
    ['a token: token and permission', { _id: 't', uid: UID, token: 'secret', permission: 1 }, 'tokens'],
    ['a comment', { _id: 'c', uid: UID, documentId: 'h', text: 'x' }, 'comments'],
    ['a board message', { _id: 'b', uid: UID, writtenBy: 'a', title: 't' }, 'boardMessages'],
    ['a chat message', { _id: 'm', uid: UID, iv: 'x', message: 'y' }, 'chatMessages'],
    ['a poll', { _id: 'p', uid: UID, name: 'p', votes: [] }, 'polls'],
    ['a friend', { _id: 'f', uid: UID, frienduid: 'other' }, 'friends'],
    ['a named document front history marks custom: a custom front', { _id: 'cf1', uid: UID, name: 'Blurry' }, 'frontStatuses'],
    ['any other named document: a member', { _id: 'a', uid: UID, name: 'Ash', pronouns: 'they' }, 'members'],
    ['a document of no known shape', { _id: 'z', uid: UID, something: 1 }, null],
  ])('%s', (_name, doc, kind) => {
    expect(classifyDocument(doc, custom)).toBe(kind);
  });

  it('reads the array with a warning that the result is a guess', () => {
    const source = read([
      { _id: UID, uid: UID, username: 'old-sys' },
      member('a'),
      { _id: 'cf1', uid: UID, name: 'Blurry' },
      { _id: 'h1', uid: UID, member: 'cf1', custom: true, live: false, startTime: T0, endTime: T0 + H },
      { _id: 't', uid: UID, token: 'SECRET-TOKEN', permission: 7 },
    ]);
    expect(source.format).toBe('simplyplural');
    expect(source.system.name).toBe('old-sys');
    expect(source.alters.map((alter) => alter.name)).toEqual(['A', 'Blurry']);
    expect(source.warnings.join('\n')).toMatch(/from 2022.*told apart by their shape, which is a guess/);
    expect(JSON.stringify(source)).not.toContain('SECRET-TOKEN');
  });
});

describe('colours (P9)', () => {
  it.each([
    ['#RRGGBB', '#4a90d9', '#4A90D9', false],
    ['RRGGBB without # (PluralKit sync)', '9b59b6', '#9B59B6', false],
    ['empty is none', '', null, false],
    ['AARRGGBB: alpha first (Flutter)', '#FF2E8B57', '#2E8B57', true],
    ['RRGGBBAA when it ends in ff and does not start with it', '#2E8B57FF', '#2E8B57', true],
    ['ffffffff stays white', '#ffffffff', '#FFFFFF', true],
    ['junk is dropped with a note', 'teal-ish', null, true],
    ['not a string is dropped', 12, null, true],
  ])('%s', (_name, value, expected, noted) => {
    const notes = new Notes();
    expect(spColor(value, notes, 'member colour', 'x')).toBe(expected);
    expect(notes.list().length > 0).toBe(noted);
  });
});

describe('avatars (P11): external https kept, Simply Plural’s host dropped and counted, nothing fetched', () => {
  it.each([
    ['an external https link', { avatarUrl: 'https://images.example.invalid/a.png' }, 'https://images.example.invalid/a.png', 0],
    ['an upload (avatarUuid)', { avatarUuid: 'abc-123', avatarUrl: '' }, null, 1],
    ['an upload and a link: the link, the upload counted', { avatarUuid: 'abc', avatarUrl: 'https://images.example.invalid/b.png' }, 'https://images.example.invalid/b.png', 1],
    ['a link to spaces.apparyllis.com', { avatarUrl: 'https://spaces.apparyllis.com/avatars/u/x' }, null, 1],
    ['a link to serve.apparyllis.com', { avatarUrl: 'https://serve.apparyllis.com/avatars/avatars/u/x' }, null, 1],
    ['a link to the 2021 DigitalOcean space', { avatarUrl: 'https://simply-plural.sfo3.digitaloceanspaces.com/avatars/u/x' }, null, 1],
    ['a relative /avatars/ path', { avatarUrl: '/avatars/u/x' }, null, 1],
    ['http is dropped (not counted as Simply Plural’s)', { avatarUrl: 'http://images.example.invalid/a.png' }, null, 0],
    ['nothing', { avatarUuid: '', avatarUrl: '' }, null, 0],
    ['missing fields (P10)', {}, null, 0],
  ])('%s', (_name, doc, url, hosted) => {
    const count = { hosted: 0 };
    expect(spAvatar(doc, count, new Notes(), 'member avatar', 'x')).toBe(url);
    expect(count.hosted).toBe(hosted);
  });
});

describe('mentions (P12)', () => {
  const names = new Map([['a1', 'Ash']]);
  it.each([
    ['a known member becomes @name', 'ask <###@a1###> first', 'ask @Ash first', 0],
    ['a deleted member becomes a neutral marker', 'ask <###@gone###>', 'ask @(deleted member)', 1],
    ['two in one text', '<###@a1###> and <###@a1###>', '@Ash and @Ash', 0],
    ['text without mentions is left as it is', 'plain <###@ not closed', 'plain <###@ not closed', 0],
  ])('%s', (_name, text, expected, unknown) => {
    const counter = { unknown: 0 };
    expect(rewriteMentions(text, names, counter)).toBe(expected);
    expect(counter.unknown).toBe(unknown);
  });
});

describe('times of front history', () => {
  it.each([
    ['epoch milliseconds', T0, T0, 0],
    ['a numeric string', String(T0), T0, 1],
    ['an ISO string with a zone', '2026-05-18T08:00:00.000Z', T0, 1],
    ['a zone-less ISO string is UTC', '2026-05-18T08:00:00', T0, 1],
    ['null (a stored NaN)', null, null, 0],
    ['junk', 'yesterday', null, 0],
    ['NaN', Number.NaN, null, 0],
  ])('%s', (_name, value, expected, strings) => {
    const counter = { strings: 0 };
    expect(spTime(value, counter)).toBe(expected);
    expect(counter.strings).toBe(strings);
  });
});

describe('front history → switches (§7.4)', () => {
  type Row = Partial<{ member: unknown; startTime: unknown; endTime: unknown; live: boolean; custom: boolean; customStatus: string }>;
  const row = (memberId: string, start: number | null, end?: number | null, extra: Row = {}): Doc => ({
    _id: `h-${Math.random()}`,
    uid: UID,
    member: memberId,
    live: false,
    ...(start === null ? {} : { startTime: T0 + start * H }),
    ...(end === undefined ? {} : { endTime: end === null ? null : T0 + end * H }),
    ...extra,
  });
  const at = (hours: number) => T0 + hours * H;
  const sweep = (rows: Doc[], customFronts: 'import' | 'skip' = 'import') => {
    const notes = new Notes();
    const alters = new Set(['a', 'b', 'c', ...(customFronts === 'import' ? ['cf'] : [])]);
    const result = readFrontHistory({ frontHistory: rows }, alters, new Set(['cf']), { customFronts, now: NOW }, notes);
    return { switches: result.switches.map((entry) => [(entry.at - T0) / H, entry.memberIds.join('+')]), warnings: notes.list().join('\n'), dropped: result.dropped };
  };

  it.each<[string, Doc[], Array<[number, string]>, RegExp | null, number]>([
    ['one closed interval: in, then a switch-out', [row('a', 0, 2)], [[0, 'a'], [2, '']], null, 0],
    ['back to back: one switch at the handover', [row('a', 0, 2), row('b', 2, 4)], [[0, 'a'], [2, 'b'], [4, '']], null, 0],
    ['co-fronting: ordered by the start of their interval', [row('b', 1, 3), row('a', 0, 2)], [[0, 'a'], [1, 'a+b'], [2, 'b'], [3, '']], null, 0],
    ['same start: ordered by id', [row('b', 0, 2), row('a', 0, 2)], [[0, 'a+b'], [2, '']], null, 0],
    ['a live row is open: no switch-out', [row('a', 0, null, { live: true })], [[0, 'a']], null, 0],
    ['a live row without endTime is open', [row('a', 0, undefined, { live: true })], [[0, 'a']], null, 0],
    ['a live row’s endTime is ignored', [row('a', 0, 1, { live: true })], [[0, 'a']], null, 0],
    ['a finished row without an end is left out, no end invented', [row('a', 0, null), row('b', 1, 2)], [[1, 'b'], [2, '']], /1 entry were over but had no end time/, 1],
    ['swapped ends are swapped', [row('a', 2, 0)], [[0, 'a'], [2, '']], /ended before they started; their ends were swapped/, 0],
    ['zero length is dropped', [row('a', 1, 1), row('b', 2, 3)], [[2, 'b'], [3, '']], /lasted no time/, 1],
    ['overlaps of one member are merged', [row('a', 0, 2), row('a', 1, 3)], [[0, 'a'], [3, '']], /overlapped an earlier entry/, 0],
    ['touching rows of one member are one stint', [row('a', 0, 2), row('a', 2, 3)], [[0, 'a'], [3, '']], null, 0],
    ['two live rows of one member (legacy) are one', [row('a', 0, null, { live: true }), row('a', 1, null, { live: true })], [[0, 'a']], /overlapped/, 0],
    ['numeric strings are read as times', [{ _id: 'x', member: 'a', live: false, startTime: String(at(0)), endTime: String(at(1)) }], [[0, 'a'], [1, '']], /had times written as text/, 0],
    ['a deleted member’s rows are left out (dangling)', [row('gone', 0, 1), row('a', 1, 2)], [[1, 'a'], [2, '']], /named a member or custom front not in the file/, 1],
    ['a row without member is dangling', [{ _id: 'x', startTime: at(0), endTime: at(1) }], [], /named a member or custom front not in the file/, 1],
    ['a row without a start is left out', [row('a', null, 1)], [], /no usable start time/, 1],
    ['before 2015 (seconds for milliseconds) is out of range', [{ _id: 'x', member: 'a', live: false, startTime: 1_600_000_000, endTime: 1_600_003_600 }], [], /before 2015 or in the future/, 1],
    ['in the future is out of range', [{ _id: 'x', member: 'a', live: false, startTime: NOW + 2 * 86_400_000, endTime: NOW + 3 * 86_400_000 }], [], /before 2015 or in the future/, 1],
    ['a custom front takes part like a member', [row('a', 0, 2), row('cf', 2, 3, { custom: true })], [[0, 'a'], [2, 'cf'], [3, '']], null, 0],
    ['`custom` lies: resolved against both lists (P5)', [row('a', 0, 1, { custom: true })], [[0, 'a'], [1, '']], null, 0],
    ['a custom status is counted as not imported', [row('a', 0, 1, { customStatus: 'tired' })], [[0, 'a'], [1, '']], /1 custom status of entries was not imported/, 0],
  ])('%s', (_name, rows, switches, warning, dropped) => {
    const result = sweep(rows);
    expect(result.switches).toEqual(switches);
    if (warning) expect(result.warnings).toMatch(warning);
    else expect(result.warnings).toBe('');
    expect(result.dropped).toBe(dropped);
  });

  it('with customFronts=skip, custom-front intervals leave a gap, or a switch-out', () => {
    const result = sweep([row('a', 0, 2), row('cf', 2, 3, { custom: true }), row('b', 3, 4)], 'skip');
    expect(result.switches).toEqual([[0, 'a'], [2, ''], [3, 'b'], [4, '']]);
    expect(result.warnings).toMatch(/1 entry of custom fronts were left out \(customFronts=skip\)/);
    expect(result.dropped).toBe(1);
  });

  it('more than 150 fronters at once: the first 150 by start, warned', () => {
    const notes = new Notes();
    const ids = Array.from({ length: 152 }, (_, i) => `m${String(i).padStart(3, '0')}`);
    const rows = ids.map((id, i) => ({ _id: `h${i}`, member: id, live: true, startTime: T0 + i }));
    const result = readFrontHistory({ frontHistory: rows }, new Set(ids), new Set(), { customFronts: 'import', now: NOW }, notes);
    expect(result.switches).toHaveLength(152);
    expect(result.switches.at(-1)?.memberIds).toEqual(ids.slice(0, 150));
    expect(notes.list().join('\n')).toMatch(/front history: 2 switches with more than 150 fronters kept the first 150/);
  });

  it('reads the legacy fronters list as open intervals when there is no front history', () => {
    const notes = new Notes();
    const result = readFrontHistory({ fronters: [{ _id: 'a', uid: UID, startTime: T0 }] }, new Set(['a']), new Set(), { customFronts: 'import', now: NOW }, notes);
    expect(result.switches).toEqual([{ at: T0, memberIds: ['a'] }]);
  });
});

describe('group nesting flattened (P19)', () => {
  it.each<[string, Array<[string, string | null]>, Record<string, string | null>, RegExp | null]>([
    ['top level and a child', [['p', null], ['c', 'p']], { p: null, c: 'p' }, null],
    ['a chain keeps each parent', [['a', null], ['b', 'a'], ['c', 'b']], { a: null, b: 'a', c: 'b' }, null],
    ['a missing parent: top level, warned', [['c', 'gone']], { c: null }, /named a parent group not in the file/],
    ['a loop of two is broken once', [['a', 'b'], ['b', 'a']], { a: 'b', b: null }, /1 loop of groups/],
    ['a group its own parent', [['a', 'a']], { a: null }, /1 loop of groups/],
    ['a loop of three with a tail', [['t', 'a'], ['a', 'b'], ['b', 'c'], ['c', 'a']], { t: 'a', a: 'b', b: 'c', c: null }, /1 loop of groups/],
  ])('%s', (_name, groups, expected, warning) => {
    const notes = new Notes();
    expect(Object.fromEntries(resolveParents(new Map(groups), notes))).toEqual(expected);
    if (warning) expect(notes.list().join('\n')).toMatch(warning);
    else expect(notes.list()).toEqual([]);
  });

  it('groups become tags: emoji before the display name, members de-duplicated, unknown ones left out, the parent kept', () => {
    const source = read(exportOf({
      members: [member('a'), member('b')],
      groups: [
        { _id: 'g1', uid: UID, name: 'Guards', desc: 'Keep <###@a###> safe', emoji: '🛡️', color: '2c3e50', parent: 'root', members: ['a', 'a', 'gone'] },
        { _id: 'g2', uid: UID, name: 'Night', emoji: '', color: '', parent: 'g1' },
        { _id: 'g3', uid: UID, name: '', parent: '' },
      ],
    }));
    expect(source.tags).toEqual([
      { id: 'g1', uuid: null, name: 'Guards', displayName: '🛡️ Guards', description: 'Keep @A safe', color: '#2C3E50', icon: null, public: 0, memberIds: ['a'], parentId: null },
      { id: 'g2', uuid: null, name: 'Night', displayName: null, description: null, color: null, icon: null, public: 0, memberIds: [], parentId: 'g1' },
    ]);
    expect(source.skipped).toEqual([{ source: 'simplyplural', id: 'g3', name: '', reason: 'a group without a name' }]);
    expect(source.warnings.join('\n')).toMatch(/1 group membership named members not in the file/);
  });
});

describe('privacy (§7.6): nothing public unless friendsArePublic', () => {
  const FRIENDS = 'bf';
  const buckets = [{ _id: FRIENDS, uid: UID, name: 'Friends' }, { _id: 'bt', uid: UID, name: 'Trusted friends' }, { _id: 'bc', uid: UID, name: 'Close' }];
  const PUBLIC = AlterPrivacy.visible | AlterPrivacy.name | AlterPrivacy.username | AlterPrivacy.description | AlterPrivacy.pronouns | AlterPrivacy.avatar;
  it.each<[string, Doc, boolean, number]>([
    ['in the Friends bucket, by default: private', { buckets: [FRIENDS] }, false, 0],
    ['in the Friends bucket, friendsArePublic: public', { buckets: [FRIENDS] }, true, PUBLIC],
    ['only trusted friends, friendsArePublic: private', { buckets: ['bt'] }, true, 0],
    ['a bucket a friend holds, friendsArePublic: public', { buckets: ['bc'] }, true, PUBLIC],
    ['no buckets ([]), friendsArePublic: private', { buckets: [] }, true, 0],
    ['before buckets, private: false, friendsArePublic: public', { private: false, preventTrusted: false }, true, PUBLIC],
    ['before buckets, private: true: private', { private: true, preventTrusted: false }, true, 0],
    ['no privacy at all (PluralKit-synced private): private', {}, true, 0],
  ])('%s', (_name, privacy, friendsArePublic, bits) => {
    const source = read(exportOf({ privacyBuckets: buckets, friends: [{ _id: 'f', uid: UID, frienduid: 'X', buckets: ['bc'] }], members: [member('a', privacy)] }), { friendsArePublic });
    expect(source.alters[0]?.public).toBe(bits);
    expect(source.system.public).toBe(0);
  });
});

describe('custom fields, kept for profile fields', () => {
  it.each<[string, unknown, boolean, string, string | null]>([
    ['text', 0, false, 'text', null],
    ['text with Markdown', 0, true, 'markdown', null],
    ['colour', 1, false, 'colour', null],
    ['date', 2, false, 'date', null],
    ['month: no counterpart, text', 3, false, 'text', 'month'],
    ['year: text', 4, false, 'text', 'year'],
    ['month and year: text', 5, false, 'text', 'month and year'],
    ['timestamp: text', 6, false, 'text', 'timestamp'],
    ['month and day', 7, false, 'month-day', null],
    ['a type as a string of digits', '2', false, 'date', null],
    ['an unknown type: text', 42, false, 'text', 'type 42'],
  ])('kind of %s', (_name, type, supportMarkdown, kind, sourceKind) => {
    const source = read(exportOf({ members: [member('a')], customFields: [{ _id: 'f', uid: UID, name: 'F', type, order: '0|a:', supportMarkdown }] }));
    expect(source.profileFields).toEqual([{ id: 'f', name: 'F', kind, privacy: 'owner' }]);
    // A kind with no counterpart is read as text, and the report says so.
    expect(source.warnings.some((warning) => /of a kind with no counterpart here/.test(warning))).toBe(sourceKind !== null);
  });

  it.each<[string, 'date' | 'month-day' | 'colour' | 'text', string, string | null]>([
    ['a date from a zone-less timestamp', 'date', '2019-09-02T00:00:00.000', '2019-09-02'],
    ['a month and day drops the meaningless year', 'month-day', '0004-03-14T00:00:00.000', '--03-14'],
    ['a colour in the 8-digit form', 'colour', '#FF2E8B57', '#2E8B57'],
    ['text as it is', 'text', 'anything', 'anything'],
    ['a date that is not one', 'date', 'soon', null],
  ])('value: %s', (_name, kind, raw, expected) => {
    expect(fieldValue(kind, raw, new Notes())).toBe(expected);
  });

  it('values per member, mentions rewritten, empty and orphan values left out, ordered by rank', () => {
    const source = read(exportOf({
      members: [member('a', { info: { f2: 'see <###@b###>', f1: '', orphan: 'x', f3: 12 } }), member('b')],
      customFields: [
        { _id: 'f2', uid: UID, name: 'Role', type: 0, order: '0|zzz:' },
        { _id: 'f1', uid: UID, name: 'Birthday', type: 7, order: '0|aaa:' },
        { _id: 'f3', uid: UID, name: 'Age', type: 0, order: '0|mmm:' },
      ],
    }));
    expect(source.profileFields?.map((field) => field.name)).toEqual(['Birthday', 'Age', 'Role']);
    expect(fieldValues(source)).toEqual([
      { alterId: 'a', fieldId: 'f2', value: 'see @B' },
      { alterId: 'a', fieldId: 'f3', value: '12' },
    ]);
    expect(source.warnings.join('\n')).toMatch(/1 custom field value named a field not in the file/);
  });

  it('at most 100 fields, the first by rank; repeated names told apart', () => {
    const customFields = Array.from({ length: 150 }, (_, i) => ({ _id: `f${i}`, uid: UID, name: 'Same', type: 0, order: `0|${String(i).padStart(4, '0')}:` }));
    const source = read(exportOf({ members: [member('a', { info: { f0: 'kept', f120: 'dropped' } })], customFields }));
    expect(source.profileFields).toHaveLength(100);
    expect(source.profileFields?.slice(0, 3).map((field) => field.name)).toEqual(['Same', 'Same 2', 'Same 3']);
    expect(fieldValues(source)).toEqual([{ alterId: 'a', fieldId: 'f0', value: 'kept' }]);
    expect(source.warnings.join('\n')).toMatch(/50 custom fields past the first 100/);
    expect(source.warnings.join('\n')).not.toMatch(/named a field not in the file/);
  });

  it('the legacy users[0].fields when there is no customFields collection; ignored when there is', () => {
    const legacy = { fields: { k0: { name: 'Likes', order: 1, type: 0 }, k1: { name: 'Age', order: 0, type: 0 } } };
    const files = [
      exportOf({ users: [{ _id: UID, uid: UID, ...legacy }], members: [member('a', { info: { k0: 'tea' } })] }),
      exportOf({ users: [{ _id: UID, uid: UID, ...legacy }], members: [member('a')], customFields: [{ _id: 'n', uid: UID, name: 'New', type: 0, order: '0|a:' }] }),
    ];
    expect(read(files[0]).profileFields?.map((field) => field.name)).toEqual(['Age', 'Likes']);
    expect(fieldValues(read(files[0]))).toEqual([{ alterId: 'a', fieldId: 'k0', value: 'tea' }]);
    expect(read(files[1]).profileFields?.map((field) => field.name)).toEqual(['New']);
  });
});

describe('custom fronts', () => {
  const file = exportOf({ members: [member('a')], frontStatuses: [{ _id: 'cf', uid: UID, name: 'Blurry', desc: 'fog' }, { _id: 'a', uid: UID, name: 'Clash' }] });
  it('import (default): alters in the "Custom fronts" tag; one with a member’s id is skipped', () => {
    const source = read(file);
    expect(source.alters.map((alter) => [alter.id, alter.name, alter.description])).toEqual([['a', 'A', null], ['cf', 'Blurry', 'fog']]);
    expect(source.tags).toEqual([expect.objectContaining({ id: CUSTOM_FRONTS_TAG_ID, name: 'Custom fronts', public: 0, memberIds: ['cf'] })]);
    expect(source.skipped).toEqual([{ source: 'simplyplural', id: 'a', name: 'Clash', reason: 'a custom front with the id of an earlier member or custom front' }]);
  });
  it('skip: left out and counted', () => {
    const source = read(file, { customFronts: 'skip' });
    expect(source.alters.map((alter) => alter.id)).toEqual(['a']);
    expect(source.tags).toEqual([]);
    expect(source.notImported).toMatchObject({ customFronts: 1 });
  });
});

describe('members', () => {
  it.each<[string, Doc, Partial<Record<string, unknown>>, RegExp | null]>([
    ['an empty name becomes "Unnamed member"', { name: '' }, { name: 'Unnamed member', username: 'Unnamedmember' }, /had no name/],
    ['a name of symbols only falls back to sp-<id>', { name: '@@@' }, { username: 'sp-a' }, null],
    ['pronouns and description clamped, Markdown kept as text', { pronouns: 'x'.repeat(150), desc: '**bold**' }, { pronouns: 'x'.repeat(100), description: '**bold**' }, /1 member pronouns was shortened to 100 characters/],
    ['archived: imported like the others, warned', { archived: true }, { name: 'A' }, /1 archived member was imported/],
    ['missing fields everywhere (P10)', { name: 'Solo' }, { name: 'Solo', description: null, pronouns: null, color: null, avatarUrl: null, public: 0 }, null],
  ])('%s', (_name, fields, expected, warning) => {
    const source = read(exportOf({ members: [{ _id: 'a', uid: UID, name: 'A', ...fields }] }));
    expect(source.alters[0]).toMatchObject(expected);
    if (warning) expect(source.warnings.join('\n')).toMatch(warning);
  });
});

describe('pkId: the PluralKit member a member is linked to (§7.2)', () => {
  it.each<[string, unknown, string | undefined, RegExp | null]>([
    ['six letters', 'abcdef', 'abcdef', null],
    ['five letters (older PluralKit ids)', 'abcde', 'abcde', null],
    ['typed by hand in capitals, with spaces', ' AbCdE ', 'abcde', null],
    ['empty: not linked', '', undefined, null],
    ['not an id: not linked, warned', 'abc-12', undefined, /1 member named a PluralKit member id that is not one/],
    ['seven letters: not linked, warned', 'abcdefg', undefined, /that is not one/],
    ['not a string: not linked', 12345, undefined, null],
  ])('%s', (_name, pkId, expected, warning) => {
    const source = read(exportOf({ members: [{ _id: 'a', uid: UID, name: 'A', pkId }] }));
    expect(source.alters[0]?.pluralKitId).toBe(expected);
    if (warning) expect(source.warnings.join('\n')).toMatch(warning);
    else expect(source.warnings.join('\n')).not.toMatch(/PluralKit member id/);
  });

  it('custom fronts carry none', () => {
    const source = read(exportOf({ members: [{ _id: 'a', uid: UID, name: 'A' }], frontStatuses: [{ _id: 'f', uid: UID, name: 'Foggy', pkId: 'abcde' }] }));
    expect(source.alters.map((alter) => alter.pluralKitId)).toEqual([undefined, undefined]);
  });
});

describe('refusals and pitfalls (§8)', () => {
  it.each<[string, unknown, string, RegExp]>([
    ['the June 2022 bug: {}', {}, 'invalid-import', /the file is empty/],
    ['no members', exportOf({ members: [] }), 'invalid-import', /no member to import: its "members" list is missing or empty/],
    ['no members key', exportOf({ frontHistory: [] }), 'invalid-import', /no member to import/],
    ['members without a usable id', exportOf({ members: [{ name: 'x' }, { _id: 5, name: 'y' }] }), 'invalid-import', /none of its 2 members has a usable id/],
    ['a flat array of no member', [{ _id: 'h', uid: UID, member: 'x', startTime: T0 }], 'invalid-import', /no document of the file looks like a member/],
    ['a collection that is not a list', exportOf({ members: 'oops' }), 'invalid-import', /"members" must be a list/],
    ['more members than a system can hold', exportOf({ members: Array.from({ length: 10_001 }, (_, i) => member(`m${i}`)) }), 'too-many-alters', /10001 members/],
  ])('%s', (_name, file, type, message) => {
    const refused = refusal(() => read(file));
    expect(refused.type).toBe(type);
    expect(refused.friendly).toMatch(message);
  });

  it('API-shaped documents ({exists, id, content}, P2) are unwrapped, with a warning', () => {
    const source = read(exportOf({ members: [{ exists: true, id: 'a', content: { uid: UID, name: 'Ash' } }] }));
    expect(source.alters.map((alter) => [alter.id, alter.name])).toEqual([['a', 'Ash']]);
    expect(source.warnings.join('\n')).toMatch(/shape of Simply Plural's API/);
  });

  it('collections as maps keyed by id (third-party dumps) are read', () => {
    expect(read(exportOf({ members: { a: { uid: UID, name: 'Ash' } } })).alters.map((alter) => alter.id)).toEqual(['a']);
  });

  it('ids are opaque: 5-character, 20-character and uid-like ids all work (P13)', () => {
    const ids = ['abcde', 'AbCdEfGhIjKlMnOpQrSt', UID];
    expect(read(exportOf({ members: ids.map((id) => member(id)) })).alters.map((alter) => alter.id)).toEqual(ids);
  });

  it('a duplicate member id is skipped; the first wins', () => {
    const source = read(exportOf({ members: [member('a'), member('a', { name: 'Again' })] }));
    expect(source.alters).toHaveLength(1);
    expect(source.skipped).toEqual([{ source: 'simplyplural', id: 'a', name: 'Again', reason: 'the file has an earlier member with the same id' }]);
  });
});

describe('the sample file', () => {
  const source = read(sample());

  it('maps the system: username as name, mentions rewritten, no avatar from the gone host, the time zone, private', () => {
    expect(source.sourceSystemId).toBe(UID);
    expect(source.system).toEqual({
      public: 0,
      name: 'lantern-house',
      description: 'The Lantern House system. Ask @Ash anything.',
      color: '#2A9D8F',
      avatar: null,
      timezone: 'Europe/Lisbon',
    });
  });

  it('maps members and custom fronts to alters, field by field', () => {
    const rows = source.alters.map((alter) => [
      alter.id, alter.username, alter.displayName, alter.pronouns, alter.color, alter.avatarUrl, alter.public, alter.description,
    ]);
    expect(rows).toEqual([
      ['64a0000000000000000000a1', 'Ash', 'Ash', 'they/them', '#4A90D9', null, 0, 'Host. Plans the week.\n\n**Ask @Bea about nights.**'],
      ['64a0000000000000000000b2', 'Bea', 'Bea', 'she/her', '#FF8A3C', 'https://images.example.invalid/bea.png', 0, 'Protector.'],
      ['64a0000000000000000000c3', 'CyBrightwater', 'Cy Brightwater', 'he/him', '#9B59B6', 'https://cdn.discordapp.com/attachments/100000000000000001/100000000000000002/cy.png', 0, 'Came over from PluralKit.'],
      ['64a0000000000000000000d4', 'Dee✨', 'Dee ✨', 'she/they', '#6A5ACD', null, 0, 'Dormant.'],
      ['64a0000000000000000000e5', 'Eli', 'Eli', null, null, null, 0, null],
      ['64a0000000000000000000f6', 'Fox', 'Fox', null, '#7ED321', null, 0, 'Pre-bucket member.'],
      ['64b00000000000000000f001', 'Foggy', 'Foggy', null, '#9E9E9E', null, 0, 'Nobody clearly in front.'],
      ['64b00000000000000000f002', 'Resting', 'Resting', null, '#34495E', null, 0, null],
    ]);
  });

  it('keeps the PluralKit ids members are linked to (pkId)', () => {
    expect(source.alters.flatMap((alter) => (alter.pluralKitId === undefined ? [] : [[alter.name, alter.pluralKitId]]))).toEqual([['Ash', 'ashxx'], ['Cy Brightwater', 'cybrw']]);
  });

  it('maps groups to tags and puts custom fronts in their own tag', () => {
    expect(source.tags.map((tag) => [tag.name, tag.displayName ?? null, tag.memberIds.length, tag.parentId ?? null])).toEqual([
      ['Guardians', '🛡️ Guardians', 3, null],
      ['Late Crew', '🌙 Late Crew', 2, '64c0000000000000000000a1'],
      ['Custom fronts', null, 2, null],
    ]);
  });

  it('sweeps the front history into switches', () => {
    const names = new Map(source.alters.map((alter) => [alter.id, alter.username]));
    expect(source.switches.map((entry) => [(entry.at - T0) / H, entry.memberIds.map((id) => names.get(id)).join('+')])).toEqual([
      [0, 'Ash'], [2, 'Ash+Bea'], [4, 'Bea'], [6, 'Foggy'], [7, 'CyBrightwater'], [10, ''], [12, 'Resting'], [20, 'Ash'], [22, 'Bea'], [23, 'Bea+Ash'],
    ]);
  });

  it('carries the custom fields and their values for profile fields', () => {
    expect(source.profileFields?.map((field) => [field.name, field.kind])).toEqual([
      ['Birthday', 'month-day'], ['Favourite colour', 'colour'], ['Role', 'markdown'], ['First noticed', 'date'], ['Last checkup', 'text'],
    ]);
    expect(fieldValues(source)).toHaveLength(8);
    expect(fieldValues(source)).toContainEqual({ alterId: '64a0000000000000000000b2', fieldId: '66d00000000000000000aa03', value: 'Protector, see @Ash' });
  });

  it('counts what it leaves out, by kind', () => {
    expect(source.notImported).toEqual({
      customStatuses: 2, notes: 1, boardMessages: 1, polls: 1, reminders: 2, chatMessages: 1, friends: 1, comments: 2, avatarsOnSimplyPluralHost: 5,
    });
  });

  it('never carries tokens, push tokens, IP addresses, friends’ ids or avatar keys', () => {
    const text = JSON.stringify(source);
    for (const secret of ['U1AtQVBJLVRPS0VO', 'fcm-PUSH-TOKEN', '198.51.100.77', '2001:db8::beef', 'FRIENDUIDsecret', 'c0ffeec0ffee']) expect(text).not.toContain(secret);
  });
});
