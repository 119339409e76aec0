// Making many alters public or private at once (POST …/system/edit-alters-privacy) at the cap:
// 2,000 alters of one system, all switched to public and back, timing setAltersPrivacy (the
// endpoint's whole transaction: the update, the alters read back and their 2,000 alter.updated
// events). Prints the median and the slowest of the runs, per dialect.
//
// Run alone: node --import tsx bench/alters-privacy.ts [--postgres] [--runs N]
// (--postgres uses BENCH_DATABASE_URL or TEST_DATABASE_URL).
import { migrateToLatest, openDatabase } from '../src/db/database.js';
import { setAltersPrivacy } from '../src/db/repositories/alters.js';
import { ALTER_PRIVACY_MASK } from '../src/domain/privacy-bits.js';
import { usernameKey } from '../src/domain/username-key.js';
import { createTestDatabase } from '../test/support/dialects.js';

const ALTERS = 2_000;

async function main(): Promise<void> {
  const postgres = process.argv.includes('--postgres');
  const runsAt = process.argv.indexOf('--runs');
  const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 6;
  const target = await createTestDatabase(postgres ? 'postgres' : 'sqlite', process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL);
  const database = openDatabase(target.url);
  try {
    const { db } = database;
    await migrateToLatest(db);
    const now = Date.now();
    await db.insertInto('users').values({ id: '500000000000000031', username: 'bench-privacy', created_at: now }).execute();
    const system = await db.insertInto('systems').values({ user_id: '500000000000000031', name: 'Bench', created_at: now }).returning('id').executeTakeFirstOrThrow();
    const alterIds: number[] = [];
    for (let start = 0; start < ALTERS; start += 500) {
      const rows = await db
        .insertInto('alters')
        .values(Array.from({ length: 500 }, (_, k) => ({ system_id: system.id, username: `alter-${start + k}`, username_key: usernameKey(`alter-${start + k}`), display_name: `Alter ${start + k}`, created_at: now })))
        .returning('id')
        .execute();
      alterIds.push(...rows.map((row) => Number(row.id)));
    }
    await db.updateTable('systems').set({ alter_count: ALTERS }).where('id', '=', system.id).execute();
    const times: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const started = performance.now();
      const written = await setAltersPrivacy(db, Number(system.id), alterIds, run % 2 === 0 ? ALTER_PRIVACY_MASK : 0, { clientId: 'bench', accountId: '500000000000000031' });
      times.push(performance.now() - started);
      if (written.length !== ALTERS) throw new Error('not every alter was written');
    }
    const events = await db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('n')).where('system_id', '=', system.id).executeTakeFirstOrThrow();
    if (Number(events.n) !== ALTERS * runs) throw new Error(`expected ${ALTERS * runs} events, found ${events.n}`);
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    console.log(`${postgres ? 'postgres' : 'sqlite'}: ${ALTERS} alters, ${runs} runs: median ${median.toFixed(0)} ms, slowest ${(sorted.at(-1) ?? 0).toFixed(0)} ms`);
  } finally {
    await database.close();
    await target.drop();
  }
}

await main();
