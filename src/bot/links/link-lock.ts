// A lock per linked user that holds across every bot process (shard) sharing the link store, so
// one process at a time reads, refreshes and writes a user's tokens (the service revokes a whole
// grant when a refresh token is redeemed twice) and an /unlink cannot be undone by a refresh in
// flight. Within a process, waiters queue in memory first: a process holds at most one backend
// lock (one connection) per name.
//
// - PostgreSQL: a session advisory lock (pg_advisory_lock) on a 64-bit hash of the name, on its
//   own pooled connection, released with pg_advisory_unlock (or by the server when the connection
//   dies with its process). Waiting is bounded by lock_timeout.
// - Redis: SET key token NX PX ttl, renewed while held, released by a compare-and-delete script
//   (a lease that outlived a stalled holder is never deleted from under its new owner).
// - SQLite: the same lease, in a table of its own file beside the store (`<file>.locks`); SQLite
//   serialises its writes across the processes of the host. A holder that dies is waited out
//   for at most the lease (15 s).
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedis } from '../../config/redis.js';

export class LinkLockTimeoutError extends Error {
  constructor(readonly lockName: string) {
    super('timed out waiting for a linked account lock');
    this.name = 'LinkLockTimeoutError';
  }
}

export interface LinkLock {
  /** Runs `work` while holding the lock `name` in every process that shares the store. */
  hold<T>(name: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface LinkLockOptions {
  /** Longest wait for the lock before LinkLockTimeoutError (default 30 s). */
  waitMs?: number;
  /** Redis and SQLite: how long a lease lasts unless renewed (default 15 s; renewed every third). */
  leaseMs?: number;
}

type Release = () => Promise<void>;

interface Backend {
  acquire(name: string, deadline: number): Promise<Release>;
  close(): Promise<void>;
}

/** A 64-bit key for pg_advisory_lock. */
export const advisoryKey = (name: string): string => createHash('sha256').update(`switchboard bot link lock\0${name}`).digest().readBigInt64BE(0).toString();

async function postgresBackend(url: string, waitMs: number): Promise<Backend> {
  const { default: pg } = await import('pg');
  const parsed = new URL(url);
  parsed.searchParams.delete('schema'); // keyv's table schema; advisory locks are per database
  const pool = new pg.Pool({ connectionString: parsed.toString(), max: 10, idleTimeoutMillis: 10_000, connectionTimeoutMillis: waitMs });
  pool.on('error', () => undefined); // an idle connection dropped: the pool replaces it
  return {
    async acquire(name, deadline) {
      const key = advisoryKey(name);
      const client = await pool.connect().catch((error: unknown) => {
        // Every pooled connection busy holding other users' locks for longer than the wait.
        if (error instanceof Error && /timeout/i.test(error.message)) throw new LinkLockTimeoutError(name);
        throw error;
      });
      try {
        await client.query(`select set_config('lock_timeout', $1, false)`, [`${Math.max(1, deadline - Date.now())}ms`]);
        await client.query('select pg_advisory_lock($1::bigint)', [key]);
      } catch (error) {
        client.release();
        if ((error as { code?: string }).code === '55P03') throw new LinkLockTimeoutError(name);
        throw error;
      }
      return async () => {
        try {
          await client.query('select pg_advisory_unlock($1::bigint)', [key]);
          client.release();
        } catch (error) {
          client.release(error as Error); // destroys the connection, which releases the lock
        }
      };
    },
    close: () => pool.end(),
  };
}

interface Lease {
  take(name: string, owner: string, leaseMs: number): Promise<boolean>;
  renew(name: string, owner: string, leaseMs: number): Promise<void>;
  give(name: string, owner: string): Promise<void>;
  close(): Promise<void>;
}

function leaseBackend(lease: Lease, leaseMs: number): Backend {
  return {
    async acquire(name, deadline) {
      const owner = randomBytes(16).toString('base64url');
      while (!(await lease.take(name, owner, leaseMs))) {
        if (Date.now() >= deadline) throw new LinkLockTimeoutError(name);
        await sleep(15 + Math.random() * 35);
      }
      const renewal = setInterval(() => void lease.renew(name, owner, leaseMs).catch(() => undefined), Math.max(100, leaseMs / 3));
      renewal.unref();
      return async () => {
        clearInterval(renewal);
        await lease.give(name, owner);
      };
    },
    close: () => lease.close(),
  };
}

const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

async function redisLease(url: string): Promise<Lease> {
  const redis = await createRedis(url, { maxRetriesPerRequest: 2 });
  redis.on('error', () => undefined); // surfaced per call
  const key = (name: string) => `switchboard-bot-links:lock:${name}`;
  return {
    take: async (name, owner, leaseMs) => (await redis.set(key(name), owner, 'PX', leaseMs, 'NX')) === 'OK',
    renew: async (name, owner, leaseMs) => void (await redis.eval(RENEW, 1, key(name), owner, String(leaseMs))),
    give: async (name, owner) => void (await redis.eval(RELEASE, 1, key(name), owner)),
    close: async () => void (await redis.quit().catch(() => redis.disconnect())),
  };
}

async function sqliteLease(path: string): Promise<Lease> {
  const { default: Database } = await import('better-sqlite3');
  // Statements here are single rows; another process holds the file's write lock for
  // microseconds, which the busy timeout waits out.
  const db = new Database(`${path}.locks`, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.exec('create table if not exists link_locks (name text primary key, owner text not null, until integer not null)');
  const take = db.prepare<[string, string, number, number]>(
    'insert into link_locks (name, owner, until) values (?, ?, ?) on conflict (name) do update set owner = excluded.owner, until = excluded.until where link_locks.until < ?',
  );
  const renew = db.prepare<[number, string, string]>('update link_locks set until = ? where name = ? and owner = ?');
  const give = db.prepare<[string, string]>('delete from link_locks where name = ? and owner = ?');
  return {
    take: async (name, owner, leaseMs) => {
      const now = Date.now();
      return take.run(name, owner, now + leaseMs, now).changes === 1;
    },
    renew: async (name, owner, leaseMs) => void renew.run(Date.now() + leaseMs, name, owner),
    give: async (name, owner) => void give.run(name, owner),
    close: async () => void db.close(),
  };
}

/** Only in-process queueing: a store no other process can open (SQLite in memory). */
const localBackend: Backend = { acquire: async () => async () => undefined, close: async () => undefined };

/** A lock for the link store at `url` (the same URL as BOT_STORE_URL). */
export async function openLinkLock(url: string, options: LinkLockOptions = {}): Promise<LinkLock> {
  const waitMs = options.waitMs ?? 30_000;
  const leaseMs = options.leaseMs ?? 15_000;
  let backend: Backend;
  if (url.startsWith('sqlite://')) {
    const path = url.slice('sqlite://'.length);
    backend = path === '' || path === ':memory:' ? localBackend : leaseBackend(await sqliteLease(path), leaseMs);
  } else if (url.startsWith('redis')) {
    backend = leaseBackend(await redisLease(url), leaseMs);
  } else {
    backend = await postgresBackend(url, waitMs);
  }

  const tails = new Map<string, Promise<void>>();
  return {
    async hold(name, work) {
      const previous = tails.get(name) ?? Promise.resolve();
      let done!: () => void;
      const mine = new Promise<void>((resolve) => (done = resolve));
      const tail = previous.then(() => mine);
      tails.set(name, tail);
      try {
        await previous;
        const release = await backend.acquire(name, Date.now() + waitMs);
        try {
          return await work();
        } finally {
          await release().catch(() => undefined);
        }
      } finally {
        done();
        if (tails.get(name) === tail) tails.delete(name);
      }
    },
    close: () => backend.close(),
  };
}
