// Alter endpoints: create, edit, delete, read one, list, look up by integration field, and set the
// privacy of many at once.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { createAlter, deleteAlter, editAlter, findAlter, findAlterByField, listAlters, listAltersBy, setAltersPrivacy, type ProfileValueSource } from '../../../db/repositories/alters.js';
import { findTag } from '../../../db/repositories/tags.js';
import type { Schema } from '../../../db/tables.js';
import { Alter, CreateAlterBody, EditAlterBody, MAX_ALTERS_PER_SYSTEM } from '../../../domain/alter.js';
import { ListAltersFilters } from '../../../domain/alter-list.js';
import { EditAltersPrivacyBody } from '../../../domain/alter-privacy-change.js';
import { alterLoadPolicy, alterQueryPrivacy, isOwner, readsSystems, tagFilterAllowed, viewAlter, writtenAlterView } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { AlterParams, FieldParams, NoQuery, UserParams, pageQuery } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { actorOf, targetOf } from '../target.js';

export const MAX_LIST_PAGE = 250;

/** The calling client's own field change from an edit body; any other client's key is refused. */
function ownFieldChange(fields: Record<string, string | null> | undefined, clientId: string): string | null | undefined {
  if (fields === undefined) return undefined;
  for (const key of Object.keys(fields)) {
    if (key !== clientId) {
      throw new Problem('validation', `fields.${key}: a client can only set its own field, whose key is its client id (${clientId})`, `fields.${key}`);
    }
  }
  return fields[clientId];
}

function notFound(): Problem {
  return new Problem('unknown-alter', 'there is no such alter, or you may not see it');
}

export const alterRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema>; profileValues: ProfileValueSource }> = async (app, { db, profileValues }) => {
  app.post(
    '/system/create-alter',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Alters'],
        summary: 'Create an alter',
        description:
          '`username` and `displayName` are required; any other editable field may be given. Usernames are unique per system, ignoring case. `profileFields` sets custom profile field values (field id → value, checked against the field’s kind; 404 `unknown-profile-field` for an id the system has no field of), in the same transaction.',
        security: security('alters:write'),
        params: UserParams,
        querystring: NoQuery,
        body: CreateAlterBody,
        response: { 201: Alter, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { viewer, system } = targetOf(request);
      const field = ownFieldChange(request.body.fields, viewer.clientId);
      const record = await createAlter(db, system.id, request.body, { clientId: viewer.clientId, accountId: viewer.userId, field }, Date.now());
      return reply.code(201).send(writtenAlterView(record, system, viewer));
    },
  );

  app.post(
    '/alters/:alter/edit',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Alters'],
        summary: 'Edit an alter',
        description:
          'A partial update: omitted keys are unchanged, `null` clears a nullable field, unknown and read-only keys are refused. `{}` changes nothing. In `profileFields`, the fields named change (`null` removes a value) and the others keep theirs.',
        security: security('alters:write'),
        params: AlterParams,
        querystring: NoQuery,
        body: EditAlterBody,
        response: { 200: Alter, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const field = ownFieldChange(request.body.fields, viewer.clientId);
      const record = await editAlter(db, system.id, request.params.alter, request.body, { clientId: viewer.clientId, accountId: viewer.userId, field });
      if (!record) throw notFound();
      return writtenAlterView(record, system, viewer);
    },
  );

  app.post(
    '/alters/:alter/delete',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Alters'],
        summary: 'Delete an alter',
        description:
          'Deletes the alter for good, in one transaction with everything that names it: its tag memberships, integration fields, profile field values and place in the front history (a switch keeps its other alters), and its autoproxy entries (an entry in `alter` mode for it turns `off`, so the bot never starts speaking as someone else there; a latch on it is cleared). Its proxied messages keep their records: message info still names the system, and tells the owner the alter was deleted (`alterDeleted`). The id is never reused. A POST, like every write of this API.',
        security: security('alters:write'),
        params: AlterParams,
        querystring: NoQuery,
        body: z.strictObject({}),
        response: { 200: z.strictObject({ deleted: z.literal(true) }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      if (!(await deleteAlter(db, system.id, request.params.alter, actorOf(viewer)))) throw notFound();
      return { deleted: true as const };
    },
  );

  app.post(
    '/system/edit-alters-privacy',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Alters'],
        summary: 'Set the privacy of many alters',
        description: `Gives every alter in \`alterIds\` (1 to ${MAX_ALTERS_PER_SYSTEM}, each once) the privacy bitmask \`public\`, in one transaction: every id must be an alter of the system (404 \`unknown-alter\` naming the first that is not, and nothing changes). Each alter whose privacy this changes sends the \`alter.updated\` event an edit of it would; an alter that already had these bits is left as it was and sends none. Answers the alters as written, in the order named, as an edit answers one.`,
        security: security('alters:write'),
        params: UserParams,
        querystring: NoQuery,
        body: EditAltersPrivacyBody,
        response: { 200: z.array(Alter), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const { alterIds, public: bits } = request.body;
      const records = await setAltersPrivacy(db, system.id, alterIds, bits, { clientId: viewer.clientId, accountId: viewer.userId });
      return records.map((record) => writtenAlterView(record, system, viewer));
    },
  );

  app.get(
    '/alters/:alter',
    {
      config: { scope: 'alters:read' },
      schema: {
        tags: ['Alters'],
        summary: 'Read an alter',
        description: 'Another user’s alter is shown with their privacy settings applied; it is 404 when they hide it.',
        security: security('alters:read'),
        params: AlterParams,
        querystring: NoQuery,
        response: { 200: z.strictObject({ isSelf: z.boolean(), data: Alter }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const policy = alterLoadPolicy(system, viewer);
      const record = policy && (await findAlter(db, system.id, request.params.alter, policy));
      const view = record && viewAlter(record, system, viewer);
      if (!view) throw notFound();
      return { isSelf: isOwner(viewer, system.id), data: view };
    },
  );

  app.get(
    '/system/list-alters',
    {
      config: { scope: 'alters:read' },
      schema: {
        tags: ['Alters'],
        summary: 'List alters',
        description: `Alters in id order (or as \`sort\` says), one page at a time (\`max\` 1..${MAX_LIST_PAGE}, default ${MAX_LIST_PAGE}; \`skip\` default 0), optionally only a tag's members (\`tag\`) or those matching \`search\`. Another user’s list is refused (403) unless their system shows its alters, and then holds only the alters they show; sorting and searching look only at what they show you. \`sort=lastFronted\` reads the front history, so it needs \`system:read\` too (403 \`invalid-scopes\`).`,
        security: security('alters:read'),
        params: UserParams,
        querystring: pageQuery(MAX_LIST_PAGE, MAX_LIST_PAGE).extend(ListAltersFilters),
        response: { 200: z.array(Alter), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const policy = alterLoadPolicy(system, viewer);
      if (!policy) throw new Problem('alters-private', 'this system does not show its alters');
      const page = { skip: request.query.skip ?? 0, max: request.query.max ?? MAX_LIST_PAGE };
      const { sort = 'id', tag, search } = request.query;
      if (sort === 'lastFronted' && !readsSystems(viewer)) throw new Problem('invalid-scopes', 'sort=lastFronted reads the front history, which needs the system:read scope', 'sort');
      let tagId: number | undefined;
      if (tag !== undefined) {
        tagId = Number(tag);
        const found = await findTag(db, system.id, tagId, { onlyVisible: !isOwner(viewer, system.id) });
        if (!found || !tagFilterAllowed(system, found.public, viewer)) throw new Problem('unknown-tag', 'tag: no such tag, or its members are not shown', 'tag');
      }
      const records =
        sort === 'id' && tagId === undefined && search === undefined
          ? await listAlters(db, system.id, page, policy, profileValues)
          : await listAltersBy(db, system.id, page, policy, { sort, tagId, search }, alterQueryPrivacy(system, viewer), profileValues);
      return records.flatMap((record) => viewAlter(record, system, viewer) ?? []);
    },
  );

  app.get(
    '/fields/alters/:id',
    {
      config: { scope: 'alters:read' },
      schema: {
        tags: ['Alters'],
        summary: 'Find an alter by integration field',
        description: 'The caller’s alter whose field for the calling client equals `{id}`. Fields are private to their owner, so `{user}` must be the token’s own user.',
        security: security('alters:read'),
        params: FieldParams,
        querystring: NoQuery,
        response: { 200: Alter, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      if (!isOwner(viewer, system.id)) throw new Problem('not-matching-oauth', 'integration fields can only be looked up in your own system; use @me');
      const record = await findAlterByField(db, system.id, viewer.clientId, request.params.id);
      const view = record && viewAlter(record, system, viewer);
      if (!view) throw notFound();
      return view;
    },
  );
};
