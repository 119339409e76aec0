// What bot processes share besides linked accounts, in the same store (BOT_STORE_URL): leases
// (work one process does at a time, "this process is alive", identify buckets), small values
// (the operation messages' feed position and waiting batches, import previews), queues of
// entries each owned by one process (pending message records), and a change feed every process
// reads (links and unlinks). Nothing here decides anything: leases.ts, pending.ts and the link
// feed build on it.
//
// - PostgreSQL: four tables beside keyv's (in its ?schema=), created at open under an advisory
//   lock; times come from the database's clock, so machines' clocks need not agree.
// - Redis: keys under `switchboard-bot:`; a lease is a key with a time to live, taken and renewed
//   by a script; the change feed is a capped stream.
// - SQLite: the PostgreSQL tables in `<file>.shared` (one machine: processes of one host share it).
// - SQLite in memory: this process alone.
import { createRedis } from '../../config/redis.js';

export interface QueueEntry {
  id: string;
  owner: string;
  value: string;
}

export interface SharedStore {
  /** Takes lease `name` for `owner` (or renews it) for `ms`; true when `owner` holds it now. */
  lease(name: string, owner: string, ms: number): Promise<boolean>;
  /** Gives lease `name` up if `owner` still holds it. */
  release(name: string, owner: string): Promise<void>;
  /** Whether anyone holds lease `name`. */
  held(name: string): Promise<boolean>;

  get(key: string): Promise<string | undefined>;
  /** `ttlMs`: forgotten after this long. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  delete(key: string): Promise<void>;

  /** Puts (or replaces) entry `id` of `queue`, owned by `owner`. */
  enqueue(queue: string, entry: QueueEntry): Promise<void>;
  dequeue(queue: string, id: string): Promise<void>;
  /** Up to `limit` entries of `queue`. */
  entries(queue: string, limit: number): Promise<QueueEntry[]>;
  /** Moves entry `id` from owner `from` to `to`; false when it is gone or `from` no longer owns it. */
  reown(queue: string, id: string, from: string, to: string): Promise<boolean>;

  /** Appends `message` to `topic`'s feed. */
  publish(topic: string, message: string): Promise<void>;
  /** Messages after `cursor` (undefined: none; only the position now), and the position after them. */
  read(topic: string, cursor: string | undefined): Promise<{ cursor: string; messages: string[] }>;

  close(): Promise<void>;
}

/** Feeds keep this long of messages: a reader away longer starts over (and empties its caches). */
const FEED_KEEP_MS = 10 * 60_000;

export async function openSharedStore(url: string): Promise<SharedStore> {
  if (url.startsWith('redis')) return redisStore(url);
  if (url.startsWith('sqlite://')) {
    const path = url.slice('sqlite://'.length);
    return path === '' || path === ':memory:' ? memoryStore() : sqliteStore(`${path}.shared`);
  }
  return postgresStore(url);
}

// ── SQL (PostgreSQL and SQLite): the same four tables ──

const TABLES = [
  'create table if not exists switchboard_bot_leases (name text primary key, owner text not null, until_ms bigint not null)',
  'create table if not exists switchboard_bot_values (key text primary key, value text not null, until_ms bigint)',
  'create table if not exists switchboard_bot_queue (queue text not null, id text not null, owner text not null, value text not null, primary key (queue, id))',
];

async function postgresStore(url: string): Promise<SharedStore> {
  const { default: pg } = await import('pg');
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  if (schema !== null && !/^\w+$/.test(schema)) throw new Error('BOT_STORE_URL: ?schema= must be letters, digits and underscores');
  const pool = new pg.Pool({ connectionString: parsed.toString(), max: 4, idleTimeoutMillis: 10_000 });
  pool.on('error', () => undefined); // an idle connection dropped: the pool replaces it
  const t = (name: string) => (schema ? `"${schema}".${name}` : name);
  const now = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;
  const client = await pool.connect();
  try {
    // Processes starting together would race on the catalog: one at a time.
    await client.query('begin');
    await client.query(`select pg_advisory_xact_lock(7526411283914711000)`);
    for (const statement of [
      ...TABLES.map((sql) => sql.replace(/switchboard_bot_(\w+)/, (name) => t(name))),
      `create table if not exists ${t('switchboard_bot_changes')} (seq bigserial primary key, topic text not null, message text not null, at_ms bigint not null)`,
    ]) {
      await client.query(statement);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  const q = async <R extends object>(sql: string, values: unknown[]): Promise<{ rows: R[]; rowCount: number }> => {
    const result = await pool.query(sql, values);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };
  let published = 0;
  return {
    async lease(name, owner, ms) {
      const { rowCount } = await q(
        `insert into ${t('switchboard_bot_leases')} as l (name, owner, until_ms) values ($1, $2, ${now} + $3)
         on conflict (name) do update set owner = excluded.owner, until_ms = excluded.until_ms
         where l.owner = excluded.owner or l.until_ms < ${now}`,
        [name, owner, ms],
      );
      return rowCount === 1;
    },
    async release(name, owner) {
      await q(`delete from ${t('switchboard_bot_leases')} where name = $1 and owner = $2`, [name, owner]);
    },
    async held(name) {
      const { rows } = await q(`select 1 from ${t('switchboard_bot_leases')} where name = $1 and until_ms >= ${now}`, [name]);
      return rows.length > 0;
    },
    async get(key) {
      const { rows } = await q<{ value: string }>(`select value from ${t('switchboard_bot_values')} where key = $1 and (until_ms is null or until_ms >= ${now})`, [key]);
      return rows[0]?.value;
    },
    async set(key, value, ttlMs) {
      await q(
        `insert into ${t('switchboard_bot_values')} (key, value, until_ms) values ($1, $2, case when $3::bigint is null then null else ${now} + $3::bigint end)
         on conflict (key) do update set value = excluded.value, until_ms = excluded.until_ms`,
        [key, value, ttlMs ?? null],
      );
    },
    async delete(key) {
      await q(`delete from ${t('switchboard_bot_values')} where key = $1`, [key]);
    },
    async enqueue(queue, entry) {
      await q(
        `insert into ${t('switchboard_bot_queue')} (queue, id, owner, value) values ($1, $2, $3, $4) on conflict (queue, id) do update set owner = excluded.owner, value = excluded.value`,
        [queue, entry.id, entry.owner, entry.value],
      );
    },
    async dequeue(queue, id) {
      await q(`delete from ${t('switchboard_bot_queue')} where queue = $1 and id = $2`, [queue, id]);
    },
    async entries(queue, limit) {
      return (await q<QueueEntry>(`select id, owner, value from ${t('switchboard_bot_queue')} where queue = $1 limit $2`, [queue, limit])).rows;
    },
    async reown(queue, id, from, to) {
      return (await q(`update ${t('switchboard_bot_queue')} set owner = $4 where queue = $1 and id = $2 and owner = $3`, [queue, id, from, to])).rowCount === 1;
    },
    async publish(topic, message) {
      await q(`insert into ${t('switchboard_bot_changes')} (topic, message, at_ms) values ($1, $2, ${now})`, [topic, message]);
      // Now and then, whoever publishes drops what every reader has long read.
      if ((published += 1) % 100 === 1) await q(`delete from ${t('switchboard_bot_changes')} where at_ms < ${now} - $1`, [FEED_KEEP_MS]);
    },
    async read(topic, cursor) {
      if (cursor === undefined) {
        const { rows } = await q<{ seq: string | null }>(`select max(seq)::text as seq from ${t('switchboard_bot_changes')}`, []);
        return { cursor: rows[0]?.seq ?? '0', messages: [] };
      }
      // Sequence numbers are handed out before commit, so a row may appear behind one already
      // read: rows of the last few seconds are read again (readers' messages are idempotent).
      const { rows } = await q<{ seq: string; message: string; topic: string }>(
        `select seq::text as seq, topic, message from ${t('switchboard_bot_changes')} where seq > $1 or at_ms >= ${now} - 5000 order by seq limit 1000`,
        [cursor],
      );
      const last = rows.reduce((max, row) => (BigInt(row.seq) > BigInt(max) ? row.seq : max), cursor);
      return { cursor: last, messages: rows.filter((row) => row.topic === topic).map((row) => row.message) };
    },
    close: () => pool.end(),
  };
}

async function sqliteStore(path: string): Promise<SharedStore> {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  // A process that dies loses nothing committed with NORMAL in WAL mode (only a power cut can);
  // FULL would add an fsync to every proxied message's two writes, on the event loop.
  db.pragma('synchronous = NORMAL');
  for (const statement of TABLES) db.exec(statement);
  db.exec('create table if not exists switchboard_bot_changes (seq integer primary key autoincrement, topic text not null, message text not null, at_ms integer not null)');
  const take = db.prepare<[string, string, number, number]>(
    `insert into switchboard_bot_leases (name, owner, until_ms) values (?, ?, ?) on conflict (name) do update set owner = excluded.owner, until_ms = excluded.until_ms
     where switchboard_bot_leases.owner = excluded.owner or switchboard_bot_leases.until_ms < ?`,
  );
  let published = 0;
  return {
    lease: async (name, owner, ms) => take.run(name, owner, Date.now() + ms, Date.now()).changes === 1,
    release: async (name, owner) => void db.prepare('delete from switchboard_bot_leases where name = ? and owner = ?').run(name, owner),
    held: async (name) => db.prepare('select 1 from switchboard_bot_leases where name = ? and until_ms >= ?').get(name, Date.now()) !== undefined,
    get: async (key) => (db.prepare('select value from switchboard_bot_values where key = ? and (until_ms is null or until_ms >= ?)').get(key, Date.now()) as { value: string } | undefined)?.value,
    set: async (key, value, ttlMs) =>
      void db
        .prepare('insert into switchboard_bot_values (key, value, until_ms) values (?, ?, ?) on conflict (key) do update set value = excluded.value, until_ms = excluded.until_ms')
        .run(key, value, ttlMs === undefined ? null : Date.now() + ttlMs),
    delete: async (key) => void db.prepare('delete from switchboard_bot_values where key = ?').run(key),
    enqueue: async (queue, entry) =>
      void db
        .prepare('insert into switchboard_bot_queue (queue, id, owner, value) values (?, ?, ?, ?) on conflict (queue, id) do update set owner = excluded.owner, value = excluded.value')
        .run(queue, entry.id, entry.owner, entry.value),
    dequeue: async (queue, id) => void db.prepare('delete from switchboard_bot_queue where queue = ? and id = ?').run(queue, id),
    entries: async (queue, limit) => db.prepare('select id, owner, value from switchboard_bot_queue where queue = ? limit ?').all(queue, limit) as QueueEntry[],
    reown: async (queue, id, from, to) => db.prepare('update switchboard_bot_queue set owner = ? where queue = ? and id = ? and owner = ?').run(to, queue, id, from).changes === 1,
    publish: async (topic, message) => {
      db.prepare('insert into switchboard_bot_changes (topic, message, at_ms) values (?, ?, ?)').run(topic, message, Date.now());
      if ((published += 1) % 100 === 1) db.prepare('delete from switchboard_bot_changes where at_ms < ?').run(Date.now() - FEED_KEEP_MS);
    },
    read: async (topic, cursor) => {
      if (cursor === undefined) return { cursor: String((db.prepare('select coalesce(max(seq), 0) as seq from switchboard_bot_changes').get() as { seq: number }).seq), messages: [] };
      const rows = db.prepare('select seq, topic, message from switchboard_bot_changes where seq > ? order by seq limit 1000').all(Number(cursor)) as Array<{ seq: number; topic: string; message: string }>;
      return { cursor: String(rows.at(-1)?.seq ?? cursor), messages: rows.filter((row) => row.topic === topic).map((row) => row.message) };
    },
    close: async () => void db.close(),
  };
}

const TAKE = "local v = redis.call('get', KEYS[1]) if v == false or v == ARGV[1] then redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1 end return 0";
const GIVE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";
const REOWN = "if redis.call('hget', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('hset', KEYS[1], ARGV[1], ARGV[3]) return 1 end return 0";

async function redisStore(url: string): Promise<SharedStore> {
  const redis = await createRedis(url, { maxRetriesPerRequest: 2 });
  redis.on('error', () => undefined); // surfaced per call
  const k = (kind: string, name: string) => `switchboard-bot:${kind}:${name}`;
  return {
    lease: async (name, owner, ms) => (await redis.eval(TAKE, 1, k('lease', name), owner, String(ms))) === 1,
    release: async (name, owner) => void (await redis.eval(GIVE, 1, k('lease', name), owner)),
    held: async (name) => (await redis.exists(k('lease', name))) === 1,
    get: async (key) => (await redis.get(k('value', key))) ?? undefined,
    set: async (key, value, ttlMs) => void (ttlMs === undefined ? await redis.set(k('value', key), value) : await redis.set(k('value', key), value, 'PX', ttlMs)),
    delete: async (key) => void (await redis.del(k('value', key))),
    enqueue: async (queue, entry) => void (await redis.multi().hset(k('queue-owner', queue), entry.id, entry.owner).hset(k('queue', queue), entry.id, entry.value).exec()),
    dequeue: async (queue, id) => void (await redis.multi().hdel(k('queue-owner', queue), id).hdel(k('queue', queue), id).exec()),
    async entries(queue, limit) {
      const [owners, values] = await Promise.all([redis.hgetall(k('queue-owner', queue)), redis.hgetall(k('queue', queue))]);
      return Object.entries(owners)
        .filter(([id]) => values[id] !== undefined)
        .slice(0, limit)
        .map(([id, owner]) => ({ id, owner, value: values[id] as string }));
    },
    reown: async (queue, id, from, to) => (await redis.eval(REOWN, 1, k('queue-owner', queue), id, from, to)) === 1,
    publish: async (topic, message) => void (await redis.xadd(k('feed', topic), 'MAXLEN', '~', '10000', '*', 'm', message)),
    async read(topic, cursor) {
      if (cursor === undefined) {
        const last = await redis.xrevrange(k('feed', topic), '+', '-', 'COUNT', 1);
        return { cursor: last[0]?.[0] ?? '0-0', messages: [] };
      }
      const rows = await redis.xrange(k('feed', topic), `(${cursor}`, '+', 'COUNT', 1000);
      return { cursor: rows.at(-1)?.[0] ?? cursor, messages: rows.map(([, fields]) => fields[1] ?? '') };
    },
    close: async () => void (await redis.quit().catch(() => redis.disconnect())),
  };
}

/** One process alone (an in-memory SQLite store): the same behaviour, in Maps. */
function memoryStore(): SharedStore {
  const leases = new Map<string, { owner: string; until: number }>();
  const values = new Map<string, { value: string; until: number }>();
  const queues = new Map<string, Map<string, QueueEntry>>();
  const feeds = new Map<string, string[]>();
  const queue = (name: string): Map<string, QueueEntry> => {
    const found = queues.get(name);
    if (found) return found;
    const made = new Map<string, QueueEntry>();
    queues.set(name, made);
    return made;
  };
  return {
    async lease(name, owner, ms) {
      const current = leases.get(name);
      if (current && current.owner !== owner && current.until >= Date.now()) return false;
      leases.set(name, { owner, until: Date.now() + ms });
      return true;
    },
    async release(name, owner) {
      if (leases.get(name)?.owner === owner) leases.delete(name);
    },
    held: async (name) => (leases.get(name)?.until ?? 0) >= Date.now(),
    async get(key) {
      const entry = values.get(key);
      return entry && entry.until >= Date.now() ? entry.value : undefined;
    },
    set: async (key, value, ttlMs) => void values.set(key, { value, until: ttlMs === undefined ? Infinity : Date.now() + ttlMs }),
    delete: async (key) => void values.delete(key),
    enqueue: async (name, entry) => void queue(name).set(entry.id, { ...entry }),
    dequeue: async (name, id) => void queue(name).delete(id),
    entries: async (name, limit) => [...queue(name).values()].slice(0, limit).map((entry) => ({ ...entry })),
    async reown(name, id, from, to) {
      const entry = queue(name).get(id);
      if (entry?.owner !== from) return false;
      entry.owner = to;
      return true;
    },
    async publish(topic, message) {
      const feed = feeds.get(topic) ?? [];
      feed.push(message);
      feeds.set(topic, feed);
    },
    async read(topic, cursor) {
      const feed = feeds.get(topic) ?? [];
      return { cursor: String(feed.length), messages: cursor === undefined ? [] : feed.slice(Number(cursor)) };
    },
    close: async () => undefined,
  };
}
