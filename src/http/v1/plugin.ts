// The /v1 data API as one encapsulated Fastify context: zod validation and serialization, JSON
// bodies only, bearer authentication before anything is read, and one error shape for every
// failure, including unknown /v1 paths.
import type { FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import type { BearerVerifier } from '../../auth/access-tokens.js';
import { isUtf8ContentType } from '../../auth/media-types.js';
import type { Schema } from '../../db/tables.js';
import { Problem } from '../../domain/problems.js';
import { createAuthenticator } from './authentication.js';
import { sendProblem, v1ErrorHandler } from './problem-responses.js';
import { serializerCompiler } from './serializer.js';
import type { SystemLookup } from '../../db/repositories/system-lookup.js';
import { createTargetResolver } from './target.js';
import { alterRoutes } from './routes/alters.js';
import { autoproxyRoutes } from './routes/autoproxy.js';
import { messageLookupRoutes, messageRecordRoutes, messageReproxyRoutes } from './routes/messages.js';
import { proxyProfileRoutes } from './routes/proxy-profile.js';
import { frontRoutes } from './routes/front.js';
import { importExportRoutes } from './routes/import-export.js';
import { systemRoutes } from './routes/system.js';
import { tagRoutes } from './routes/tags.js';
import { profileFieldRoutes } from './routes/profile-fields.js';
import { eventRoutes, type EventRoutesOptions } from './routes/events.js';
import { guildRoutes } from './routes/guilds.js';
import { imageRoutes } from './routes/images.js';
import { accountRoutes } from './routes/accounts.js';
import { appRoutes } from './routes/apps.js';
import type { StorageCrypto } from '../../security/crypto.js';
import type { GuildRevisions } from '../../db/repositories/guilds.js';
import type { ProfileValueSource } from '../../db/repositories/alters.js';

export interface V1Dependencies {
  db: Kysely<Schema>;
  verifyBearerToken: BearerVerifier;
  /** `{user}` → system (cached; db/repositories/system-lookup.ts). */
  systems: SystemLookup;
  /** Alters' profile field values for the lists (cached; db/repositories/profile-value-cache.ts). */
  profileValues: ProfileValueSource;
  /** Servers' settings revisions (cached; db/repositories/guilds.ts), told to the bot with each proxy profile. */
  guilds: GuildRevisions;
  events: Omit<EventRoutesOptions, 'db'>;
  /** Keys the addresses of hosted images. */
  crypto: StorageCrypto;
  /** PUBLIC_URL: where hosted images are served. */
  publicUrl: string;
}

/** Request bodies are small JSON objects; the largest legitimate edit is well under this. */
export const V1_BODY_LIMIT = 256 * 1024;

export async function v1Api(scope: FastifyInstance, { db, verifyBearerToken, systems, profileValues, guilds, events, crypto, publicUrl }: V1Dependencies) {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(v1ErrorHandler);
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new Problem('not-found', `there is no endpoint ${request.method} ${request.url.split('?')[0]}`)),
  );

  // JSON only: an empty body means "no fields" (the spec's "default empty object"); any other
  // content type is 415, and so is JSON declared in a charset other than UTF-8 (it would be misread).
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: V1_BODY_LIMIT }, (request, body, done) => {
    if (!isUtf8ContentType(request.headers['content-type'])) done(new Problem('unsupported-media-type', 'send JSON in UTF-8: Content-Type: application/json (charset=utf-8 or none)'), undefined);
    else if (body === '') done(null, {});
    else parseJson(request, body as string, done);
  });
  app.decorateRequest('grant', null);
  app.decorateRequest('target', null);
  app.addHook('onRequest', createAuthenticator(verifyBearerToken));
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.method === 'POST' && request.body === undefined) request.body = {};
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Responses depend on the token; no shared cache may keep them.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  await app.register(
    async (users) => {
      // `{user}` is resolved once, from the validated path, for every route below.
      users.addHook('preHandler', createTargetResolver(systems));
      await users.register(systemRoutes, { db });
      await users.register(accountRoutes, { db, crypto });
      await users.register(appRoutes, { db, crypto });
      await users.register(alterRoutes, { db, profileValues });
      await users.register(frontRoutes, { db });
      await users.register(autoproxyRoutes, { db });
      await users.register(proxyProfileRoutes, { db, guilds, systems });
      await users.register(messageRecordRoutes, { db });
      await users.register(messageReproxyRoutes, { db });
      await users.register(tagRoutes, { db });
      await users.register(profileFieldRoutes, { db });
      await users.register(importExportRoutes, { db });
      await users.register(imageRoutes, { db, crypto, publicUrl });
    },
    { prefix: '/users/:user' },
  );
  await app.register(messageLookupRoutes, { db });
  await app.register(eventRoutes, { prefix: '/events', db, ...events });
  await app.register(guildRoutes, { prefix: '/guilds', db });
}
