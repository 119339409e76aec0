// The tag rules of the one privacy module, as tables: when a tag exists for another viewer, which
// of its fields each bit shows, and when a membership (alter in tag) is shown from either end.
import { describe, expect, it } from 'vitest';
import type { AlterRecord } from '../../src/domain/alter.js';
import { membershipShown, tagLoadPolicy, viewAlter, viewTag, type Viewer } from '../../src/domain/privacy.js';
import type { TagRecord } from '../../src/domain/tag.js';
import { aTag, anAlter } from '../support/fixtures.js';

/** A token that reads alters and systems: these tables are about privacy, not scopes. */
const READS: ReadonlySet<string> = new Set(['alters:read', 'system:read']);
const OWNER: Viewer = { userId: '1', clientId: 'app', systemId: 7, scopes: READS };
const OTHER: Viewer = { userId: '2', clientId: 'app', systemId: 8, scopes: READS };
const MACHINE: Viewer = { userId: null, clientId: 'app', systemId: null, scopes: READS };

const system = (bits: number) => ({ id: 7, public: bits });

function tag(bits: number, members: Array<{ id: number; public: number }> = []): TagRecord {
  return aTag({ description: 'd', color: '#010203', icon: 'https://i.example/t.png', public: bits, members });
}

function alter(bits: number, tags: Array<{ id: number; public: number }>): AlterRecord {
  return anAlter({ public: bits, tagIds: tags.map((t) => t.id), tags });
}

describe('membershipShown', () => {
  // [system bits, alter bits, tag bits, shown to others]
  it.each([
    [64 | 128, 1 | 128, 1 | 32, true],
    [64, 1 | 128, 1 | 32, false], // the system hides its tags
    [128, 1 | 128, 1 | 32, false], // the system hides its alters
    [64 | 128, 128, 1 | 32, false], // the alter is not visible
    [64 | 128, 1, 1 | 32, false], // the alter hides its tags
    [64 | 128, 1 | 128, 32, false], // the tag is not visible
    [64 | 128, 1 | 128, 1, false], // the tag hides its members
    [255, 1023, 63, true],
    [0, 0, 0, false],
  ])('system %i, alter %i, tag %i: %s', (systemBits, alterBits, tagBits, shown) => {
    expect(membershipShown(system(systemBits), alterBits, tagBits, OTHER)).toBe(shown);
    expect(membershipShown(system(systemBits), alterBits, tagBits, MACHINE)).toBe(shown);
    expect(membershipShown(system(systemBits), alterBits, tagBits, OWNER)).toBe(true);
  });

  it('is the same pairs from both ends: the alter’s tagIds and the tag’s alterIds agree', () => {
    for (let systemBits = 0; systemBits < 256; systemBits += 64) {
      for (const alterBits of [0, 1, 128, 129]) {
        for (const tagBits of [0, 1, 32, 33, 63]) {
          const viewedAlter = viewAlter(alter(alterBits, [{ id: 3, public: tagBits }]), system(systemBits), OTHER);
          const viewedTag = viewTag(tag(tagBits, [{ id: 11, public: alterBits }]), system(systemBits), OTHER);
          const fromAlter = viewedAlter?.tagIds.includes(3) ?? false;
          const fromTag = viewedTag?.alterIds.includes(11) ?? false;
          expect({ systemBits, alterBits, tagBits, fromAlter }).toEqual({ systemBits, alterBits, tagBits, fromAlter: fromTag });
        }
      }
    }
  });
});

describe('viewTag', () => {
  it('hides a tag from others unless the system shows tags and the tag is visible', () => {
    expect(viewTag(tag(63), system(128), OTHER)).toBeDefined();
    expect(viewTag(tag(62), system(128), OTHER)).toBeUndefined();
    expect(viewTag(tag(63), system(127), OTHER)).toBeUndefined();
    expect(tagLoadPolicy(system(127), OTHER)).toBeUndefined();
    expect(tagLoadPolicy(system(128), OTHER)).toEqual({ onlyVisible: true });
    expect(tagLoadPolicy(system(0), OWNER)).toEqual({ onlyVisible: false });
    expect(viewTag(tag(0), system(0), OWNER)?.redacted).toEqual([]);
  });

  // [bit, fields it shows]
  it.each([
    [2, ['name', 'displayName']],
    [4, ['description']],
    [8, ['icon']],
    [16, ['color']],
    [32, ['alterIds']],
  ] as const)('bit %i shows %j', (bit, fields) => {
    const all = ['name', 'displayName', 'description', 'icon', 'color', 'alterIds'];
    const record = tag(1 | bit, [{ id: 11, public: 1 | 128 }]);
    const view = viewTag(record, system(64 | 128), OTHER);
    expect(view?.redacted.sort()).toEqual(all.filter((field) => !(fields as readonly string[]).includes(field)).sort());
    const owner = viewTag(record, system(64 | 128), OWNER);
    for (const field of all) {
      const value = view?.[field as keyof typeof view];
      if ((fields as readonly string[]).includes(field)) expect(value).toEqual(owner?.[field as keyof typeof owner]);
      else expect(value).toEqual(field === 'alterIds' ? [] : null);
    }
  });
});
