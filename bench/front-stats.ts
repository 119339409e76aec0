// Front statistics at scale (issue 27): one system with 100,000 switches over a year (1 to 3 of 20
// alters each; 10,000 with --quick), statistics of random periods within that year (and the whole
// year, the worst case) read as GET /front/stats reads them: `frontStatsOf`, whole days from the
// per-day summary and the edge days from the switches. Target: p99 under 50 ms on both databases.
// Baselines, in the same run: the year's switch rows read plainly (one row each, nothing computed),
// and the same periods read as before the summary (every switch of the period folded by
// `frontStats`), whose answers each summary answer must equal.
//
// Run alone: node --import tsx bench/front-stats.ts [--quick] [--postgres]
// (--postgres uses BENCH_DATABASE_URL or TEST_DATABASE_URL). bench/run.ts runs it as group
// `front-stats` (rows 11c, 11d).
import { pathToFileURL } from 'node:url';
import { migrateToLatest, openDatabase, type Database } from '../src/db/database.js';
import { frontStatsInParts, frontStatsOf, settleFrontDays, switchesForStats } from '../src/db/repositories/front-days.js';
import { DAY_MS } from '../src/domain/front-days.js';
import { frontStats } from '../src/domain/front-stats.js';
import { recordSwitch } from '../src/db/repositories/switches.js';
import { usernameKey } from '../src/domain/username-key.js';
import { createTestDatabase } from '../test/support/dialects.js';

export interface FrontStatsBenchOptions {
  quick: boolean;
  dialect: 'sqlite' | 'postgres';
  postgresUrl?: string;
}

export interface Timing {
  p50: number;
  p99: number;
  max: number;
}

export interface FrontStatsBenchResult {
  switches: number;
  seedSeconds: number;
  /** Building the per-day summary of the seeded year (settleFrontDays, as the migration does). */
  summarySeconds: number;
  summaryRows: number;
  /** Random periods within the year. */
  random: Timing & { runs: number };
  /** The whole year. */
  year: Timing & { runs: number };
  /** Baseline, same run: the whole year's switch rows read plainly (one row each, no processing). */
  plainYear: Timing & { runs: number };
  /** Baseline, same run: the first quarter of the same random periods and of the year's reads, folded from every switch (before the summary). */
  foldRandom: Timing & { runs: number };
  foldYear: Timing & { runs: number };
  /** A switch recorded at the end of the history (recordSwitch, the summary settled in its transaction). */
  write: Timing & { runs: number };
  /** settleFrontDays alone for such a switch, inside its transaction (the write's added work). */
  settle: Timing & { runs: number };
  /**
   * The last 365 days part by part (the dashboard's per-day view of a year): one frontStatsInParts
   * (GET /front/stats?boundaries=…) against 365 frontStatsOf calls (a request per day), in UTC
   * days (the summary serves each whole) and in days 3.5 hours behind UTC (it serves none).
   */
  daily: Record<'utc' | 'offset', { parts: Timing & { runs: number }; calls: Timing & { runs: number } }>;
}

const YEAR = 365 * 24 * 3_600_000;
const BATCH = 500;

/** A small deterministic generator, so every run reads the same periods. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

async function seed(db: Database['db'], switches: number, now: number): Promise<number> {
  await db.insertInto('users').values({ id: '500000000000000011', username: 'bench-stats', created_at: now }).execute();
  const system = await db.insertInto('systems').values({ user_id: '500000000000000011', name: 'Bench', created_at: now }).returning('id').executeTakeFirstOrThrow();
  await seedSwitches(db, Number(system.id), switches, now);
  return Number(system.id);
}

/** 20 alters and `switches` switches over the year before `now` (1 to 3 alters each) for an existing system. */
export async function seedSwitches(db: Database['db'], systemId: number, switches: number, now: number): Promise<void> {
  const system = { id: systemId };
  const alters = await db
    .insertInto('alters')
    .values(Array.from({ length: 20 }, (_, k) => ({ system_id: system.id, username: `alter-${k}`, username_key: usernameKey(`alter-${k}`), display_name: `Alter ${k}`, created_at: now })))
    .returning('id')
    .execute();
  const alterIds = alters.map((row) => Number(row.id));
  const first = now - YEAR;
  const step = YEAR / switches;
  const next = random(7);
  for (let done = 0; done < switches; done += BATCH) {
    const count = Math.min(BATCH, switches - done);
    await db.transaction().execute(async (trx) => {
      const created = await trx
        .insertInto('switches')
        .values(Array.from({ length: count }, (_, k) => ({ system_id: system.id, client_id: 'bot', switched_at: Math.round(first + (done + k) * step) })))
        .returning('id')
        .execute();
      const members = created.flatMap((row, k) => {
        const size = 1 + Math.floor(next() * 3);
        const start = (done + k) % alterIds.length;
        return Array.from({ length: size }, (_, position) => ({
          switch_id: row.id,
          alter_id: alterIds[(start + position * 7) % alterIds.length] as number,
          position,
        }));
      });
      await trx.insertInto('switch_members').values(members).execute();
    });
  }
}

function timing(times: number[]): Timing {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

export async function benchFrontStats(opts: FrontStatsBenchOptions): Promise<FrontStatsBenchResult> {
  const switches = opts.quick ? 10_000 : 100_000;
  const runs = opts.quick ? 50 : 400;
  const target = await createTestDatabase(opts.dialect, opts.postgresUrl ?? process.env.TEST_DATABASE_URL);
  const database = openDatabase(target.url);
  try {
    const { db } = database;
    await migrateToLatest(db);
    const now = Date.now();
    const seedStarted = performance.now();
    const systemId = await seed(db, switches, now);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const summaryStarted = performance.now();
    await db.transaction().execute((trx) => settleFrontDays(trx, systemId));
    const summarySeconds = (performance.now() - summaryStarted) / 1000;
    const counted = await db
      .selectNoFrom((eb) => [
        eb.selectFrom('front_days').select((s) => s.fn.countAll<number>().as('n')).as('times'),
        eb.selectFrom('front_day_entries').select((s) => s.fn.countAll<number>().as('n')).as('entries'),
      ])
      .executeTakeFirstOrThrow();
    const summaryRows = Number(counted.times) + Number(counted.entries);
    const everyone = { primary: false, shown: () => true };
    const read = async (from: number, to: number) => {
      const started = performance.now();
      const stats = await frontStatsOf(db, systemId, from, to, everyone);
      if (stats.alters.length === 0) throw new Error('statistics of a seeded period are never empty');
      return performance.now() - started;
    };
    const fold = async (from: number, to: number) => {
      const started = performance.now();
      const rows = await switchesForStats(db, systemId, from, to);
      const stats = frontStats({ from, to, switches: rows, ...everyone });
      if (stats.alters.length === 0) throw new Error('statistics of a seeded period are never empty');
      return performance.now() - started;
    };
    const next = random(42);
    const periods = Array.from({ length: runs }, () => {
      const a = Math.round(now - YEAR + next() * YEAR);
      const b = Math.round(now - YEAR + next() * YEAR);
      return [Math.min(a, b), Math.max(a, b)] as const;
    });
    // The summary's answers are the fold's, exactly (checked on a sample, outside the timings).
    for (const [from, to] of [...periods.slice(0, 20), [now - YEAR - 1, now] as const]) {
      const summed = JSON.stringify(await frontStatsOf(db, systemId, from, to, everyone));
      const folded = JSON.stringify(frontStats({ from, to, switches: await switchesForStats(db, systemId, from, to), ...everyone }));
      if (summed !== folded) throw new Error(`the summary's answer differs from the fold's for ${new Date(from).toISOString()}..${new Date(to).toISOString()}`);
    }
    const yearRuns = Math.max(20, runs / 4);
    const measure = async (each: (from: number, to: number) => Promise<number>, share: number) => {
      for (let i = 0; i < 10; i++) await each(now - YEAR, now);
      const randomTimes: number[] = [];
      for (const [from, to] of periods.slice(0, Math.ceil(periods.length * share))) randomTimes.push(await each(from, to));
      const yearTimes: number[] = [];
      for (let i = 0; i < Math.ceil(yearRuns * share); i++) yearTimes.push(await each(now - YEAR - 1, now));
      return { random: { ...timing(randomTimes), runs: randomTimes.length }, year: { ...timing(yearTimes), runs: yearTimes.length } };
    };
    const summary = await measure(read, 1);
    // The fold takes 50 to 100 times as long: a quarter of the periods is enough for its figures.
    const folded = await measure(fold, 0.25);
    const plainTimes: number[] = [];
    for (let i = 0; i < yearRuns / 4; i++) {
      const started = performance.now();
      await db.selectFrom('switches').select(['switched_at', 'alter_list']).where('system_id', '=', systemId).where('switched_at', '>=', now - YEAR - 1).where('switched_at', '<', now).execute();
      plainTimes.push(performance.now() - started);
    }
    // The write's side: a switch recorded at the end of the history (as POST /front records one),
    // which now also brings the summary up to date in its transaction.
    const writeTimes: number[] = [];
    const alterIds = (await db.selectFrom('alters').select('id').where('system_id', '=', systemId).orderBy('id').execute()).map((row) => Number(row.id));
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      await recordSwitch(db, systemId, { clientId: 'bot', accountId: null, alterIds: [alterIds[i % 2] as number], switchedAt: now + i * 60_000 }, (index) => `alters.${index}`);
      writeTimes.push(performance.now() - started);
    }
    // Its share: the summary settled for such a switch alone (marked as the triggers mark it).
    const settleTimes: number[] = [];
    for (let i = 0; i < 50; i++) {
      const at = now + (50 + i) * 60_000;
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('switches').values({ system_id: systemId, client_id: 'bot', switched_at: at }).execute();
        const started = performance.now();
        await settleFrontDays(trx, systemId);
        settleTimes.push(performance.now() - started);
      });
    }
    // A year day by day: in one request against a request per day (answers checked equal first).
    const dailyOf = async (shiftHours: number) => {
      const shift = shiftHours * 3_600_000;
      const end = Math.floor((now + shift) / DAY_MS) * DAY_MS - shift;
      const bounds = Array.from({ length: 366 }, (_, k) => end - (365 - k) * DAY_MS);
      const start = bounds[0] as number;
      const cuts = bounds.slice(1, -1);
      const inParts = await frontStatsInParts(db, systemId, start, end, cuts, everyone);
      const calls = async () => Promise.all(bounds.slice(1).map((to, k) => frontStatsOf(db, systemId, bounds[k] as number, to, everyone)));
      if (JSON.stringify(inParts.parts) !== JSON.stringify(await calls())) throw new Error(`the parts differ from the calls (${shiftHours} h)`);
      const partsTimes: number[] = [];
      const callsTimes: number[] = [];
      for (let i = 0; i < (opts.quick ? 3 : 10); i++) {
        let started = performance.now();
        await frontStatsInParts(db, systemId, start, end, cuts, everyone);
        partsTimes.push(performance.now() - started);
        started = performance.now();
        // One after the other, as requests four at a time would still each be a statement.
        for (const [k, to] of bounds.slice(1).entries()) await frontStatsOf(db, systemId, bounds[k] as number, to, everyone);
        callsTimes.push(performance.now() - started);
      }
      return { parts: { ...timing(partsTimes), runs: partsTimes.length }, calls: { ...timing(callsTimes), runs: callsTimes.length } };
    };
    const daily = { utc: await dailyOf(0), offset: await dailyOf(-3.5) };
    return {
      daily,
      switches,
      seedSeconds,
      summarySeconds,
      summaryRows,
      random: summary.random,
      year: summary.year,
      plainYear: { ...timing(plainTimes), runs: plainTimes.length },
      foldRandom: folded.random,
      foldYear: folded.year,
      write: { ...timing(writeTimes), runs: writeTimes.length },
      settle: { ...timing(settleTimes), runs: settleTimes.length },
    };
  } finally {
    await database.close();
    await target.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const postgres = process.argv.includes('--postgres');
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const result = await benchFrontStats({ quick: process.argv.includes('--quick'), dialect: postgres ? 'postgres' : 'sqlite', ...(postgresUrl ? { postgresUrl } : {}) });
  const ms = (t: Timing) => `p50 ${t.p50.toFixed(2)} ms, p99 ${t.p99.toFixed(2)} ms, max ${t.max.toFixed(2)} ms`;
  console.log(`${postgres ? 'PostgreSQL' : 'SQLite'}: ${result.switches} switches over a year seeded in ${result.seedSeconds.toFixed(1)} s; summary built in ${result.summarySeconds.toFixed(2)} s (${result.summaryRows} rows)`);
  console.log(`random periods (${result.random.runs}): ${ms(result.random)}  (before the summary: ${ms(result.foldRandom)})`);
  console.log(`the whole year (${result.year.runs}): ${ms(result.year)}  (before the summary: ${ms(result.foldYear)})`);
  console.log(`baseline, the year's rows read plainly: ${ms(result.plainYear)}`);
  console.log(`a switch recorded at the end (${result.write.runs}, durable commit): ${ms(result.write)}; of which the summary's settling: ${ms(result.settle)}`);
  for (const [name, daily] of [['UTC days', result.daily.utc], ['days 3.5 h behind UTC', result.daily.offset]] as const) {
    console.log(`365 ${name} (${daily.parts.runs}): in one request ${ms(daily.parts)}; a call per day ${ms(daily.calls)}`);
  }
}
