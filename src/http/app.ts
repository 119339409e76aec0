// buildApp assembles the service from its parts and never listens (server.ts does), so tests and
// the benchmark can run the very same app. Order: infrastructure (headers, errors, rate limits), then
// the authorization server and its pages, the /v1 API and its reference, then health checks.
import type { EventEmitter } from 'node:events';
import { createHmac } from 'node:crypto';
import cookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { Config, TrustedProxies } from '../config/config.js';
import type { Secrets } from '../config/secrets.js';
import type { Database } from '../db/database.js';
import { createSystemLookup } from '../db/repositories/system-lookup.js';
import { createProfileValueCache } from '../db/repositories/profile-value-cache.js';
import { createGuildRevisions } from '../db/repositories/guilds.js';
import type { Schema } from '../db/tables.js';
import { createBearerVerifier } from '../auth/access-tokens.js';
import { accountRoutes } from '../auth/account-routes.js';
import { auditProviderEvents, createAuditLog, type AuditLog } from '../auth/audit.js';
import { createBrowserSession } from '../auth/browser-session.js';
import { DASHBOARD_CLIENT_ID, ensureDashboardClient } from '../auth/clients.js';
import { deleteClient } from '../db/repositories/oauth-clients.js';
import { dashboardAssets } from '../dashboard/assets.js';
import { dashboardRoutes } from '../dashboard/routes.js';
import { createDashboardSessions } from '../dashboard/sessions.js';
import { discordSignInRoutes } from '../auth/discord-sign-in.js';
import { loginAndConsentRoutes } from '../auth/login-and-consent/routes.js';
import { createIntrospection } from '../auth/introspection.js';
import { loginLinkRoutes } from '../auth/login-links.js';
import { FAVICON_PATH, FAVICON_SVG, STYLESHEET, STYLESHEET_PATH } from '../auth/pages/layout.js';
import { frameFor } from '../auth/pages/frame.js';
import { errorPage } from '../auth/pages/pages.js';
import { createProvider } from '../auth/provider.js';
import { createStorageCrypto } from '../security/crypto.js';
import { createDispatcher, type Dispatcher } from '../events/dispatcher.js';
import { Problem } from '../domain/problems.js';
import { lazyDefaultCompilers } from './lazy-compilers.js';
import { loggerOptions, RequestLog } from './logging.js';
import { imageServing } from './image-serving.js';
import { registerOpenApi } from './openapi.js';
import { oauthErrorHandler } from './oauth-errors.js';
import { oidcMount } from './plugins/oidc-mount.js';
import { installRateLimits } from './plugins/rate-limits.js';
import { SECURITY_HEADERS } from './security-headers.js';
import { sendProblem, STATUS_OF } from './v1/problem-responses.js';
import { v1Api } from './v1/plugin.js';

export interface AppDependencies {
  config: Config;
  secrets: Secrets;
  database: Database;
}

declare module 'fastify' {
  interface FastifyInstance {
    db: Kysely<Schema>;
    provider: Provider;
    audit: AuditLog;
    /** Event delivery; started and stopped by server.ts. */
    events: Dispatcher;
  }
}

export async function buildApp({ config, secrets, database }: AppDependencies): Promise<FastifyInstance> {
  const app = Fastify({
    logger: await loggerOptions(config),
    logController: new RequestLog(),
    // request.ip, which the per-IP rate limit counts by, is the right-most untrusted address.
    trustProxy: fastifyTrustProxy(config.trustedProxies),
    bodyLimit: 64 * 1024,
    // Fastify leaves Node's request timeout off: a body trickled a byte at a time would hold its
    // connection for ever. Node checks the deadlines every connectionsCheckingInterval (30 s by
    // default), so the check runs often enough for the configured times to mean what they say.
    requestTimeout: config.requestTimeouts.requestMs,
    http: {
      requestTimeout: config.requestTimeouts.requestMs,
      headersTimeout: config.requestTimeouts.headersMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.requestTimeouts.headersMs / 4)),
    },
    // Integration-field lookups carry up to 150 characters, percent-encoded up to 12 bytes each.
    routerOptions: { maxParamLength: 2048 },
    // Errors raised while routing (bad percent-encoding, over-long parameters) happen before any
    // route's error handler; answer them in the shape of the part of the site they were meant for.
    frameworkErrors(error, request, rawReply) {
      const friendly = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is too long' : 'the URL is not valid';
      return sendUnroutedError(request, rawReply as FastifyReply, new Problem('validation', friendly), 'invalid_request');
    },
    return503OnClosing: true,
    schemaController: { compilersFactory: lazyDefaultCompilers() },
  });

  const crypto = createStorageCrypto(secrets.dataEncryptionKey);
  const provider = createProvider({ config, db: database.db, crypto, signingKeys: secrets.signingKeys, cookieSecrets: secrets.cookieSecrets });
  const introspection = createIntrospection(provider, database.db);
  const session = createBrowserSession({ secure: config.publicUrl.startsWith('https:'), sessionTtlSeconds: config.ttl.session, cookieSecrets: secrets.cookieSecrets, provider, db: database.db, crypto });
  const changes = database.changes(app.log.child({ component: 'cache-invalidation' }));
  const events = createDispatcher({
    db: database.db,
    changes,
    postgres: database.dialect === 'postgres',
    crypto,
    log: app.log.child({ component: 'events' }),
    options: {
      allowPrivateAddresses: config.events.allowPrivateAddresses,
      timeoutMs: config.events.timeoutMs,
      retry: { baseMs: config.events.retryBaseMs, maxMs: config.events.retryMaxMs, giveUpAfterMs: config.events.giveUpAfterMs },
      pollMs: config.events.pollMs,
      concurrency: config.events.concurrency,
      perEndpointConcurrency: config.events.perEndpointConcurrency,
      perClientConcurrency: config.events.perClientConcurrency,
    },
  });
  // Other processes' commits are caught up with after each request arrives, before any cache answers it
  // (on SQLite, one read for all the requests of a turn of the event loop: db/changes/remote.ts).
  app.addHook('onRequest', (_request, _reply, done) => changes.catchUp(done));
  const systems = createSystemLookup(database.db, changes);
  app.addHook('onClose', async () => systems.close());
  const profileValues = createProfileValueCache(changes);
  app.addHook('onClose', async () => profileValues.close());
  const guilds = createGuildRevisions(database.db, changes);
  app.addHook('onClose', async () => guilds.close());
  app.decorate('db', database.db);
  app.decorate('provider', provider);
  const audit = createAuditLog(database.db, app.log);
  app.decorate('audit', audit);
  auditProviderEvents(provider, audit);
  // oidc-provider answers its own 500s; without this their cause would never reach the log.
  provider.on('server_error', (ctx, error) => app.log.error({ err: error, route: ctx.oidc?.route }, 'the authorization server failed'));
  // Koa's default for an error that escapes oidc-provider is a stack trace on stderr; a client
  // that stops sending its body (REQUEST_TIMEOUT_MS) is one, and belongs in the log at debug.
  // The Provider is the Koa app, but its types list only its own events.
  (provider as unknown as EventEmitter).on('error', (error: unknown) => {
    const code = (error as { code?: unknown }).code;
    const clientGone = code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ECONNRESET' || code === 'ECONNABORTED' || (error as { expose?: unknown }).expose === true;
    if (clientGone) app.log.debug({ err: error }, 'an authorization server request ended before it was read');
    else app.log.error({ err: error }, 'the authorization server failed');
  });
  app.decorate('events', events);

  // Hooks on every request are callback-style: an async hook costs a promise and a turn of the
  // microtask queue per request, measurable on the point read.
  const securityHeaders = Object.entries(SECURITY_HEADERS);
  app.addHook('onSend', (_request, reply, payload, done) => {
    for (const [name, value] of securityHeaders) if (!reply.hasHeader(name)) reply.header(name, value);
    done(null, payload);
  });
  await installRateLimits(app, config, {
    onExceeded(request, reply, retryAfter) {
      return sendUnroutedError(request, reply, new Problem('rate-limited', `too many requests; try again in ${retryAfter} s`), 'rate_limited');
    },
  });
  await registerOpenApi(app, config);
  // The dashboard's client secret, derived: every process of the installation agrees on it.
  const dashboardSecret = createHmac('sha256', secrets.dataEncryptionKey).update('switchboard dashboard client secret').digest('base64url');
  // Turned off, the dashboard's client must not be usable either: one left from an earlier start
  // goes, with its grants and tokens (its sessions stop working).
  if (config.dashboard.enabled) await ensureDashboardClient(database.db, config.publicUrl, dashboardSecret);
  else await deleteClient(database.db, DASHBOARD_CLIENT_ID);

  // Cookies belong to the browser-facing parts (pages, the back channel, the authorization server):
  // registered in their scope only, so API requests do not parse a Cookie header they never read.
  await app.register(async function browserFacing(site) {
    await site.register(cookie, { secret: secrets.cookieSecrets });
    site.addHook('onRequest', session.load);
    await site.register(async function pages(scope) {
      // Page routes answer errors with an HTML page; a client mistake is never a 500.
      scope.setErrorHandler((error: { statusCode?: number; status?: number; error_description?: string; message: string }, request, reply) => {
        const status = error.statusCode ?? error.status ?? 500;
        if (status >= 500) request.log.error({ err: error }, 'page failed');
        const message = status >= 500 ? 'Something went wrong on our side. Try again.' : (error.error_description ?? 'The request is invalid or has expired. Start again from the app.');
        return reply.code(status).type('text/html; charset=utf-8').send(errorPage('Something went wrong', message, undefined, frameFor(config.instanceName, session.signedInUser(request))));
      });
      await scope.register(loginAndConsentRoutes, { config, db: database.db, provider, session });
      await scope.register(discordSignInRoutes, { config, db: database.db, session });
      await scope.register(accountRoutes, { config, db: database.db, crypto, session });
      scope.get(STYLESHEET_PATH, async (_request, reply) => reply.header('cache-control', 'public, max-age=3600').type('text/css; charset=utf-8').send(STYLESHEET));
      // Also at /favicon.ico, which browsers ask for on pages that name no icon (Swagger UI's redirect page).
      for (const path of [FAVICON_PATH, '/favicon.ico']) {
        scope.get(path, async (_request, reply) => reply.header('cache-control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON_SVG));
      }
      scope.get('/', async (_request, reply) => reply.redirect('/account/apps', 303));
    });

    await site.register(async function backChannel(scope) {
      scope.setErrorHandler(oauthErrorHandler('the request body is malformed or too large'));
      await scope.register(loginLinkRoutes, { config, db: database.db, session });
    });
    await site.register(oidcMount, { provider, introspection, session });
    if (config.dashboard.enabled) {
      await site.register(dashboardRoutes, {
        config,
        service: app,
        sessions: createDashboardSessions(database.db, crypto, secrets.cookieSecrets, config.ttl.session),
        browserSession: session,
        assets: dashboardAssets(),
        clientSecret: dashboardSecret,
      });
    }
  });
  await app.register(v1Api, {
    prefix: '/v1',
    db: database.db,
    verifyBearerToken: createBearerVerifier(provider, crypto, changes),
    systems,
    profileValues,
    guilds,
    events: { crypto, allowPrivateAddresses: config.events.allowPrivateAddresses, wake: () => events.wake() },
    crypto,
    publicUrl: config.publicUrl,
  });
  await app.register(imageServing, { db: database.db });

  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await database.ping();
      return { status: 'ready', events: events.status() };
    } catch (error) {
      request.log.warn({ err: error }, 'database not reachable');
      return reply.code(503).send({ status: 'unavailable', reason: 'database not reachable' });
    }
  });

  return app;
}

/**
 * Errors are answered by the error handler of the part of the site a route belongs to: HTML pages
 * (the `pages` scope), RFC 6749 JSON on the back channel (oauth-errors.ts) and Problems under /v1
 * (v1/problem-responses.ts). The two kinds raised before any route is chosen (a URL that cannot be
 * routed, a rate limit) come here, and answer in the shape of the API the URL names: a Problem
 * under /v1, RFC 6749's `{error, error_description}` with the Problem's status elsewhere.
 */
function sendUnroutedError(request: FastifyRequest, reply: FastifyReply, problem: Problem, oauthError: string): FastifyReply {
  if (request.url.startsWith('/v1/')) return sendProblem(reply, problem);
  return reply.code(STATUS_OF[problem.type]).send({ error: oauthError, error_description: problem.message });
}

/**
 * TRUST_PROXY as Fastify's trustProxy. Fastify (since 5.12.1) trusts nobody when given a number,
 * so a hop count is given as the trust function proxy-addr calls for each address with its
 * distance: the connection's peer is hop 0, the right-most X-Forwarded-For entry hop 1, and so on.
 */
function fastifyTrustProxy(trusted: TrustedProxies | undefined): FastifyServerOptions['trustProxy'] {
  if (!trusted) return false;
  if ('addresses' in trusted) return trusted.addresses;
  const { hops } = trusted;
  return (_address: string, hop: number) => hop < hops;
}
