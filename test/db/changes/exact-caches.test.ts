// The machinery that keeps in-memory caches exact (src/db/changes/): change notes reach this
// process's caches when their transaction commits and never when it rolls back; a fill that
// raced a change is refused; another process's writes empty the caches (SQLite's data version)
// or drop what they name (PostgreSQL's notifications); a lost listener empties and bypasses them
// until it is back.
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ExactCache } from '../../../src/db/changes/exact-cache.js';
import { CHANGE_CHANNEL, noteChange } from '../../../src/db/changes/notes.js';
import { listenerApplicationName, SqliteDataVersionWatch, type ChangeWatch } from '../../../src/db/changes/remote.js';
import { type Database } from '../../../src/db/database.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, createTestDatabase, openMigratedTestDatabase } from '../../support/dialects.js';

/** Polls `condition` until it holds (deliveries from the database are asynchronous). */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never happened: ${what}`);
}

/** What another service process's noteChange sends, from a client that shares nothing with this process. */
async function notifyFromAnotherProcess(url: string, topic: string): Promise<void> {
  const other = new pg.Client({ connectionString: url });
  await other.connect();
  try {
    await other.query('begin');
    await other.query(`select pg_notify($1, current_schema() || ' ' || $2)`, [CHANGE_CHANNEL, topic]);
    await other.query('commit');
  } finally {
    await other.end();
  }
}

function cacheOf(watch: ChangeWatch) {
  return new ExactCache<string, string>(watch, { maxEntries: 100, topicsOf: (key) => [`item:${key}`] });
}

function fillNow(cache: ExactCache<string, string>, key: string, value: string) {
  cache.fill(key, value, cache.ticket());
}

// Each test uses keys of its own: on PostgreSQL this process's own notes also come back through
// the listener a moment later, and must not land in the next test.
describe.each(DIALECTS)('exact caches (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let watch: ChangeWatch;
  let cache: ExactCache<string, string>;

  beforeAll(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
    watch = database.changes();
    await eventually(() => watch.usable(), 'the watch is usable');
  });
  afterAll(async () => {
    await closeTestDatabase({ testDatabase, database });
  });
  afterEach(() => cache?.close());

  it('drops what a committed transaction noted, at commit and not before, and keeps the rest', async () => {
    cache = cacheOf(watch);
    fillNow(cache, 'a', 'A');
    fillNow(cache, 'b', 'B');
    await database.db.transaction().execute(async (trx) => {
      await noteChange(trx, ['item:a']);
      expect(cache.get('a')).toBe('A');
    });
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('B');
  });

  it('keeps what a rolled-back transaction noted', async () => {
    cache = cacheOf(watch);
    fillNow(cache, 'r', 'R');
    await expect(
      database.db.transaction().execute(async (trx) => {
        await noteChange(trx, ['item:r']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(cache.get('r')).toBe('R');
  });

  it('drops at once what a statement outside a transaction noted', async () => {
    cache = cacheOf(watch);
    fillNow(cache, 'o', 'O');
    await noteChange(database.db, ['item:o']);
    expect(cache.get('o')).toBeUndefined();
  });

  it('refuses a fill that raced a change to its entry: the reader read before the change committed', async () => {
    cache = cacheOf(watch);
    const ticket = cache.ticket();
    await noteChange(database.db, ['item:f']);
    cache.fill('f', 'stale', ticket);
    expect(cache.get('f')).toBeUndefined();
    fillNow(cache, 'f', 'fresh');
    expect(cache.get('f')).toBe('fresh');
  });

  it('takes a fill that only raced changes to other entries (under steady writes some change races nearly every read)', async () => {
    cache = cacheOf(watch);
    const ticket = cache.ticket();
    await noteChange(database.db, ['item:g-other']);
    cache.fill('g', 'G', ticket);
    expect(cache.get('g')).toBe('G');
  });

  it('refuses a fill that raced a change to everything, and one whose ticket predates more changes than it remembers', async () => {
    cache = cacheOf(watch);
    let ticket = cache.ticket();
    await noteChange(database.db, ['item:h-other']);
    await database.db.transaction().execute(async (trx) => {
      // More topics than a note carries: it becomes a change to everything (notes.ts).
      await noteChange(trx, Array.from({ length: 800 }, (_, i) => `item:h-long-topic-${i}`));
    });
    cache.fill('h', 'stale', ticket);
    expect(cache.get('h')).toBeUndefined();
    ticket = cache.ticket();
    for (let i = 0; i < 9; i++) await noteChange(database.db, Array.from({ length: 500 }, (_, j) => `item:h${i}-${j}`));
    cache.fill('h', 'stale', ticket);
    expect(cache.get('h')).toBeUndefined();
  });

  it('hears a change committed by another process (a connection of its own, outside this process)', async () => {
    cache = cacheOf(watch);
    fillNow(cache, 'a', 'A');
    fillNow(cache, 'b', 'B');
    if (dialect === 'sqlite') {
      // SQLite's data version says that something changed, not what: everything goes.
      const other = new SqliteDatabase(testDatabase.url.slice('sqlite:'.length));
      other.prepare("insert into users (id, username, created_at, last_sign_in_at) values ('1', null, 0, null)").run();
      other.close();
      // A request arriving now (app.ts's onRequest hook) waits for a data version read before any cache answers it.
      await new Promise<void>((resolve, reject) => watch.catchUp((error) => (error ? reject(error) : resolve())));
      expect(cache.get('a')).toBeUndefined();
      expect(cache.get('b')).toBeUndefined();
    } else {
      await notifyFromAnotherProcess(testDatabase.url, 'item:a');
      await eventually(() => cache.get('a') === undefined, 'the other process’s change is heard');
      expect(cache.get('b')).toBe('B');
    }
  });

  it('on SQLite, hears another process in a later turn of the event loop without a refresh', async () => {
    if (dialect !== 'sqlite') return;
    cache = cacheOf(watch);
    fillNow(cache, 'a', 'A');
    const other = new SqliteDatabase(testDatabase.url.slice('sqlite:'.length));
    other.prepare("insert into users (id, username, created_at, last_sign_in_at) values ('2', null, 0, null)").run();
    other.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.get('a')).toBeUndefined();
  });

  it('on SQLite, lets the requests of a turn go on together after one read made once the last of them arrived', async () => {
    if (dialect !== 'sqlite') return;
    cache = cacheOf(watch);
    fillNow(cache, 'c', 'C');
    const seen: Array<[number, string | undefined]> = [];
    // Two requests arrive in one turn of the event loop (app.ts's onRequest hook) ...
    watch.catchUp(() => seen.push([1, cache.get('c')]));
    watch.catchUp(() => seen.push([2, cache.get('c')]));
    expect(seen).toEqual([]);
    // ... and another process commits after they arrived, in the same turn: neither may miss it.
    const other = new SqliteDatabase(testDatabase.url.slice('sqlite:'.length));
    other.prepare("insert into users (id, username, created_at, last_sign_in_at) values ('3', null, 0, null)").run();
    other.close();
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([
      [1, undefined],
      [2, undefined],
    ]);
  });

  it('on SQLite, lets every request of a busy turn go on, in groups, each after a read made once it arrived', async () => {
    if (dialect !== 'sqlite') return;
    cache = cacheOf(watch);
    fillNow(cache, 'm', 'M');
    const seen: Array<string | undefined> = [];
    const all = Promise.all(Array.from({ length: 20 }, () => new Promise<void>((resolve) => watch.catchUp(() => resolve(void seen.push(cache.get('m')))))));
    const other = new SqliteDatabase(testDatabase.url.slice('sqlite:'.length));
    other.prepare("insert into users (id, username, created_at, last_sign_in_at) values ('4', null, 0, null)").run();
    other.close();
    await new Promise((resolve) => setImmediate(resolve));
    // The first group has gone on; the others follow in later turns.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(20);
    await all;
    expect(seen).toEqual(Array.from({ length: 20 }, () => undefined));
  });

  it('on SQLite, fails the requests of a turn whose read fails, and leaves none waiting', async () => {
    if (dialect !== 'sqlite') return;
    const connection = new SqliteDatabase(testDatabase.url.slice('sqlite:'.length));
    const broken = new SqliteDataVersionWatch(connection);
    try {
      connection.close();
      const outcomes = await Promise.all([1, 2].map(() => new Promise<Error | undefined>((resolve) => broken.catchUp(resolve))));
      expect(outcomes.map((error) => error?.message)).toEqual(['The database connection is not open', 'The database connection is not open']);
    } finally {
      await broken.close();
    }
  });

  it('on PostgreSQL, lets a request that arrives after another process committed go on only once that commit was heard', async () => {
    if (dialect !== 'postgres') return;
    cache = cacheOf(watch);
    const other = new pg.Client({ connectionString: testDatabase.url });
    await other.connect();
    try {
      for (let round = 0; round < 20; round++) {
        fillNow(cache, `p${round}`, 'P');
        await other.query('begin');
        await other.query(`select pg_notify($1, current_schema() || ' ' || $2)`, [CHANGE_CHANNEL, `item:p${round}`]);
        await other.query('commit');
        // The commit is done, as the write request through the other process would have answered:
        // a request arriving now must not be answered from before it.
        const seen = await new Promise<string | undefined>((resolve, reject) => watch.catchUp((error) => (error ? reject(error) : resolve(cache.get(`p${round}`)))));
        expect(seen, `round ${round}`).toBeUndefined();
      }
    } finally {
      await other.end();
    }
  });

  it('ignores a change noted in another schema of the same PostgreSQL database (another deployment)', async () => {
    if (dialect !== 'postgres') return;
    cache = cacheOf(watch);
    fillNow(cache, 'x', 'X');
    fillNow(cache, 'marker', 'M');
    const elsewhere = await createTestDatabase('postgres');
    try {
      await notifyFromAnotherProcess(elsewhere.url, 'item:x');
      // A note in our own schema, sent after it, proves the first one was delivered and passed over.
      await notifyFromAnotherProcess(testDatabase.url, 'item:marker');
      await eventually(() => cache.get('marker') === undefined, 'our own note arrives');
      expect(cache.get('x')).toBe('X');
    } finally {
      await elsewhere.drop();
    }
  });

  it('empties and bypasses the caches while the PostgreSQL listener is down, and uses them again once it is back', async () => {
    if (dialect !== 'postgres') return;
    cache = cacheOf(watch);
    fillNow(cache, 'a', 'A');
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [listenerApplicationName()]);
      expect(rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    // A request arriving now goes on without an error, whether its catch-up meets the connection
    // still up, failing or gone.
    expect(await new Promise((resolve) => watch.catchUp(resolve))).toBeUndefined();
    await eventually(() => !watch.usable(), 'the watch notices the lost connection');
    fillNow(cache, 'b', 'B');
    expect(cache.get('b')).toBeUndefined();
    await eventually(() => watch.usable(), 'the listener reconnects');
    fillNow(cache, 'c', 'C');
    expect(cache.get('c')).toBe('C');
    expect(cache.get('a')).toBeUndefined();
  });
});
