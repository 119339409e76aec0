// System endpoints: read (privacy applied for other users) and edit (own system only).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { deleteSystem } from '../../../db/repositories/system-deletion.js';
import { editSystem, loadSystemDetails } from '../../../db/repositories/systems.js';
import type { Schema } from '../../../db/tables.js';
import { systemLoadPolicy, viewSystem } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { EditSystemBody, System } from '../../../domain/system.js';
import { NoQuery, UserParams } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { actorOf, targetOf } from '../target.js';

export const systemRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.get(
    '/system',
    {
      config: { scope: 'system:read' },
      schema: {
        tags: ['System'],
        summary: 'Read a system',
        description: 'Another user’s system is shown with their privacy settings applied.',
        security: security('system:read'),
        params: UserParams,
        querystring: NoQuery,
        response: { 200: z.strictObject({ data: System }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const details = await loadSystemDetails(db, system.id, systemLoadPolicy(system, viewer));
      return { data: viewSystem(system, details, viewer) };
    },
  );

  app.post(
    '/system/edit',
    {
      config: { scope: 'system:write', writes: true },
      schema: {
        tags: ['System'],
        summary: 'Edit your system',
        description: 'A partial update with the same rules as alter edits. Returns the system, not wrapped in `data` (as the origin API does).',
        security: security('system:write'),
        params: UserParams,
        querystring: NoQuery,
        body: EditSystemBody,
        response: { 200: System, ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const updated = (await editSystem(db, system.id, request.body, actorOf(viewer))) ?? system;
      const details = await loadSystemDetails(db, system.id, systemLoadPolicy(updated, viewer));
      return viewSystem(updated, details, viewer);
    },
  );

  app.post(
    '/system/delete',
    {
      config: { scope: 'system:write', writes: true },
      schema: {
        tags: ['System'],
        summary: 'Delete your system',
        description:
          'Deletes the system for good, in one transaction: its alters, tags, switches, autoproxy entries, hosted images, import links and its past events. Every grant of every account of the system ends with it (each app loses access at once, this token too), and so do their sign-ins; signing in again later starts a new, empty system with a new id. The body must be exactly `{"confirm": true}`; anything else is a 400 that deletes nothing. Only the owning account may do it (a sub-account gets 403 `not-matching-oauth`). One last event, `system.deleted`, goes to the apps that were authorized until then (with `system:read`), so they can forget what they kept. Proxied-message records stay for moderators: message info still shows the sender’s Discord account, the server, channel, time and the name the message was sent under, with `systemDeleted: true` and no system or alter. The audit log records that the system was deleted, by whom and through which app, and nothing of what it held.',
        security: security('system:write'),
        params: UserParams,
        querystring: NoQuery,
        body: z.strictObject({ confirm: z.literal(true).describe('Must be `true`: the deletion cannot be undone.') }),
        response: { 200: z.strictObject({ deleted: z.literal(true) }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      if (system.userId !== viewer.userId) throw new Problem('not-matching-oauth', 'only the account that owns the system can delete it');
      const deletion = {
        systemId: system.id,
        ownerId: system.userId,
        actorClientId: viewer.clientId,
        actorAccountId: viewer.userId,
        ip: request.ip,
        now: Date.now(),
      };
      const deleted = await deleteSystem(db, deletion);
      if (!deleted) throw new Problem('no-system', 'this system was deleted already');
      request.log.info({ audit: true, kind: 'system-deleted', userId: system.userId, clientId: viewer.clientId, ip: request.ip }, 'audit: system-deleted');
      return { deleted: true as const };
    },
  );
};
