// System endpoints: read (privacy applied for other users) and edit (own system only).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { editSystem, loadSystemDetails } from '../../../db/repositories/systems.js';
import type { Schema } from '../../../db/tables.js';
import { systemLoadPolicy, viewSystem } from '../../../domain/privacy.js';
import { EditSystemBody, System } from '../../../domain/system.js';
import { NoQuery, UserParams } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { targetOf } from '../target.js';

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
      const updated = (await editSystem(db, system.id, request.body, viewer.clientId)) ?? system;
      const details = await loadSystemDetails(db, system.id, systemLoadPolicy(updated, viewer));
      return viewSystem(updated, details, viewer);
    },
  );
};
