// The OpenAPI 3.1 document, generated from the zod schemas the /v1 routes validate with, served
// at /openapi.json, with an interactive reference (Swagger UI) at /docs. Only tagged routes (the
// /v1 API) are described; the OAuth endpoints are described by the discovery documents.
//
// /docs: Swagger UI's base layout (no top bar: no framework logo, whose inline <style> the CSP
// blocks, and no "Explore" box that loads other documents), our title and icon, dark colours
// when the browser prefers them, and an Authorize dialog that works: it signs in through the
// docs client (clients.ts, ensureDocsClient) with PKCE, as any browser app would.
//
// Both are built on first use, not at start-up: registering @fastify/swagger and
// @fastify/swagger-ui (with @fastify/static, yaml and their file listings) took about 45 ms of
// every start, for pages most instances serve rarely. The service keeps the list of its routes;
// the first request for /openapi.json or /docs builds the reference, a Fastify instance of its
// own holding the two plugins and those routes (schemas only), and /docs requests are answered
// by it: same status, headers and body as when the plugins were registered on the service (but
// for paths with `..` segments: see forwardTo).
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { DOCS_CLIENT_ID, ensureDocsClient } from '../auth/clients.js';
import { escapeHtml } from '../auth/pages/html.js';
import { FAVICON_SVG } from '../auth/pages/layout.js';
import { OAUTH_ROUTES } from '../auth/provider.js';
import type { Config } from '../config/config.js';
import { IMAGE_UPLOAD_PART } from '../domain/images.js';
import { API_SCOPES, FIRST_PARTY_SCOPES, SCOPE_DESCRIPTIONS } from '../domain/scopes.js';
import { apiDescription } from './v1/api-description.js';

/** The API's scopes in people's words: what the operations need, and what the Authorize dialog offers. */
const API_SCOPE_DESCRIPTIONS = Object.fromEntries(API_SCOPES.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]]));
/**
 * What a user's authorization may grant: not the first-party scopes, which only the bot's own
 * client-credentials token holds (the Authorize dialog offers no scope it would refuse).
 */
const USER_SCOPE_DESCRIPTIONS = Object.fromEntries(
  API_SCOPES.filter((scope) => !FIRST_PARTY_SCOPES.includes(scope)).map((scope) => [scope, SCOPE_DESCRIPTIONS[scope]]),
);

const DOCS_PREFIX = '/docs';
const isDocsPath = (url: string) => url === DOCS_PREFIX || url.startsWith(`${DOCS_PREFIX}/`);

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await ensureDocsClient(app.db, config.publicUrl);
  // Every route added from here on (as @fastify/swagger's own hook would see them), but for the
  // reference's: HEAD routes are Fastify's copies of GET routes, which the document leaves out.
  const routes: RouteOptions[] = [];
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD' && !isDocsPath(route.url)) routes.push(route);
  });
  let reference: Promise<FastifyInstance> | undefined;
  const loadReference = () =>
    (reference ??= buildReference(app, config, routes).catch((error: unknown) => {
      reference = undefined;
      throw error;
    }));
  app.addHook('onClose', async () => {
    const built = await reference?.catch(() => undefined);
    await built?.close();
  });

  app.get(`${DOCS_PREFIX}/static/oauth2-redirect.js`, { schema: { hide: true } }, async (_request, reply) => reply.type('application/javascript; charset=utf-8').send(DOCS_REDIRECT_JS));
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => reply.header('cache-control', 'no-cache').send((await loadReference()).swagger()));
  const forward = async (request: FastifyRequest, reply: FastifyReply) => forwardTo(await loadReference(), request, reply);
  app.get(DOCS_PREFIX, { schema: { hide: true } }, forward);
  app.get(`${DOCS_PREFIX}/*`, { schema: { hide: true } }, forward);
}

/** The document and Swagger UI, on an instance of their own, with the service's routes. */
async function buildReference(app: FastifyInstance, config: Config, routes: readonly RouteOptions[]): Promise<FastifyInstance> {
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([import('@fastify/swagger'), import('@fastify/swagger-ui')]);
  const reference = Fastify({ loggerInstance: app.log.child({ component: 'docs' }), logController: new LogController({ disableRequestLogging: true }) });
  // The routes are there to be described, never called: their schemas need no compiling.
  reference.setValidatorCompiler(() => () => true);
  reference.setSerializerCompiler(() => (data) => JSON.stringify(data));
  const url = (path: string) => `${config.publicUrl}${path}`;
  await reference.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: `${config.instanceName} API`, version: '1.0.0', description: apiDescription(config.publicUrl) },
      servers: [{ url: config.publicUrl }],
      tags: [
        { name: 'System', description: 'The system: one Discord user’s profile record.' },
        { name: 'Alters', description: 'The members of a system.' },
        { name: 'Tags', description: 'Named sets of a system’s alters (PluralKit’s groups).' },
        { name: 'Profile fields', description: 'A system’s own custom profile fields (a name, a kind, who may see it, an order); alters hold their values in `profileFields`.' },
        { name: 'Front', description: 'Who is fronting, as pushed by integrations.' },
        { name: 'Autoproxy', description: 'Which alter speaks for untagged messages, per scope.' },
        { name: 'Proxying', description: 'What the bot reads and records when it re-sends messages as alters; message info.' },
        { name: 'Servers', description: 'Discord servers’ settings for the bot (the bot’s own client only).' },
        { name: 'Apps', description: 'The apps (OAuth clients) your account authorized, and revoking one (scope `apps:manage`).' },
        { name: 'Events', description: 'Webhook endpoints of your app (client-credentials token): events pushed for the users who authorized it.' },
      ],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description:
              'OAuth 2.1: authorization code with PKCE (S256), refresh tokens with offline_access, device authorization, client credentials. ' +
              'Besides the API scopes listed here, clients may ask for the OpenID Connect scopes openid, profile and offline_access (a refresh token). ' +
              `On this page, Authorize with the authorization code flow: the client id \`${DOCS_CLIENT_ID}\` is filled in, no secret is needed; ` +
              'tick the scopes to grant, sign in and approve. The token lasts an hour and is kept only in this tab.',
            flows: {
              authorizationCode: {
                authorizationUrl: url(OAUTH_ROUTES.authorization),
                tokenUrl: url(OAUTH_ROUTES.token),
                refreshUrl: url(OAUTH_ROUTES.token),
                scopes: USER_SCOPE_DESCRIPTIONS,
              },
              clientCredentials: { tokenUrl: url(OAUTH_ROUTES.token), scopes: API_SCOPE_DESCRIPTIONS },
            },
          },
        },
      },
    },
    hideUntagged: true,
    transform: jsonSchemaTransform,
    transformObject: (input) => fileUploadBodies(bodiesWithoutRequiredFieldsAreOptional(jsonSchemaTransformObject(input))),
  });
  await reference.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: true,
    // Swagger UI's own policy allows remote fonts and styles and upgrades to https (which breaks
    // plain-http self-hosting); this one keeps it to this origin.
    transformStaticCSP: () =>
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'",
    uiConfig: { deepLinking: true, tryItOutEnabled: false, layout: 'BaseLayout' },
    initOAuth: { clientId: DOCS_CLIENT_ID, usePkceWithAuthorizationCodeGrant: true, appName: `${config.instanceName} API reference` },
    // Used only by the standalone layout's top bar, which is not shown; ours rather than the framework's.
    logo: { type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) },
    theme: {
      // Written into the page's <title> as it is: the operator's text must not become markup.
      title: escapeHtml(`${config.instanceName} API reference`),
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON_SVG }],
      css: [{ filename: 'theme.css', content: DOCS_THEME_CSS }],
      js: [{ filename: 'theme.js', content: DOCS_THEME_JS }],
    },
  });
  // Described, never called: a request the reference is handed is always for /docs (forwardTo).
  for (const route of routes) {
    reference.route({
      method: route.method,
      url: route.url,
      ...(route.schema ? { schema: route.schema } : {}),
      ...(route.config ? { config: route.config } : {}),
      handler: (_request, reply) => reply.callNotFound(),
    });
  }
  await reference.ready();
  return reference;
}

/** Headers of one hop: the service's own connection answers with its own. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'date']);

/**
 * Whether a path has a `.` or `..` segment (also written with %2e, or between backslashes), which
 * injecting would resolve away: `/docs/../v1/...` must not reach the reference as `/v1/...`.
 */
function hasDotSegment(url: string): boolean {
  const path = url.split('?')[0] ?? url;
  return path.split(/[/\\]/).some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment));
}

/**
 * Answers a /docs request with the reference's answer to the same request. A path with dot
 * segments is not found, as the service answers any path it has no route for (with the plugins
 * registered on the service, @fastify/static answered those under /docs/static/ with 403).
 */
async function forwardTo(reference: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  if (hasDotSegment(request.url)) {
    reply.callNotFound();
    return reply;
  }
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
  const response = await reference.inject({ method: request.method === 'HEAD' ? 'HEAD' : 'GET', url: request.url, headers: headers as Record<string, string> });
  reply.code(response.statusCode);
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) reply.header(name, value);
  if (request.method === 'HEAD') {
    // Fastify answers HEAD on a GET route with the headers of the body the route sends, and
    // without the body: given one of the length the reference announced, it says that length.
    const length = Number(response.headers['content-length'] ?? 0);
    return reply.send(length > 0 ? Buffer.alloc(length) : undefined);
  }
  return reply.send(response.rawPayload.length > 0 ? response.rawPayload : undefined);
}

/**
 * Room above the document's title once the top bar is gone; the page background in dark mode; in
 * the Authorize dialog, no "grant to Swagger UI" (the scheme's description says what to do) and
 * no secret field for the PKCE flow (the docs client has none).
 */
const DOCS_THEME_CSS = `
.swagger-ui .information-container .info { margin-top: 1.5rem; }
html.dark-mode body { background: #1b1b1b; }
.swagger-ui .scope-def p:last-child { display: none; }
.swagger-ui label[for="client_secret_authorizationCode"], .swagger-ui #client_secret_authorizationCode { display: none; }
`;

/**
 * Swagger UI styles dark mode under html.dark-mode, which only its top bar's switch sets; without
 * the top bar, the browser's preference decides. Also: the viewport for narrow screens, and the
 * receiving end of the redirect page's channel. A static file, so the CSP needs no inline script.
 */
/**
 * Hands the authorization response to Swagger UI's waiting OAuth state (what its
 * window.swaggerUIRedirectOauth2 holds): the code, after checking the state, or the error.
 */
const DELIVER_AUTHORIZATION = `function deliverAuthorization(oauth2, query) {
  var params = new URLSearchParams(query);
  var fail = function (message) { oauth2.errCb({ authId: oauth2.auth.name, source: 'auth', level: 'error', message: message }); };
  if (params.get('state') !== oauth2.state) return fail('The answer did not come from this authorization request (its state differs); start again.');
  if (params.get('error')) return fail('[' + params.get('error') + ']: ' + (params.get('error_description') || 'the authorization was refused'));
  if (!params.get('code')) return fail('No authorization code came back; start again.');
  delete oauth2.state;
  oauth2.auth.code = params.get('code');
  oauth2.callback({ auth: oauth2.auth, redirectUrl: oauth2.redirectUrl });
}`;

/** The channel the redirect page uses when it has lost its opener (see DOCS_REDIRECT_JS). */
const DOCS_CHANNEL = 'switchboard-docs-oauth2';

/**
 * The redirect page's script, in place of Swagger UI's, which hands the code to window.opener
 * only. Signing in through Discord takes the window to another site and back, and since our
 * pages are Cross-Origin-Opener-Policy: same-origin, the window then has no opener any more; the
 * code goes to the /docs tab over a BroadcastChannel instead (same origin only). The tab checks
 * the state, so another tab's stale answer is refused.
 */
const DOCS_REDIRECT_JS = `(function () {
  ${DELIVER_AUTHORIZATION}
  var waiting = window.opener && window.opener.swaggerUIRedirectOauth2;
  if (waiting) deliverAuthorization(waiting, window.location.search);
  else new BroadcastChannel('${DOCS_CHANNEL}').postMessage(window.location.search);
  document.body.textContent = 'Signed in. You can close this window and return to the API reference.';
  window.close();
})();
`;

const DOCS_THEME_JS = `(function () {
  ${DELIVER_AUTHORIZATION}
  new BroadcastChannel('${DOCS_CHANNEL}').onmessage = function (event) {
    if (window.swaggerUIRedirectOauth2 && typeof event.data === 'string') deliverAuthorization(window.swaggerUIRedirectOauth2, event.data);
  };
  // The page Swagger UI ships has no viewport declaration, so phones would render it shrunk.
  var viewport = document.createElement('meta');
  viewport.name = 'viewport';
  viewport.content = 'width=device-width, initial-scale=1';
  document.head.appendChild(viewport);
  var query = window.matchMedia('(prefers-color-scheme: dark)');
  function apply() { document.documentElement.classList.toggle('dark-mode', query.matches); }
  apply();
  query.addEventListener('change', apply);
})();
`;

type OpenApiDocument = ReturnType<typeof jsonSchemaTransformObject>;

/** Operations whose body is a file (multipart/form-data), which their zod schemas (JSON) cannot state: path → part. */
const FILE_UPLOADS: Record<string, string> = { '/v1/users/{user}/images': IMAGE_UPLOAD_PART };

function fileUploadBodies(document: OpenApiDocument): OpenApiDocument {
  const paths = (document as { paths?: Record<string, Record<string, { requestBody?: unknown }>> }).paths ?? {};
  for (const [path, part] of Object.entries(FILE_UPLOADS)) {
    const operation = paths[path]?.post;
    if (!operation) continue;
    operation.requestBody = {
      required: true,
      content: { 'multipart/form-data': { schema: { type: 'object', required: [part], properties: { [part]: { type: 'string', format: 'binary' } } } } },
    };
  }
  return document;
}

/**
 * @fastify/swagger marks every request body as required, but the API accepts no body at all where
 * every field is optional (the edit endpoints: "default empty object"), so the document says so.
 */
function bodiesWithoutRequiredFieldsAreOptional(document: OpenApiDocument): OpenApiDocument {
  const paths =
    (
      document as {
        paths?: Record<string, Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: { required?: unknown[] } }> } }>>;
      }
    ).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody;
      if (!body?.content) continue;
      const schemas = Object.values(body.content).map((media) => media.schema);
      if (schemas.every((schema) => schema && (schema.required ?? []).length === 0)) body.required = false;
    }
  }
  return document;
}
