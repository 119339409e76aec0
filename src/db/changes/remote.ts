// Changes made by other processes. A cache may answer only while it would learn of them:
// - PostgreSQL: one dedicated connection LISTENs on the change channel; every committed note of
//   every process arrives there. While that connection is down the caches are emptied and bypassed
//   (usable() is false); once it listens again they are emptied once more (whatever changed in
//   between was missed) and used again.
// - SQLite: other processes (the CLI, a second service on the same file) show up as a new
//   `PRAGMA data_version`, which changes when another connection commits; a change empties every
//   cache of this database (the file says that something changed, not what). Any cache use reads
//   it first in a turn that has not read it yet.
// Either way a request starting waits until this process has caught up with what other processes
// committed before it arrived (`catchUp`, an onRequest hook), so a client that wrote through one
// process and then reads through another sees its write. One catch-up in the check phase of the
// event loop serves every request the poll phase before it read (a version read on SQLite, a
// round trip on the listening connection on PostgreSQL), and they go on in groups of 8.
import type SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import { loadPg } from '../pg.js';
import { CHANGE_CHANNEL, decodeTopics, onLocalChange, type Changes } from './notes.js';

export interface ChangeWatch {
  /** Whether a cache may answer now: false while other processes' changes could go unseen. */
  usable(): boolean;
  /**
   * Catches up with other processes' changes, then calls `then` (a request starting: no cache may
   * answer it from before its arrival), with the error if it could not. usable() may skip its own
   * check in the turn that did this.
   */
  catchUp(then: (error?: Error) => void): void;
  /** Hears this process's changes and other processes' (as far as the watch can tell). */
  subscribe(listener: (changes: Changes) => void): () => void;
  close(): Promise<void>;
}

/** How many requests go on together after a catch-up (BaseWatch.goOn). */
const REQUESTS_TOGETHER = 8;

abstract class BaseWatch implements ChangeWatch {
  private readonly listeners = new Set<(changes: Changes) => void>();
  private readonly stopLocal = onLocalChange((changes) => this.emit(changes));
  /** The requests waiting for this turn's catch-up. */
  private waiting: Array<(error?: Error) => void> = [];

  abstract usable(): boolean;

  /** Whether a request must wait for readChanges: not once closed, nor while the caches are bypassed. */
  protected abstract mustCatchUp(): boolean;

  /**
   * Learns what other processes committed before now, then calls `done` (with the error if it
   * could not). Called in the check phase, once every byte of the waiting requests was read.
   */
  protected abstract readChanges(done: (failure?: Error) => void): void;

  /**
   * Every request that arrives in a turn of the event loop waits for the check phase that follows
   * the poll phase which read it; one readChanges there serves them all. It starts after each of
   * their bytes was read from its socket, so whatever another process committed before a client
   * sent its request is seen, as with a catch-up per request, for one per turn instead.
   */
  catchUp(then: (error?: Error) => void): void {
    if (!this.mustCatchUp()) return then();
    this.waiting.push(then);
    if (this.waiting.length === 1) setImmediate(this.release);
  }

  private readonly release = () => {
    const waiting = this.waiting;
    this.waiting = [];
    // A catch-up that fails fails the requests that waited for it (Fastify answers each with an
    // error), as when each request read for itself; nothing is left waiting.
    this.readChanges((failure) => this.goOn(waiting, failure));
  };

  /**
   * Lets the waiting requests go on, a group at a time: the requests of a group advance together
   * (one drain of the microtask queue), the next group in the next turn. Unbounded, a turn's worth of
   * 250-alter pages were all alive at once, and the list cost 40 % more CPU (bench/ANALYSIS.md).
   */
  private goOn(waiting: Array<(error?: Error) => void>, failure: Error | undefined): void {
    // Fastify answers what a later hook or the handler throws with an error: one request cannot stop the others.
    for (const then of waiting.slice(0, REQUESTS_TOGETHER)) then(failure);
    if (waiting.length > REQUESTS_TOGETHER) setImmediate(() => this.goOn(waiting.slice(REQUESTS_TOGETHER), failure));
  }

  subscribe(listener: (changes: Changes) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected emit(changes: Changes): void {
    for (const listener of this.listeners) listener(changes);
  }

  async close(): Promise<void> {
    this.stopLocal();
    this.emit('all');
  }
}

export class SqliteDataVersionWatch extends BaseWatch {
  private readonly readVersion: () => unknown;
  private version: unknown;
  private closed = false;
  /** Read in this turn of the event loop; cleared by setImmediate, before any later turn. */
  private fresh = false;

  constructor(connection: SqliteDatabase.Database) {
    super();
    const statement = connection.prepare('pragma data_version').pluck();
    this.readVersion = () => statement.get();
    this.version = this.readVersion();
  }

  usable(): boolean {
    if (this.closed) return false;
    if (!this.fresh) this.check();
    return true;
  }

  protected mustCatchUp(): boolean {
    return !this.closed;
  }

  protected readChanges(done: (failure?: Error) => void): void {
    try {
      if (!this.closed) this.check();
    } catch (error) {
      return done(error instanceof Error ? error : new Error(String(error)));
    }
    done();
  }

  private check(): void {
    const version = this.readVersion();
    if (version !== this.version) {
      this.version = version;
      this.emit('all');
    }
    if (!this.fresh) {
      this.fresh = true;
      setImmediate(() => (this.fresh = false)).unref();
    }
  }

  override async close(): Promise<void> {
    this.closed = true;
    await super.close();
  }
}

export interface ListenerLog {
  warn(message: string): void;
  info(message: string): void;
}

/** The PostgreSQL application_name of this process's change listeners. */
export const listenerApplicationName = () => `switchboard-changes ${process.pid}`;

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

export class PostgresListenerWatch extends BaseWatch {
  private client: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private retryMs = RETRY_FIRST_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private schema: string | undefined;
  /** A catch-up round trip is out on the listening connection. */
  private syncing = false;
  /** Catch-ups waiting for the next round trip. */
  private waitingForSync: Array<(failure?: Error) => void> = [];
  /** Resolves once the first LISTEN has succeeded or failed (tests and start-up can wait for it). */
  readonly firstAttempt: Promise<void>;

  constructor(
    private readonly connectionString: string,
    private readonly log: ListenerLog | undefined,
  ) {
    super();
    this.firstAttempt = this.connect();
  }

  usable(): boolean {
    return this.listening;
  }

  protected mustCatchUp(): boolean {
    return this.listening;
  }

  /**
   * A round trip on the listening connection (an empty query). A transaction that commits signals
   * every listening backend before its client hears that it committed, and a listening backend
   * sends the notifications it was signalled for before it says it is ready for the next query; pg
   * hands messages over in the order they came. So by the answer, every note committed before the
   * waiting requests arrived has been heard. Without it, a client that changed something through
   * another process could be answered here before the notification arrived: with a revoked token,
   * or through privacy settings it had just made stricter.
   */
  protected readChanges(done: (failure?: Error) => void): void {
    this.waitingForSync.push(done);
    if (!this.syncing) this.sync();
  }

  /**
   * One round trip at a time: what arrives while one is out waits for the next, which must start
   * after it arrived (the one out may have been sent before).
   */
  private sync(): void {
    const client = this.client;
    const waiting = this.waitingForSync;
    this.waitingForSync = [];
    if (!client || !this.listening) {
      for (const done of waiting) done();
      return;
    }
    this.syncing = true;
    const finish = () => {
      this.syncing = false;
      for (const done of waiting) done();
      if (this.waitingForSync.length > 0) this.sync();
    };
    // An empty query: nothing to parse, plan or run, and still an answer after the notifications.
    client.query('').then(finish, () => {
      // Whatever went wrong, this connection can no longer be trusted to have heard everything:
      // the caches are emptied and bypassed until it listens again, so the requests may go on.
      this.lost(client);
      finish();
    });
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // Named so that an operator (or a test) can tell the listener apart in pg_stat_activity.
    const client = new (loadPg().Client)({ connectionString: this.connectionString, application_name: listenerApplicationName() });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel !== CHANGE_CHANNEL || message.payload === undefined) return;
      const space = message.payload.indexOf(' ');
      // Another schema is another deployment (or test) sharing the database: not ours.
      if (space < 0 || message.payload.slice(0, space) !== this.schema) return;
      this.emit(decodeTopics(message.payload.slice(space + 1)));
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
      this.schema = rows[0]?.schema;
      await client.query(`listen ${CHANGE_CHANNEL}`);
      if (this.client !== client || this.closed) return;
      // Whatever changed while nobody listened is unknown: start from empty caches.
      this.emit('all');
      this.listening = true;
      if (this.retryMs !== RETRY_FIRST_MS) this.log?.info('cache invalidation listener is back; caches are in use again');
      this.retryMs = RETRY_FIRST_MS;
    } catch {
      this.lost(client);
    }
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    const wasListening = this.listening;
    this.listening = false;
    this.emit('all');
    client.end().catch(() => undefined);
    if (this.closed) return;
    if (wasListening) this.log?.warn('cache invalidation listener lost its PostgreSQL connection; caches are bypassed until it is back');
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }

  override async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await super.close();
  }
}
