// Front statistics from the per-day summary (repositories/front-days.ts) against the pure fold over
// every switch (domain/front-stats.ts), on random histories written as the service writes them:
// switches created (co-fronts, switch-outs, late ones), edited (alters, time, moved past others),
// deleted (with their later twins), alters deleted (their places cascading), and switches written
// behind the summary's back (as a writer that does not settle would). For random periods (edges
// inside days and on them, short and up to years), tag members, primary=true and hidden alters,
// the two answers must be equal to the millisecond, and so must each part of a period cut at any
// instants (frontStatsInParts) be to the fold of that part alone; and the summary kept write by
// write must be the one built from scratch. Both databases (PostgreSQL with TEST_DATABASE_URL).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/database.js';
import { deleteAlter } from '../../src/db/repositories/alters.js';
import { frontStatsInParts, frontStatsOf, settleFrontDays, switchesForStats } from '../../src/db/repositories/front-days.js';
import { deleteSwitch, editSwitch, recordSwitch } from '../../src/db/repositories/switches.js';
import { DAY_MS, frontDaySpans } from '../../src/domain/front-days.js';
import { frontStats, type StatsFilter } from '../../src/domain/front-stats.js';
import { Problem } from '../../src/domain/problems.js';
import { usernameKey } from '../../src/domain/username-key.js';
import { closeTestDatabase, DIALECTS, openMigratedTestDatabase, type TestDatabase } from '../support/dialects.js';

/** The writes' actor: an app of no particular account. */
const BOT = { clientId: 'bot', accountId: null };
const T0 = Date.UTC(2025, 0, 1);
const ALTERS = 5;
const RUNS = Math.max(5, Math.round(40 * Number(process.env.FUZZ_SCALE ?? 1)));

/** A time near day boundaries more often than not: the summary's edges. */
const time = (maxDays: number) =>
  fc
    .tuple(fc.integer({ min: -2, max: maxDays }), fc.oneof(fc.constantFrom(0, 1, DAY_MS - 1, DAY_MS / 2), fc.integer({ min: 0, max: DAY_MS - 1 })))
    .map(([day, offset]) => T0 + day * DAY_MS + offset);

const alterPicks = fc.array(fc.integer({ min: 0, max: ALTERS - 1 }), { maxLength: 3 }).map((picks) => [...new Set(picks)]);

type Op =
  | { kind: 'create'; at: number; alters: number[] }
  | { kind: 'edit'; pick: number; at: number | undefined; alters: number[] | undefined }
  | { kind: 'delete'; pick: number }
  | { kind: 'delete-alter'; alter: number }
  | { kind: 'behind'; at: number; alters: number[] };

const op = (maxDays: number): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('create' as const), at: time(maxDays), alters: alterPicks }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('edit' as const), pick: fc.nat(), at: fc.option(time(maxDays), { nil: undefined }), alters: fc.option(alterPicks, { nil: undefined }) }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete-alter' as const), alter: fc.integer({ min: 0, max: ALTERS - 1 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('behind' as const), at: time(maxDays), alters: alterPicks }) },
  );

const query = (maxDays: number) =>
  fc.record({
    a: time(maxDays + 2),
    b: time(maxDays + 2),
    primary: fc.boolean(),
    members: fc.option(fc.subarray([0, 1, 2, 3, 4]), { nil: undefined }),
    hidden: fc.subarray([0, 1, 2, 3, 4], { maxLength: 2 }),
    // Where the period is also cut into parts (frontStatsInParts): any times, plus every midnight
    // of a time zone `zoneHours` from UTC (0: UTC days, which the summary serves whole).
    cuts: fc.array(time(maxDays + 2), { maxLength: 6 }),
    zoneHours: fc.option(fc.constantFrom(0, -3.5, 5.75, 13), { nil: undefined }),
  });

const history = fc.constantFrom(12, 40, 700).chain((maxDays) =>
  fc.record({ ops: fc.array(op(maxDays), { minLength: 1, maxLength: 30 }), queries: fc.array(query(maxDays), { minLength: 1, maxLength: 8 }) }),
);

/** Every summary row of the system, as text (for "kept write by write" = "built from scratch"). */
async function summaryOf(database: Database, systemId: number): Promise<string[]> {
  const times = await database.db.selectFrom('front_days').select(['span', 'day', 'alter_list', 'ms', 'last_at']).where('system_id', '=', systemId).execute();
  const entries = await database.db.selectFrom('front_day_entries').select(['span', 'day', 'alter_id', 'entries', 'primary_entries']).where('system_id', '=', systemId).execute();
  return [
    ...times.map((r) => `t ${r.span} ${r.day} [${r.alter_list}] ${Number(r.ms)} ${Number(r.last_at)}`),
    ...entries.map((r) => `e ${r.span} ${r.day} ${r.alter_id} ${r.entries} ${r.primary_entries}`),
  ].sort();
}

describe('frontDaySpans', () => {
  it.each([
    [0, 0, []],
    [3, 5, [{ span: 1, from: 3, to: 5 }]],
    [5, 20, [{ span: 1, from: 5, to: 8 }, { span: 4, from: 8, to: 20 }]],
    [
      -3,
      70,
      [
        { span: 1, from: -3, to: 0 },
        { span: 1, from: 68, to: 70 },
        { span: 4, from: 64, to: 68 },
        { span: 64, from: 0, to: 64 },
      ],
    ],
    [
      -3,
      1100,
      [
        { span: 1, from: -3, to: 0 },
        { span: 4, from: 1088, to: 1100 },
        { span: 64, from: 1024, to: 1088 },
        { span: 1024, from: 0, to: 1024 },
      ],
    ],
  ])('%i to %i', (first, end, ranges) => {
    expect(frontDaySpans(first, end)).toEqual(ranges);
  });

  it('covers every day once, with runs aligned to their size', () => {
    fc.assert(
      fc.property(fc.integer({ min: -3000, max: 3000 }), fc.integer({ min: 0, max: 2000 }), (first, length) => {
        const covered: number[] = [];
        for (const range of frontDaySpans(first, first + length)) {
          expect(((range.from % range.span) + range.span) % range.span).toBe(0);
          expect(((range.to % range.span) + range.span) % range.span).toBe(0);
          for (let day = range.from; day < range.to; day += 1) covered.push(day);
        }
        expect(covered.sort((x, y) => x - y)).toEqual(Array.from({ length }, (_, k) => first + k));
      }),
      { numRuns: 300 },
    );
  });
});

describe.each(DIALECTS)('front statistics from the summary (%s)', (dialect) => {
  let opened: { testDatabase: TestDatabase; database: Database } | undefined;
  let users = 0;
  beforeAll(async () => {
    opened = await openMigratedTestDatabase(dialect);
  });
  afterAll(async () => {
    if (opened) await closeTestDatabase(opened);
  });

  async function newSystem(database: Database): Promise<{ systemId: number; alterIds: number[] }> {
    const { db } = database;
    users += 1;
    const userId = String(600_000_000_000_000_000n + BigInt(users));
    await db.insertInto('users').values({ id: userId, username: `stats-${users}`, created_at: T0 }).execute();
    const system = await db.insertInto('systems').values({ user_id: userId, name: 'Stats', created_at: T0 }).returning('id').executeTakeFirstOrThrow();
    const alters = await db
      .insertInto('alters')
      .values(
        Array.from({ length: ALTERS }, (_, k) => ({ system_id: system.id, username: `a${users}-${k}`, username_key: usernameKey(`a${users}-${k}`), display_name: `A ${k}`, created_at: T0 })),
      )
      .returning('id')
      .execute();
    return { systemId: Number(system.id), alterIds: alters.map((row) => Number(row.id)) };
  }

  it('answers as the fold over every switch, for any history, period and filter', async () => {
    const database = opened?.database as Database;
    const { db } = database;
    await fc.assert(
      fc.asyncProperty(history, async ({ ops, queries }) => {
        const { systemId, alterIds } = await newSystem(database);
        const field = (index: number) => `alters.${index}`;
        const ids = (picks: number[]) => picks.map((pick) => alterIds[pick] as number);
        const switchIds = async () => (await db.selectFrom('switches').select('id').where('system_id', '=', systemId).orderBy('id').execute()).map((row) => Number(row.id));
        for (const step of ops) {
          try {
            if (step.kind === 'create') await recordSwitch(db, systemId, { clientId: 'bot', accountId: null, alterIds: ids(step.alters), switchedAt: step.at }, field);
            if (step.kind === 'edit' || step.kind === 'delete') {
              const existing = await switchIds();
              const target = existing[step.pick % Math.max(1, existing.length)];
              if (target === undefined) continue;
              if (step.kind === 'delete') await deleteSwitch(db, systemId, target, BOT);
              else {
                const edit = { ...(step.at !== undefined ? { switchedAt: step.at } : {}), ...(step.alters ? { alterIds: ids(step.alters) } : {}) };
                await editSwitch(db, systemId, target, edit, BOT, field);
              }
            }
            if (step.kind === 'delete-alter') await deleteAlter(db, systemId, alterIds[step.alter] as number, BOT);
            if (step.kind === 'behind') {
              const alive = new Set((await db.selectFrom('alters').select('id').where('system_id', '=', systemId).execute()).map((row) => Number(row.id)));
              // A writer that does not settle: the triggers mark the summary behind.
              await db.transaction().execute(async (trx) => {
                const created = await trx
                  .insertInto('switches')
                  .values({ system_id: systemId, client_id: 'import', switched_at: step.at })
                  .returning('id')
                  .executeTakeFirstOrThrow();
                const members = ids(step.alters)
                  .filter((alterId) => alive.has(alterId))
                  .map((alterId, position) => ({ switch_id: created.id, alter_id: alterId, position }));
                if (members.length > 0) await trx.insertInto('switch_members').values(members).execute();
              });
            }
          } catch (error) {
            // Refusals (a repeated front, an alter deleted already) change nothing.
            if (!(error instanceof Problem)) throw error;
          }
        }
        const check = async () => {
          for (const q of queries) {
            const from = Math.min(q.a, q.b);
            const to = Math.max(q.a, q.b);
            const hidden = new Set(ids(q.hidden));
            const members = q.members ? { members: new Set(ids(q.members)) } : {};
            const filter: StatsFilter = { primary: q.primary, shown: (alterId) => !hidden.has(alterId), ...members };
            const expected = frontStats({ from, to, switches: await switchesForStats(db, systemId, from, to), ...filter });
            expect(await frontStatsOf(db, systemId, from, to, filter), `${new Date(from).toISOString()}..${new Date(to).toISOString()} ${JSON.stringify(q)}`).toEqual(expected);
            // In parts: each part is the fold of that part alone, the whole the fold of the whole.
            const midnights: number[] = [];
            if (q.zoneHours !== undefined) {
              const shift = q.zoneHours * 3_600_000;
              for (let at = Math.ceil((from + shift) / DAY_MS) * DAY_MS - shift; at < to; at += DAY_MS) midnights.push(at);
            }
            const cuts = [...new Set([...q.cuts, ...midnights])].filter((at) => at > from && at < to).sort((x, y) => x - y);
            const inParts = await frontStatsInParts(db, systemId, from, to, cuts, filter);
            const bounds = [from, ...cuts, to];
            const expectedParts = await Promise.all(
              bounds.slice(1).map(async (end, k) => {
                const start = bounds[k] as number;
                return frontStats({ from: start, to: end, switches: await switchesForStats(db, systemId, start, end), ...filter });
              }),
            );
            expect(inParts, `in parts at ${cuts.map((at) => new Date(at).toISOString()).join(',')}`).toEqual({ ...expected, parts: expectedParts });
          }
          // Whole days on both sides, the whole history.
          const everything = { primary: false, shown: () => true };
          const wide = [T0 - 3 * DAY_MS, T0 + 800 * DAY_MS] as const;
          const folded = frontStats({ from: wide[0], to: wide[1], switches: await switchesForStats(db, systemId, ...wide), ...everything });
          expect(await frontStatsOf(db, systemId, ...wide, everything)).toEqual(folded);
          // The whole history in UTC days and in days 3.5 hours behind UTC: each day the fold of that day.
          for (const shift of [0, -3.5 * 3_600_000]) {
            const cuts: number[] = [];
            for (let at = wide[0] + DAY_MS - shift; at < wide[1]; at += DAY_MS) cuts.push(at);
            const all = await switchesForStats(db, systemId, ...wide);
            const bounds = [wide[0], ...cuts, wide[1]];
            const days = bounds.slice(1).map((end, k) => {
              const start = bounds[k] as number;
              const before = all.filter((entry) => entry.at < start).at(-1);
              const within = all.filter((entry) => entry.at >= start && entry.at < end);
              return frontStats({ from: start, to: end, switches: before ? [before, ...within] : within, ...everything });
            });
            expect(await frontStatsInParts(db, systemId, ...wide, cuts, everything)).toEqual({ ...folded, parts: days });
          }
        };
        // Behind (if a writer did not settle): read from the switches; then settled, from the summary.
        await check();
        await db.transaction().execute((trx) => settleFrontDays(trx, systemId));
        expect(await db.selectFrom('front_days_stale').select('system_id').where('system_id', '=', systemId).execute()).toEqual([]);
        await check();
        // What was kept write by write is what a rebuild from scratch gives.
        const kept = await summaryOf(database, systemId);
        await db.transaction().execute(async (trx) => {
          await trx.insertInto('front_days_stale').values({ system_id: systemId, lo: T0 - 10 * DAY_MS, hi: T0 + 1000 * DAY_MS }).execute();
          await settleFrontDays(trx, systemId);
        });
        expect(await summaryOf(database, systemId)).toEqual(kept);
      }),
      { numRuns: RUNS, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );
  }, 600_000);
});
