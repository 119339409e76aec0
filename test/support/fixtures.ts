// Stored records for tests that call the domain directly: one plain, valid record of each kind,
// which a test overrides where its case differs. A field added to a record is then added here once,
// not in every test that spells the record out.
import { ALTER_DEFAULTS, type AlterRecord } from '../../src/domain/alter.js';
import type { TargetAlter } from '../../src/domain/import/plan.js';
import { SYSTEM_DEFAULTS, type SystemRecord } from '../../src/domain/system.js';
import { TAG_DEFAULTS, type TagRecord } from '../../src/domain/tag.js';

/** A system with nothing set: every field at its default (SYSTEM_DEFAULTS), but a latch that never expires. */
export function aSystem(overrides: Partial<SystemRecord> = {}): SystemRecord {
  return { id: 1, userId: '200000000000000001', ...SYSTEM_DEFAULTS, latchExpiration: 0, createdAt: 0, ...overrides };
}

/** An alter as the import planner and the export see it (no system id, tags or integration fields): every field at its default. */
export function aTargetAlter(overrides: Partial<TargetAlter> = {}): TargetAlter {
  return { id: 11, username: 'ash', displayName: 'Ash', ...ALTER_DEFAULTS, messageCount: 0, lastMessageAt: null, createdAt: 0, tagIds: [], ...overrides };
}

/** An alter as repositories return it: in system 7, no tags, no integration or profile fields. */
export function anAlter(overrides: Partial<AlterRecord> = {}): AlterRecord {
  return { ...aTargetAlter(), systemId: 7, tags: [], fields: {}, profileFields: [], ...overrides };
}

/** A tag of system 7 with no members and nothing but its name set. */
export function aTag(overrides: Partial<TagRecord> = {}): TagRecord {
  return { id: 3, systemId: 7, ...TAG_DEFAULTS, name: 'crew', displayName: 'Crew', createdAt: 0, members: [], ...overrides };
}
