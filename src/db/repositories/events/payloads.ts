// How an event's snapshot is stored: small fields inline in events.payload, each large value once
// in event_values under the hash of its JSON (migration 2026-11-27T11). An edit that leaves a big
// alter's maps as they were adds only their hashes, so the outbox grows by what changed. Payloads
// read back are the snapshots that were written, whatever was stored apart.
import { createHash } from 'node:crypto';
import { PostgresAdapter, sql, type Kysely, type Transaction } from 'kysely';
import type { EventSnapshot } from '../../../domain/events.js';
import type { Schema } from '../../tables.js';

type Executor = Kysely<Schema> | Transaction<Schema>;

/** A field whose JSON is longer than this is stored apart: most alters have none, and cost no more statements. */
const STORED_APART = 1024;

/** The payload's key naming what is stored apart: `"<part>.<field>": hash`. No snapshot has such a key. */
const REFS = '$refs' as const;

export interface SplitSnapshot {
  payload: string;
  values: Map<string, string>;
}

/** The payload to store, with the large values (hash → JSON) taken out; their place is kept (null). */
export function splitSnapshot(snapshot: EventSnapshot): SplitSnapshot {
  const values = new Map<string, string>();
  const refs: Record<string, string> = {};
  const stored: Record<string, unknown> = {};
  for (const [key, part] of Object.entries(snapshot)) {
    if (part === null || typeof part !== 'object' || Array.isArray(part)) {
      stored[key] = part;
      continue;
    }
    const kept: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(part as Record<string, unknown>)) {
      const json = JSON.stringify(value);
      if (json === undefined || json.length <= STORED_APART) {
        kept[field] = value;
        continue;
      }
      const hash = createHash('sha256').update(json).digest('base64url');
      values.set(hash, json);
      refs[`${key}.${field}`] = hash;
      kept[field] = null;
    }
    stored[key] = kept;
  }
  if (values.size > 0) stored[REFS] = refs;
  return { payload: JSON.stringify(stored), values };
}

/** Stores the event's large values (each once, whoever stored it first) and its references to them. */
export async function storeEventValues(trx: Transaction<Schema>, eventId: number, values: Map<string, string>): Promise<void> {
  if (values.size === 0) return;
  const hashes = [...values.keys()];
  // FOR SHARE (PostgreSQL): a purge cannot delete a value between this look and the reference.
  const postgres = trx.getExecutor().adapter instanceof PostgresAdapter;
  const present = await trx
    .selectFrom('event_values')
    .select('hash')
    .where('hash', 'in', hashes)
    .$if(postgres, (q) => q.forShare())
    .execute();
  const known = new Set(present.map((row) => row.hash));
  const missing = hashes.filter((hash) => !known.has(hash));
  if (missing.length > 0) {
    await trx
      .insertInto('event_values')
      .values(missing.map((hash) => ({ hash, value: values.get(hash) ?? 'null' })))
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  }
  await trx.insertInto('event_value_refs').values(hashes.map((hash) => ({ event_id: eventId, hash }))).execute();
}

/**
 * storeEventValues for many events at once (an import's thousands): the values none stored yet,
 * then every reference, each in a few statements rather than three per event.
 */
export async function storeEventValuesOfMany(trx: Transaction<Schema>, events: ReadonlyArray<{ eventId: number; values: Map<string, string> }>): Promise<void> {
  const all = new Map<string, string>();
  for (const { values } of events) for (const [hash, json] of values) all.set(hash, json);
  if (all.size === 0) return;
  const postgres = trx.getExecutor().adapter instanceof PostgresAdapter;
  const hashes = [...all.keys()];
  const known = new Set<string>();
  for (let start = 0; start < hashes.length; start += VALUES_PER_STATEMENT) {
    const present = await trx
      .selectFrom('event_values')
      .select('hash')
      .where('hash', 'in', hashes.slice(start, start + VALUES_PER_STATEMENT))
      .$if(postgres, (q) => q.forShare())
      .execute();
    for (const row of present) known.add(row.hash);
  }
  const missing = hashes.filter((hash) => !known.has(hash));
  for (let start = 0; start < missing.length; start += VALUES_PER_STATEMENT) {
    await trx
      .insertInto('event_values')
      .values(missing.slice(start, start + VALUES_PER_STATEMENT).map((hash) => ({ hash, value: all.get(hash) ?? 'null' })))
      .onConflict((oc) => oc.column('hash').doNothing())
      .execute();
  }
  const refs = events.flatMap(({ eventId, values }) => [...values.keys()].map((hash) => ({ event_id: eventId, hash })));
  for (let start = 0; start < refs.length; start += VALUES_PER_STATEMENT) {
    await trx.insertInto('event_value_refs').values(refs.slice(start, start + VALUES_PER_STATEMENT)).execute();
  }
}

/** Hashes, values or references per statement: two parameters each, far below either bound. */
const VALUES_PER_STATEMENT = 1000;

/** The snapshots of stored payloads, with their large values put back (one query for all of them). */
export async function readSnapshots(db: Executor, payloads: string[]): Promise<EventSnapshot[]> {
  const parsed = payloads.map((payload) => JSON.parse(payload) as Record<string, unknown> & { $refs?: Record<string, string> });
  const hashes = new Set(parsed.flatMap((payload) => Object.values(payload.$refs ?? {})));
  const values = new Map<string, string>();
  if (hashes.size > 0) {
    for (const row of await db.selectFrom('event_values').select(['hash', 'value']).where('hash', 'in', [...hashes]).execute()) values.set(row.hash, row.value);
  }
  return parsed.map((payload) => {
    const refs = payload.$refs;
    if (!refs) return payload as unknown as EventSnapshot;
    delete payload.$refs;
    for (const [path, hash] of Object.entries(refs)) {
      const dot = path.indexOf('.');
      const part = payload[path.slice(0, dot)] as Record<string, unknown>;
      const json = values.get(hash);
      if (json === undefined) throw new Error(`event value ${hash} is missing`);
      part[path.slice(dot + 1)] = JSON.parse(json) as unknown;
    }
    return payload as unknown as EventSnapshot;
  });
}

/**
 * Deletes values no event refers to any more (after purgeEvents), a batch at a time. A value a
 * transaction is just referring to again is kept: the reference's foreign key makes the delete
 * fail, and that batch is left for the next purge.
 */
export async function purgeEventValues(db: Kysely<Schema>, batchSize = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const orphans = await db
      .selectFrom('event_values as v')
      .select('v.hash')
      .where((eb) => eb.not(eb.exists(eb.selectFrom('event_value_refs as r').select(sql.lit(1).as('one')).whereRef('r.hash', '=', 'v.hash'))))
      .limit(batchSize)
      .execute();
    if (orphans.length === 0) return total;
    try {
      const deleted = await db.deleteFrom('event_values').where('hash', 'in', orphans.map((row) => row.hash)).executeTakeFirst();
      total += Number(deleted.numDeletedRows);
    } catch {
      return total;
    }
    if (orphans.length < batchSize) return total;
  }
}
