// The PluralKit export mapping (import-formats.md §3.6): what PluralKit's importer needs, and our
// own key, which the reader takes back exactly.
import { describe, expect, it } from 'vitest';
import { readImportFile } from '../../../src/domain/import/detect.js';
import { buildExport, exportJson, type ExportData } from '../../../src/domain/import/export.js';
import type { TargetAlter } from '../../../src/domain/import/plan.js';
import { TagName } from '../../../src/domain/tag.js';
import { aSystem, aTargetAlter } from '../../support/fixtures.js';

const SYSTEM = aSystem({
  id: 12, name: 'Lanternhouse', displayTag: `| ${'t'.repeat(90)}`, displayTagMap: { '300000000000000001': '[LH]' },
  description: 'About us', avatar: 'http://insecure.example/a.png', pronouns: 'we/us', nicknameFormat: '%display%',
  operationDm: false, latchExpiration: 60_000, public: 1 | 4 | 64, flags: 1 | 4, disabledGuilds: ['300000000000000002'],
  createdAt: Date.UTC(2023, 5, 10),
});

const alter = (id: number, extra: Partial<TargetAlter> = {}): TargetAlter =>
  aTargetAlter({ id, username: `alter${id}`, displayName: `alter${id}`, color: '#FF6F91', messageCount: 3, createdAt: Date.UTC(2024, 0, 1), ...extra });

let uuid = 0;
const data = (extra: Partial<ExportData> = {}): ExportData => ({
  system: SYSTEM,
  alters: [
    alter(1, { displayName: 'Ren', avatarUrl: `https://cdn.example/${'a'.repeat(300)}`, proxyTags: [{ id: 'x', prefix: 'r:', suffix: '' }, { id: 'y', prefix: 'p'.repeat(100), suffix: 's' }], public: 1 | 2 | 512 | 64, tagIds: [5] }),
    alter(2, { nameMap: [{ server: '300000000000000001', name: 'Two' }], alterMode: 'both', flags: 7 }),
  ],
  tags: [{ id: 5, name: 'Night', displayName: null, description: null, color: '#2B2D42', icon: null, public: 1 | 2 | 16, createdAt: Date.UTC(2024, 1, 1) }],
  switches: [{ at: Date.UTC(2025, 0, 1), alterIds: [1] }, { at: Date.UTC(2025, 0, 2), alterIds: [] }],
  pluralKit: { systemId: null, alterHids: new Map([[1, 'fobnap']]), tagHids: new Map(), uuids: new Map([['m:fobnap', 'kept-uuid']]) },
  profileFields: [],
  profileValues: new Map(),
  newUuid: () => `uuid-${++uuid}`,
  ...extra,
});

describe('buildExport', () => {
  const { file, warnings } = buildExport(data());
  const members = file.members as Array<Record<string, unknown>>;

  it('writes every top-level key PluralKit expects, switches newest first, and no config or accounts', () => {
    expect(Object.keys(file)).toEqual(['version', 'id', 'uuid', 'name', 'description', 'tag', 'pronouns', 'avatar_url', 'banner', 'color', 'created', 'webhook_url', 'privacy', 'members', 'groups', 'switches', 'switchboard']);
    expect(file).toMatchObject({ version: 2, name: 'Lanternhouse', avatar_url: null, color: null, webhook_url: null, created: '2023-06-10T00:00:00.000Z' });
    expect((file.tag as string).length).toBe(79);
    expect(file.switches).toEqual([{ timestamp: '2025-01-02T00:00:00.000Z', members: [] }, { timestamp: '2025-01-01T00:00:00.000Z', members: ['fobnap'] }]);
    expect(file.privacy).toMatchObject({ name_privacy: 'public', description_privacy: 'public', member_list_privacy: 'public', avatar_privacy: 'private', front_privacy: 'private' });
  });

  it('keeps imported short ids and uuids, makes six-letter ones from PluralKit’s alphabet for the rest', () => {
    expect(members[0]).toMatchObject({ id: 'fobnap', uuid: 'kept-uuid' });
    expect(members[1]?.id).toMatch(/^[abcefghjknoprstuvwxyz]{6}$/);
    expect(buildExport(data()).file.members).toEqual(expect.arrayContaining([expect.objectContaining({ id: members[1]?.id })]));
    expect((file.groups as Array<Record<string, unknown>>)[0]).toMatchObject({ name: 'Night', color: '2b2d42', members: ['fobnap'], privacy: { visibility: 'public', name_privacy: 'public', description_privacy: 'private' } });
  });

  it('writes members as PluralKit takes them: colour without #, links ≤ 256, tags that fit, privacy from the bits', () => {
    expect(members[0]).toMatchObject({
      name: 'alter1', display_name: 'Ren', color: 'ff6f91', avatar_url: null, keep_proxy: true, birthday: null, message_count: 3,
      proxy_tags: [{ prefix: 'r:', suffix: null }],
      privacy: { visibility: 'public', name_privacy: 'public', description_privacy: 'private', proxy_privacy: 'public', birthday_privacy: 'private' },
    });
    expect(members[1]).toMatchObject({ name: 'alter2', display_name: null });
    expect(warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^1 avatar could not go in PluralKit's fields/), expect.stringMatching(/^1 system avatar/), expect.stringMatching(/system tag was shortened to 79/)]));
  });

  it('is read back exactly through our own key', () => {
    const source = readImportFile(JSON.parse(JSON.stringify(file)));
    expect(source.system).toMatchObject({ name: 'Lanternhouse', displayTag: SYSTEM.displayTag, displayTagMap: SYSTEM.displayTagMap, avatar: SYSTEM.avatar, nicknameFormat: '%display%', operationDm: false, latchExpiration: 60_000, public: SYSTEM.public, flags: SYSTEM.flags, disabledGuilds: SYSTEM.disabledGuilds });
    expect(source.alters[0]).toMatchObject({ username: 'alter1', displayName: 'Ren', avatarUrl: `https://cdn.example/${'a'.repeat(300)}`, public: 1 | 2 | 512 | 64, proxyTags: [{ prefix: 'r:', suffix: null }, { prefix: 'p'.repeat(100), suffix: 's' }] });
    expect(source.alters[1]).toMatchObject({ nameMap: [{ server: '300000000000000001', name: 'Two' }], alterMode: 'both', flags: 7 });
    expect(source.tags[0]).toMatchObject({ name: 'Night', color: '#2B2D42', public: 1 | 2 | 16, memberIds: ['fobnap'] });
    expect(source.warnings).toEqual([]);
  });

  it('falls back to the PluralKit fields when our key is damaged, with a warning', () => {
    const copy = JSON.parse(JSON.stringify(file)) as { switchboard: { alters: Record<string, { username: string }> } };
    copy.switchboard.alters.fobnap = { username: 'has space' };
    const source = readImportFile(copy);
    expect(source.alters[0]).toMatchObject({ username: 'alter1', displayName: 'Ren' });
    expect(source.warnings).toEqual(['our own data (the "switchboard" key) of 1 alter was invalid and was ignored; the PluralKit fields were used ("fobnap")']);
  });
});

// Issue 27: the profile fields go out in PluralKit's fields where it has them, and come back.
describe('birthdays, autoproxy and the system colour and time zone', () => {
  const { file } = buildExport(data({
    system: { ...SYSTEM, color: '#5B8C85', timezone: 'America/Halifax' },
    alters: [alter(1, { birthday: '--02-29', public: 1 | 1024, autoproxyEnabled: false }), alter(2, { birthday: '1996-07-21' })],
  }));
  const members = file.members as Array<Record<string, unknown>>;

  it('writes them as PluralKit takes them: a birthday without a year in year 0004, its privacy, autoproxy_enabled, the colour without #', () => {
    expect(members[0]).toMatchObject({ birthday: '0004-02-29', autoproxy_enabled: false, privacy: { birthday_privacy: 'public' } });
    expect(members[1]).toMatchObject({ birthday: '1996-07-21', autoproxy_enabled: true, privacy: { birthday_privacy: 'private' } });
    expect(file).toMatchObject({ color: '5b8c85' });
    // No config (it would reset PluralKit's settings): the time zone is in our own key only.
    expect(file).not.toHaveProperty('config');
    expect((file.switchboard as { system: Record<string, unknown> }).system).toMatchObject({ systemColor: '#5B8C85', systemTimezone: 'America/Halifax' });
  });

  it('reads them back, through our key and through PluralKit’s fields alike', () => {
    const ours = readImportFile(JSON.parse(JSON.stringify(file)));
    expect(ours.system).toMatchObject({ color: '#5B8C85', timezone: 'America/Halifax' });
    expect(ours.alters.map((a) => [a.birthday, a.autoproxyEnabled, a.public])).toEqual([['--02-29', false, 1 | 1024], ['1996-07-21', true, 0]]);
    const theirs = JSON.parse(JSON.stringify(file)) as Record<string, unknown>;
    delete theirs.switchboard;
    const pk = readImportFile(theirs);
    expect(pk.system.color).toBe('#5B8C85');
    expect(pk.alters.map((a) => [a.birthday, a.autoproxyEnabled, (a.public ?? 0) & 1024])).toEqual([['--02-29', false, 1024], ['1996-07-21', true, 0]]);
  });
});

// Issue 25: our own key's tag schema had drifted from the API's (it took names TagName refuses). One
// schema decides both now: a name the API refuses is refused by an import, in our key or the file's.
describe('tag names an import takes', () => {
  const { file } = buildExport(data());
  it.each([
    ['only a zero-width space', '\u200b'],
    ['only invisible joiners and selectors', '\u200d\ufe0f\u200c'],
  ])('refuses %s, as TagName does', (_, name) => {
    expect(TagName.safeParse(name).success).toBe(false);
    const ours = JSON.parse(JSON.stringify(file)) as { groups: Array<{ id: string }>; switchboard: { tags: Record<string, { name: string }> } };
    const hid = ours.groups[0]?.id as string;
    (ours.switchboard.tags[hid] as { name: string }).name = name;
    const viaOurKey = readImportFile(ours);
    expect(viaOurKey.tags.map((tag) => tag.name)).toEqual(['Night']);
    expect(viaOurKey.warnings).toEqual([`our own data (the "switchboard" key) of 1 tag was invalid and was ignored; the PluralKit fields were used ("${hid}")`]);

    const theirs = JSON.parse(JSON.stringify(file)) as { groups: Array<{ id: string; name: string }>; switchboard?: unknown };
    delete theirs.switchboard;
    (theirs.groups[0] as { name: string }).name = name;
    const viaTheirs = readImportFile(theirs);
    expect(viaTheirs.tags).toEqual([]);
    expect(viaTheirs.skipped).toEqual([{ source: 'pluralkit', id: hid, name, reason: 'a name a group cannot have here: it must contain a visible character' }]);
  });

  it('still takes a name TagName takes, trimmed as the API trims it', () => {
    const ours = JSON.parse(JSON.stringify(file)) as { groups: Array<{ id: string }>; switchboard: { tags: Record<string, { name: string }> } };
    (ours.switchboard.tags[ours.groups[0]?.id as string] as { name: string }).name = '  Night owls ';
    expect(readImportFile(ours).tags.map((tag) => tag.name)).toEqual(['Night owls']);
  });
});

describe('exportJson', () => {
  it('writes exactly JSON.stringify of the file, in pieces no larger than one entity', () => {
    const many = Array.from({ length: 50 }, (_, i) => alter(i + 1, { description: 'd'.repeat(1000), nameMap: [{ server: '300000000000000001', name: `n${i}` }] }));
    const { file } = buildExport(data({ alters: many }));
    (file as Record<string, unknown>).absent = undefined;
    const pieces = [...exportJson(file)];
    expect(pieces.join('')).toBe(JSON.stringify(file));
    expect(JSON.parse(pieces.join(''))).toEqual(JSON.parse(JSON.stringify(file)));
    const largestEntity = Math.max(
      ...(file.members as unknown[]).map((member) => JSON.stringify(member).length),
      ...Object.values((file.switchboard as { alters: object }).alters).map((entry) => JSON.stringify(entry).length),
    );
    expect(pieces.length).toBeGreaterThan(100);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(largestEntity);
  });

  it('writes values as JSON.stringify does: null in lists for what has no text, keys of such values left out', () => {
    const odd = { list: [undefined, 1, () => 1], gone: undefined, when: new Date(0), nested: { deep: { deeper: [1, { x: undefined }] } } };
    expect([...exportJson(odd as unknown as Record<string, unknown>)].join('')).toBe(JSON.stringify(odd));
  });
});
