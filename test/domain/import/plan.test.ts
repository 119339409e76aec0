// The import planner: what a file does to a system in each mode, table-driven over a small
// in-memory system. No database: the planner is pure.
import { describe, expect, it } from 'vitest';
import type { ImportSource, SourceAlter, SourceProfileField, SourceTag } from '../../../src/domain/import/model.js';
import { planImport, type ImportOptions, type ImportTarget, type TargetAlter, type TargetTag } from '../../../src/domain/import/plan.js';
import { Problem } from '../../../src/domain/problems.js';
import { aSystem, aTargetAlter } from '../../support/fixtures.js';

const NOW = Date.UTC(2026, 10, 23);

const SYSTEM = aSystem({ createdAt: NOW - 1000 });

const fileAlter = (id: string, username: string, extra: Partial<SourceAlter> = {}): SourceAlter => ({
  id, uuid: null, name: username, username, displayName: username, color: null, description: null, pronouns: null, avatarUrl: null,
  webhookAvatarUrl: null, banner: null, createdAt: 1000, lastMessageAt: null, messageCount: 0, proxyTags: [], public: 0, keepProxy: null, ...extra,
});

const existingAlter = (id: number, username: string, extra: Partial<TargetAlter> = {}): TargetAlter =>
  aTargetAlter({ id, username, displayName: username, createdAt: 5, ...extra });

const fileTag = (id: string, name: string, memberIds: string[] = []): SourceTag => ({
  id,
  uuid: null,
  name,
  displayName: null,
  description: null,
  color: null,
  icon: null,
  public: 0,
  memberIds,
});
const existingTag = (id: number, name: string): TargetTag => ({ id, name, displayName: null, description: null, color: null, icon: null, public: 0 });

const source = (alters: SourceAlter[], extra: Partial<ImportSource> = {}): ImportSource => ({
  format: 'pluralkit', source: 'pluralkit', sourceSystemId: 'sysid', system: {}, alters, tags: [], switches: [], skipped: [], warnings: [], ...extra,
});

const target = (alters: TargetAlter[] = [], extra: Partial<ImportTarget> = {}): ImportTarget => ({
  system: SYSTEM, alters, tags: [], alterLinks: new Map(), tagLinks: new Map(), switchTimes: new Set(), ...extra,
});

let ids = 0;
const options = (extra: Partial<ImportOptions> = {}): ImportOptions => ({ mode: 'merge', dryRun: false, history: false, newProxyTagId: () => `t${++ids}`, now: NOW, ...extra });

describe('planImport: matching and names', () => {
  it.each([
    {
      name: 'a fresh system: everything is created',
      file: [fileAlter('a', 'alex'), fileAlter('b', 'bo')], existing: [], links: {}, mode: 'merge' as const,
      counts: { created: 2, updated: 0, unchanged: 0, deleted: 0 }, renames: [],
    },
    {
      name: 'merge matches by folded username and leaves an equal alter unchanged',
      file: [fileAlter('a', 'ALEX')], existing: [existingAlter(7, 'alex', { createdAt: 5 })], links: {}, mode: 'merge' as const,
      counts: { created: 0, updated: 1, unchanged: 0, deleted: 0 }, renames: [],
    },
    {
      name: 'merge matches by import link even after a rename on either side',
      file: [fileAlter('a', 'renamed')], existing: [existingAlter(7, 'original')], links: { a: 7 }, mode: 'merge' as const,
      counts: { created: 0, updated: 1, unchanged: 0, deleted: 0 }, renames: [],
    },
    {
      name: 'add never matches: a taken name gets -2',
      file: [fileAlter('a', 'alex')], existing: [existingAlter(7, 'alex')], links: { a: 7 }, mode: 'add' as const,
      counts: { created: 1, updated: 0, unchanged: 0, deleted: 0 }, renames: [{ source: 'pluralkit', id: 'a', name: 'alex', to: 'alex-2' }],
    },
    {
      name: 'duplicate names in the file: the first keeps it, later ones are numbered',
      file: [fileAlter('a', 'alex'), fileAlter('b', 'Alex'), fileAlter('c', 'ALEX')], existing: [], links: {}, mode: 'merge' as const,
      counts: { created: 3, updated: 0, unchanged: 0, deleted: 0 },
      renames: [{ source: 'pluralkit', id: 'b', name: 'Alex', to: 'Alex-2' }, { source: 'pluralkit', id: 'c', name: 'ALEX', to: 'ALEX-3' }],
    },
    {
      name: 'a linked alter keeps its own name when the file name is taken by another alter',
      file: [fileAlter('a', 'bo', { displayName: 'alex' })], existing: [existingAlter(7, 'alex'), existingAlter(8, 'bo')], links: { a: 7 }, mode: 'merge' as const,
      counts: { created: 0, updated: 0, unchanged: 1, deleted: 0 }, renames: [{ source: 'pluralkit', id: 'a', name: 'bo', to: 'alex' }],
    },
    {
      name: 'replace deletes what the file does not match',
      file: [fileAlter('a', 'alex', { description: 'new' })], existing: [existingAlter(7, 'alex'), existingAlter(8, 'bo')], links: {}, mode: 'replace' as const,
      counts: { created: 0, updated: 1, unchanged: 0, deleted: 1 }, renames: [],
    },
  ])('$name', ({ file, existing, links, mode, counts, renames }) => {
    const plan = planImport(source(file), target(existing, { alterLinks: new Map(Object.entries(links)) }), options({ mode }));
    expect(plan.report.counts.alters).toEqual(counts);
    expect(plan.report.renames).toEqual(renames);
  });

  it('an unchanged alter writes nothing; a changed one only its changed columns', () => {
    const current = existingAlter(7, 'alex', { description: 'old', messageCount: 50, proxyTags: [{ id: 'keep', prefix: 'a:', suffix: null }] });
    const file = fileAlter('a', 'alex', { description: 'new', messageCount: 10, proxyTags: [{ prefix: 'a:', suffix: null }, { prefix: 'b:', suffix: null }], createdAt: 123 });
    const plan = planImport(source([file]), target([current]), options());
    expect(plan.alterUpdates).toEqual([
      {
        sourceId: 'a', uuid: null, alterId: 7,
        // message counts only grow; the creation time stays; a pair the alter has keeps its id
        values: { description: 'new', proxyTags: [{ id: 'keep', prefix: 'a:', suffix: null }, { id: expect.stringMatching(/^t\d+$/), prefix: 'b:', suffix: null }] },
      },
    ]);
  });

  it('a Tupperbox merge leaves what Tupperbox does not have (colour, pronouns, privacy)', () => {
    const current = existingAlter(7, 'kit', { color: '#FF0000', pronouns: 'she/her', public: 1023 });
    const file = fileAlter('1', 'kit');
    delete file.color;
    delete file.pronouns;
    delete file.public;
    delete file.webhookAvatarUrl;
    const plan = planImport(source([file], { source: 'tupperbox', format: 'tupperbox' }), target([current]), options());
    expect(plan.alterUpdates[0]?.values).toEqual({});
    expect(plan.report.counts.alters.unchanged).toBe(1);
  });

  it('refuses a file whose alters would not fit, counting existing ones, before writing', () => {
    const file = Array.from({ length: 1500 }, (_, i) => fileAlter(`f${i}`, `file${i}`));
    const existing = Array.from({ length: 600 }, (_, i) => existingAlter(i + 1, `old${i}`));
    let refused: unknown;
    try {
      planImport(source(file), target(existing), options());
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(Problem);
    expect((refused as Problem).type).toBe('too-many-alters');
    expect((refused as Problem).message).toBe('the import would leave the system with 2100 alters (600 kept, 1500 new); a system can have at most 2000. Nothing was imported');
    // replace frees the room of what it deletes
    expect(planImport(source(file), target(existing), options({ mode: 'replace' })).report.counts.alters).toEqual({ created: 1500, updated: 0, unchanged: 0, deleted: 600 });
  });
});

describe('planImport: tags and memberships', () => {
  it('creates tags with the file members; a membership added to a matched alter is an update', () => {
    const file = source([fileAlter('a', 'alex'), fileAlter('b', 'bo')], { tags: [fileTag('g1', 'Night', ['a', 'b'])] });
    const existing = target([existingAlter(7, 'alex')], { tags: [existingTag(3, 'Night')] });
    const plan = planImport(file, existing, options());
    expect(plan.report.counts.tags).toEqual({ created: 0, updated: 0, unchanged: 1, deleted: 0 });
    expect(plan.report.counts.alters).toEqual({ created: 1, updated: 1, unchanged: 0, deleted: 0 });
    expect(plan.memberships).toEqual(new Map([['a', ['g1']], ['b', ['g1']]]));
  });

  it('replace clears memberships of matched alters and deletes unmatched tags', () => {
    const file = source([fileAlter('a', 'alex')], { tags: [] });
    const existing = target([existingAlter(7, 'alex', { tagIds: [3] })], { tags: [existingTag(3, 'old')] });
    const plan = planImport(file, existing, options({ mode: 'replace' }));
    expect(plan.clearMemberships).toEqual([7]);
    expect(plan.tagDeletes).toEqual([3]);
    // Leaving the deleted tag is the tag's deletion (its tag.deleted), not a change of the alter, as the API's deletion.
    expect(plan.report.counts.alters).toMatchObject({ updated: 0, unchanged: 1 });
    expect(plan.changedMemberships).toEqual(new Set());
  });

  // Alter 7 is in tag 3 (Night) only; the system also has tag 4 (Day). The file's alter `a` matches 7.
  const member = target([existingAlter(7, 'alex', { tagIds: [3] })], { tags: [existingTag(3, 'Night'), existingTag(4, 'Day')] });
  it.each([
    { name: 'merge: joins a tag it was not in', mode: 'merge' as const, tags: [fileTag('g1', 'Night', ['a']), fileTag('g2', 'Day', ['a'])], changed: true },
    { name: 'merge: joins a tag the import creates', mode: 'merge' as const, tags: [fileTag('g1', 'Night', ['a']), fileTag('g3', 'Dusk', ['a'])], changed: true },
    { name: 'merge: already a member', mode: 'merge' as const, tags: [fileTag('g1', 'Night', ['a'])], changed: false },
    { name: 'merge: a file tag without it leaves its tags', mode: 'merge' as const, tags: [fileTag('g1', 'Night', [])], changed: false },
    { name: 'replace: exactly its tags', mode: 'replace' as const, tags: [fileTag('g1', 'Night', ['a']), fileTag('g2', 'Day', [])], changed: false },
    { name: 'replace: leaves a tag the import keeps', mode: 'replace' as const, tags: [fileTag('g1', 'Night', []), fileTag('g2', 'Day', [])], changed: true },
    { name: 'replace: leaves only a tag the import deletes', mode: 'replace' as const, tags: [fileTag('g2', 'Day', [])], changed: false },
  ] as Array<{ name: string; mode: 'merge' | 'replace'; tags: SourceTag[]; changed: boolean }>)('a change of only an alter’s tags is a change of the alter ($name)', ({ mode, tags, changed }) => {
    for (const dryRun of [true, false]) {
      const plan = planImport(source([fileAlter('a', 'alex')], { tags }), member, options({ mode, dryRun }));
      expect(plan.report.counts.alters).toEqual({ created: 0, updated: changed ? 1 : 0, unchanged: changed ? 0 : 1, deleted: 0 });
      expect(plan.changedMemberships).toEqual(new Set(changed ? [7] : []));
      expect(plan.alterUpdates.map((update) => update.values)).toEqual([{}]);
    }
  });

  it('tag names collide like usernames', () => {
    const file = source([], { tags: [fileTag('g1', 'Night'), fileTag('g2', 'NIGHT')] });
    expect(planImport(file, target(), options()).report.renames).toEqual([{ source: 'pluralkit', id: 'g2', name: 'NIGHT', to: 'NIGHT-2' }]);
  });
});

describe('planImport: switches', () => {
  const file = source([fileAlter('a', 'alex')], { switches: [{ at: 1, memberIds: ['a'] }, { at: 2, memberIds: [] }] });

  it.each([
    { name: 'not imported without history, with a warning', history: false, mode: 'merge' as const, times: [], counts: { created: 0, unchanged: 0, deleted: 0 } },
    { name: 'times the system has are left', history: true, mode: 'merge' as const, times: [2, 3], counts: { created: 1, unchanged: 1, deleted: 0 } },
    { name: 'replace deletes the times the file does not have', history: true, mode: 'replace' as const, times: [2, 3], counts: { created: 1, unchanged: 1, deleted: 1 } },
  ])('$name', ({ history, mode, times, counts }) => {
    const plan = planImport(file, target([], { switchTimes: new Set(times) }), options({ history, mode }));
    expect(plan.report.counts.switches).toEqual(counts);
    if (!history) expect(plan.report.warnings).toContain('2 switches of front history were not imported (import with history=true to include them)');
  });
});

describe('planImport: the system', () => {
  it.each([
    { name: 'every alter keeps its tags: the flag is set', keep: [true, true], flags: 0, expected: 1, warned: false },
    { name: 'none does: the flag is cleared', keep: [false, false], flags: 1 | 2, expected: 2, warned: false },
    { name: 'they differ: left as it is, with a warning', keep: [true, false], flags: 0, expected: undefined, warned: true },
  ])('keep proxy: $name', ({ keep, flags, expected, warned }) => {
    const file = source(keep.map((keepProxy, i) => fileAlter(`m${i}`, `m${i}`, { keepProxy })));
    const plan = planImport(file, target([], { system: { ...SYSTEM, flags } }), options());
    expect(plan.system.flags).toBe(expected);
    expect(plan.report.warnings.some((w) => w.includes('kept their proxy tags'))).toBe(warned);
  });

  it('merge writes the fields the file has; add leaves the system alone', () => {
    const file = source([], { system: { name: 'Lanternhouse', description: null, createdAt: 42 } });
    expect(planImport(file, target(), options()).system).toEqual({ name: 'Lanternhouse', createdAt: 42 });
    expect(planImport(file, target(), options({ mode: 'add' })).system).toEqual({});
    // the creation time only for a system with nothing in it yet
    expect(planImport(file, target([existingAlter(1, 'x')]), options()).system).toEqual({ name: 'Lanternhouse' });
  });
});

describe('planImport: custom profile fields', () => {
  const fileField = (id: string, name: string): SourceProfileField => ({ id, name, kind: 'text', privacy: 'owner' });
  const systemField = (id: number, name: string) => ({ id, name, kind: 'text' as const });
  const withFields = (fields: SourceProfileField[] | undefined, values: Record<string, string> = {}) =>
    source([fileAlter('a', 'alex', { profileFields: values })], fields === undefined ? {} : { profileFields: fields });
  const existing = target([existingAlter(7, 'alex')], { profileFields: [systemField(1, 'Role'), systemField(2, 'Likes')] });

  it('counts the fields it creates and those it matches by name (as tag names compare), the same in a preview', () => {
    const file = withFields([fileField('f1', 'ROLE'), fileField('f2', 'Age'), fileField('f3', 'role')], { f1: 'host', f2: '30' });
    for (const dryRun of [true, false]) {
      const plan = planImport(file, existing, options({ dryRun }));
      expect(plan.report.counts.profileFields).toEqual({ created: 1, matched: 1, deleted: 0 });
      expect(plan.profileFields.creates.map((field) => field.name)).toEqual(['Age']);
      expect(plan.profileFields.matched).toEqual(new Map([['f1', 1], ['f3', 1]]));
    }
  });

  it.each([
    { name: 'merge leaves the system’s other fields and values', mode: 'merge' as const, fields: [fileField('f1', 'Role')], deletes: [], clear: [] },
    { name: 'add leaves them too', mode: 'add' as const, fields: [fileField('f1', 'Role')], deletes: [], clear: [] },
    { name: 'replace deletes the fields the file does not have, and clears matched alters’ values', mode: 'replace' as const, fields: [fileField('f1', 'Role')], deletes: [2], clear: [7] },
    { name: 'replace with a file whose system has no fields deletes them all', mode: 'replace' as const, fields: [], deletes: [1, 2], clear: [7] },
    { name: 'replace with a file that cannot say (no field definitions at all) leaves them', mode: 'replace' as const, fields: undefined, deletes: [], clear: [] },
  ])('$name', ({ mode, fields, deletes, clear }) => {
    const plan = planImport(withFields(fields), existing, options({ mode }));
    expect(plan.profileFields.deletes).toEqual(deletes);
    expect(plan.profileFields.clearValues).toEqual(clear);
    expect(plan.report.counts.profileFields.deleted).toBe(deletes.length);
    expect(plan.report.warnings.some((warning) => /not in the file will be deleted/.test(warning))).toBe(deletes.length > 0);
  });

  // Alter 7 holds Role = host and Likes = tea, no Age; the file's alter `a` matches it by name.
  const holding = target([existingAlter(7, 'alex')], {
    profileFields: [systemField(1, 'Role'), systemField(2, 'Likes'), systemField(3, 'Age')],
    profileValues: new Map([[7, new Map([[1, 'host'], [2, 'tea']])]]),
  });
  it.each([
    { name: 'merge: the values it holds already', mode: 'merge' as const, fields: [fileField('f1', 'Role')], values: { f1: 'host' }, changed: false },
    { name: 'merge: none in the file leaves its values', mode: 'merge' as const, fields: [fileField('f1', 'Role')], values: {}, changed: false },
    { name: 'merge: a value changed', mode: 'merge' as const, fields: [fileField('f1', 'Role')], values: { f1: 'guard' }, changed: true },
    { name: 'merge: another of the values it holds', mode: 'merge' as const, fields: [fileField('f1', 'Role'), fileField('f2', 'Likes')], values: { f2: 'tea' }, changed: false },
    { name: 'merge: a value set on a field it had none of', mode: 'merge' as const, fields: [fileField('f1', 'AGE')], values: { f1: '30' }, changed: true },
    { name: 'merge: a value on a field the import creates', mode: 'merge' as const, fields: [fileField('f1', 'Colour')], values: { f1: 'red' }, changed: true },
    { name: 'merge: two file fields of one name, the last value wins', mode: 'merge' as const, fields: [fileField('f1', 'Role'), fileField('f3', 'role')], values: { f3: 'guard', f1: 'host' }, changed: false },
    { name: 'merge: a value that does not fit its field is left out', mode: 'merge' as const, fields: [{ ...fileField('f1', 'Born'), kind: 'date' as const }], values: { f1: 'not a date' }, changed: false },
    { name: 'replace: exactly the values it holds', mode: 'replace' as const, fields: [fileField('f1', 'Role'), fileField('f2', 'Likes')], values: { f1: 'host', f2: 'tea' }, changed: false },
    { name: 'replace: a value cleared', mode: 'replace' as const, fields: [fileField('f1', 'Role'), fileField('f2', 'Likes')], values: { f1: 'host' }, changed: true },
    { name: 'replace: a value changed', mode: 'replace' as const, fields: [fileField('f1', 'Role'), fileField('f2', 'Likes')], values: { f1: 'host', f2: 'coffee' }, changed: true },
    // Likes is deleted, its values with it: the field's deletion, not a change of the alter (as the API's).
    { name: 'replace: a value gone with its deleted field', mode: 'replace' as const, fields: [fileField('f1', 'Role')], values: { f1: 'host' }, changed: false },
    { name: 'replace without field definitions leaves the values', mode: 'replace' as const, fields: undefined, values: {}, changed: false },
  ] as Array<{ name: string; mode: 'merge' | 'replace'; fields: SourceProfileField[] | undefined; values: Record<string, string>; changed: boolean }>)('a change of only an alter’s values is a change of the alter ($name)', ({ mode, fields, values, changed }) => {
    for (const dryRun of [true, false]) {
      const plan = planImport(withFields(fields, values), holding, options({ mode, dryRun }));
      expect(plan.report.counts.alters).toEqual({ created: 0, updated: changed ? 1 : 0, unchanged: changed ? 0 : 1, deleted: 0 });
      expect(plan.profileFields.changedValues).toEqual(new Set(changed ? [7] : []));
      // Nothing else of the alter changes: the values alone make it an update.
      expect(plan.alterUpdates.map((update) => update.values)).toEqual([{}]);
    }
  });

  it('an alter whose columns change is counted once, whatever its values do', () => {
    const plan = planImport(source([fileAlter('a', 'alex', { description: 'new', profileFields: { f1: 'guard' } })], { profileFields: [fileField('f1', 'Role')] }), holding, options());
    expect(plan.report.counts.alters).toMatchObject({ updated: 1, unchanged: 0 });
    expect(plan.profileFields.changedValues).toEqual(new Set([7]));
  });

  it('refuses a file whose fields would not fit, counting the fields replace keeps, before writing', () => {
    const full = target([], { profileFields: Array.from({ length: 99 }, (_, i) => systemField(i + 1, `f${i}`)) });
    const two = source([], { profileFields: [fileField('x', 'New 1'), fileField('y', 'New 2')] });
    expect(() => planImport(two, full, options({ dryRun: true }))).toThrow(expect.objectContaining({ type: 'too-many-profile-fields' }) as Error);
    expect(planImport(two, full, options({ mode: 'replace' })).report.counts.profileFields).toEqual({ created: 2, matched: 0, deleted: 99 });
    expect(() => planImport(source([], { profileFields: [fileField('x', 'f0')] }), full, options())).not.toThrow();
  });
});

describe('planImport: PluralKit ids another source links its alters to', () => {
  it('records each id once, for the first alter naming it, with a warning for the others', () => {
    const file = source([fileAlter('m1', 'ash', { pluralKitId: 'ashxx' }), fileAlter('m2', 'bea'), fileAlter('m3', 'cy', { pluralKitId: 'ashxx' })], { format: 'simplyplural', source: 'simplyplural' });
    const plan = planImport(file, target(), options());
    expect(plan.pluralKitLinks).toEqual([{ sourceId: 'm1', pluralKitId: 'ashxx' }]);
    expect(plan.report.warnings.join('\n')).toMatch(/1 member named a PluralKit member id an earlier member already had; only the first is linked to it and matched by it \("cy"\)/);
  });

  const sp = (alters: SourceAlter[]) => source(alters, { format: 'simplyplural', source: 'simplyplural', sourceSystemId: 'uid' });
  const matched = (plan: ReturnType<typeof planImport>) => Object.fromEntries(plan.matchedAlters);

  it('matches by its own links, then by the PluralKit link of the id, then by name, each pass over the whole file first', () => {
    const existing = [existingAlter(7, 'ash'), existingAlter(8, 'old-bea'), existingAlter(9, 'cy'), existingAlter(10, 'dee')];
    const file = sp([
      // Its own link (to 7) wins over its PluralKit link (to 9).
      fileAlter('m1', 'anything', { pluralKitId: 'ashxx' }),
      // Renamed on both sides: only the PluralKit link finds it.
      fileAlter('m2', 'bea', { pluralKitId: 'beaxx' }),
      // Its PluralKit link names 7, which m1 took by its own link: then the name.
      fileAlter('m3', 'cy', { pluralKitId: 'cyxxx' }),
      // Named like 10, but 10 is linked to a later member's PluralKit id: that one has it (links before names).
      fileAlter('m4', 'dee'),
      fileAlter('m5', 'eli', { pluralKitId: 'deexx' }),
    ]);
    const links = { alterLinks: new Map([['m1', 7]]), pluralKitLinks: new Map([['ashxx', 9], ['beaxx', 8], ['cyxxx', 7], ['deexx', 10]]) };
    const plan = planImport(file, target(existing, links), options());
    expect(matched(plan)).toEqual({ m1: 7, m2: 8, m3: 9, m5: 10 });
    expect(plan.report.counts.alters).toMatchObject({ created: 1, deleted: 0 });
    // 10 takes m5's name, so m4 is created under its own.
    expect(plan.alterCreates.map((create) => [create.sourceId, create.values.username])).toEqual([['m4', 'dee']]);
    // Each id's link is written to the alter its member matched.
    expect(plan.pluralKitLinks).toEqual([
      { sourceId: 'm1', pluralKitId: 'ashxx' }, { sourceId: 'm2', pluralKitId: 'beaxx' }, { sourceId: 'm3', pluralKitId: 'cyxxx' }, { sourceId: 'm5', pluralKitId: 'deexx' },
    ]);
  });

  it('two members with one id: only the first matches by it, the second by name or not at all', () => {
    const existing = [existingAlter(7, 'renamed'), existingAlter(8, 'twin')];
    const plan = planImport(sp([fileAlter('m1', 'ash', { pluralKitId: 'ashxx' }), fileAlter('m2', 'twin', { pluralKitId: 'ashxx' }), fileAlter('m3', 'cy', { pluralKitId: 'ashxx' })]), target(existing, { pluralKitLinks: new Map([['ashxx', 7]]) }), options());
    expect(matched(plan)).toEqual({ m1: 7, m2: 8 });
    expect(plan.report.warnings.join('\n')).toMatch(/2 members named a PluralKit member id an earlier member already had; only the first is linked to it and matched by it \("twin", "cy"\)/);
  });

  it('add matches nothing, as for every file; replace keeps what the PluralKit link matched', () => {
    const existing = [existingAlter(7, 'renamed'), existingAlter(8, 'other')];
    const linked = target(existing, { pluralKitLinks: new Map([['ashxx', 7]]) });
    const file = sp([fileAlter('m1', 'ash', { pluralKitId: 'ashxx' })]);
    expect(matched(planImport(file, linked, options({ mode: 'add' })))).toEqual({});
    const replaced = planImport(file, linked, options({ mode: 'replace' }));
    expect(matched(replaced)).toEqual({ m1: 7 });
    expect(replaced.alterDeletes).toEqual([8]);
    // A link to an alter no longer there matches nothing.
    expect(matched(planImport(file, target([existingAlter(8, 'other')], { pluralKitLinks: new Map([['ashxx', 7]]) }), options()))).toEqual({});
  });

  it('a PluralKit file’s own ids are its links already', () => {
    expect(planImport(source([fileAlter('abcde', 'ash', { pluralKitId: 'abcde' })]), target(), options()).pluralKitLinks).toEqual([]);
  });
});
