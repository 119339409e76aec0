// Proxied messages: the bot records each message it re-sent as an alter (idempotent, with the
// engine's state change in the same transaction), and anyone with messages:read looks one up by
// either message id ("message info").
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { findAlter } from '../../../db/repositories/alters.js';
import { isUniqueViolation } from '../../../db/errors.js';
import { findClient } from '../../../db/repositories/oauth-clients.js';
import { findProxiedMessage, recordProxiedMessage, reproxyMessage } from '../../../db/repositories/proxied-messages.js';
import { findSystemById, findSystemByUser } from '../../../db/repositories/systems.js';
import { isDeletedSystemOwner } from '../../../db/repositories/system-deletion.js';
import type { Schema } from '../../../db/tables.js';
import { alterLoadPolicy, viewMessage, viewMessageOfDeletedSystem, type Viewer } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { MessageInfo, MessageParams, ProxiedMessage, RecordMessageBody, RecordMessageResponse, ReproxyBody, Snowflake, snowflakeTime, toProxiedMessage } from '../../../domain/proxied-message.js';
import { NoQuery, UserParams, UserRef } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { actorOf, targetOf } from '../target.js';

const UserMessageParams = z.strictObject({ user: UserRef, message: Snowflake.describe('The proxied (webhook) message’s id.') });

/** A message id from the future is a forged or corrupted id; allow for clock skew. */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** When Discord created the message, from its id; refused when the id is from the future. */
function messageTime(messageId: string): number {
  const createdAt = snowflakeTime(messageId);
  if (createdAt > Date.now() + FUTURE_TOLERANCE_MS) throw new Problem('validation', 'messageId: names a message from the future', 'messageId');
  return createdAt;
}

/**
 * A record names who sent a message to every moderator who asks, so only the client that sent it
 * may write it: the bot's own, registered first-party (`ensureBotClient`, or `clients create
 * --first-party` for a bot running apart). Any app holding `messages:write` could otherwise record
 * a message id before the bot does (the original's id is known to its sender) and be named instead.
 */
async function requireFirstParty(db: Kysely<Schema>, clientId: string): Promise<void> {
  const client = await findClient(db, clientId);
  if (!client?.firstParty) {
    throw new Problem('first-party-only', 'only the bot’s own client records proxied messages: the bot sent them, and message info names whoever the record says');
  }
}

/** Recording, under /v1/users/{user}. */
export const messageRecordRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.post(
    '/messages',
    {
      config: { scope: 'messages:write', writes: true },
      schema: {
        tags: ['Proxying'],
        summary: 'Record a proxied message',
        description: 'For the bot, after the webhook sent the message and the original was deleted; only a first-party client (the bot’s own) may record (403 `first-party-only`). The sender is the token’s own Discord account; the time comes from `messageId`. In one transaction: the record, the alter’s `messageCount` and `lastMessageTimestamp`, and `autoproxyState` if given. Idempotent: the same record again answers 200 and changes nothing (so a retry never counts twice); a different record for either id is 409.',
        security: security('messages:write'),
        params: UserParams,
        querystring: NoQuery,
        body: RecordMessageBody,
        response: { 201: RecordMessageResponse, 200: RecordMessageResponse, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { viewer, system } = targetOf(request);
      await requireFirstParty(db, viewer.clientId);
      const body = request.body;
      const createdAt = messageTime(body.messageId);
      const outcome = await recordProxiedMessage(
        db,
        {
          messageId: body.messageId,
          originalMessageId: body.originalMessageId,
          channelId: body.channelId,
          guildId: body.guildId,
          systemId: system.id,
          alterId: body.alterId,
          // writes: true guarantees a user token whose user is {user}.
          senderId: viewer.userId ?? '',
          createdAt,
          proxiedName: body.proxiedName ?? null,
        },
        body.autoproxyState,
        actorOf(viewer),
      );
      return reply
        .code(outcome.created ? 201 : 200)
        .send({ data: toProxiedMessage(outcome.record), autoproxyStateApplied: outcome.stateApplied, revision: outcome.revision });
    },
  );
};

/** Reproxy, under /v1/users/{user}. */
export const messageReproxyRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {


  app.post(
    '/messages/:message/reproxy',
    {
      config: { scope: 'messages:write', writes: true },
      schema: {
        tags: ['Proxying'],
        summary: 'Move a record to a re-sent message',
        description: 'For the bot, after the sender re-sent a proxied message as another alter (the old webhook message deleted, a new one sent). The record `{message}` moves to `messageId` and `alterId`, and the message count moves from the old alter to the new one, in one transaction. Only the Discord account that sent the message may do this, through a first-party client (the bot’s own; 403 `first-party-only` otherwise). A retry answers the moved record.',
        security: security('messages:write'),
        params: UserMessageParams,
        querystring: NoQuery,
        body: ReproxyBody,
        response: { 200: z.strictObject({ data: ProxiedMessage }), ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      await requireFirstParty(db, viewer.clientId);
      const createdAt = messageTime(request.body.messageId);
      const record = await reproxyMessage(db, {
        systemId: system.id,
        senderId: viewer.userId ?? '',
        messageId: request.params.message,
        newMessageId: request.body.messageId,
        alterId: request.body.alterId,
        createdAt,
        proxiedName: request.body.proxiedName ?? null,
      }).catch((error: unknown) => {
        if (isUniqueViolation(error)) throw new Problem('duplicate', 'messageId: another record already names this message', 'messageId');
        throw error;
      });
      return { data: toProxiedMessage(record) };
    },
  );
};

/** Lookup, at /v1/messages/{message}: not under a user, since the asker knows only the message. */
export const messageLookupRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.get(
    '/messages/:message',
    {
      config: { scope: 'messages:read' },
      schema: {
        tags: ['Proxying'],
        summary: 'Message info',
        description: 'A proxied message by its own id or the original’s. The sending Discord account is always shown, so moderators can act on a proxied message whatever the system’s privacy; the system and alter are shown as their privacy settings allow this viewer (a client-credentials token sees the public view).',
        security: security('messages:read'),
        params: MessageParams,
        querystring: NoQuery,
        response: { 200: z.strictObject({ data: MessageInfo }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const grant = request.grant;
      if (!grant) throw new Error('message lookup without authentication');
      const message = await findProxiedMessage(db, request.params.message);
      const system = message && (await findSystemById(db, message.systemId));
      if (!message || !system) throw new Problem('unknown-message', 'no proxied message has this id');
      if (isDeletedSystemOwner(system.userId)) return { data: viewMessageOfDeletedSystem(message) };
      const viewerSystem = grant.userId === null ? undefined : await findSystemByUser(db, grant.userId);
      const viewer: Viewer = { userId: grant.userId, clientId: grant.clientId, systemId: viewerSystem?.id ?? null, scopes: grant.scopes };
      const policy = alterLoadPolicy(system, viewer);
      const alter = await findAlter(db, system.id, message.alterId, {
        onlyVisible: false,
        fieldsFor: policy?.fieldsFor ?? null,
        allFields: policy?.allFields ?? false,
      });
      return { data: viewMessage(message, system, alter, viewer) };
    },
  );
};
