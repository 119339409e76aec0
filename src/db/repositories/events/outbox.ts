// The outbox: events numbered and appended inside the transaction that makes the change.
// Emitting an event is one line in that transaction:
//
//   await appendEvent(trx, systemId, actor, { type: 'tag.deleted', tagId });
//
// appendEvent numbers the event within its system (taking the system's row lock, so a system's
// events are numbered in commit order), stores it (payloads.ts) and, in the same transaction,
// queues one delivery for each enabled endpoint that wants the type and whose client the system's
// owner (or a sub-account) has authorized (queue.ts). Queueing notes a change (db/changes/), so the
// dispatchers of this process and of others are woken when, and only if, the transaction commits:
// no write path has anything else to remember. Scopes and revocation are checked again when each
// delivery is sent.
import { sql, type Transaction } from 'kysely';
import type { EventActor, EventSnapshot } from '../../../domain/events.js';
import { noteChange } from '../../changes/notes.js';
import { revisionTopic } from '../../changes/topics.js';
import { prepareQuery } from '../../prepared.js';
import type { Schema } from '../../tables.js';
import { splitSnapshot, storeEventValues, storeEventValuesOfMany } from './payloads.js';
import { queueDeliveries, queueDeliveriesOfMany } from './queue.js';

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
type NewEvent = { systemId: number; seq: number; type: string; actor: string | null; account: string | null; payload: string; now: number };
const insertEvent = prepareQuery((db, p: NewEvent) =>
  db
    .insertInto('events')
    .values({ system_id: p.systemId, seq: p.seq, type: p.type, actor_client_id: p.actor, actor_account_id: p.account, payload: p.payload, created_at: p.now })
    .returning('id'),
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
  if (options.touchSystem) await noteChange(trx, [revisionTopic(systemId)]);
  return { seq: Number(system.event_seq), alterCount: Number(system.alter_count), endpoints: system.endpoints };
}

/** The endpoints of `endpoints` (an EventNumber's list) that want events of `type`. */
function endpointsWanting(endpoints: string | null, type: string): string[] {
  return (endpoints ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(' ');
      return { id: line.slice(0, space), eventTypes: line.slice(space + 1) };
    })
    .filter((endpoint) => (JSON.parse(endpoint.eventTypes) as string[]).includes(type))
    .map((endpoint) => endpoint.id);
}

/** Appends an event to the outbox inside the change's transaction. Returns the event id. */
export async function appendEvent(
  trx: Transaction<Schema>,
  systemId: number,
  actor: EventActor,
  snapshot: EventSnapshot,
  now = Date.now(),
  options: AppendOptions & { numbered?: EventNumber } = {},
): Promise<number> {
  const system = options.numbered ?? (await numberEvent(trx, systemId, now, options));
  const { payload, values } = splitSnapshot(snapshot);
  const [event] = await insertEvent(trx, { systemId, seq: system.seq, type: snapshot.type, actor: actor.clientId, account: actor.accountId, payload, now });
  if (!event) throw new Error('the event was not stored');
  const eventId = Number(event.id);
  await storeEventValues(trx, eventId, values);
  await queueDeliveries(trx, { eventId, systemId, endpointIds: endpointsWanting(system.endpoints, snapshot.type), now });
  return eventId;
}

/** Events per insert statement: 7 values each, far below either database's bound on parameters. */
const EVENTS_PER_STATEMENT = 500;

/**
 * appendEvent for many events of one system at once, numbered in the order given (an import's
 * thousands): one statement numbers them all, the events and their stored values go in a few
 * multi-row statements, and so do their deliveries (queued as appendEvent would queue them one by one).
 */
export async function appendEvents(
  trx: Transaction<Schema>,
  systemId: number,
  actor: EventActor,
  snapshots: readonly EventSnapshot[],
  now = Date.now(),
): Promise<void> {
  if (snapshots.length === 0) return;
  const [system] = await trx
    .updateTable('systems')
    .set({ event_seq: sql`event_seq + ${snapshots.length}` })
    .where('id', '=', systemId)
    .returning(['event_seq', endpointList(now).as('endpoints')])
    .execute();
  if (!system) throw new Error(`no system ${systemId}`);
  const firstSeq = Number(system.event_seq) - snapshots.length + 1;
  const split = snapshots.map((snapshot) => splitSnapshot(snapshot));
  const idBySeq = new Map<number, number>();
  for (let start = 0; start < snapshots.length; start += EVENTS_PER_STATEMENT) {
    const rows = await trx
      .insertInto('events')
      .values(
        snapshots.slice(start, start + EVENTS_PER_STATEMENT).map((snapshot, k) => ({
          system_id: systemId,
          seq: firstSeq + start + k,
          type: snapshot.type,
          actor_client_id: actor.clientId,
          actor_account_id: actor.accountId,
          payload: split[start + k]?.payload ?? '',
          created_at: now,
        })),
      )
      .returning(['id', 'seq'])
      .execute();
    for (const row of rows) idBySeq.set(Number(row.seq), Number(row.id));
  }
  const eventIds = snapshots.map((_, k) => {
    const id = idBySeq.get(firstSeq + k);
    if (id === undefined) throw new Error('an event was not stored');
    return id;
  });
  await storeEventValuesOfMany(trx, split.map((part, k) => ({ eventId: eventIds[k] ?? 0, values: part.values })));
  const wanting = new Map<string, string[]>();
  const endpointsFor = (type: string): string[] => {
    let found = wanting.get(type);
    if (!found) wanting.set(type, (found = endpointsWanting(system.endpoints, type)));
    return found;
  };
  await queueDeliveriesOfMany(
    trx,
    systemId,
    snapshots.map((snapshot, k) => ({ eventId: eventIds[k] ?? 0, endpointIds: endpointsFor(snapshot.type) })),
    now,
  );
}
