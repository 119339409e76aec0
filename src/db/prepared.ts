// Queries on the request's hot path, built and compiled once. Building a Kysely query (the
// builder's immutable nodes) and compiling it to SQL cost more CPU than SQLite takes to run it: in
// the point read's profile they were about a fifth of the request. A prepared query is built once
// per dialect with placeholders in its slots; each run copies the compiled SQL and puts the values
// in the slots' parameter positions. The database's own prepared statement (db/database.ts on
// SQLite, a named statement on PostgreSQL) is then found by that same SQL text.
import type { Compilable, CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Schema } from './tables.js';

type Executor = Kysely<Schema> | Transaction<Schema>;

/** A placeholder the builder receives instead of a value; only where Kysely binds a parameter. */
class Slot {
  constructor(readonly name: string) {}
}

interface Compiled {
  query: CompiledQuery;
  /** For each parameter: the slot whose value goes there, or a constant the builder wrote. */
  positions: Array<{ slot: string } | { constant: unknown }>;
}

/**
 * `build` must use each slot as one bound value (a `where` operand, `limit`, an inserted value),
 * never to decide the query's shape: a shape that depends on an input is a separate prepared query.
 */
export function prepareQuery<P extends Record<string, unknown>, R>(
  build: (db: Executor, slots: P) => Compilable<R>,
): (db: Executor, values: P) => Promise<R[]> {
  // One compilation per dialect: the adapter is the same object for a database and its transactions.
  const byAdapter = new WeakMap<object, Compiled>();
  const slots = new Proxy({} as P, { get: (_target, name) => new Slot(String(name)) });

  function compile(db: Executor): Compiled {
    const query = build(db, slots).compile();
    const positions = query.parameters.map((parameter) => (parameter instanceof Slot ? { slot: parameter.name } : { constant: parameter }));
    return { query, positions };
  }

  return async (db, values) => {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter);
    if (!compiled) byAdapter.set(adapter, (compiled = compile(db)));
    const parameters = compiled.positions.map((position) => ('slot' in position ? values[position.slot] : position.constant));
    const result = await db.executeQuery<R>({ ...compiled.query, parameters } as CompiledQuery<R>);
    return result.rows;
  };
}
