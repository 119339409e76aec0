// The front at scale: one system with a long switch history (100,000 switches of two alters each
// on a full run, 10,000 with --quick, made by three apps) next to a system with 100 switches in the
// same database, read through the repository: the current front, each app's newest switch (GET
// /front for the owner), the first history page and one in the middle by its `before` cursor,
// and what the proxy profile reads ("front" autoproxy). Each read's p99 on the long history is
// compared with the short one's: the reads follow indexes, so they should not grow with the history.
//
// Run alone: node --import tsx bench/front.ts [--quick] [--postgres]
// (--postgres uses BENCH_DATABASE_URL or TEST_DATABASE_URL). bench/run.ts runs it too.
import { pathToFileURL } from 'node:url';
import { migrateToLatest, openDatabase, type Database } from '../src/db/database.js';
import { currentSwitch, latestPushes, newestSwitchByClient, switchHistory } from '../src/db/repositories/switches.js';
import { usernameKey } from '../src/domain/username-key.js';
import { createTestDatabase } from '../test/support/dialects.js';

export interface FrontBenchOptions {
  quick: boolean;
  dialect: 'sqlite' | 'postgres';
  postgresUrl?: string;
}

export interface FrontRead {
  name: string;
  /** p50 and p99 in ms on the long history, and on the short one. */
  long: { p50: number; p99: number };
  short: { p50: number; p99: number };
}

export interface FrontBenchResult {
  switches: number;
  seedSeconds: number;
  reads: FrontRead[];
}

const FULL = 100_000;
const QUICK = 10_000;
const SHORT = 100;
const APPS = ['bot', 'tracker', 'widget'];
const BATCH = 500;

async function seedSystem(db: Database['db'], userId: string, switches: number): Promise<{ systemId: number; middle: number }> {
  const now = Date.now();
  await db.insertInto('users').values({ id: userId, username: `bench-${userId}`, created_at: now }).execute();
  const system = await db.insertInto('systems').values({ user_id: userId, name: 'Bench', created_at: now }).returning('id').executeTakeFirstOrThrow();
  const alters = await db
    .insertInto('alters')
    .values(Array.from({ length: 20 }, (_, k) => ({ system_id: system.id, username: `alter-${k}`, username_key: usernameKey(`alter-${k}`), display_name: `Alter ${k}`, created_at: now })))
    .returning('id')
    .execute();
  const alterIds = alters.map((row) => Number(row.id));
  const first = now - switches * 60_000;
  let middle = 0;
  for (let done = 0; done < switches; done += BATCH) {
    const count = Math.min(BATCH, switches - done);
    await db.transaction().execute(async (trx) => {
      const created = await trx
        .insertInto('switches')
        .values(
          Array.from({ length: count }, (_, k) => ({
            system_id: system.id,
            client_id: APPS[(done + k) % APPS.length] as string,
            switched_at: first + (done + k) * 60_000,
          })),
        )
        .returning('id')
        .execute();
      const members = created.flatMap((row, k) => [
        { switch_id: row.id, alter_id: alterIds[(done + k) % alterIds.length] as number, position: 0 },
        { switch_id: row.id, alter_id: alterIds[(done + k + 7) % alterIds.length] as number, position: 1 },
      ]);
      await trx.insertInto('switch_members').values(members).execute();
      if (done <= switches / 2 && switches / 2 < done + count) middle = Number(created[Math.floor(switches / 2) - done]?.id);
    });
  }
  return { systemId: Number(system.id), middle };
}

async function percentiles(runs: number, read: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 20; i++) await read();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

export async function benchFront(opts: FrontBenchOptions): Promise<FrontBenchResult> {
  const switches = opts.quick ? QUICK : FULL;
  const runs = opts.quick ? 200 : 2_000;
  const target = await createTestDatabase(opts.dialect, opts.postgresUrl ?? process.env.TEST_DATABASE_URL);
  const database = openDatabase(target.url);
  try {
    const { db } = database;
    await migrateToLatest(db);
    const seedStarted = performance.now();
    const long = await seedSystem(db, '500000000000000001', switches);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const short = await seedSystem(db, '500000000000000002', SHORT);
    const reads: Array<[string, (system: { systemId: number; middle: number }) => Promise<unknown>]> = [
      ['current front (`currentSwitch`)', (s) => currentSwitch(db, s.systemId)],
      ['each app’s newest switch (`newestSwitchByClient`)', (s) => newestSwitchByClient(db, s.systemId)],
      ['history, first page of 20', (s) => switchHistory(db, s.systemId, { max: 20, skip: 0 })],
      ['history, 20 before the middle switch', (s) => switchHistory(db, s.systemId, { max: 20, skip: 0, before: s.middle })],
      ['the proxy profile’s front (`latestPushes`, 2 followed apps)', (s) => latestPushes(db, s.systemId, ['tracker', 'widget'])],
    ];
    const results: FrontRead[] = [];
    for (const [name, read] of reads) {
      results.push({ name, short: await percentiles(runs, () => read(short)), long: await percentiles(runs, () => read(long)) });
    }
    return { switches, seedSeconds, reads: results };
  } finally {
    await database.close();
    await target.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const postgres = process.argv.includes('--postgres');
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const result = await benchFront({ quick: process.argv.includes('--quick'), dialect: postgres ? 'postgres' : 'sqlite', ...(postgresUrl ? { postgresUrl } : {}) });
  console.log(`${result.switches} switches seeded in ${result.seedSeconds.toFixed(1)} s`);
  const ms = (r: { p50: number; p99: number }) => `p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms`;
  for (const read of result.reads) console.log(`${read.name}: ${ms(read.long)} (${SHORT} switches: ${ms(read.short)})`);
}
