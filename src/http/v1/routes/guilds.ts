// A Discord server's settings for the bot: read (revalidated by ETag) and edited. For the bot's own
// first-party client only: `guilds:manage` is never granted to third-party clients
// (auth/clients.ts), and the token must be a client-credentials one, since the people who change
// a server's settings need not have linked anything. The bot vouches for the Discord permission it
// checked (the edit's `actor`); both go to the audit log with the change.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { editGuildSettings, readGuildSettings } from '../../../db/repositories/guilds.js';
import type { Schema } from '../../../db/tables.js';
import { EditGuildSettingsBody, GuildSettings, guildSettingsETag } from '../../../domain/guild.js';
import { Problem } from '../../../domain/problems.js';
import { GuildId } from '../../../domain/values.js';
import { NoQuery } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { emptyNotModified, ifNoneMatch } from '../conditional-get.js';

const GuildParams = z.strictObject({ guild: GuildId.describe('The Discord server id.') });

const NOTE = 'For the bot’s own client: a client-credentials token with `guilds:manage`, a scope only first-party clients can be granted.';

export const guildRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.addHook('preHandler', (request, _reply, done) => {
    // Settings belong to the server, not to a person: a user's token cannot act for the bot.
    if (request.grant?.userId !== null) return done(new Problem('client-token-required', 'server settings are changed by the bot as itself: use its client-credentials token (grant_type=client_credentials, scope guilds:manage)'));
    done();
  });

  app.get(
    '/:guild/settings',
    {
      config: { scope: 'guilds:manage' },
      onSend: emptyNotModified,
      schema: {
        tags: ['Servers'],
        summary: 'A server’s settings',
        description: `Every setting with who changed it last and when (defaults at revision 0 for a server that never changed one). \`ETag\` carries the revision: send \`If-None-Match\` to get 304 while nothing changed. ${NOTE}`,
        security: security('guilds:manage'),
        params: GuildParams,
        querystring: NoQuery,
        response: { 200: GuildSettings, 304: z.null().describe('Not modified: the cached settings are current (no body).'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const settings = await readGuildSettings(db, request.params.guild);
      const etag = guildSettingsETag(settings.revision);
      reply.header('etag', etag).header('cache-control', 'private, no-cache');
      if (ifNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send(null);
      return settings;
    },
  );

  app.post(
    '/:guild/settings/edit',
    {
      config: { scope: 'guilds:manage' },
      schema: {
        tags: ['Servers'],
        summary: 'Change a server’s settings',
        description: `A partial update: omitted keys are unchanged, unknown keys are refused by name and every bad field is reported at once. \`{}\` changes nothing. \`logChannel\` takes a channel id or \`null\`; \`requireTag\` a boolean; \`proxyDelayMs\` 0 to 3000; the lists (\`blacklist\`, \`logIgnored\`, \`managerRoles\`, \`logCleanupBots\`) take \`{add, remove}\` of ids, and \`blocks\` takes \`{add: [{id, kind: "user"|"role", reason}], remove: [ids]}\`. Adding what is there or removing what is not changes nothing; a list that would pass its cap is 409 \`too-many-entries\` and nothing changes. \`actor\` names the Discord user and the permission the bot checked (Manage Server, or a manager role); it is required with any change, and stamps what changed and the audit log entry. Answers the settings, with their new \`ETag\`. ${NOTE}`,
        security: security('guilds:manage'),
        params: GuildParams,
        querystring: NoQuery,
        body: EditGuildSettingsBody,
        response: { 200: GuildSettings, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request, reply) => {
      const { actor } = request.body;
      const clientId = request.grant?.clientId ?? '';
      const settings = await editGuildSettings(db, request.params.guild, request.body, actor && { actor, clientId, ip: request.ip }, Date.now());
      reply.header('etag', guildSettingsETag(settings.revision));
      return settings;
    },
  );
};
