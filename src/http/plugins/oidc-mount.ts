// Hands /auth/oauth2/* and the discovery documents to oidc-provider's Koa app. The provider reads
// request bodies itself, so this encapsulated context parses nothing. RFC 8414's
// /.well-known/oauth-authorization-server serves the same metadata as OpenID discovery.
// The one exception: the spec's introspection form (JSON body + bearer token) is answered here.
// Before the provider sees a front-channel request (authorization, device verification), its
// session is made to follow this service's sign-in cookie (browser-session.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { z } from 'zod';
import { rememberClientAddress } from '../../auth/audit.js';
import type { BrowserSession } from '../../auth/browser-session.js';
import type { Introspection } from '../../auth/introspection.js';
import { rememberSignedInUser } from '../../auth/pages/request-account.js';
import { isUtf8ContentType } from '../../auth/media-types.js';
import { OAUTH_BASE, OAUTH_ROUTES } from '../../auth/provider.js';
import { oauthErrorHandler } from '../oauth-errors.js';
import { applySecurityHeaders } from '../security-headers.js';

export interface OidcMountDependencies {
  provider: Provider;
  introspection: Introspection;
  session: BrowserSession;
}

const SpecIntrospectionBody = z.strictObject({ token: z.string().min(1).max(4096), token_type_hint: z.enum(['access_token', 'refresh_token']).optional() });

const JSON_CONTENT_TYPE = /^application\/([a-z.+-]+\+)?json\b/i;

/**
 * oidc-provider reads bodies itself and fails any over its fixed limit of 56 KiB as unparseable
 * (400). Here they are 413: at once when the Content-Length says so, and by correcting the
 * provider's answer when the body was streamed (the events of the endpoints that read a body).
 */
const PROVIDER_BODY_LIMIT = 56 * 1024;
const TOO_LARGE = { error: 'invalid_request', error_description: `the request body is too large (at most ${PROVIDER_BODY_LIMIT / 1024} KiB)` };
const BODY_ERROR_EVENTS = ['grant.error', 'introspection.error', 'revocation.error', 'device_authorization.error', 'userinfo.error', 'code_verification.error'] as const;

/** The provider's pages, which act on the browser's session. */
function isFrontChannel(url: string): boolean {
  const path = url.split('?')[0] ?? url;
  return [OAUTH_ROUTES.authorization, OAUTH_ROUTES.code_verification].some((base) => path === base || path.startsWith(`${base}/`));
}

export async function oidcMount(app: FastifyInstance, { provider, introspection, session }: OidcMountDependencies) {
  const callback = provider.callback();

  const bodyTooLarge = (ctx: KoaContextWithOIDC, error: Error) => {
    if (ctx.status !== 400 || (error.cause as Error | undefined)?.message !== 'request entity too large') return;
    ctx.status = 413;
    // JSON answers get the message; pages (the device form) keep their HTML.
    if (ctx.body !== null && typeof ctx.body === 'object' && !Buffer.isBuffer(ctx.body)) ctx.body = TOO_LARGE;
  };
  // Every one of these events has the listener signature of 'grant.error'.
  for (const event of BODY_ERROR_EVENTS) provider.on(event as 'grant.error', bodyTooLarge);

  const toProvider = async (request: FastifyRequest, reply: FastifyReply) => {
    if (Number(request.headers['content-length']) > PROVIDER_BODY_LIMIT) {
      // Nothing of the body is read; the connection closes after the answer.
      return reply.code(413).header('cache-control', 'no-store').header('connection', 'close').send(TOO_LARGE);
    }
    if (isFrontChannel(request.raw.url ?? '')) {
      await session.alignProviderSession(request);
      rememberSignedInUser(request.raw, session.signedInUser(request));
    }
    rememberClientAddress(request.raw, request.ip);
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
    // JSON is read as UTF-8: JSON declared in another charset is refused, not misread.
    scope.addHook('onRequest', async (request, reply) => {
      const contentType = request.headers['content-type'] ?? '';
      if (JSON_CONTENT_TYPE.test(contentType) && !isUtf8ContentType(contentType)) {
        return reply.code(415).header('cache-control', 'no-store').send({ error: 'invalid_request', error_description: 'send JSON in UTF-8 (charset=utf-8 or no charset)' });
      }
      return undefined;
    });
    scope.post(OAUTH_ROUTES.introspection, { bodyLimit: 16 * 1024 }, async (request, reply) => {
      if (!JSON_CONTENT_TYPE.test(request.headers['content-type'] ?? '')) return toProvider(request, reply);
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
