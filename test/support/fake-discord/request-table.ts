// Every REST route the fake serves, as Discord's published OpenAPI document names it, with the
// schema its body must match (the `discord-api-spec` package's zod schemas, generated from that
// document) and the documented limits the document does not encode. The server checks each request
// against its row before any route sees it and refuses what Discord refuses, with Discord's error
// body; a request a route serves without a row here fails loudly (see server.ts), and
// test/support/fake-discord.test.ts checks every row names a path and method of the document.
import * as spec from 'discord-api-spec/zod';
import { z } from 'zod';
import type { ZodMiniType } from 'zod/mini';
import { commandLimits, commandListLimits, interactionCallbackLimits, messageLimits, webhookNameLimit, type Limit } from './request-limits.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteRow {
  method: Method;
  /** The path as the document spells it, under /api/v10. */
  path: string;
  /** The body's schema; null for routes the document gives no body. */
  body: ZodMiniType | z.ZodType | null;
  /** Discord's documented limits beyond the schema, checked after it. */
  limits?: readonly Limit[];
  /** The schema to use for a body whose `type` picks one of several (interaction callbacks). */
  byType?: Readonly<Record<number, ZodMiniType>>;
}

// Bodies the document spells inline (no named schema in the package), written from its paths map.
const WebhookCreate = z.object({ name: z.string(), avatar: z.string().nullish() });
const WebhookPatch = z.object({ name: z.string().optional(), avatar: z.string().nullish(), channel_id: z.string().nullish() });
const WebhookTokenPatch = z.object({ name: z.string().optional(), avatar: z.string().nullish() });
const MemberPatch = z.object({
  nick: z.string().nullish(),
  roles: z.array(z.string()).nullish(),
  mute: z.boolean().nullish(),
  deaf: z.boolean().nullish(),
  channel_id: z.string().nullish(),
  communication_disabled_until: z.string().nullish(),
  flags: z.number().nullish(),
});
const MyMemberPatch = z.object({ nick: z.string().nullish(), avatar: z.string().nullish(), bio: z.string().nullish(), banner: z.string().nullish() });
const CommandPermissionsPut = z.object({ permissions: z.array(z.object({ id: z.string(), type: z.number(), permission: z.boolean() })).nullish() });

const CALLBACKS: Readonly<Record<number, ZodMiniType>> = {
  1: spec.PongInteractionCallbackRequestSchema,
  4: spec.CreateMessageInteractionCallbackRequestSchema,
  5: spec.CreateMessageInteractionCallbackRequestSchema,
  6: spec.UpdateMessageInteractionCallbackRequestSchema,
  7: spec.UpdateMessageInteractionCallbackRequestSchema,
  8: spec.ApplicationCommandAutocompleteCallbackRequestSchema,
  9: spec.ModalInteractionCallbackRequestSchema,
};

const APP = '/applications/{application_id}';
const GUILD_APP = `${APP}/guilds/{guild_id}`;
const MESSAGE = '/channels/{channel_id}/messages/{message_id}';
const HOOK = '/webhooks/{webhook_id}/{webhook_token}';
const messages = [messageLimits] as const;

export const REQUEST_TABLE: readonly RouteRow[] = [
  { method: 'GET', path: '/gateway', body: null },
  { method: 'GET', path: '/gateway/bot', body: null },
  { method: 'GET', path: '/applications/@me', body: null },
  { method: 'GET', path: '/users/@me', body: null },
  { method: 'GET', path: '/users/{user_id}', body: null },
  { method: 'POST', path: '/users/@me/channels', body: spec.CreatePrivateChannelRequestSchema },

  { method: 'GET', path: `${APP}/commands`, body: null },
  { method: 'PUT', path: `${APP}/commands`, body: z.array(spec.ApplicationCommandUpdateRequestSchema), limits: [commandListLimits] },
  { method: 'POST', path: `${APP}/commands`, body: spec.ApplicationCommandCreateRequestSchema, limits: [commandLimits] },
  { method: 'GET', path: `${APP}/commands/{command_id}`, body: null },
  { method: 'PATCH', path: `${APP}/commands/{command_id}`, body: spec.ApplicationCommandPatchRequestPartialSchema, limits: [commandLimits] },
  { method: 'DELETE', path: `${APP}/commands/{command_id}`, body: null },
  { method: 'GET', path: `${GUILD_APP}/commands`, body: null },
  { method: 'PUT', path: `${GUILD_APP}/commands`, body: z.array(spec.ApplicationCommandUpdateRequestSchema), limits: [commandListLimits] },
  { method: 'POST', path: `${GUILD_APP}/commands`, body: spec.ApplicationCommandCreateRequestSchema, limits: [commandLimits] },
  { method: 'GET', path: `${GUILD_APP}/commands/permissions`, body: null },
  { method: 'GET', path: `${GUILD_APP}/commands/{command_id}`, body: null },
  { method: 'PATCH', path: `${GUILD_APP}/commands/{command_id}`, body: spec.ApplicationCommandPatchRequestPartialSchema, limits: [commandLimits] },
  { method: 'DELETE', path: `${GUILD_APP}/commands/{command_id}`, body: null },
  { method: 'GET', path: `${GUILD_APP}/commands/{command_id}/permissions`, body: null },
  { method: 'PUT', path: `${GUILD_APP}/commands/{command_id}/permissions`, body: CommandPermissionsPut },

  { method: 'GET', path: '/channels/{channel_id}', body: null },
  { method: 'POST', path: '/channels/{channel_id}/typing', body: null },
  { method: 'GET', path: '/channels/{channel_id}/webhooks', body: null },
  { method: 'POST', path: '/channels/{channel_id}/webhooks', body: WebhookCreate, limits: [webhookNameLimit('name')] },
  { method: 'GET', path: '/channels/{channel_id}/messages', body: null },
  { method: 'POST', path: '/channels/{channel_id}/messages', body: spec.MessageCreateRequestSchema, limits: messages },
  { method: 'GET', path: MESSAGE, body: null },
  { method: 'PATCH', path: MESSAGE, body: spec.MessageEditRequestPartialSchema, limits: messages },
  { method: 'DELETE', path: MESSAGE, body: null },
  { method: 'DELETE', path: `${MESSAGE}/reactions`, body: null },
  { method: 'GET', path: `${MESSAGE}/reactions/{emoji_name}`, body: null },
  { method: 'DELETE', path: `${MESSAGE}/reactions/{emoji_name}`, body: null },
  { method: 'PUT', path: `${MESSAGE}/reactions/{emoji_name}/@me`, body: null },
  { method: 'DELETE', path: `${MESSAGE}/reactions/{emoji_name}/@me`, body: null },
  { method: 'DELETE', path: `${MESSAGE}/reactions/{emoji_name}/{user_id}`, body: null },

  { method: 'GET', path: '/guilds/{guild_id}', body: null },
  { method: 'GET', path: '/guilds/{guild_id}/channels', body: null },
  { method: 'GET', path: '/guilds/{guild_id}/roles', body: null },
  { method: 'GET', path: '/guilds/{guild_id}/threads/active', body: null },
  { method: 'GET', path: '/guilds/{guild_id}/webhooks', body: null },
  { method: 'GET', path: '/guilds/{guild_id}/members/{user_id}', body: null },
  { method: 'PATCH', path: '/guilds/{guild_id}/members/@me', body: MyMemberPatch },
  { method: 'PATCH', path: '/guilds/{guild_id}/members/{user_id}', body: MemberPatch },

  { method: 'POST', path: '/interactions/{interaction_id}/{interaction_token}/callback', body: null, byType: CALLBACKS, limits: [interactionCallbackLimits] },

  { method: 'GET', path: '/webhooks/{webhook_id}', body: null },
  { method: 'PATCH', path: '/webhooks/{webhook_id}', body: WebhookPatch, limits: [webhookNameLimit('name')] },
  { method: 'DELETE', path: '/webhooks/{webhook_id}', body: null },
  { method: 'GET', path: HOOK, body: null },
  { method: 'POST', path: HOOK, body: spec.IncomingWebhookRequestPartialSchema, limits: [messageLimits, webhookNameLimit('username')] },
  { method: 'PATCH', path: HOOK, body: WebhookTokenPatch, limits: [webhookNameLimit('name')] },
  { method: 'DELETE', path: HOOK, body: null },
  { method: 'GET', path: `${HOOK}/messages/@original`, body: null },
  { method: 'PATCH', path: `${HOOK}/messages/@original`, body: spec.IncomingWebhookUpdateRequestPartialSchema, limits: messages },
  { method: 'DELETE', path: `${HOOK}/messages/@original`, body: null },
  { method: 'GET', path: `${HOOK}/messages/{message_id}`, body: null },
  { method: 'PATCH', path: `${HOOK}/messages/{message_id}`, body: spec.IncomingWebhookUpdateRequestPartialSchema, limits: messages },
  { method: 'DELETE', path: `${HOOK}/messages/{message_id}`, body: null },
];

// A literal segment (`@me`, `@original`, `typing`) beats a parameter, so rows are tried with the
// most literal segments first.
const compiled = REQUEST_TABLE.map((row) => {
  const segments = row.path.split('/').slice(1);
  const pattern = new RegExp(`^${segments.map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
  return { row, pattern, literals: segments.filter((s) => !s.startsWith('{')).length };
}).sort((a, b) => b.literals - a.literals);

/** The row for a request to `/api/v{n}/<path>` (`path` without the prefix, decoded), if any. */
export function rowFor(method: string, path: string): RouteRow | undefined {
  return compiled.find((entry) => entry.row.method === method && entry.pattern.test(path))?.row;
}

