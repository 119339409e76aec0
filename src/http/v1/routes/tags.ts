// Tag endpoints (PluralKit's groups): create, read one, list, edit, delete, and change members.
// Tags belong to the alters scopes (`alters:read`, `alters:write`): a new scope would make every
// linked app ask its users to approve it again.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { changeTagMembers, createTag, deleteTag, editTag, findTag, listTags } from '../../../db/repositories/tags.js';
import type { Schema } from '../../../db/tables.js';
import { isOwner, tagLoadPolicy, viewTag } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { CreateTagBody, EditTagBody, MAX_TAGS_PER_SYSTEM, Tag, TagMembershipBody } from '../../../domain/tag.js';
import { NAME_MAX } from '../../../domain/values.js';
import { NoQuery, TagParams, UserParams, pageQuery } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { actorOf, targetOf } from '../target.js';

export const MAX_TAG_PAGE = 250;

const SCOPE_NOTE = 'Tags share the alters scopes, so apps linked before tags existed need no new approval.';

/** The owner's view of a tag they just wrote: owners see every tag. */
function ownView(...args: Parameters<typeof viewTag>) {
  const view = viewTag(...args);
  if (!view) throw new Error('an owner could not see their own tag');
  return view;
}

function notFound(): Problem {
  return new Problem('unknown-tag', 'there is no such tag, or you may not see it');
}

export const tagRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.post(
    '/system/create-tag',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Tags'],
        summary: 'Create a tag',
        description: `\`name\` is required (1 to ${NAME_MAX} characters, trimmed; unique in the system ignoring case and look-alike forms, 409 \`duplicate\` otherwise); any other editable field may be given. A new tag has no members. At most ${MAX_TAGS_PER_SYSTEM} tags per system. ${SCOPE_NOTE}`,
        security: security('alters:write'),
        params: UserParams,
        querystring: NoQuery,
        body: CreateTagBody,
        response: { 201: Tag, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { viewer, system } = targetOf(request);
      const record = await createTag(db, system.id, request.body, Date.now(), actorOf(viewer));
      return reply.code(201).send(ownView(record, system, viewer));
    },
  );

  app.get(
    '/tags/:tag',
    {
      config: { scope: 'alters:read' },
      schema: {
        tags: ['Tags'],
        summary: 'Read a tag',
        description: `Another user’s tag is shown with the privacy settings applied; it is 404 when the system hides its tags or the tag is hidden. ${SCOPE_NOTE}`,
        security: security('alters:read'),
        params: TagParams,
        querystring: NoQuery,
        response: { 200: z.strictObject({ isSelf: z.boolean(), data: Tag }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const policy = tagLoadPolicy(system, viewer);
      const record = policy && (await findTag(db, system.id, request.params.tag, policy));
      const view = record && viewTag(record, system, viewer);
      if (!view) throw notFound();
      return { isSelf: isOwner(viewer, system.id), data: view };
    },
  );

  app.get(
    '/system/list-tags',
    {
      config: { scope: 'alters:read' },
      schema: {
        tags: ['Tags'],
        summary: 'List tags',
        description: `Tags in id order, one page at a time (\`max\` 1..${MAX_TAG_PAGE}, default ${MAX_TAG_PAGE}; \`skip\` default 0), like list-alters. Another user’s list is refused (403 \`tags-private\`) unless their system shows its tags, and then holds only the tags they show. ${SCOPE_NOTE}`,
        security: security('alters:read'),
        params: UserParams,
        querystring: pageQuery(MAX_TAG_PAGE, MAX_TAG_PAGE),
        response: { 200: z.array(Tag), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const policy = tagLoadPolicy(system, viewer);
      if (!policy) throw new Problem('tags-private', 'this system does not show its tags');
      const page = { skip: request.query.skip ?? 0, max: request.query.max ?? MAX_TAG_PAGE };
      const records = await listTags(db, system.id, page, policy);
      return records.flatMap((record) => viewTag(record, system, viewer) ?? []);
    },
  );

  app.post(
    '/tags/:tag/edit',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Tags'],
        summary: 'Edit a tag',
        description: `A partial update: omitted keys are unchanged, \`null\` clears a nullable field, unknown and read-only keys are refused (members change through \`POST /tags/{tag}/alters\` or an alter’s \`tagIds\`). \`{}\` changes nothing. ${SCOPE_NOTE}`,
        security: security('alters:write'),
        params: TagParams,
        querystring: NoQuery,
        body: EditTagBody,
        response: { 200: Tag, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const record = await editTag(db, system.id, request.params.tag, request.body, actorOf(viewer));
      if (!record) throw notFound();
      return ownView(record, system, viewer);
    },
  );

  app.post(
    '/tags/:tag/alters',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Tags'],
        summary: 'Add and remove members',
        description: `Adds the alters in \`add\` and removes those in \`remove\`, in one transaction. Every id must be an alter of the system (404 \`unknown-alter\` naming the list otherwise, and nothing changes); adding a member or removing a non-member is not an error. Answers the tag. ${SCOPE_NOTE}`,
        security: security('alters:write'),
        params: TagParams,
        querystring: NoQuery,
        body: TagMembershipBody,
        response: { 200: Tag, ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const record = await changeTagMembers(db, system.id, request.params.tag, request.body, actorOf(viewer));
      if (!record) throw notFound();
      return ownView(record, system, viewer);
    },
  );

  app.post(
    '/tags/:tag/delete',
    {
      config: { scope: 'alters:write', writes: true },
      schema: {
        tags: ['Tags'],
        summary: 'Delete a tag',
        description: `Deletes the tag and removes it from every alter (their \`tagIds\`), in one transaction. The alters themselves stay. A POST, like every write of this API. ${SCOPE_NOTE}`,
        security: security('alters:write'),
        params: TagParams,
        querystring: NoQuery,
        body: z.strictObject({}),
        response: { 200: z.strictObject({ deleted: z.literal(true) }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      if (!(await deleteTag(db, system.id, request.params.tag, actorOf(viewer)))) throw notFound();
      return { deleted: true as const };
    },
  );
};
