// The event feed (GET /v1/events/feed): the events one client may read, oldest first. The rule of
// who sees an event (grant-periods.ts, mayReceive) is applied in the query, with the page size, so
// a read costs what it returns: only the returned rows are read out and parsed.
import { sql, type Kysely } from 'kysely';
import type { EventSnapshot, StoredEvent } from '../../../domain/events.js';
import type { Schema } from '../../tables.js';
import { readSnapshots } from './payloads.js';
import { mayReceive } from './grant-periods.js';

/** The newest event's id (0 when there is none): where a feed that starts "now" begins. */
export async function newestEventId(db: Kysely<Schema>): Promise<number> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(row?.id ?? 0);
}

export interface FeedPage {
  events: StoredEvent[];
  /** The position to read on from. */
  next: number;
  /** Whether more events may be waiting. */
  more: boolean;
}

/**
 * Up to `max` events after `after` that `clientId` may see, looking at no more than `scan` event
 * ids (most may be of users who never authorized the client): a page may be short while `next`
 * moves on.
 */
export async function feedPage(db: Kysely<Schema>, options: { clientId: string; after: number; max: number; scan: number; now: number }): Promise<FeedPage> {
  const windowEnd = options.after + options.scan;
  const rows = await db
    .selectFrom('events as ev')
    .innerJoin('systems as s', 's.id', 'ev.system_id')
    .leftJoin('oauth_clients as actor', 'actor.id', 'ev.actor_client_id')
    .select(['ev.id', 'ev.system_id', 'ev.seq', 'ev.actor_client_id', 'ev.actor_account_id', 'actor.name as actor_client_name', 'ev.payload', 'ev.created_at', 's.user_id'])
    .where('ev.id', '>', options.after)
    .where('ev.id', '<=', windowEnd)
    .where(mayReceive({ client: sql.val(options.clientId), systemId: sql.ref('ev.system_id'), eventType: sql.ref('ev.type'), eventAt: sql.ref('ev.created_at') }, options.now))
    .orderBy('ev.id')
    .limit(options.max)
    .execute();
  const snapshots = await readSnapshots(db, rows.map((row) => row.payload));
  const events = rows.map(
    (row, index): StoredEvent => ({
      id: Number(row.id),
      systemId: Number(row.system_id),
      userId: row.user_id,
      sequence: Number(row.seq),
      actorClientId: row.actor_client_id,
      actorAccountId: row.actor_account_id,
      actorClientName: row.actor_client_name,
      createdAt: Number(row.created_at),
      snapshot: snapshots[index] as EventSnapshot,
    }),
  );
  const last = events.at(-1);
  if (last && events.length === options.max) return { events, next: last.id, more: true };
  const newest = await newestEventId(db);
  const next = Math.max(options.after, Math.min(windowEnd, newest));
  return { events, next, more: next < newest };
}
