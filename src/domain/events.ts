// Events pushed to OAuth clients: the event types, what each event records when the change happens
// (the owner's view, a snapshot), and what one receiving client may see of it. No I/O here: the
// outbox rows are written by repositories (src/db/repositories/events/outbox.ts) and delivered by
// src/events/.
//
// What a client sees is what it would read from the API with the user's grant: the owner's view
// (through the same view functions as every read path, src/domain/privacy.ts, with a Viewer for
// that client), only for event types whose scope the grant holds, and integration `fields` of the
// receiving client's own id only. A client also receives the events of its own changes; `actor`
// names the client that made the change (`self` is true when it was the receiver).
import { z } from 'zod';
import { Alter, type AlterRecord } from './alter.js';
import { viewAlter, viewProfileField, viewSystem, viewTag, type Viewer } from './privacy.js';
import { ProfileField, type ProfileFieldRecord } from './profile-fields.js';
import { Tag, type TagRecord } from './tag.js';
import { ProxiedMessage } from './proxied-message.js';
import type { Scope } from './scopes.js';
import { System, type SystemDetails, type SystemRecord } from './system.js';
import { IsoDateTime, text } from './values.js';

export const EVENT_TYPES = [
  'alter.created',
  'alter.updated',
  'alter.deleted',
  'system.updated',
  'tag.created',
  'tag.updated',
  'tag.deleted',
  'profile-field.created',
  'profile-field.updated',
  'profile-field.deleted',
  'profile-fields.ordered',
  'switch.created',
  'switch.updated',
  'switch.deleted',
  'message.proxied',
  'system.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The scope a client's grant must hold to receive each event type (the scope that reads the same data). */
export const EVENT_SCOPES: Record<EventType, Scope> = {
  'alter.created': 'alters:read',
  'alter.updated': 'alters:read',
  'alter.deleted': 'alters:read',
  'system.updated': 'system:read',
  // As the tag routes: tags are read with the alters scopes.
  'tag.created': 'alters:read',
  'tag.updated': 'alters:read',
  'tag.deleted': 'alters:read',
  // Profile fields are read with the alters scopes, as the alters' values are.
  'profile-field.created': 'alters:read',
  'profile-field.updated': 'alters:read',
  'profile-field.deleted': 'alters:read',
  'profile-fields.ordered': 'alters:read',
  'switch.created': 'system:read',
  'switch.updated': 'system:read',
  'switch.deleted': 'system:read',
  'message.proxied': 'messages:read',
  'system.deleted': 'system:read',
};

/**
 * What the outbox stores for each event: the owner's data as of the change. Alters keep every
 * client's integration field (the receiver is picked at delivery); systems keep the record and
 * its details, viewed at delivery through viewSystem.
 */
export type EventSnapshot =
  | { type: 'alter.created' | 'alter.updated'; alter: AlterRecord }
  | { type: 'alter.deleted'; alterId: number }
  | { type: 'system.updated'; system: SystemRecord; details: SystemDetails }
  | { type: 'tag.created' | 'tag.updated'; tag: TagRecord }
  | { type: 'tag.deleted'; tagId: number }
  | { type: 'profile-field.created' | 'profile-field.updated'; field: ProfileFieldRecord }
  | { type: 'profile-field.deleted'; fieldId: number }
  | { type: 'profile-fields.ordered'; fieldIds: number[] }
  | { type: 'switch.created' | 'switch.updated'; switchId: number; alterIds: number[]; timestamp: string }
  | { type: 'switch.deleted'; switchId: number }
  | { type: 'message.proxied'; message: ProxiedMessage; alterId: number }
  // The owner is kept in the event: the deleted system's row no longer names them.
  | { type: 'system.deleted'; userId: string };

/**
 * Who made a change: the OAuth client whose token was used and the Discord account it was issued
 * to (tokens are per account, and a system may have several: domain/accounts.ts). Both null when
 * the service itself acted.
 */
export interface EventActor {
  clientId: string | null;
  accountId: string | null;
}

/** An event as the outbox holds it. */
export interface StoredEvent {
  id: number;
  systemId: number;
  /** The system owner's Discord id. */
  userId: string;
  sequence: number;
  actorClientId: string | null;
  /** The Discord account whose token made the change (null for the service, and events from before accounts). */
  actorAccountId: string | null;
  /** The acting client's registered name, as of delivery (null when it has none, or was deleted). */
  actorClientName: string | null;
  createdAt: number;
  snapshot: EventSnapshot;
}

const Actor = z
  .strictObject({
    clientId: z.string().nullable().describe('The OAuth client whose request made the change; null when the service itself did.'),
    clientName: z.string().nullable().describe('That client’s registered name (what the consent page showed the user).'),
    self: z.boolean().describe('Whether the receiving client made the change itself.'),
    accountId: z
      .string()
      .nullable()
      .describe('The Discord account whose token made the change: the owner or another account of the system (`subAccounts`). Null when the service itself did.'),
  })
  .describe('Which app made the change.');

const common = {
  eventId: z.string().describe('The event’s id; the same for every endpoint that receives it.'),
  userId: z.string().describe('The Discord id of the system’s owner: the user who authorized your client.'),
  systemId: z.string(),
  sequence: z.number().int().describe('1, 2, 3… per system, in the order of the changes. Deliveries to an endpoint follow it.'),
  actor: Actor,
};


export const EventData = {
  'alter.created': z.strictObject({ ...common, alter: Alter }),
  'alter.updated': z.strictObject({ ...common, alter: Alter }),
  'alter.deleted': z.strictObject({ ...common, alterId: z.number().int() }),
  'system.updated': z.strictObject({ ...common, system: System }),
  'tag.created': z.strictObject({ ...common, tag: Tag }),
  'tag.updated': z.strictObject({ ...common, tag: Tag }),
  'tag.deleted': z.strictObject({ ...common, tagId: z.number().int() }),
  'profile-field.created': z.strictObject({ ...common, field: ProfileField }),
  'profile-field.updated': z.strictObject({
    ...common,
    field: ProfileField.describe('The field as edited. A change of kind drops the values not valid as the new kind, without an alter.updated event for each.'),
  }),
  'profile-field.deleted': z.strictObject({
    ...common,
    fieldId: z.number().int().describe('The deleted field; its values went with it, from every alter (no alter.updated event for each).'),
  }),
  'profile-fields.ordered': z.strictObject({ ...common, fieldIds: z.array(z.number().int()).describe('Every field of the system, in the new order.') }),
  'switch.created': z.strictObject({
    ...common,
    switchId: z.number().int(),
    alterIds: z.array(z.number().int()).describe('The alters fronting from this switch on, primary first; empty for a switch-out.'),
    timestamp: IsoDateTime,
  }),
  'switch.updated': z.strictObject({
    ...common,
    switchId: z.number().int(),
    alterIds: z.array(z.number().int()).describe('The alters fronting from this switch on, as edited, primary first; empty for a switch-out.'),
    timestamp: IsoDateTime.describe('When the switch happened, as edited (it may have moved past its neighbours).'),
  }),
  'switch.deleted': z.strictObject({
    ...common,
    switchId: z.number().int().describe('The deleted switch. A delete that removes the later twin too sends one event for each.'),
  }),
  'message.proxied': z.strictObject({ ...common, message: ProxiedMessage, alterId: z.number().int() }),
  // The last event of a system: delivered to the apps authorized when it was deleted (mayReceive).
  'system.deleted': z.strictObject({ ...common }),
} satisfies Record<EventType, z.ZodType>;

/** The body of a delivery (the Standard Webhooks shape: type, timestamp, data). */
export const EventEnvelope = z
  .discriminatedUnion(
    'type',
    EVENT_TYPES.map((type) => z.strictObject({ type: z.literal(type), timestamp: IsoDateTime, data: EventData[type] })) as unknown as [
      z.ZodObject<{ type: z.ZodLiteral<EventType>; timestamp: typeof IsoDateTime; data: z.ZodObject }>,
    ],
  )
  .meta({ id: 'Event' });
export type EventEnvelope = { type: EventType; timestamp: string; data: Record<string, unknown> };

/** The receiving client and what the user's grant lets it read. */
export interface Audience {
  clientId: string;
  scopes: ReadonlySet<string>;
}

/**
 * The delivery body for one receiving client, or undefined when its grant lacks the event's scope.
 * The client reads as the owner would through it (the grant is the owner's), so the view is the
 * owner's with the receiver's own integration field.
 */
export function eventFor(event: StoredEvent, audience: Audience): EventEnvelope | undefined {
  const snapshot = event.snapshot;
  if (!audience.scopes.has(EVENT_SCOPES[snapshot.type])) return undefined;
  const viewer: Viewer = { userId: event.userId, clientId: audience.clientId, systemId: event.systemId, scopes: audience.scopes };
  const system = { id: event.systemId, public: 0 };
  const base = {
    eventId: String(event.id),
    userId: event.userId,
    systemId: String(event.systemId),
    sequence: event.sequence,
    actor: {
      clientId: event.actorClientId,
      clientName: event.actorClientName,
      self: event.actorClientId === audience.clientId,
      accountId: event.actorAccountId,
    },
  };
  const envelope = (data: Record<string, unknown>): EventEnvelope => ({
    type: snapshot.type,
    timestamp: new Date(event.createdAt).toISOString(),
    data: { ...base, ...data },
  });
  switch (snapshot.type) {
    case 'alter.created':
    case 'alter.updated': {
      const alter = viewAlter(snapshot.alter, system, viewer);
      if (!alter) throw new Error('the owner’s view of an alter is never empty');
      return envelope({ alter });
    }
    case 'alter.deleted':
      return envelope({ alterId: snapshot.alterId });
    case 'system.updated':
      return envelope({ system: viewSystem(snapshot.system, snapshot.details, viewer) });
    case 'tag.created':
    case 'tag.updated': {
      const tag = viewTag(snapshot.tag, system, viewer);
      if (!tag) throw new Error('the owner’s view of a tag is never empty');
      return envelope({ tag });
    }
    case 'tag.deleted':
      return envelope({ tagId: snapshot.tagId });
    case 'profile-field.created':
    case 'profile-field.updated': {
      const field = viewProfileField(snapshot.field, system, viewer);
      if (!field) throw new Error('the owner’s view of a profile field is never empty');
      return envelope({ field });
    }
    case 'profile-field.deleted':
      return envelope({ fieldId: snapshot.fieldId });
    case 'profile-fields.ordered':
      return envelope({ fieldIds: snapshot.fieldIds });
    case 'switch.created':
    case 'switch.updated':
      return envelope({ switchId: snapshot.switchId, alterIds: snapshot.alterIds, timestamp: snapshot.timestamp });
    case 'switch.deleted':
      return envelope({ switchId: snapshot.switchId });
    case 'message.proxied':
      // Events stored before records kept the name have none.
      return envelope({ message: { ...snapshot.message, proxiedName: snapshot.message.proxiedName ?? null }, alterId: snapshot.alterId });
    case 'system.deleted':
      return envelope({ userId: snapshot.userId });
  }
}

// ---------------------------------------------------------------------------------------------
// Endpoints: a client's webhook URLs.

export const MAX_ENDPOINTS_PER_CLIENT = 10;

export const EventTypes = z
  .array(z.enum(EVENT_TYPES))
  .min(1, 'must name at least one event type')
  .max(EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'must not repeat an event type')
  .describe(`The event types to receive: ${EVENT_TYPES.join(', ')}.`);

/**
 * Stored and shown in its WHATWG serialisation (lower-case scheme and host, default port dropped,
 * everything else percent-encoded), never as sent: what is stored is also what the operator's
 * terminal prints. Control characters are refused rather than silently dropped by the parser.
 */
// Not HttpUrl: that is the image rule, which percent-encodes (and would hide control characters
// from the check below) and refuses credentials with its own wording.
const WebUrl = text(2048).refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}, 'must be an absolute http:// or https:// URL');

export const EndpointUrl = WebUrl.refine((value) => !/\p{Cc}/u.test(value), 'must not contain control characters (tabs, line breaks, escape sequences)')
  .transform((value) => new URL(value).href)
  .refine((value) => value.length <= 2048, 'must be at most 2048 characters once percent-encoded')
  .describe('Where events are POSTed: https (http only when the operator allows private addresses, for development). No credentials in the URL; redirects are not followed. Stored in its WHATWG serialisation (as `new URL(url).href`); control characters are refused.');

export const CreateEndpointBody = z.strictObject({
  url: EndpointUrl,
  eventTypes: EventTypes,
  description: text(200).nullable().optional(),
});
export type CreateEndpointInput = z.infer<typeof CreateEndpointBody>;

export const EditEndpointBody = z.strictObject({
  url: EndpointUrl.optional(),
  eventTypes: EventTypes.optional(),
  description: text(200).nullable().optional(),
  enabled: z.boolean().optional().describe('A disabled endpoint gets no new deliveries; its pending ones wait.'),
});
export type EditEndpointInput = z.infer<typeof EditEndpointBody>;

export const Endpoint = z
  .strictObject({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.enum(EVENT_TYPES)),
    description: z.string().nullable(),
    enabled: z.boolean(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .meta({ id: 'EventEndpoint' });
export type Endpoint = z.infer<typeof Endpoint>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DeliveryAttempt = z.strictObject({
  attemptedAt: IsoDateTime,
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable().describe('The endpoint’s HTTP status; null when no response came.'),
  error: z.string().nullable(),
});

export const Delivery = z
  .strictObject({
    id: z.string().describe('Also the `webhook-id` header of its requests.'),
    eventId: z.string(),
    eventType: z.enum(EVENT_TYPES),
    systemId: z.string(),
    status: z.enum(DELIVERY_STATUSES).describe('pending: waiting or retrying; delivered: a 2xx came back; failed: gave up after a day of retries; skipped: the user no longer authorizes your client, or did not when the event happened, or the grant lacks (or then lacked) the scope.'),
    attempts: z.number().int(),
    nextAttemptAt: IsoDateTime.nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: IsoDateTime,
    finishedAt: IsoDateTime.nullable(),
    log: z.array(DeliveryAttempt).describe('The latest attempts, newest first (at most 20).'),
  })
  .meta({ id: 'EventDelivery' });
export type Delivery = z.infer<typeof Delivery>;

/** Whether a URL may be registered: https, or http when the operator allows private addresses. No userinfo, no fragment. */
export function endpointUrlProblem(value: string, allowPrivate: boolean): string | undefined {
  const url = new URL(value);
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'url: must be an https:// URL';
  if (url.username !== '' || url.password !== '') return 'url: must not contain a user name or password';
  if (url.hash !== '') return 'url: must not contain a #fragment';
  return undefined;
}
