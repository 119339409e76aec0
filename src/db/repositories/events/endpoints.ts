// Webhook endpoints: each client's registrations (URL, the event types it wants, its sealed
// signing secret). Registration rules and the secret itself are events/endpoints.ts's.
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { EventType } from '../../../domain/events.js';
import type { EventEndpointsTable, Schema } from '../../tables.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

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

export function toEndpoint(row: Selectable<EventEndpointsTable>): EndpointRecord {
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
        : {
            secret_sealed: changes.secret.sealed,
            previous_secret_sealed: changes.secret.previousSealed,
            previous_secret_expires_at: changes.secret.previousExpiresAt,
          }),
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
