// Managing a client's webhook endpoints, for the API (a client's own) and the admin CLI (any):
// registration checks, the secret (generated here, shown once, stored sealed), rotation, and the
// shapes the API returns.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { AttemptRecord, DeliveryRecord } from '../db/repositories/events/deliveries.js';
import { countEndpoints, findEndpoint, insertEndpoint, updateEndpoint, type EndpointRecord } from '../db/repositories/events/endpoints.js';
import { WAITING } from '../db/repositories/events/queue.js';
import type { Schema } from '../db/tables.js';
import {
  MAX_ENDPOINTS_PER_CLIENT,
  endpointUrlProblem,
  type CreateEndpointInput,
  type Delivery,
  type EditEndpointInput,
  type Endpoint,
} from '../domain/events.js';
import { Problem } from '../domain/problems.js';
import type { StorageCrypto } from '../security/crypto.js';
import { secretContext } from './dispatcher.js';
import { newEndpointSecret } from './signature.js';

/** How long the old secret keeps signing after a rotation, so receivers can switch without losing events. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

export const ENDPOINT_ID_PATTERN = /^ep_[A-Za-z0-9_-]{16}$/;

function checkUrl(url: string, allowPrivate: boolean): void {
  const problem = endpointUrlProblem(url, allowPrivate);
  if (problem) throw new Problem('validation', problem, 'url');
}

export async function createEndpoint(
  db: Kysely<Schema>,
  crypto: StorageCrypto,
  clientId: string,
  input: CreateEndpointInput,
  allowPrivate: boolean,
): Promise<{ endpoint: EndpointRecord; secret: string }> {
  checkUrl(input.url, allowPrivate);
  const id = `ep_${randomBytes(12).toString('base64url')}`;
  const secret = newEndpointSecret();
  const now = Date.now();
  const endpoint = {
    id,
    clientId,
    url: input.url,
    eventTypes: input.eventTypes,
    description: input.description ?? null,
    enabled: true,
    secretSealed: crypto.seal(secret, secretContext(id)),
    createdAt: now,
    updatedAt: now,
  };
  await db.transaction().execute(async (trx) => {
    // The client's row lock, held to the commit, makes concurrent creates count one after another
    // (PostgreSQL; SQLite has one writer): without it each counts 9 and inserts.
    await trx.updateTable('oauth_clients').set({ id: sql`id` }).where('id', '=', clientId).execute();
    if ((await countEndpoints(trx, clientId)) >= MAX_ENDPOINTS_PER_CLIENT) {
      throw new Problem('too-many-entries', `a client can have at most ${MAX_ENDPOINTS_PER_CLIENT} endpoints`);
    }
    await insertEndpoint(trx, endpoint);
  });
  return { endpoint: { ...endpoint, previousSecretSealed: null, previousSecretExpiresAt: null }, secret };
}

export async function editEndpoint(db: Kysely<Schema>, endpoint: EndpointRecord, input: EditEndpointInput, allowPrivate: boolean): Promise<EndpointRecord> {
  if (input.url !== undefined) checkUrl(input.url, allowPrivate);
  const changes = {
    ...(input.url === undefined ? {} : { url: input.url }),
    ...(input.eventTypes === undefined ? {} : { eventTypes: input.eventTypes }),
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
  };
  if (Object.keys(changes).length === 0) return endpoint;
  await updateEndpoint(db, endpoint.id, changes, Date.now());
  const updated = await findEndpoint(db, endpoint.id);
  if (!updated) throw new Problem('unknown-endpoint', 'the endpoint was deleted meanwhile');
  return updated;
}

/** A new secret; the current one keeps signing beside it for a day. */
export async function rotateEndpointSecret(
  db: Kysely<Schema>,
  crypto: StorageCrypto,
  endpoint: EndpointRecord,
): Promise<{ secret: string; previousExpiresAt: number }> {
  const secret = newEndpointSecret();
  const now = Date.now();
  const previousExpiresAt = now + PREVIOUS_SECRET_GRACE_MS;
  await updateEndpoint(
    db,
    endpoint.id,
    { secret: { sealed: crypto.seal(secret, secretContext(endpoint.id)), previousSealed: endpoint.secretSealed, previousExpiresAt } },
    now,
  );
  return { secret, previousExpiresAt };
}

const iso = (ms: number) => new Date(ms).toISOString();

export function toEndpointView(endpoint: EndpointRecord): Endpoint {
  return {
    id: endpoint.id,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes,
    description: endpoint.description,
    enabled: endpoint.enabled,
    createdAt: iso(endpoint.createdAt),
    updatedAt: iso(endpoint.updatedAt),
  };
}

export function toDeliveryView(delivery: DeliveryRecord & { log: AttemptRecord[] }): Delivery {
  return {
    id: `msg_${delivery.id}`,
    eventId: String(delivery.eventId),
    eventType: delivery.eventType,
    systemId: String(delivery.systemId),
    status: delivery.status,
    attempts: delivery.attempts,
    // A delivery behind an earlier pending one has no time of its own yet.
    nextAttemptAt: delivery.status === 'pending' && delivery.nextAttemptAt !== WAITING ? iso(delivery.nextAttemptAt) : null,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    createdAt: iso(delivery.createdAt),
    finishedAt: delivery.finishedAt === null ? null : iso(delivery.finishedAt),
    log: delivery.log.map((attempt) => ({
      attemptedAt: iso(attempt.attemptedAt),
      durationMs: attempt.durationMs,
      statusCode: attempt.statusCode,
      error: attempt.error,
    })),
  };
}

/** `msg_<n>` (the webhook-id) or the bare number, as a delivery id. */
export function parseDeliveryId(value: string): number | undefined {
  const match = /^(?:msg_)?([1-9][0-9]{0,15})$/.exec(value);
  const id = match?.[1] === undefined ? undefined : Number(match[1]);
  return id !== undefined && Number.isSafeInteger(id) ? id : undefined;
}
