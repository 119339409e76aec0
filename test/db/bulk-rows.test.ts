// Bulk inserts (db/bulk-rows.ts) on both databases: every value comes back as written, whatever the
// text holds (the characters PostgreSQL's array syntax gives meaning to included), integers past a
// double's precision stay exact, nulls stay null, and a value that is not an integer in an integer
// column is refused before anything is sent, on either database.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertInBulk, type BulkColumn } from '../../src/db/bulk-rows.js';
import type { Database } from '../../src/db/database.js';
import type { Schema } from '../../src/db/tables.js';
import { closeTestDatabase, DIALECTS, openMigratedTestDatabase, type TestDatabase } from '../support/dialects.js';

type ProbeRow = { big: number | string | null; small: number | null; words: string | null };
const COLUMNS: ReadonlyArray<BulkColumn<ProbeRow>> = [
  { name: 'big', pgType: 'bigint' },
  { name: 'small', pgType: 'integer' },
  { name: 'words', pgType: 'text' },
];
// A table only this test has: the helper takes any table the schema names.
const PROBE = 'bulk_probe' as keyof Schema & string;

const TEXTS = ['plain', '', 'NULL', 'null', 'a,b', '{x}', '"quoted"', 'back\\slash', ' spaced ', 'line\nbreak', 'émoji 🦊', "it's", '\\"}, {'];

describe.each(DIALECTS)('insertInBulk on %s', (dialect) => {
  let opened: { testDatabase?: TestDatabase; database?: Database } = {};
  let db: Database['db'];

  beforeAll(async () => {
    opened = await openMigratedTestDatabase(dialect);
    db = (opened.database as Database).db;
    await sql`create table bulk_probe (n integer not null, big bigint, small integer, words text)`.execute(db);
  });
  afterAll(async () => closeTestDatabase(opened));

  it('writes every row as given: text of any characters, exact large integers, nulls', async () => {
    const rows: ProbeRow[] = [];
    for (let n = 0; n < 2500; n++) {
      rows.push({
        big: n % 7 === 0 ? null : n % 3 === 0 ? String(9_007_199_254_740_993n + BigInt(n)) : -n,
        small: n % 5 === 0 ? null : n,
        words: n % 11 === 0 ? null : `${TEXTS[n % TEXTS.length] ?? ''}${n}`,
      });
    }
    const columns = [{ name: 'n', pgType: 'integer' } as const, ...COLUMNS] as ReadonlyArray<BulkColumn<ProbeRow & { n: number }>>;
    await insertInBulk(
      db,
      PROBE,
      columns,
      rows.map((row, n) => ({ n, ...row })),
    );
    const back = await sql<{ n: number; big: string | number | null; small: number | null; words: string | null }>`
      select n, cast(big as text) as big, small, words from bulk_probe order by n`.execute(db);
    expect(back.rows).toHaveLength(rows.length);
    back.rows.forEach((row, n) => {
      const written = rows[n] as ProbeRow;
      expect(row.big === null ? null : String(row.big)).toBe(written.big === null ? null : String(written.big));
      expect(row.small === null ? null : Number(row.small)).toBe(written.small);
      expect(row.words).toBe(written.words);
    });
  });

  it.each([
    ['a fraction', 1.5],
    ['text in an integer column', '1},{2'],
    ['an integer past a double', 2 ** 60],
    ['an empty string', ''],
  ])('refuses %s in an integer column and writes nothing', async (_name, value) => {
    await sql`delete from bulk_probe`.execute(db);
    const attempt = insertInBulk(db, PROBE, COLUMNS, [
      { big: 1, small: 1, words: 'first' },
      { big: value, small: 2, words: 'second' },
    ]);
    await expect(attempt).rejects.toThrow(/is not an integer/);
    const count = await sql<{ n: number | string }>`select count(*) as n from bulk_probe`.execute(db);
    expect(Number(count.rows[0]?.n)).toBe(0);
  });
});
