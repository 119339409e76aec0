// The proxy profile: one cacheable read of everything the bot needs to proxy for the caller in one
// server. `ETag` carries the system's revision (cached apart from its record: SystemLookup.revisionOf),
// so revalidation costs at most one indexed row read.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { loadProxyProfile } from '../../../db/repositories/proxy-profile.js';
import type { Schema } from '../../../db/tables.js';
import type { GuildRevisions } from '../../../db/repositories/guilds.js';
import type { SystemLookup } from '../../../db/repositories/system-lookup.js';
import { GUILD_REVISION_HEADER } from '../../../domain/guild.js';
import { isOwner } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { ProxyProfile, ProxyProfileQuery, profileETag } from '../../../domain/proxy-profile.js';
import { emptyNotModified, ifNoneMatch } from '../conditional-get.js';
import { UserParams } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { targetOf } from '../target.js';

type ProxyProfileDependencies = { db: Kysely<Schema>; guilds: GuildRevisions; systems: SystemLookup };

export const proxyProfileRoutes: FastifyPluginAsyncZod<ProxyProfileDependencies> = async (app, { db, guilds, systems }) => {
  app.get(
    '/proxy-profile',
    {
      config: { scope: 'messages:write' },
      onSend: emptyNotModified,
      schema: {
        tags: ['Proxying'],
        summary: 'Your proxy profile for one server',
        description: 'Everything the proxy engine and the webhook need for the token’s own user in server `guild`: alters with proxy tags and their names and avatars for that server, the display tag, flags, whether proxying is off, the autoproxy entries that can be in effect there, and the front. Owner only. Send `If-None-Match` with the last `ETag` to get 304 while nothing changed. Every answer, 304 included, carries the server’s settings revision in `Switchboard-Guild-Settings-Revision`, so the bot knows on each message whether its copy of the server’s settings is current without asking for them.',
        security: security('messages:write'),
        params: UserParams,
        querystring: ProxyProfileQuery,
        response: { 200: ProxyProfile, 304: z.null().describe('Not modified: the cached profile is current (no body).'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { viewer, system } = targetOf(request);
      if (!isOwner(viewer, system.id)) throw new Problem('not-matching-oauth', 'a proxy profile is its owner’s alone; use @me');
      // Held apart from the system's record (SystemLookup.revisionOf); a system deleted since its
      // record was read has no profile.
      const revision = await systems.revisionOf(system.id);
      if (revision === undefined) throw new Problem('no-system', 'this user has no system (they have never signed in)');
      const etag = profileETag(system.id, revision);
      reply.header('etag', etag).header('cache-control', 'private, no-cache').header(GUILD_REVISION_HEADER, String(await guilds.get(request.query.guild)));
      if (ifNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      // The revision was read before the profile's rows, so the data is at least as new as its
      // ETag: a write landing in between costs the bot one more fetch, never a stale cache.
      // The viewer is an account of the system (isOwner), so it has a user id.
      return loadProxyProfile(db, system, revision, request.query.guild, viewer.userId ?? system.userId);
    },
  );
};
