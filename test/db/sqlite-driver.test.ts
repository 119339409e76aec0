// The SQLite driver's promises (src/db/sqlite-driver.ts): concurrent transactions share one
// physical commit, none resolves before that commit is on disk, nothing outside the write
// connection sees a batch before it commits, a failed transaction rolls back alone, a batch SQLite
// abandons fails whole, and prepared statements follow schema changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/database.js';

let dir: string;
let file: string;
let database: Database;
/** A connection of another process: sees only what has been committed to the file. */
let outside: SqliteDatabase.Database;

const usersOutside = () => (outside.prepare('select id from users order by id').pluck().all() as string[]).filter((id) => id.startsWith('8'));
const insertUser = (id: string) => ({ id, username: null, created_at: 0, last_sign_in_at: null });
const commitCounts = () => {
  if (!database.commits) throw new Error('an SQLite database counts its commits');
  return { ...database.commits };
};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-driver-'));
  file = join(dir, 'test.db');
  database = openDatabase(`sqlite:${file}`);
  await migrateToLatest(database.db);
  outside = new SqliteDatabase(file, { readonly: true });
});
afterEach(async () => {
  outside.close();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite group commit', () => {
  it('commits concurrent transactions together, and none resolves before the commit is in the file', async () => {
    const before = commitCounts();
    const ids = ['800', '801', '802', '803', '804'];
    const seenAtResolve = new Map<string, string[]>();
    await Promise.all(
      ids.map((id) =>
        database.db
          .transaction()
          .execute(async (trx) => {
            await trx.insertInto('users').values(insertUser(id)).execute();
          })
          .then(() => seenAtResolve.set(id, usersOutside())),
      ),
    );
    // Each transaction, when it resolved, was already visible to another connection.
    for (const id of ids) expect(seenAtResolve.get(id)).toContain(id);
    const after = commitCounts();
    expect(after.transactions - before.transactions).toBe(5);
    // Together: one commit here, unless the machine stalled past a batch's 20 ms age limit.
    expect(after.commits - before.commits).toBeLessThan(5);
  });

  it('shows nothing of an open batch to reads outside a transaction', async () => {
    let readDuringBatch: unknown[] = ['not read'];
    await Promise.all([
      database.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(insertUser('810')).execute();
      }),
      // Queued behind the first: runs when the first has released its savepoint but not committed.
      database.db.transaction().execute(async (trx) => {
        readDuringBatch = await database.db.selectFrom('users').select('id').where('id', '=', '810').execute();
        await trx.insertInto('users').values(insertUser('811')).execute();
      }),
    ]);
    expect(readDuringBatch).toEqual([]);
    expect(await database.db.selectFrom('users').select('id').where('id', 'in', ['810', '811']).orderBy('id').execute()).toEqual([{ id: '810' }, { id: '811' }]);
  });

  it('rolls a failed transaction back alone; the others of its batch commit', async () => {
    const results = await Promise.allSettled([
      database.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(insertUser('820')).execute();
      }),
      database.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(insertUser('821')).execute();
        throw new Error('changed my mind');
      }),
      database.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(insertUser('822')).execute();
        await trx.insertInto('users').values(insertUser('820')).execute(); // duplicate key
      }),
      database.db.insertInto('users').values(insertUser('823')).execute(),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(usersOutside()).toEqual(['820', '823']);
  });

  it('fails every transaction of a batch that SQLite abandoned, and commits none of them', async () => {
    const results = await Promise.allSettled([
      database.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(insertUser('830')).execute();
      }),
      database.db.transaction().execute(async (trx) => {
        await trx.insertInto('users').values(insertUser('831')).execute();
        // What SQLite does on an I/O error or a full disk: the whole physical transaction is gone.
        await sql`rollback`.execute(trx);
        await trx.insertInto('users').values(insertUser('832')).execute();
      }),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(usersOutside()).toEqual([]);
    // The connection is usable again.
    await database.db.insertInto('users').values(insertUser('833')).execute();
    expect(usersOutside()).toEqual(['833']);
  });

  it('reads a table’s new columns after a schema change', async () => {
    await database.db.insertInto('users').values(insertUser('840')).execute();
    const read = () => sql<Record<string, unknown>>`select * from users where id = ${'840'}`.execute(database.db);
    expect((await read()).rows[0]).not.toHaveProperty('nickname');
    await sql`alter table users add column nickname text`.execute(database.db);
    expect((await read()).rows[0]).toHaveProperty('nickname', null);
    await sql`alter table users drop column nickname`.execute(database.db);
    expect((await read()).rows[0]).not.toHaveProperty('nickname');
  });
});
