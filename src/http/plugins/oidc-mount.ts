// Hands /auth/oauth2/* and the discovery documents to oidc-provider's Koa app. The provider reads
// request bodies itself, so this encapsulated context parses nothing. RFC 8414's
// /.well-known/oauth-authorization-server serves the same metadata as OpenID discovery.
// The one exception: the spec's introspection form (JSON body + bearer token) is answered here.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import type { Introspection } from '../../auth/introspection.js';
import { OAUTH_BASE, OAUTH_ROUTES } from '../../auth/provider.js';
import { oauthErrorHandler } from '../oauth-errors.js';
import { applySecurityHeaders } from '../security-headers.js';

export interface OidcMountDependencies {
  provider: Provider;
  introspection: Introspection;
}

const SpecIntrospectionBody = z.strictObject({ token: z.string().min(1).max(4096), token_type_hint: z.enum(['access_token', 'refresh_token']).optional() });

export async function oidcMount(app: FastifyInstance, { provider, introspection }: OidcMountDependencies) {
  const callback = provider.callback();

  const toProvider = (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    applySecurityHeaders(reply.raw);
    if (request.raw.url?.startsWith('/.well-known/oauth-authorization-server')) {
      request.raw.url = request.raw.url.replace('/.well-known/oauth-authorization-server', '/.well-known/openid-configuration');
    }
    callback(request.raw, reply.raw);
  };

  await app.register(async function providerRoutes(scope) {
    // A Content-Type header that cannot be parsed fails in Fastify before the provider sees it.
    scope.setErrorHandler(oauthErrorHandler('the request has an unreadable Content-Type or body', 400));
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.all(`${OAUTH_BASE}/*`, toProvider);
    scope.get('/.well-known/openid-configuration', toProvider);
    scope.get('/.well-known/oauth-authorization-server', toProvider);
  });

  await app.register(async function specIntrospection(scope) {
    // JSON bodies are parsed by Fastify here; every other content type streams to the provider.
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.setErrorHandler(oauthErrorHandler('the request body is not valid JSON or is too large'));
    scope.post(OAUTH_ROUTES.introspection, { bodyLimit: 16 * 1024 }, async (request, reply) => {
      if (!/^application\/([a-z.+-]+\+)?json\b/i.test(request.headers['content-type'] ?? '')) return toProvider(request, reply);
      reply.header('cache-control', 'no-store');
      const authorization = request.headers.authorization;
      const bearer = authorization?.match(/^Bearer ([\x21-\x7e]+)$/)?.[1];
      if (!bearer) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="switchboard"')
          .send({ error: 'invalid_client', error_description: 'send Authorization: Bearer <access token>, or use client authentication with a form body (RFC 7662)' });
      }
      const body = SpecIntrospectionBody.safeParse(request.body);
      if (!body.success) {
        return reply.code(400).send({ error: 'invalid_request', error_description: 'expected a JSON body {"token": "<token to introspect>"}' });
      }
      const result = await introspection.introspectWithBearer(bearer, body.data.token);
      if (!result) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer realm="switchboard", error="invalid_token"')
          .send({ error: 'invalid_token', error_description: 'the bearer token is invalid, expired or revoked' });
      }
      return reply.send(result);
    });
  });
}
