// Properties of reading and planning any file (fast-check): whatever a PluralKit- or
// Tupperbox-shaped file holds, reading it either refuses the whole file with a Problem or yields
// values our schemas accept, and a plan never gives two alters or tags the same name.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PROXY_TAGS, Username } from '../../../src/domain/alter.js';
import { readImportFile } from '../../../src/domain/import/detect.js';
import { planImport } from '../../../src/domain/import/plan.js';
import { Problem } from '../../../src/domain/problems.js';
import { usernameKey } from '../../../src/domain/username-key.js';
import { HexColor, HttpUrl } from '../../../src/domain/values.js';
import { aSystem, aTargetAlter } from '../../support/fixtures.js';

const anyValue = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.integer(), fc.constant(null), fc.boolean(), fc.constantFrom('ff6f91', '#ABCDEF', 'https://x.example/a.png', 'public', 'private'));
const name = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('Alex', 'alex', 'ALEX', 'Ａlex', '  ', '@/\\', 'x'.repeat(120), 'a\u200bb', 'ß', 'SS'), anyValue);
const id = fc.oneof(fc.constantFrom('aaaaa', 'bbbbb', 'ccccc', 'ddddd'), fc.nat({ max: 5 }), anyValue);

const member = fc.record(
  {
    id,
    name,
    display_name: name,
    color: anyValue,
    description: anyValue,
    pronouns: anyValue,
    avatar_url: anyValue,
    webhook_avatar_url: anyValue,
    banner: anyValue,
    created: fc.oneof(anyValue, fc.constant('2024-01-01T00:00:00.123456Z')),
    message_count: anyValue,
    keep_proxy: anyValue,
    proxy_tags: fc.oneof(fc.array(fc.record({ prefix: anyValue, suffix: anyValue }, { requiredKeys: [] }), { maxLength: 60 }), anyValue),
    privacy: fc.oneof(
      fc.dictionary(fc.constantFrom('visibility', 'name_privacy', 'description_privacy', 'banner_privacy', 'proxy_privacy'), anyValue),
      anyValue,
    ),
  },
  { requiredKeys: [] },
);
const pluralKit = fc.record(
  {
    version: fc.constantFrom(1, 2, 'x'), name, tag: anyValue, members: fc.array(member, { maxLength: 8 }),
    groups: fc.array(fc.record({ id, name, color: anyValue, members: fc.array(id, { maxLength: 4 }) }, { requiredKeys: [] }), { maxLength: 4 }),
    switches: fc.array(fc.record({ timestamp: fc.oneof(anyValue, fc.constantFrom('2025-01-01T00:00:00Z', '2025-01-01T00:00:00.5Z')), members: fc.array(id, { maxLength: 4 }) }, { requiredKeys: [] }), { maxLength: 6 }),
  },
  { requiredKeys: ['switches'] },
);
const tupperbox = fc.record(
  {
    tuppers: fc.array(
      fc.record(
        {
          id,
          name,
          nick: name,
          brackets: fc.oneof(fc.array(anyValue, { maxLength: 7 }), anyValue),
          posts: anyValue,
          description: anyValue,
          tag: anyValue,
          group_id: id,
        },
        { requiredKeys: [] },
      ),
      { maxLength: 8 },
    ),
    groups: fc.array(fc.record({ id, name, tag: anyValue }, { requiredKeys: [] }), { maxLength: 3 }),
  },
  { requiredKeys: ['tuppers'] },
);

const SYSTEM = aSystem({ name: 'Mine' });
const existing = [aTargetAlter({ id: 1, username: 'alex', displayName: 'Alex' })];

describe('any file', () => {
  it('is read into values our schemas accept, or refused whole with a Problem', () => {
    fc.assert(
      fc.property(fc.oneof(pluralKit, tupperbox), fc.constantFrom('merge', 'add', 'replace') as fc.Arbitrary<'merge' | 'add' | 'replace'>, (file, mode) => {
        let source;
        try {
          source = readImportFile(file);
        } catch (error) {
          expect(error).toBeInstanceOf(Problem);
          return;
        }
        for (const alter of source.alters) {
          expect(Username.safeParse(alter.username).success, alter.username).toBe(true);
          expect(alter.displayName.length).toBeGreaterThan(0);
          expect(alter.displayName.length).toBeLessThanOrEqual(100);
          if (alter.color != null) expect(HexColor.safeParse(alter.color).success).toBe(true);
          for (const url of [alter.avatarUrl, alter.webhookAvatarUrl, alter.banner]) if (url != null) expect(HttpUrl.safeParse(url).success).toBe(true);
          expect(alter.proxyTags.length).toBeLessThanOrEqual(MAX_PROXY_TAGS);
          for (const tag of alter.proxyTags) {
            expect(tag.prefix !== null || tag.suffix !== null).toBe(true);
            expect((tag.prefix ?? '').length).toBeLessThanOrEqual(100);
            expect((tag.suffix ?? '').length).toBeLessThanOrEqual(100);
          }
          expect((alter.description ?? '').length).toBeLessThanOrEqual(1000);
        }
        const plan = planImport(source, { system: SYSTEM, alters: existing, tags: [], alterLinks: new Map(), tagLinks: new Map(), switchTimes: new Set() }, { mode, dryRun: true, history: true, newProxyTagId: () => 'x', now: 0 });
        // Every alter the system has afterwards: the existing ones not deleted (renamed or not), and the new ones.
        const renamed = new Map(plan.alterUpdates.map((update) => [update.alterId, update.values.username]));
        const remaining = existing.filter((alter) => !plan.alterDeletes.includes(alter.id)).map((alter) => renamed.get(alter.id) ?? alter.username);
        const names = [...remaining, ...plan.alterCreates.map((create) => create.values.username)];
        expect(new Set(names.map(usernameKey)).size).toBe(names.length);
        for (const username of names) expect(Username.safeParse(username).success).toBe(true);
        const tagNames = plan.tagCreates.map((create) => create.values.name);
        expect(new Set(tagNames.map(usernameKey)).size).toBe(tagNames.length);
        expect(plan.report.counts.alters.created + plan.report.counts.alters.updated + plan.report.counts.alters.unchanged).toBe(source.alters.length);
      }),
      { numRuns: 400 },
    );
  });
});
