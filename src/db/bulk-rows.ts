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
      const arrays = columns.map((column) => sql`${arrayParameter(part, column)}::${sql.raw(column.pgType)}[]`);
      const result = await sql<Returned>`insert into ${sql.table(table)} (${names}) select * from unnest(${sql.join(arrays)}) ${suffix}`.execute(trx);
      returned.push(...result.rows);
    }
    return returned;
  }
  const perStatement = Math.max(1, Math.min(SQLITE_ROWS_PER_STATEMENT, Math.floor(SQLITE_PARAMETERS / columns.length)));
  for (let start = 0; start < rows.length; start += perStatement) {
    const part = rows.slice(start, start + perStatement);
    const tuples = part.map((row) => sql`(${sql.join(columns.map((column) => checked(row[column.name], column)))})`);
    const result = await sql<Returned>`insert into ${sql.table(table)} (${names}) values ${sql.join(tuples)} ${suffix}`.execute(trx);
    returned.push(...result.rows);
  }
  return returned;
}

/**
 * A column's values as one bound parameter. Integers go as PostgreSQL's array text, joined here:
 * pg would quote and escape each of tens of thousands of elements one by one, a tenth of a large
 * import's JavaScript. Each is checked to be an integer (as on SQLite), so no value can change
 * the array's shape. Text goes as an array for pg to escape.
 */
function arrayParameter<Row extends Record<string, number | string | null>>(
  rows: readonly Row[],
  column: BulkColumn<Row>,
): string | Array<Row[keyof Row & string]> {
  if (column.pgType === 'text') return rows.map((row) => row[column.name]);
  const parts = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const value = checked((rows[i] as Row)[column.name], column);
    parts[i] = value === null ? 'NULL' : String(value);
  }
  return `{${parts.join(',')}}`;
}

const INTEGER = /^-?\d{1,19}$/;

/** `value`, refused when its column holds integers and it is not one (a safe integer, or an integer's digits). */
function checked<Value extends number | string | null | undefined>(value: Value, column: BulkColumn<never>): Value {
  if (column.pgType === 'text' || value === null) return value;
  if (typeof value === 'number' ? Number.isSafeInteger(value) : typeof value === 'string' && INTEGER.test(value)) return value;
  throw new TypeError(`${column.name}: ${JSON.stringify(value)} is not an integer`);
}
