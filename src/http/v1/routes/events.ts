// Event endpoints, at /v1/events: an OAuth client manages its own webhook endpoints with a
// client-credentials token (scope events:manage), reads each one's delivery log and replays
// deliveries. Users never manage these: which events reach an app is decided by the users'
// grants to it (README, "Events").
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { feedPage, newestEventId } from '../../../db/repositories/events/feed.js';
import { findDelivery, listDeliveries, replayDeliveries } from '../../../db/repositories/events/deliveries.js';
import { deleteEndpoint, findEndpoint, listEndpoints } from '../../../db/repositories/events/endpoints.js';
import type { Schema } from '../../../db/tables.js';
import { CreateEndpointBody, DELIVERY_STATUSES, Delivery, EVENT_SCOPES, EditEndpointBody, Endpoint, EventEnvelope, eventFor } from '../../../domain/events.js';
import { readOlderGrants } from '../../../events/grants.js';
import { Problem } from '../../../domain/problems.js';
import { IsoDateTime } from '../../../domain/values.js';
import { ENDPOINT_ID_PATTERN, createEndpoint, editEndpoint, parseDeliveryId, rotateEndpointSecret, toDeliveryView, toEndpointView } from '../../../events/endpoints.js';
import type { StorageCrypto } from '../../../security/crypto.js';
import { NoQuery } from '../params.js';
import { errorResponses, security } from '../route-schema.js';

export interface EventRoutesOptions {
  db: Kysely<Schema>;
  crypto: StorageCrypto;
  allowPrivateAddresses: boolean;
  /** Wakes the dispatcher after a replay. */
  wake: () => void;
}

const EndpointParams = z.strictObject({ endpoint: z.string().regex(ENDPOINT_ID_PATTERN, 'must be an endpoint id (ep_ and 16 characters)') });
const DeliveryParams = z.strictObject({ delivery: z.string().regex(/^(msg_)?[1-9][0-9]{0,15}$/, 'must be a delivery id (msg_<number>)') });
const MAX_DELIVERY_PAGE = 100;
/** POSTs that act on the path alone take no body, or `{}`. */
const NoBody = z.strictObject({});

const DeliveriesQuery = z.strictObject({
  max: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(MAX_DELIVERY_PAGE, `must be at most ${MAX_DELIVERY_PAGE}`))
    .optional()
    .describe(`Deliveries per page, 1 to ${MAX_DELIVERY_PAGE} (default 50).`),
  before: DeliveryParams.shape.delivery.optional().describe('Only deliveries older than this one (the last id of the previous page).'),
  status: z.enum(DELIVERY_STATUSES).optional(),
});

/** One feed call looks at this many events at most (most may belong to users who never authorized the client). */
const FEED_SCAN = 2_000;
const DEFAULT_FEED_PAGE = 100;
const MAX_FEED_PAGE = 500;

const FeedQuery = z.strictObject({
  after: z.string().regex(/^(0|[1-9][0-9]{0,15})$/, 'must be the `next` of a previous answer').optional().describe('The `next` of the previous answer; omitted: start from now.'),
  max: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(MAX_FEED_PAGE, `must be at most ${MAX_FEED_PAGE}`))
    .optional()
    .describe(`Events per answer, 1 to ${MAX_FEED_PAGE} (default ${DEFAULT_FEED_PAGE}).`),
});

const SecretAnswer = z.strictObject({
  data: Endpoint,
  secret: z.string().describe('The signing secret (`whsec_…`). Shown only now: store it.'),
});

/** The client acting as itself; user tokens are refused (endpoints belong to the app, not a user). */
function clientOf(request: FastifyRequest): string {
  const grant = request.grant;
  if (!grant) throw new Error('events route without authentication');
  if (grant.userId !== null) throw new Problem('client-token-required', 'endpoints belong to the app: use a client-credentials token (grant_type=client_credentials, scope events:manage)');
  return grant.clientId;
}

export const eventRoutes: FastifyPluginAsyncZod<EventRoutesOptions> = async (app, { db, crypto, allowPrivateAddresses, wake }) => {
  const config = { scope: 'events:manage' as const };
  const common = { tags: ['Events'], security: security('events:manage'), querystring: NoQuery };

  async function ownEndpoint(request: FastifyRequest, id: string) {
    const endpoint = await findEndpoint(db, id, clientOf(request));
    if (!endpoint) throw new Problem('unknown-endpoint', 'your client has no endpoint with this id');
    return endpoint;
  }

  app.post(
    '/endpoints',
    {
      config,
      schema: {
        ...common,
        summary: 'Register a webhook endpoint',
        description: 'Events of the chosen types are POSTed to `url` for every user who has authorized your client, signed per Standard Webhooks with the returned secret (shown once). At most 10 endpoints per client.',
        body: CreateEndpointBody,
        response: { 201: SecretAnswer, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await createEndpoint(db, crypto, clientOf(request), request.body, allowPrivateAddresses);
      return reply.code(201).send({ data: toEndpointView(endpoint), secret });
    },
  );

  app.get(
    '/endpoints',
    { config, schema: { ...common, summary: 'List your endpoints', response: { 200: z.strictObject({ data: z.array(Endpoint) }), ...errorResponses(404) } } },
    async (request) => ({ data: (await listEndpoints(db, clientOf(request))).map(toEndpointView) }),
  );

  app.get(
    '/endpoints/:endpoint',
    { config, schema: { ...common, summary: 'Read an endpoint', params: EndpointParams, response: { 200: z.strictObject({ data: Endpoint }), ...errorResponses(404) } } },
    async (request) => ({ data: toEndpointView(await ownEndpoint(request, request.params.endpoint)) }),
  );

  app.post(
    '/endpoints/:endpoint/edit',
    {
      config,
      schema: {
        ...common,
        summary: 'Edit an endpoint',
        description: 'A partial update. New event types apply to events from now on; a disabled endpoint gets no new deliveries and its pending ones wait until it is enabled again.',
        params: EndpointParams,
        body: EditEndpointBody,
        response: { 200: z.strictObject({ data: Endpoint }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const endpoint = await ownEndpoint(request, request.params.endpoint);
      const updated = await editEndpoint(db, endpoint, request.body, allowPrivateAddresses);
      if (request.body.enabled === true) wake();
      return { data: toEndpointView(updated) };
    },
  );

  app.post(
    '/endpoints/:endpoint/delete',
    {
      config,
      schema: { ...common, summary: 'Delete an endpoint', description: 'With its deliveries and their log.', params: EndpointParams, body: NoBody, response: { 200: z.strictObject({ deleted: z.literal(true) }), ...errorResponses(404, 413, 415) } },
    },
    async (request) => {
      if (!(await deleteEndpoint(db, request.params.endpoint, clientOf(request)))) throw new Problem('unknown-endpoint', 'your client has no endpoint with this id');
      return { deleted: true as const };
    },
  );

  app.post(
    '/endpoints/:endpoint/rotate-secret',
    {
      config,
      schema: {
        ...common,
        summary: 'Replace an endpoint’s secret',
        description: 'Returns the new secret (shown once). For 24 hours requests carry two signatures, one per secret, so a receiver can switch over without missing an event.',
        params: EndpointParams,
        body: NoBody,
        response: { 200: SecretAnswer.extend({ previousSecretExpiresAt: IsoDateTime }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const endpoint = await ownEndpoint(request, request.params.endpoint);
      const { secret, previousExpiresAt } = await rotateEndpointSecret(db, crypto, endpoint);
      const updated = (await findEndpoint(db, endpoint.id)) ?? endpoint;
      return { data: toEndpointView(updated), secret, previousSecretExpiresAt: new Date(previousExpiresAt).toISOString() };
    },
  );

  app.get(
    '/endpoints/:endpoint/deliveries',
    {
      config,
      schema: {
        ...common,
        summary: 'Delivery log',
        description: 'The endpoint’s deliveries, newest first, each with its latest attempts (status code, error, duration).',
        params: EndpointParams,
        querystring: DeliveriesQuery,
        response: { 200: z.strictObject({ data: z.array(Delivery) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const endpoint = await ownEndpoint(request, request.params.endpoint);
      const { max, before, status } = request.query;
      const beforeId = before === undefined ? undefined : parseDeliveryId(before);
      const deliveries = await listDeliveries(db, endpoint.id, {
        max: max ?? 50,
        ...(beforeId === undefined ? {} : { before: beforeId }),
        ...(status === undefined ? {} : { status }),
      });
      return { data: deliveries.map(toDeliveryView) };
    },
  );

  app.post(
    '/endpoints/:endpoint/replay',
    {
      config,
      schema: {
        ...common,
        summary: 'Replay deliveries since a time',
        description: 'Every finished delivery (delivered, failed or skipped) to this endpoint created at or after `since` is sent again, in order per system, with the same `webhook-id`. Authorization and scopes are checked again.',
        params: EndpointParams,
        body: z.strictObject({ since: IsoDateTime }),
        response: { 200: z.strictObject({ queued: z.number().int() }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const endpoint = await ownEndpoint(request, request.params.endpoint);
      await readOlderGrants(db, crypto, endpoint.clientId);
      const queued = await replayDeliveries(db, { endpointId: endpoint.id, since: new Date(request.body.since).getTime() }, Date.now());
      if (queued > 0) wake();
      return { queued };
    },
  );

  app.post(
    '/deliveries/:delivery/replay',
    {
      config,
      schema: {
        ...common,
        summary: 'Replay one delivery',
        description: 'Sends a finished delivery again (same `webhook-id`); `queued` is 0 when it is still pending (it will be sent anyway).',
        params: DeliveryParams,
        body: NoBody,
        response: { 200: z.strictObject({ queued: z.number().int() }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const clientId = clientOf(request);
      const id = parseDeliveryId(request.params.delivery);
      const delivery = id === undefined ? undefined : await findDelivery(db, id);
      if (!delivery || delivery.clientId !== clientId) throw new Problem('unknown-delivery', 'your client has no delivery with this id');
      await readOlderGrants(db, crypto, clientId);
      const queued = await replayDeliveries(db, { deliveryId: delivery.id }, Date.now());
      if (queued > 0) wake();
      return { queued };
    },
  );

  app.get(
    '/feed',
    {
      config,
      schema: {
        tags: ['Events'],
        security: security('events:manage'),
        summary: 'Read events instead of receiving them',
        description: `The events your client would be sent, oldest first, for every user who has authorized it (as their grants and the privacy rules let it see them: an event only if, when it happened, the user's grant to your client was live and held the event's scope, and is still; \`system.deleted\` goes to the clients whose grant was live until the system's deletion, which ended it): for apps that cannot take webhooks, and for catching up. Without \`after\` the answer has no events and \`next\` is the position of "now"; pass each answer's \`next\` as the following \`after\`. One call looks at up to ${FEED_SCAN} events, so \`events\` may be short, or empty, while \`next\` moves on: read again while \`more\` is true. Events are kept for \`EVENTS_RETENTION_DAYS\`.`,
        querystring: FeedQuery,
        response: {
          200: z.strictObject({ data: z.strictObject({ events: z.array(EventEnvelope), next: z.string(), more: z.boolean() }) }),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const clientId = clientOf(request);
      if (request.query.after === undefined) return { data: { events: [], next: String(await newestEventId(db)), more: false } };
      await readOlderGrants(db, crypto, clientId);
      const page = await feedPage(db, {
        clientId,
        after: Number(request.query.after),
        max: request.query.max ?? DEFAULT_FEED_PAGE,
        scan: FEED_SCAN,
        now: Date.now(),
      });
      const events = page.events.flatMap((event) => eventFor(event, { clientId, scopes: new Set([EVENT_SCOPES[event.snapshot.type]]) }) ?? []);
      return { data: { events, next: String(page.next), more: page.more } };
    },
  );
};

