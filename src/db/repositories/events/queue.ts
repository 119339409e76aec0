// The events outbox, webhook endpoints and their deliveries.
//
// Emitting an event is one line inside the transaction that makes the change:
//
//   await appendEvent(trx, systemId, actorClientId, { type: 'tag.deleted', tagId });
//
// and, after that transaction has committed, `eventsCommitted()` wakes this process's dispatcher
// at once (without it the dispatcher finds the event on its next poll, within a second).
// appendEvent numbers the event within its system (taking the system's row lock, so a system's
// events are numbered in commit order) and, in the same transaction, queues one delivery for each
// enabled endpoint that wants the type and whose client the system's owner (or a sub-account) has
// authorized. Scopes and revocation are checked again when each delivery is sent.
import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';
import type { DeliveryStatus, EventSnapshot, EventType, StoredEvent } from '../../../domain/events.js';
import { noteChange } from '../../changes/notes.js';
import { EVENTS_TOPIC, systemTopic } from '../../changes/topics.js';
import { prepareQuery } from '../../prepared.js';
import { readSnapshots, splitSnapshot, storeEventValues } from './payloads.js';
import { mayReceive } from './grant-periods.js';
import type { EventDeliveriesTable, EventEndpointsTable, Schema } from '../../tables.js';
import type { Selectable } from 'kysely';

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
const PENDING = sql.lit('pending');

// ---------------------------------------------------------------------------------------------
// Waking the dispatcher

const listeners = new Set<(endpointIds: ReadonlySet<string>) => void>();

/**
 * Runs `listener` whenever a transaction that queued deliveries has committed in this process,
 * with the endpoints they are for.
 */
export function onEventsCommitted(listener: (endpointIds: ReadonlySet<string>) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Endpoints deliveries were queued for since the dispatcher was last woken; a commit without any has nothing to send. */
let queuedSinceWake = new Set<string>();

/**
 * Call after the commit of a transaction that called appendEvent. It wakes the dispatcher only if
 * a delivery was queued (one of a transaction that then rolled back costs a spurious wake, no more).
 */
export function eventsCommitted(): void {
  if (queuedSinceWake.size === 0) return;
  const endpointIds = queuedSinceWake;
  queuedSinceWake = new Set();
  for (const listener of listeners) listener(endpointIds);
}

// ---------------------------------------------------------------------------------------------
// The outbox

/** Transactions that have noted their events already: one note per transaction, however many events. */
const notedEvents = new WeakSet<Transaction<Schema>>();

/**
 * Endpoints of clients the system's users have authorized (a live grant), enabled: `<id> <event
 * types JSON>` lines, one per endpoint, read as a scalar subquery of the statement that numbers the
 * event (one round trip, under the system's row lock, instead of two). JSON text has no raw
 * newline, so a newline separates the entries.
 */
function endpointList(now: number) {
  return sql<string | null>`(select string_agg(e.id || ' ' || e.event_types, ${sql.lit('\n')})
    from event_endpoints e
    where e.enabled = 1 and exists (
      select 1 from oidc_payloads g
      where g.model = 'Grant' and g.client_id = e.client_id and (g.expires_at is null or g.expires_at > ${now})
        and (g.account_id = systems.user_id or g.account_id in (select sub.user_id from system_sub_accounts sub where sub.system_id = systems.id))))`;
}

// The statements every event runs, prepared once (db/prepared.ts): an alter edit's CPU went largely
// to building and compiling them. With `touch`, the same statement moves the system's revision
// (system-revision.ts), for writes that change the proxy profile too.
const numberingStatement = (touch: boolean) =>
  prepareQuery((db, p: { systemId: number; now: number }) =>
    db
      .updateTable('systems')
      .set(touch ? { event_seq: sql`event_seq + 1`, revision: sql`revision + 1` } : { event_seq: sql`event_seq + 1` })
      .where('id', '=', p.systemId)
      .returning(['event_seq', 'alter_count', endpointList(p.now).as('endpoints')]),
  );
const nextEventSeq = { plain: numberingStatement(false), touching: numberingStatement(true) };
const insertEvent = prepareQuery((db, p: { systemId: number; seq: number; type: string; actor: string | null; payload: string; now: number }) =>
  db.insertInto('events').values({ system_id: p.systemId, seq: p.seq, type: p.type, actor_client_id: p.actor, payload: p.payload, created_at: p.now }).returning('id'),
);

export interface AppendOptions {
  /** Also move the system's revision, as touchSystem would (one statement for both). */
  touchSystem?: boolean;
}

/** An event's number in its system, taken before the event itself is written (numberEvent). */
export interface EventNumber {
  seq: number;
  /** The system's alters when the number was taken, under the system's row lock. */
  alterCount: number;
  /** The candidate endpoints (endpointList). */
  endpoints: string | null;
}

/**
 * Takes the next event number of the system, and with it the system's row lock: the first
 * statement of a write that needs the lock anyway (a create reads the alter count it checks the
 * cap against from the same row). Pass the result to appendEvent as `numbered`.
 */
export async function numberEvent(trx: Transaction<Schema>, systemId: number, now: number, options: AppendOptions = {}): Promise<EventNumber> {
  const [system] = await (options.touchSystem ? nextEventSeq.touching : nextEventSeq.plain)(trx, { systemId, now });
  if (!system) throw new Error(`no system ${systemId}`);
  if (options.touchSystem) await noteChange(trx, [systemTopic(systemId)]);
  return { seq: Number(system.event_seq), alterCount: Number(system.alter_count), endpoints: system.endpoints };
}

/** Appends an event to the outbox inside the change's transaction. Returns the event id. */
export async function appendEvent(
  trx: Transaction<Schema>,
  systemId: number,
  actorClientId: string | null,
  snapshot: EventSnapshot,
  now = Date.now(),
  options: AppendOptions & { numbered?: EventNumber } = {},
): Promise<number> {
  const system = options.numbered ?? (await numberEvent(trx, systemId, now, options));
  const { payload, values } = splitSnapshot(snapshot);
  const [event] = await insertEvent(trx, { systemId, seq: system.seq, type: snapshot.type, actor: actorClientId, payload, now });
  if (!event) throw new Error('the event was not stored');
  const eventId = Number(event.id);
  await storeEventValues(trx, eventId, values);
  const endpoints = (system.endpoints ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(' ');
      return { id: line.slice(0, space), event_types: line.slice(space + 1) };
    });
  const wanted = endpoints.filter((endpoint) => (JSON.parse(endpoint.event_types) as string[]).includes(snapshot.type));
  if (wanted.length > 0) {
    if (!notedEvents.has(trx)) {
      notedEvents.add(trx);
      // Wakes the dispatchers of other processes when this commits (this one's: eventsCommitted).
      await noteChange(trx, [EVENTS_TOPIC]);
    }
    for (const endpoint of wanted) queuedSinceWake.add(endpoint.id);
    await trx
      .insertInto('event_deliveries')
      .values(
        wanted.map((endpoint) => ({
          event_id: eventId,
          endpoint_id: endpoint.id,
          system_id: systemId,
          status: 'pending',
          queued_at: now,
          // Behind an earlier pending delivery of this system to this endpoint: waits to be promoted.
          next_attempt_at: sql<number>`case when exists (select 1 from event_deliveries where endpoint_id = ${endpoint.id} and system_id = ${systemId} and status = 'pending') then cast(${WAITING} as bigint) else cast(${now} as bigint) end`,
          created_at: now,
        })),
      )
      .execute();
  }
  return eventId;
}

// ---------------------------------------------------------------------------------------------
// Endpoints

export interface EndpointRecord {
  id: string;
  clientId: string;
  url: string;
  eventTypes: EventType[];
  description: string | null;
  enabled: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

function toEndpoint(row: Selectable<EventEndpointsTable>): EndpointRecord {
  return {
    id: row.id,
    clientId: row.client_id,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as EventType[],
    description: row.description,
    enabled: row.enabled === 1,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : Number(row.previous_secret_expires_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export async function countEndpoints(db: Executor, clientId: string): Promise<number> {
  const { count } = await db.selectFrom('event_endpoints').select((eb) => eb.fn.countAll<number>().as('count')).where('client_id', '=', clientId).executeTakeFirstOrThrow();
  return Number(count);
}

export async function insertEndpoint(db: Executor, endpoint: Omit<EndpointRecord, 'previousSecretSealed' | 'previousSecretExpiresAt'>): Promise<void> {
  await db
    .insertInto('event_endpoints')
    .values({
      id: endpoint.id,
      client_id: endpoint.clientId,
      url: endpoint.url,
      event_types: JSON.stringify(endpoint.eventTypes),
      description: endpoint.description,
      enabled: endpoint.enabled ? 1 : 0,
      secret_sealed: endpoint.secretSealed,
      created_at: endpoint.createdAt,
      updated_at: endpoint.updatedAt,
    })
    .execute();
}

export async function listEndpoints(db: Db, clientId?: string): Promise<EndpointRecord[]> {
  const rows = await db
    .selectFrom('event_endpoints')
    .selectAll()
    .$if(clientId !== undefined, (q) => q.where('client_id', '=', clientId ?? ''))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toEndpoint);
}

/** The endpoint, if it belongs to `clientId` (undefined: any client's, for the admin CLI). */
export async function findEndpoint(db: Executor, id: string, clientId?: string): Promise<EndpointRecord | undefined> {
  const row = await db
    .selectFrom('event_endpoints')
    .selectAll()
    .where('id', '=', id)
    .$if(clientId !== undefined, (q) => q.where('client_id', '=', clientId ?? ''))
    .executeTakeFirst();
  return row ? toEndpoint(row) : undefined;
}

export interface EndpointChanges {
  url?: string;
  eventTypes?: EventType[];
  description?: string | null;
  enabled?: boolean;
  /** A rotation: the new sealed secret, and the old one kept until `previousExpiresAt`. */
  secret?: { sealed: string; previousSealed: string; previousExpiresAt: number };
}

export async function updateEndpoint(db: Executor, id: string, changes: EndpointChanges, now: number): Promise<void> {
  await db
    .updateTable('event_endpoints')
    .set({
      updated_at: now,
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.eventTypes === undefined ? {} : { event_types: JSON.stringify(changes.eventTypes) }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.enabled === undefined ? {} : { enabled: changes.enabled ? 1 : 0 }),
      ...(changes.secret === undefined
        ? {}
        : { secret_sealed: changes.secret.sealed, previous_secret_sealed: changes.secret.previousSealed, previous_secret_expires_at: changes.secret.previousExpiresAt }),
    })
    .where('id', '=', id)
    .execute();
}

/** Deletes an endpoint with its deliveries and their log. */
export async function deleteEndpoint(db: Db, id: string, clientId?: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const endpoint = await findEndpoint(trx, id, clientId);
    if (!endpoint) return false;
    await trx.deleteFrom('event_attempts').where('delivery_id', 'in', trx.selectFrom('event_deliveries').select('id').where('endpoint_id', '=', id)).execute();
    await trx.deleteFrom('event_deliveries').where('endpoint_id', '=', id).execute();
    await trx.deleteFrom('event_endpoints').where('id', '=', id).execute();
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Deliveries: the log and replays

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

function toDelivery(row: Selectable<EventDeliveriesTable> & { type: string }): DeliveryRecord {
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
    if (list.length < 20) list.push({ deliveryId: Number(attempt.delivery_id), attemptedAt: Number(attempt.attempted_at), durationMs: attempt.duration_ms, statusCode: attempt.status_code, error: attempt.error });
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

// ---------------------------------------------------------------------------------------------
// The dispatcher's queries

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
  options: { now: number; limit: number; runLength: number; leaseUntil: number; excludeEndpoints: string[]; excludeClients: string[]; excludeDeliveries: number[]; postgres: boolean },
): Promise<number[][]> {
  if (options.limit <= 0) return [];
  const claim = async (executor: Executor) => {
    const leaseFree = (eb: ExpressionBuilder<Schema & { d: EventDeliveriesTable }, 'd'>) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', options.now)]);
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

/** The newest event's id (0 when there is none): where a feed that starts "now" begins. */
export async function newestEventId(db: Db): Promise<number> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(row?.id ?? 0);
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
    const attempts = outcomes.filter(({ sent }) => sent).map(({ outcome }) => ({ delivery_id: outcome.deliveryId, attempted_at: outcome.attemptedAt, duration_ms: outcome.durationMs, status_code: outcome.statusCode, error: outcome.error }));
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

/**
 * Deletes events older than `before` with their deliveries and log, a batch at a time; an event
 * with a delivery still pending stays until it is delivered or given up.
 */
export async function purgeEvents(db: Db, before: number, batchSize = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.transaction().execute(async (trx) => {
      const batch = await trx
        .selectFrom('events as ev')
        .select('ev.id')
        .where('ev.created_at', '<', before)
        .where((eb) => eb.not(eb.exists(eb.selectFrom('event_deliveries as d').select(sql.lit(1).as('one')).whereRef('d.event_id', '=', 'ev.id').where('d.status', '=', PENDING))))
        .limit(batchSize)
        .execute();
      const ids = batch.map((row) => row.id);
      if (ids.length === 0) return 0;
      const deliveries = trx.selectFrom('event_deliveries').select('id').where('event_id', 'in', ids);
      await trx.deleteFrom('event_attempts').where('delivery_id', 'in', deliveries).execute();
      await trx.deleteFrom('event_deliveries').where('event_id', 'in', ids).execute();
      await trx.deleteFrom('events').where('id', 'in', ids).execute();
      return ids.length;
    });
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
