// Proxied-message records at scale: a fresh database seeded with N existing records (10,000,000 on
// a full run, 100,000 with --quick) by set-based SQL inside the database, with the real indexes in
// place; then record inserts per second through the repository (recordProxiedMessage, durable
// commits) next to a bare durable insert of the same row, and the latency of findProxiedMessage
// for random existing ids (half by message id, half by original id) and a few unknown ids.
//
// Run alone: node --import tsx bench/message-records.ts [--quick] [--postgres] [--rows N]
// (--postgres uses BENCH_DATABASE_URL or TEST_DATABASE_URL). bench/run.ts runs it too.
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest, openDatabase, type Database } from '../src/db/database.js';
import { findProxiedMessage, recordProxiedMessage } from '../src/db/repositories/proxied-messages.js';
import { usernameKey } from '../src/domain/username-key.js';
import { createTestDatabase } from '../test/support/dialects.js';

export interface MessageRecordsOptions {
  quick: boolean;
  dialect: 'sqlite' | 'postgres';
  /** The PostgreSQL server (a fresh schema is created on it); default TEST_DATABASE_URL. */
  postgresUrl?: string;
  /** Overrides the number of seeded records (10,000,000 full, 100,000 quick). */
  rows?: number;
}

export interface MessageRecordsResult {
  /** Records seeded before measuring. */
  rows: number;
  seedSeconds: number;
  /** recordProxiedMessage calls per second (each one transaction, durable commit). */
  recordsPerSecond: number;
  /** A plain one-row INSERT per transaction into the same table, same durability and concurrency. */
  bareInsertsPerSecond: number;
  lookupP50Ms: number;
  lookupP99Ms: number;
  lookups: number;
}

const FULL_ROWS = 10_000_000;
const QUICK_ROWS = 100_000;
/** Concurrent callers for the write measurements (SQLite has one writer: there they just queue). */
const CONCURRENCY = 16;
const ALTERS = 100;

// Snowflake-like ids derived from a row number i, the same in SQL (both dialects) and in JS.
// With D a power of two above every row number used (seeded and inserted while measuring),
// h = (i * A + C) mod D is a bijection on [0, D), so every row gets its own millisecond:
// ts = BASE + h * 150 ms (from 2025-10-01 on), message id ts << 22 plus scrambled low bits
// (19 digits), original id 250 ms earlier with other low bits. Consecutive row numbers land far
// apart in both id indexes (the rows inserted while measuring, i >= N, go to random places). All
// products stay below 2^63: no overflow to REAL in SQLite, no error in PostgreSQL.
const A = 10_368_889; // odd: multiplication mod 2^k is a bijection
const C = 7_340_033;
const STEP_MS = 150;
const ORIGINAL_BEFORE_MS = 250; // not a multiple of STEP_MS: an original id never equals a message id
const LOW = 4_194_304; // 2^22
const DISCORD_EPOCH = 1_420_070_400_000;
const BASE_MS = Date.UTC(2025, 9, 1) - DISCORD_EPOCH;
const GUILD_ID = '1390000000000000001';
const CHANNEL_BASE = 1_391_000_000_000_000_000n;
const CHANNELS = 40;
const SENDER_ID = '1100000000000000001';

function idScheme(rows: number) {
  // Room for the seed and for every row inserted while measuring (a few tens of thousands).
  if (!Number.isSafeInteger(rows) || rows < 1) throw new Error(`rows must be a positive integer, not ${rows}`);
  let domain = 1;
  while (domain < rows + rows / 4 + 1_000_000) domain *= 2;
  if (domain > 2 ** 25) throw new Error(`too many rows: ${rows}`);
  const d = BigInt(domain);
  // The inverse of A mod D (Newton's iteration; each step doubles the correct low bits).
  let inverse = BigInt(A);
  for (let k = 0; k < 5; k++) inverse = (inverse * (2n - ((BigInt(A) * inverse) % d) + d)) % d;
  if ((BigInt(A) * inverse) % d !== 1n) throw new Error('no inverse');
  return {
    domain,
    /** The id columns of row i, as SQL over a column `i`. */
    sql(i: string) {
      const ts = `(${BASE_MS} + ((${i} * ${A} + ${C}) % ${domain}) * ${STEP_MS})`;
      return {
        messageId: `cast((${ts} * ${LOW} + (${i} * 40503) % ${LOW}) as text)`,
        originalId: `cast(((${ts} - ${ORIGINAL_BEFORE_MS}) * ${LOW} + (${i} * 40503 + 1234567) % ${LOW}) as text)`,
        channelId: `cast((${CHANNEL_BASE} + ${i} % ${CHANNELS}) as text)`,
        createdAt: `(${ts} + ${DISCORD_EPOCH})`,
      };
    },
    /** The row number whose h is the SQL expression `h`: walking h in order walks the ids in order. */
    sqlRowOf: (h: string) => `((((${h}) + ${domain - (C % domain)}) % ${domain}) * ${inverse}) % ${domain}`,
    ids(i: number) {
      const n = BigInt(i);
      const ts = BigInt(BASE_MS) + ((n * BigInt(A) + BigInt(C)) % d) * BigInt(STEP_MS);
      const low = BigInt(LOW);
      return {
        messageId: String(ts * low + ((n * 40503n) % low)),
        originalId: String((ts - BigInt(ORIGINAL_BEFORE_MS)) * low + ((n * 40503n + 1234567n) % low)),
        channelId: String(CHANNEL_BASE + (n % BigInt(CHANNELS))),
        createdAt: Number(ts) + DISCORD_EPOCH,
      };
    },
  };
}
type IdScheme = ReturnType<typeof idScheme>;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** Runs `CONCURRENCY` callers of `fn` for `seconds`; returns the calls completed and the time taken. */
async function sustained(seconds: number, fn: () => Promise<void>): Promise<{ calls: number; seconds: number }> {
  let calls = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        await fn();
        calls++;
      }
    }),
  );
  return { calls, seconds: (performance.now() - started) / 1000 };
}

/**
 * Baseline and subject in alternating one-second slices (baseline first), `rounds` of each: on a
 * shared, noisy machine both see the same disturbances. Returns calls per second of each.
 */
async function alternating(rounds: number, baseline: () => Promise<void>, subject: () => Promise<void>): Promise<{ baseline: number; subject: number }> {
  const total = { baseline: { calls: 0, seconds: 0 }, subject: { calls: 0, seconds: 0 } };
  for (let round = 0; round < rounds; round++) {
    for (const [key, fn] of [['baseline', baseline], ['subject', subject]] as const) {
      const slice = await sustained(1, fn);
      total[key].calls += slice.calls;
      total[key].seconds += slice.seconds;
    }
  }
  return { baseline: total.baseline.calls / total.baseline.seconds, subject: total.subject.calls / total.subject.seconds };
}

async function createOwner(database: Database) {
  const { db } = database;
  const now = Date.now();
  await db.insertInto('users').values({ id: SENDER_ID, username: 'bench', created_at: now }).execute();
  const system = await db.insertInto('systems').values({ user_id: SENDER_ID, name: 'Bench', created_at: now }).returning('id').executeTakeFirstOrThrow();
  const alters = await db
    .insertInto('alters')
    .values(Array.from({ length: ALTERS }, (_, k) => ({ system_id: system.id, username: `alter-${k}`, username_key: usernameKey(`alter-${k}`), display_name: `Alter ${k}`, created_at: now })))
    .returning('id')
    .execute();
  const alterIds = alters.map((a) => Number(a.id)).sort((a, b) => a - b);
  const firstAlter = alterIds[0] ?? 0;
  // The seed assigns alter_id = first + i % ALTERS: the ids must be contiguous (a fresh database).
  if (alterIds.length !== ALTERS || alterIds.some((id, k) => id !== firstAlter + k)) throw new Error('alter ids are not contiguous');
  return { systemId: Number(system.id), alterIds, firstAlter };
}

/**
 * INSERT ... SELECT of the seeded rows (row numbers below `rows`) whose h is in the range that
 * `series` yields as column h, in order of h: the rows arrive in id order (as Discord's do,
 * roughly), so each index grows at its right edge instead of at random pages. The stored rows are
 * the same either way; at 2,000,000 rows this order seeds SQLite several times faster.
 */
function seedStatement(scheme: IdScheme, rows: number, systemId: number, firstAlter: number, withClause: string, series: string): string {
  const c = scheme.sql('i');
  return (
    `${withClause} insert into proxied_messages (message_id, original_id, channel_id, guild_id, system_id, alter_id, sender_id, created_at) ` +
    `select ${c.messageId}, ${c.originalId}, ${c.channelId}, '${GUILD_ID}', ${systemId}, ${firstAlter} + i % ${ALTERS}, '${SENDER_ID}', ${c.createdAt} ` +
    `from (select ${scheme.sqlRowOf('h')} as i from ${series}) as seeded where i < ${rows}`
  );
}

/** SQLite: the service's connection is closed; one connection with seed-only pragmas writes every row. */
function seedSqlite(file: string, scheme: IdScheme, rows: number, systemId: number, firstAlter: number): void {
  const sqlite = new SqliteDatabase(file);
  try {
    // Seed only: no journal, no fsync, a large cache (the service's own pragmas apply again after).
    sqlite.pragma('journal_mode = off');
    sqlite.pragma('synchronous = off');
    sqlite.pragma('cache_size = -2000000');
    sqlite.pragma('temp_store = memory');
    // No generate_series in this SQLite build: a recursive CTE counts h from ? to ? (cast:
    // better-sqlite3 binds JS numbers as REAL, and the ids must be integer arithmetic).
    const insert = sqlite.prepare(seedStatement(scheme, rows, systemId, firstAlter, 'with recursive s(h) as (select cast(? as integer) union all select h + 1 from s where h < ?)', 's'));
    const batch = scheme.domain / 4;
    for (let from = 0; from < scheme.domain; from += batch) sqlite.transaction(() => insert.run(from, from + batch - 1))();
    // Back to the service's journal mode before the service opens it again.
    sqlite.pragma('journal_mode = wal');
  } finally {
    sqlite.close();
  }
  // The seed wrote without fsync: flush it now (part of the seed time), or the disk would still be
  // writing it back while the durable commits below are measured.
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function seedPostgres(database: Database, scheme: IdScheme, rows: number, systemId: number, firstAlter: number): Promise<void> {
  const batch = scheme.domain / 16;
  for (let from = 0; from < scheme.domain; from += batch) {
    await sql.raw(seedStatement(scheme, rows, systemId, firstAlter, '', `generate_series(${from}::bigint, ${from + batch - 1}::bigint) as h`)).execute(database.db);
  }
  // What autovacuum would have done by the time a table reaches this size: planner statistics.
  await sql`analyze proxied_messages`.execute(database.db);
  // Write the seed's dirty buffers out now (part of the seed time) rather than during the
  // measurements below. CHECKPOINT needs superuser or pg_checkpoint; without it, carry on.
  await sql`checkpoint`.execute(database.db).catch(() => undefined);
}

/** A bare durable one-row insert into proxied_messages, on its own connection(s), like run.ts's baselines. */
async function bareInserter(dialect: 'sqlite' | 'postgres', url: string) {
  if (dialect === 'sqlite') {
    const sqlite = new SqliteDatabase(url.slice('sqlite:'.length));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('busy_timeout = 5000');
    const statement = sqlite.prepare('insert into proxied_messages (message_id, original_id, channel_id, guild_id, system_id, alter_id, sender_id, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)');
    return {
      insert: async (row: unknown[]) => void statement.run(...row),
      close: async () => void sqlite.close(),
    };
  }
  // The same pool size as the service's (src/db/database.ts).
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return {
    insert: async (row: unknown[]) => void (await pool.query('insert into proxied_messages (message_id, original_id, channel_id, guild_id, system_id, alter_id, sender_id, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8)', row)),
    close: () => pool.end(),
  };
}

export async function benchMessageRecords(opts: MessageRecordsOptions): Promise<MessageRecordsResult> {
  const rows = opts.rows ?? (opts.quick ? QUICK_ROWS : FULL_ROWS);
  // Seconds of each write measurement, in one-second slices alternating with the baseline.
  const rounds = opts.quick ? 1 : 5;
  const lookups = opts.quick ? 2_000 : 20_000;
  const scheme = idScheme(rows);
  const target = await createTestDatabase(opts.dialect, opts.postgresUrl ?? process.env.TEST_DATABASE_URL);
  let database: Database | undefined;
  try {
    database = openDatabase(target.url);
    await migrateToLatest(database.db);
    const { systemId, alterIds, firstAlter } = await createOwner(database);

    const seedStarted = performance.now();
    if (opts.dialect === 'sqlite') {
      await database.close();
      database = undefined;
      seedSqlite(target.url.slice('sqlite:'.length), scheme, rows, systemId, firstAlter);
      database = openDatabase(target.url);
    } else {
      await seedPostgres(database, scheme, rows, systemId, firstAlter);
    }
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const { db } = database;
    const counted = await db.selectFrom('proxied_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    if (Number(counted.n) !== rows) throw new Error(`seeded ${counted.n} rows, expected ${rows}`);

    // Fresh row numbers for everything inserted while measuring: unique ids, never seeded.
    let next = rows;
    const take = () => {
      if (next >= scheme.domain) throw new Error('out of ids');
      return scheme.ids(next++);
    };
    const randomAlter = () => firstAlter + Math.floor(Math.random() * alterIds.length);

    // The repository (count the alter, insert the row, read the revision: one transaction) next to
    // a plain INSERT of the same row, one per transaction, at the same concurrency.
    const bare = await bareInserter(opts.dialect, target.url);
    let writes: { baseline: number; subject: number };
    try {
      writes = await alternating(
        rounds,
        async () => {
          const r = take();
          await bare.insert([r.messageId, r.originalId, r.channelId, GUILD_ID, systemId, randomAlter(), SENDER_ID, r.createdAt]);
        },
        async () => {
          const r = take();
          const record = { messageId: r.messageId, originalMessageId: r.originalId, channelId: r.channelId, guildId: GUILD_ID, systemId, alterId: randomAlter(), senderId: SENDER_ID, createdAt: r.createdAt, proxiedName: 'Alter' };
          const outcome = await recordProxiedMessage(db, record, undefined, { clientId: null, accountId: null });
          if (!outcome.created) throw new Error(`record ${r.messageId} was not created`);
        },
      );
    } finally {
      await bare.close();
    }

    // Lookups, one at a time: random seeded rows, alternately by message id and by original id;
    // one in a hundred is an id nobody recorded (a timestamp before the seeded range). The ids are
    // computed before timing; only findProxiedMessage is timed.
    const probes = Array.from({ length: 200 + lookups }, (_, k) => {
      if (k % 100 === 99) return { id: String((BigInt(BASE_MS) - 1_000_000n - BigInt(k)) * BigInt(LOW) + 12345n), expect: undefined };
      const r = scheme.ids(Math.floor(Math.random() * rows));
      return { id: k % 2 === 0 ? r.messageId : r.originalId, expect: r.messageId };
    });
    const latencies: number[] = [];
    for (const [k, probe] of probes.entries()) {
      const started = performance.now();
      const found = await findProxiedMessage(db, probe.id);
      const ms = performance.now() - started;
      if (found?.messageId !== probe.expect) throw new Error(`lookup of ${probe.id}: found ${found?.messageId}, expected ${probe.expect}`);
      if (k >= 200) latencies.push(ms); // the first 200 warm up (JIT, prepared statements)
    }
    latencies.sort((a, b) => a - b);
    return {
      rows,
      seedSeconds,
      recordsPerSecond: writes.subject,
      bareInsertsPerSecond: writes.baseline,
      lookupP50Ms: percentile(latencies, 50),
      lookupP99Ms: percentile(latencies, 99),
      lookups,
    };
  } finally {
    await database?.close();
    await target.drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const dialect = args.includes('--postgres') ? 'postgres' : 'sqlite';
  const rowsArg = args.indexOf('--rows');
  const rows = rowsArg >= 0 ? Number(args[rowsArg + 1]) : undefined;
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (dialect === 'postgres' && !postgresUrl) {
    console.error('--postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
    process.exit(2);
  }
  benchMessageRecords({ quick, dialect, ...(postgresUrl ? { postgresUrl } : {}), ...(rows === undefined ? {} : { rows }) }).then(
    (result) => {
      const f = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
      console.log(`${dialect}, ${f(result.rows)} seeded records`);
      console.log(`  seed:     ${f(result.seedSeconds, 1)} s (${f(result.rows / result.seedSeconds)} rows/s)`);
      console.log(`  records:  ${f(result.recordsPerSecond)}/s through recordProxiedMessage, ${CONCURRENCY} callers`);
      console.log(`  bare:     ${f(result.bareInsertsPerSecond)}/s one-row INSERT per transaction (ratio ${f(result.recordsPerSecond / result.bareInsertsPerSecond, 2)})`);
      console.log(`  lookups:  p50 ${f(result.lookupP50Ms, 3)} ms, p99 ${f(result.lookupP99Ms, 3)} ms over ${f(result.lookups)}`);
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
