// The delivery queue: one row per event and endpoint, queued by the outbox (outbox.ts) in the
// event's transaction, claimed and settled by the dispatcher (events/dispatcher.ts). A system's
// deliveries to one endpoint form a queue of their own: only its head is due, the rest wait
// (WAITING) until the head finishes and promotes the next, so they reach the endpoint in order.
import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';
import type { DeliveryStatus, EventSnapshot, StoredEvent } from '../../../domain/events.js';
import { noteChange } from '../../changes/notes.js';
import { deliveriesTopic } from '../../changes/topics.js';
import type { EventDeliveriesTable, Schema } from '../../tables.js';
import { toDelivery, type DeliveryRecord } from './deliveries.js';
import { toEndpoint, type EndpointRecord } from './endpoints.js';
import { readSnapshots } from './payloads.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

/**
 * `next_attempt_at` of a delivery queued behind an earlier pending one of the same endpoint and
 * system: it is not due until that one finishes and promotes it. So the dispatcher's due index
 * holds only queue heads, and a dead endpoint's backlog costs nothing to skip.
 */
export const WAITING = Number.MAX_SAFE_INTEGER;

/**
 * 'pending' as a literal in the SQL, not a parameter: SQLite uses a partial index (the queue's
 * indexes are `where status = 'pending'`) only when the query's condition is literally the same.
 */
export const PENDING = sql.lit('pending');

/** The endpoints each open transaction has noted already: one note per endpoint and transaction, however many events. */
const notedEndpoints = new WeakMap<Transaction<Schema>, Set<string>>();

/**
 * Queues the event's delivery to each of `endpointIds`, inside the event's transaction, and notes
 * each endpoint's topic (db/changes/topics.ts): at commit the note wakes the dispatcher of this
 * process and, through the database, those of other processes; a rollback drops it with the rows.
 */
export async function queueDeliveries(
  trx: Transaction<Schema>,
  delivery: { eventId: number; systemId: number; endpointIds: readonly string[]; now: number },
): Promise<void> {
  const { eventId, systemId, endpointIds, now } = delivery;
  if (endpointIds.length === 0) return;
  let noted = notedEndpoints.get(trx);
  if (!noted) notedEndpoints.set(trx, (noted = new Set()));
  const unnoted = endpointIds.filter((id) => !noted.has(id));
  if (unnoted.length > 0) {
    for (const id of unnoted) noted.add(id);
    await noteChange(trx, unnoted.map(deliveriesTopic));
  }
  await trx
    .insertInto('event_deliveries')
    .values(
      endpointIds.map((endpointId) => ({
        event_id: eventId,
        endpoint_id: endpointId,
        system_id: systemId,
        status: 'pending',
        queued_at: now,
        // Behind an earlier pending delivery of this system to this endpoint: waits to be promoted.
        next_attempt_at: sql<number>`case when exists (select 1 from event_deliveries where endpoint_id = ${endpointId} and system_id = ${systemId} and status = 'pending') then cast(${WAITING} as bigint) else cast(${now} as bigint) end`,
        created_at: now,
      })),
    )
    .execute();
}

/**
 * queueDeliveries for many events of one system at once, in the order given (events numbered in
 * that order): a few multi-row statements instead of one per event. Only each endpoint's first
 * delivery can be due now (the exists test queueDeliveries makes); every later one is queued behind
 * it, so it waits, exactly as one statement per event would have queued it.
 */
export async function queueDeliveriesOfMany(
  trx: Transaction<Schema>,
  systemId: number,
  deliveries: ReadonlyArray<{ eventId: number; endpointIds: readonly string[] }>,
  now: number,
): Promise<void> {
  const rows: Array<{ eventId: number; endpointId: string; first: boolean }> = [];
  const seen = new Set<string>();
  for (const { eventId, endpointIds } of deliveries) {
    for (const endpointId of endpointIds) {
      rows.push({ eventId, endpointId, first: !seen.has(endpointId) });
      seen.add(endpointId);
    }
  }
  if (rows.length === 0) return;
  let noted = notedEndpoints.get(trx);
  if (!noted) notedEndpoints.set(trx, (noted = new Set()));
  const unnoted = [...seen].filter((id) => !noted.has(id));
  if (unnoted.length > 0) {
    for (const id of unnoted) noted.add(id);
    await noteChange(trx, unnoted.map(deliveriesTopic));
  }
  for (let start = 0; start < rows.length; start += DELIVERIES_PER_STATEMENT) {
    await trx
      .insertInto('event_deliveries')
      .values(
        rows.slice(start, start + DELIVERIES_PER_STATEMENT).map(({ eventId, endpointId, first }) => ({
          event_id: eventId,
          endpoint_id: endpointId,
          system_id: systemId,
          status: 'pending',
          queued_at: now,
          next_attempt_at: first
            ? sql<number>`case when exists (select 1 from event_deliveries where endpoint_id = ${endpointId} and system_id = ${systemId} and status = 'pending') then cast(${WAITING} as bigint) else cast(${now} as bigint) end`
            : WAITING,
          created_at: now,
        })),
      )
      .execute();
  }
}

/** Deliveries per insert statement: 7 parameters each (a few more for an endpoint's first), far below either bound. */
const DELIVERIES_PER_STATEMENT = 500;

/**
 * Claims up to `limit` due deliveries, each the head of its (endpoint, system) queue (no earlier
 * pending event for the same endpoint and system), each with up to `runLength - 1` of the
 * deliveries queued behind it: a run, sent one after the other by one worker. On PostgreSQL the
 * heads are locked with SKIP LOCKED and the runs leased until `leaseUntil`, so processes sharing
 * the database claim different runs (the deliveries behind a head are claimable by nobody else
 * while the head is pending).
 */
export async function claimDeliveries(
  db: Db,
  options: {
    now: number;
    limit: number;
    runLength: number;
    leaseUntil: number;
    excludeEndpoints: string[];
    excludeClients: string[];
    excludeDeliveries: number[];
    postgres: boolean;
  },
): Promise<number[][]> {
  if (options.limit <= 0) return [];
  const claim = async (executor: Executor) => {
    const leaseFree = (eb: ExpressionBuilder<Schema & { d: EventDeliveriesTable }, 'd'>) =>
      eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', options.now)]);
    // Every client's due heads, numbered per client: taken turn by turn (round robin), so one
    // client's backlog never fills a claim while another client has something due.
    const due = executor
      .selectFrom('event_deliveries as d')
      .innerJoin('event_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', sql<number>`row_number() over (partition by e.client_id order by d.next_attempt_at, d.id)`.as('turn')])
      .where('d.status', '=', PENDING)
      .where('d.next_attempt_at', '<=', options.now)
      .where(leaseFree)
      .where('e.enabled', '=', 1)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('event_deliveries as earlier')
              .select(sql.lit(1).as('one'))
              .whereRef('earlier.endpoint_id', '=', 'd.endpoint_id')
              .whereRef('earlier.system_id', '=', 'd.system_id')
              .where('earlier.status', '=', PENDING)
              .whereRef('earlier.event_id', '<', 'd.event_id'),
          ),
        ),
      )
      .$if(options.excludeEndpoints.length > 0, (q) => q.where('d.endpoint_id', 'not in', options.excludeEndpoints))
      .$if(options.excludeClients.length > 0, (q) => q.where('e.client_id', 'not in', options.excludeClients))
      .$if(options.excludeDeliveries.length > 0, (q) => q.where('d.id', 'not in', options.excludeDeliveries));
    let query = executor
      .selectFrom('event_deliveries as d')
      .innerJoin(due.as('due'), 'due.id', 'd.id')
      .select(['d.id', 'd.endpoint_id', 'd.system_id', 'd.event_id'])
      // Again on the row itself: PostgreSQL re-checks these on a row another process just changed.
      .where('d.status', '=', PENDING)
      .where(leaseFree)
      .orderBy('due.turn')
      .orderBy('d.next_attempt_at')
      .orderBy('d.id')
      .limit(options.limit);
    if (options.postgres) query = query.forUpdate('d').skipLocked();
    const heads = await query.execute();
    const runs: number[][] = [];
    for (const head of heads) {
      const behind =
        options.runLength <= 1
          ? []
          : await executor
              .selectFrom('event_deliveries')
              .select('id')
              .where('endpoint_id', '=', head.endpoint_id)
              .where('system_id', '=', head.system_id)
              .where('status', '=', PENDING)
              .where('event_id', '>', head.event_id)
              .orderBy('event_id')
              .limit(options.runLength - 1)
              .execute();
      runs.push([Number(head.id), ...behind.map((row) => Number(row.id))]);
    }
    return runs;
  };
  // SQLite serves one process: what it has in flight is excluded by id, and a claim needs no write.
  if (!options.postgres) return claim(db);
  return db.transaction().execute(async (trx) => {
    const runs = await claim(trx);
    const ids = runs.flat();
    if (ids.length > 0) await trx.updateTable('event_deliveries').set({ lease_until: options.leaseUntil }).where('id', 'in', ids).execute();
    return runs;
  });
}

export interface DeliveryJob {
  delivery: DeliveryRecord;
  event: StoredEvent;
  endpoint: EndpointRecord;
}

/** What sending claimed deliveries needs: each one's event and endpoint. */
export async function loadDeliveryJobs(db: Db, ids: number[]): Promise<DeliveryJob[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('event_deliveries as d')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .innerJoin('systems as s', 's.id', 'ev.system_id')
    .innerJoin('event_endpoints as e', 'e.id', 'd.endpoint_id')
    .leftJoin('oauth_clients as actor', 'actor.id', 'ev.actor_client_id')
    .selectAll('d')
    .select([
      'ev.type',
      'ev.seq',
      'ev.actor_client_id',
      'ev.actor_account_id',
      'actor.name as actor_client_name',
      'ev.payload',
      'ev.created_at as event_created_at',
      's.user_id',
      'e.client_id',
      'e.url',
      'e.event_types',
      'e.description',
      'e.enabled',
      'e.secret_sealed',
      'e.previous_secret_sealed',
      'e.previous_secret_expires_at',
      'e.created_at as endpoint_created_at',
      'e.updated_at as endpoint_updated_at',
    ])
    .where('d.id', 'in', ids)
    .execute();
  const snapshots = await readSnapshots(db, rows.map((row) => row.payload));
  return rows.map((row, index) => ({
    delivery: toDelivery(row),
    event: {
      id: Number(row.event_id),
      systemId: Number(row.system_id),
      userId: row.user_id,
      sequence: Number(row.seq),
      actorClientId: row.actor_client_id,
      actorAccountId: row.actor_account_id,
      actorClientName: row.actor_client_name,
      createdAt: Number(row.event_created_at),
      snapshot: snapshots[index] as EventSnapshot,
    },
    endpoint: toEndpoint({
      id: row.endpoint_id,
      client_id: row.client_id,
      url: row.url,
      event_types: row.event_types,
      description: row.description,
      enabled: row.enabled,
      secret_sealed: row.secret_sealed,
      previous_secret_sealed: row.previous_secret_sealed,
      previous_secret_expires_at: row.previous_secret_expires_at,
      created_at: row.endpoint_created_at,
      updated_at: row.endpoint_updated_at,
    }),
  }));
}

export interface AttemptOutcome {
  deliveryId: number;
  endpointId: string;
  systemId: number;
  attemptedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** The delivery's state after this attempt. */
  next: { status: 'pending'; at: number } | { status: 'delivered' | 'failed' | 'skipped' };
}

/**
 * Records attempts (a skip has no attempt row: nothing was sent) and each delivery's new state,
 * and releases their leases, in one transaction (the dispatcher groups the attempts that finish
 * together: one durable commit for many).
 */
export async function finishAttempts(db: Db, outcomes: Array<{ outcome: AttemptOutcome; sent: boolean }>, postgres: boolean): Promise<void> {
  if (outcomes.length === 0) return;
  await db.transaction().execute(async (trx) => {
    // Promoting the next delivery takes the system's row lock, which appendEvent also holds while
    // it decides whether a new delivery waits: otherwise (PostgreSQL, READ COMMITTED) an event
    // committed while this delivery finishes could wait behind it forever. In id order, so two
    // dispatcher processes never wait on each other in a cycle.
    const promoting = [...new Set(outcomes.filter(({ outcome }) => outcome.next.status !== 'pending').map(({ outcome }) => outcome.systemId))].sort((a, b) => a - b);
    if (postgres && promoting.length > 0) await trx.selectFrom('systems').select('id').where('id', 'in', promoting).orderBy('id').forUpdate().execute();
    // A delivery whose endpoint was deleted meanwhile is gone: nothing to record.
    const existing = new Set((await trx.selectFrom('event_deliveries').select('id').where('id', 'in', outcomes.map(({ outcome }) => outcome.deliveryId)).execute()).map((row) => Number(row.id)));
    outcomes = outcomes.filter(({ outcome }) => existing.has(outcome.deliveryId));
    const attempts = outcomes
      .filter(({ sent }) => sent)
      .map(({ outcome }) => ({
        delivery_id: outcome.deliveryId,
        attempted_at: outcome.attemptedAt,
        duration_ms: outcome.durationMs,
        status_code: outcome.statusCode,
        error: outcome.error,
      }));
    if (attempts.length > 0) await trx.insertInto('event_attempts').values(attempts).execute();
    for (const { outcome, sent } of outcomes) {
      const finished = outcome.next.status !== 'pending';
      await trx
        .updateTable('event_deliveries')
        .set((eb) => ({
          status: outcome.next.status,
          attempts: sent ? eb('attempts', '+', 1) : eb.ref('attempts'),
          next_attempt_at: outcome.next.status === 'pending' ? outcome.next.at : eb.ref('next_attempt_at'),
          lease_until: null,
          last_status_code: outcome.statusCode,
          last_error: outcome.error,
          finished_at: finished ? outcome.attemptedAt : null,
        }))
        .where('id', '=', outcome.deliveryId)
        .execute();
      if (!finished) continue;
      // The next delivery of this system to this endpoint becomes due.
      await trx
        .updateTable('event_deliveries')
        .set({ next_attempt_at: outcome.attemptedAt })
        .where('next_attempt_at', '=', WAITING)
        .where(
          'id',
          '=',
          trx
            .selectFrom('event_deliveries')
            .select('id')
            .where('endpoint_id', '=', outcome.endpointId)
            .where('system_id', '=', outcome.systemId)
            .where('status', '=', PENDING)
            .orderBy('event_id')
            .limit(1),
        )
        .execute();
    }
  });
}

/** When the next pending delivery is due, to sleep until then (undefined: none pending). */
export async function nextDueAt(db: Db): Promise<number | undefined> {
  const row = await db.selectFrom('event_deliveries').select((eb) => eb.fn.min('next_attempt_at').as('due')).where('status', '=', PENDING).executeTakeFirst();
  return row?.due === null || row?.due === undefined || Number(row.due) === WAITING ? undefined : Number(row.due);
}

/** Counts by status, for /readyz and the CLI. */
export async function deliveryCounts(db: Db): Promise<Partial<Record<DeliveryStatus, number>>> {
  const rows = await db.selectFrom('event_deliveries').select(['status', (eb) => eb.fn.countAll<number>().as('count')]).groupBy('status').execute();
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}

