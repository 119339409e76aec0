// The visibility condition the queries filter on is the privacy filter's own rule: for every
// alter and tag bitmask, the SQL condition (db/privacy-conditions.ts) keeps exactly the rows that
// viewAlter / viewTag show to another viewer of a system that shows its alters and tags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { type Database } from '../../src/db/database.js';
import { alterVisibleCondition, tagVisibleCondition } from '../../src/db/privacy-conditions.js';
import type { AlterRecord } from '../../src/domain/alter.js';
import { ALTER_PRIVACY_MASK, SystemPrivacy, TAG_PRIVACY_MASK } from '../../src/domain/privacy-bits.js';
import { viewAlter, viewTag, type Viewer } from '../../src/domain/privacy.js';
import type { TagRecord } from '../../src/domain/tag.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';
import { aTag, anAlter } from '../support/fixtures.js';

/** A token that reads alters and systems: these tables are about privacy, not scopes. */
const READS: ReadonlySet<string> = new Set(['alters:read', 'system:read']);
const OTHER: Viewer = { userId: '2', clientId: 'app', systemId: 8, scopes: READS };
const SHOWING = { id: 7, public: SystemPrivacy.alters | SystemPrivacy.tags };

function alter(bits: number): AlterRecord {
  return anAlter({ public: bits });
}

function tag(bits: number): TagRecord {
  return aTag({ public: bits });
}

const masks = (all: number) => Array.from({ length: all + 1 }, (_, mask) => mask);

describe.each(DIALECTS)('the visibility conditions in SQL (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
  });
  afterAll(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  /** The masks a condition keeps, over a derived table named like the real one. */
  async function kept(table: 'alters' | 'tags', all: number): Promise<number[]> {
    const values = sql.join(masks(all).map((mask) => sql`(${sql.lit(mask)})`));
    const condition = table === 'alters' ? alterVisibleCondition() : tagVisibleCondition();
    const { rows } = await sql<{ public: number }>`with ${sql.table(table)}(public) as (values ${values})
      select ${sql.ref(`${table}.public`)} as public from ${sql.table(table)} where ${condition} order by 1`.execute(database.db);
    return rows.map((row) => Number(row.public));
  }

  it('keeps exactly the alters viewAlter shows to another viewer', async () => {
    const shown = masks(ALTER_PRIVACY_MASK).filter((mask) => viewAlter(alter(mask), SHOWING, OTHER) !== undefined);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(ALTER_PRIVACY_MASK + 1);
    expect(await kept('alters', ALTER_PRIVACY_MASK)).toEqual(shown);
  });

  it('keeps exactly the tags viewTag shows to another viewer', async () => {
    const shown = masks(TAG_PRIVACY_MASK).filter((mask) => viewTag(tag(mask), SHOWING, OTHER) !== undefined);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(TAG_PRIVACY_MASK + 1);
    expect(await kept('tags', TAG_PRIVACY_MASK)).toEqual(shown);
  });
});
