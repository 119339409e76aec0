// The deliveries as apps and operators see them: an endpoint's log of deliveries and attempts,
// and replays (a delivery sent again). Queueing and sending are queue.ts's.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { DeliveryStatus, EventType } from '../../../domain/events.js';
import type { EventDeliveriesTable, Schema } from '../../tables.js';
import { mayReceive } from './grant-periods.js';

type Db = Kysely<Schema>;

export interface DeliveryRecord {
  id: number;
  eventId: number;
  eventType: EventType;
  endpointId: string;
  systemId: number;
  status: DeliveryStatus;
  attempts: number;
  queuedAt: number;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export function toDelivery(row: Selectable<EventDeliveriesTable> & { type: string }): DeliveryRecord {
  return {
    id: Number(row.id),
    eventId: Number(row.event_id),
    eventType: row.type as EventType,
    endpointId: row.endpoint_id,
    systemId: Number(row.system_id),
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    queuedAt: Number(row.queued_at),
    nextAttemptAt: Number(row.next_attempt_at),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
  };
}

export interface AttemptRecord {
  deliveryId: number;
  attemptedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** An endpoint's deliveries, newest first, with each one's latest attempts. */
export async function listDeliveries(
  db: Db,
  endpointId: string,
  page: { before?: number; max: number; status?: DeliveryStatus },
): Promise<Array<DeliveryRecord & { log: AttemptRecord[] }>> {
  const rows = await db
    .selectFrom('event_deliveries as d')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .selectAll('d')
    .select('ev.type')
    .where('d.endpoint_id', '=', endpointId)
    .$if(page.before !== undefined, (q) => q.where('d.id', '<', page.before ?? 0))
    .$if(page.status !== undefined, (q) => q.where('d.status', '=', page.status ?? 'pending'))
    .orderBy('d.id', 'desc')
    .limit(page.max)
    .execute();
  const deliveries = rows.map(toDelivery);
  if (deliveries.length === 0) return [];
  const attempts = await db
    .selectFrom('event_attempts')
    .selectAll()
    .where(
      'delivery_id',
      'in',
      deliveries.map((delivery) => delivery.id),
    )
    .orderBy('id', 'desc')
    .execute();
  const log = new Map<number, AttemptRecord[]>();
  for (const attempt of attempts) {
    const list = log.get(Number(attempt.delivery_id)) ?? [];
    if (list.length < 20)
      list.push({
        deliveryId: Number(attempt.delivery_id),
        attemptedAt: Number(attempt.attempted_at),
        durationMs: attempt.duration_ms,
        statusCode: attempt.status_code,
        error: attempt.error,
      });
    log.set(Number(attempt.delivery_id), list);
  }
  return deliveries.map((delivery) => ({ ...delivery, log: log.get(delivery.id) ?? [] }));
}

/** A delivery with its endpoint's client, for ownership checks. */
export async function findDelivery(db: Db, id: number): Promise<(DeliveryRecord & { clientId: string }) | undefined> {
  const row = await db
    .selectFrom('event_deliveries as d')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .innerJoin('event_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['ev.type', 'e.client_id'])
    .where('d.id', '=', id)
    .executeTakeFirst();
  return row ? { ...toDelivery(row), clientId: row.client_id } : undefined;
}

/**
 * Sends deliveries again: back to pending, due now, with a fresh day of retries. A replayed
 * delivery keeps its id (its `webhook-id`), so receivers that deduplicate see it as the same
 * message. Only deliveries the app may still see are queued (the rule of grant-periods.ts; the
 * client's older grants must have been read, events/grants.ts). Returns how many were queued.
 */
export async function replayDeliveries(db: Db, filter: { deliveryId: number } | { endpointId: string; since: number }, now: number): Promise<number> {
  const result = await db
    .updateTable('event_deliveries')
    .set({ status: 'pending', queued_at: now, next_attempt_at: now, lease_until: null, finished_at: null })
    .$if('deliveryId' in filter, (q) => q.where('id', '=', 'deliveryId' in filter ? filter.deliveryId : 0))
    .$if('endpointId' in filter, (q) =>
      'endpointId' in filter ? q.where('endpoint_id', '=', filter.endpointId).where('created_at', '>=', filter.since) : q,
    )
    .where('status', '!=', 'pending')
    // What the app may not see (grant-periods.ts) is not sent again: a replay never reaches back
    // past what the user's grant covered when each event happened.
    .where(
      sql<boolean>`exists (select 1 from events ev join event_endpoints e on e.id = event_deliveries.endpoint_id where ev.id = event_deliveries.event_id and ${mayReceive(
        { client: sql.ref('e.client_id'), systemId: sql.ref('ev.system_id'), eventType: sql.ref('ev.type'), eventAt: sql.ref('ev.created_at') },
        now,
      )})`,
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
