// Many rows into one table in few statements, for the writes that carry thousands (an import's
// switches, their members, profile field values). On PostgreSQL the rows go as one array per
// column, unnested by the server (`insert … select * from unnest($1::bigint[], $2::text[], …)`):
// a handful of bound parameters whatever the row count, so one statement carries tens of thousands
// of rows, with one round trip and one firing of each statement-level trigger. A multi-row VALUES
// list binds every value and meets PostgreSQL's 65,535-parameter bound long before. SQLite binds
// values cheaply in-process and has no array type: there the rows go as multi-row VALUES, chunked
// under its 32,766-parameter bound.
import { PostgresAdapter, sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Schema } from './tables.js';

type Executor = Kysely<Schema> | Transaction<Schema>;

/** A column of a bulk write: its name and its PostgreSQL type (the arrays' element type). */
export interface BulkColumn<Row> {
  name: keyof Row & string;
  pgType: 'bigint' | 'integer' | 'text';
}

/** Rows per unnest statement: bounds the arrays' size in one message, not the parameters. */
const PG_ROWS_PER_STATEMENT = 20_000;
/** SQLite's bound on parameters per statement, with room to spare. */
const SQLITE_PARAMETERS = 30_000;
/** Rows per SQLite statement: larger ones measured slower there (the import of bench row 12d). */
const SQLITE_ROWS_PER_STATEMENT = 1000;

export function isPostgres(trx: Executor): boolean {
  return trx.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Inserts `rows` into `table`, `suffix` (an ON CONFLICT clause, a RETURNING list, or nothing)
 * after each statement's rows, and returns what the statements returned, in statement order.
 * The rows' values must be plain numbers, strings or nulls of the columns' types.
 */
export async function insertInBulk<Row extends Record<string, number | string | null>, Returned = never>(
  trx: Executor,
  table: keyof Schema & string,
  columns: ReadonlyArray<BulkColumn<Row>>,
  rows: readonly Row[],
  suffix: RawBuilder<unknown> = sql``,
): Promise<Returned[]> {
  if (rows.length === 0) return [];
  const names = sql.join(columns.map((column) => sql.id(column.name)));
  const returned: Returned[] = [];
  if (isPostgres(trx)) {
    for (let start = 0; start < rows.length; start += PG_ROWS_PER_STATEMENT) {
      const part = rows.slice(start, start + PG_ROWS_PER_STATEMENT);
      const arrays = columns.map((column) => sql`${part.map((row) => row[column.name])}::${sql.raw(column.pgType)}[]`);
      const result = await sql<Returned>`insert into ${sql.table(table)} (${names}) select * from unnest(${sql.join(arrays)}) ${suffix}`.execute(trx);
      returned.push(...result.rows);
    }
    return returned;
  }
  const perStatement = Math.max(1, Math.min(SQLITE_ROWS_PER_STATEMENT, Math.floor(SQLITE_PARAMETERS / columns.length)));
  for (let start = 0; start < rows.length; start += perStatement) {
    const part = rows.slice(start, start + perStatement);
    const tuples = part.map((row) => sql`(${sql.join(columns.map((column) => row[column.name]))})`);
    const result = await sql<Returned>`insert into ${sql.table(table)} (${names}) values ${sql.join(tuples)} ${suffix}`.execute(trx);
    returned.push(...result.rows);
  }
  return returned;
}
