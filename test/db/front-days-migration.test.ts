// The front-days migration on a database that already has switches, on every dialect: each
// system's summary is built from its switches (nothing left marked behind), statistics read from it
// equal the fold over every switch, later writes keep it, and going down removes it all.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { frontStatsOf, switchesForStats } from '../../src/db/repositories/front-days.js';
import type { Schema } from '../../src/db/tables.js';
import { DAY_MS } from '../../src/domain/front-days.js';
import { frontStats } from '../../src/domain/front-stats.js';
import { usernameKey } from '../../src/domain/username-key.js';
import { DIALECTS } from '../support/dialects.js';
import { insertSystem, migrateTo, migrationBefore, openDatabaseAt, type DatabaseAt } from '../support/migrations.js';

const MIGRATION = '2026-11-28T00-stats-front-days';
const PREVIOUS = migrationBefore(MIGRATION);

describe.each(DIALECTS)('front-days migration (%s)', (dialect) => {
  let opened: DatabaseAt | undefined;
  let db: Kysely<any>;
  const now = Date.UTC(2026, 10, 1);

  beforeEach(async () => {
    opened = await openDatabaseAt(dialect, PREVIOUS);
    ({ db } = opened);
  });
  afterEach(async () => opened?.close());

  async function history(userId: string): Promise<number> {
    const systemId = await insertSystem(db, userId, now);
    const alters = await db
      .insertInto('alters')
      .values([1, 2, 3].map((k) => ({ system_id: systemId, username: `${userId}-${k}`, username_key: usernameKey(`${userId}-${k}`), display_name: `A${k}`, created_at: now })))
      .returning('id')
      .execute();
    const ids = alters.map((row) => Number(row.id));
    // Over 40 days, at times inside days and on their edges: co-fronts, a switch-out, one alter.
    const fronts = [[ids[0]], [ids[0], ids[1]], [], [ids[2], ids[0]], [ids[1]]];
    for (let k = 0; k < 30; k++) {
      const at = now - 40 * DAY_MS + k * Math.round(1.3 * DAY_MS) + (k % 3 === 0 ? 0 : 7_000);
      const row = await db.insertInto('switches').values({ system_id: systemId, client_id: 'bot', switched_at: at }).returning('id').executeTakeFirstOrThrow();
      const front = fronts[k % fronts.length] as number[];
      if (front.length > 0) await db.insertInto('switch_members').values(front.map((alterId, position) => ({ switch_id: row.id, alter_id: alterId, position }))).execute();
    }
    return systemId;
  }

  it('builds each system’s summary from its switches, read as the fold reads them', async () => {
    const systems = [await history('710000000000000001'), await history('710000000000000002')];
    await migrateTo(db, MIGRATION);
    const typed = db as unknown as Kysely<Schema>;
    expect(await typed.selectFrom('front_days_stale').selectAll().execute()).toEqual([]);
    for (const systemId of systems) {
      const days = await typed.selectFrom('front_days').select('day').where('system_id', '=', systemId).where('span', '=', 1).execute();
      expect(days.length).toBeGreaterThan(30);
      for (const [from, to] of [
        [now - 45 * DAY_MS, now],
        [now - 30 * DAY_MS + 5_000, now - 3 * DAY_MS - 1],
      ] as const) {
        for (const primary of [false, true]) {
          const filter = { primary, shown: () => true };
          const folded = frontStats({ from, to, switches: await switchesForStats(typed, systemId, from, to), ...filter });
          expect(await frontStatsOf(typed, systemId, from, to, filter)).toEqual(folded);
        }
      }
    }
  });

  it('goes down leaving the switches as they were', async () => {
    const systemId = await history('710000000000000003');
    await migrateTo(db, MIGRATION);
    await migrateTo(db, PREVIOUS);
    const count = await db.selectFrom('switches').select((eb) => eb.fn.countAll().as('n')).where('system_id', '=', systemId).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(30);
    // Writes work without the summary's triggers.
    await db.insertInto('switches').values({ system_id: systemId, client_id: 'bot', switched_at: now }).execute();
    await expect(db.selectFrom('front_days').selectAll().execute()).rejects.toThrow();
  });
});
