// Custom profile field endpoints (issue 30): create, list, read one, edit, reorder and delete a
// system's field definitions. Alters' values are read and written with the alter (`profileFields`).
// They belong to the alters scopes (as tags): a new scope would make every linked app ask again.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { createProfileField, deleteProfileField, editProfileField, findProfileField, listProfileFields, orderProfileFields } from '../../../db/repositories/profile-fields.js';
import type { Schema } from '../../../db/tables.js';
import { isOwner, profileFieldLoadPolicy, viewProfileField } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { CreateProfileFieldBody, EditProfileFieldBody, MAX_PROFILE_FIELDS, OrderProfileFieldsBody, PROFILE_FIELD_KIND_NAMES, ProfileField } from '../../../domain/profile-fields.js';
import { NAME_MAX } from '../../../domain/values.js';
import { NoQuery, ProfileFieldParams, UserParams } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { actorOf, targetOf } from '../target.js';

const SCOPE_NOTE = 'Profile fields share the alters scopes, as alters’ values do; a write that answers with fields needs `alters:read` too (checked before anything is written).';

/** The owner's view of a field they just wrote: owners see every field. */
function ownView(...args: Parameters<typeof viewProfileField>) {
  const view = viewProfileField(...args);
  if (!view) throw new Error('an owner could not see their own profile field');
  return view;
}

function notFound(): Problem {
  return new Problem('unknown-profile-field', 'there is no such profile field, or you may not see it');
}

export const profileFieldRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.post(
    '/system/create-profile-field',
    {
      config: { scope: ['alters:write', 'alters:read'], writes: true },
      schema: {
        tags: ['Profile fields'],
        summary: 'Create a profile field',
        description: `\`name\` is required (1 to ${NAME_MAX} characters, trimmed; unique in the system ignoring case and look-alike forms, 409 \`duplicate\` otherwise); \`kind\` (${PROFILE_FIELD_KIND_NAMES.join(', ')}; default text) and \`privacy\` (default owner) may be given. The new field goes last in the system’s order. At most ${MAX_PROFILE_FIELDS} per system (409 \`too-many-profile-fields\`). ${SCOPE_NOTE}`,
        security: security('alters:write', 'alters:read'),
        params: UserParams,
        querystring: NoQuery,
        body: CreateProfileFieldBody,
        response: { 201: ProfileField, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { viewer, system } = targetOf(request);
      const record = await createProfileField(db, system.id, request.body, Date.now(), actorOf(viewer));
      return reply.code(201).send(ownView(record, system, viewer));
    },
  );

  app.get(
    '/system/list-profile-fields',
    {
      config: { scope: 'alters:read' },
      schema: {
        tags: ['Profile fields'],
        summary: 'List profile fields',
        description: `Every field of the system in its order (at most ${MAX_PROFILE_FIELDS}, so one page). Another user’s list is refused (403 \`alters-private\`) unless their system shows its alters, and then holds only the fields whose values anyone else may see (privacy not \`owner\`). ${SCOPE_NOTE}`,
        security: security('alters:read'),
        params: UserParams,
        querystring: NoQuery,
        response: { 200: z.array(ProfileField), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const policy = profileFieldLoadPolicy(system, viewer);
      if (!policy) throw new Problem('alters-private', 'this system does not show its alters');
      const records = await listProfileFields(db, system.id, policy);
      return records.flatMap((record) => viewProfileField(record, system, viewer) ?? []);
    },
  );

  app.get(
    '/profile-fields/:field',
    {
      config: { scope: 'alters:read' },
      schema: {
        tags: ['Profile fields'],
        summary: 'Read a profile field',
        description: `Another user’s field is 404 when their system hides its alters or only its owner sees the field. ${SCOPE_NOTE}`,
        security: security('alters:read'),
        params: ProfileFieldParams,
        querystring: NoQuery,
        response: { 200: z.strictObject({ isSelf: z.boolean(), data: ProfileField }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const policy = profileFieldLoadPolicy(system, viewer);
      const record = policy && (await findProfileField(db, system.id, request.params.field, policy));
      const view = record && viewProfileField(record, system, viewer);
      if (!view) throw notFound();
      return { isSelf: isOwner(viewer, system.id), data: view };
    },
  );

  app.post(
    '/profile-fields/:field/edit',
    {
      config: { scope: ['alters:write', 'alters:read'], writes: true },
      schema: {
        tags: ['Profile fields'],
        summary: 'Edit a profile field',
        description: `A partial update of \`name\`, \`kind\` and \`privacy\`; \`{}\` changes nothing. A new kind keeps each alter’s value that is valid as that kind (in its normal form) and removes the others, in the same transaction. The order changes through \`POST /users/{user}/system/order-profile-fields\`. ${SCOPE_NOTE}`,
        security: security('alters:write', 'alters:read'),
        params: ProfileFieldParams,
        querystring: NoQuery,
        body: EditProfileFieldBody,
        response: { 200: ProfileField, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const record = await editProfileField(db, system.id, request.params.field, request.body, actorOf(viewer));
      if (!record) throw notFound();
      return ownView(record, system, viewer);
    },
  );

  app.post(
    '/system/order-profile-fields',
    {
      config: { scope: ['alters:write', 'alters:read'], writes: true },
      schema: {
        tags: ['Profile fields'],
        summary: 'Reorder profile fields',
        description: `\`fieldIds\` names every field of the system once, in the new order (400 \`validation\` when one is left out, 404 \`unknown-profile-field\` for an id the system has no field of). Answers the fields in their new order. ${SCOPE_NOTE}`,
        security: security('alters:write', 'alters:read'),
        params: UserParams,
        querystring: NoQuery,
        body: OrderProfileFieldsBody,
        response: { 200: z.array(ProfileField), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const records = await orderProfileFields(db, system.id, request.body.fieldIds, actorOf(viewer));
      return records.map((record) => ownView(record, system, viewer));
    },
  );

  app.post(
    '/profile-fields/:field/delete',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Profile fields'],
        summary: 'Delete a profile field',
        description: `Deletes the field and every alter’s value of it, in one transaction. A POST, like every write of this API. ${SCOPE_NOTE}`,
        security: security('alters:write'),
        params: ProfileFieldParams,
        querystring: NoQuery,
        body: z.strictObject({}),
        response: { 200: z.strictObject({ deleted: z.literal(true) }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      if (!(await deleteProfileField(db, system.id, request.params.field, actorOf(viewer)))) throw notFound();
      return { deleted: true as const };
    },
  );
};
