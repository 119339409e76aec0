// The dashboard under /dashboard: its pages (one index.html, the Svelte app in dashboard/), its
// hashed assets, and its backend for the frontend:
// - /dashboard/login starts a sign-in through this service's own authorization server as the
//   first-party confidential client `switchboard-dashboard` (authorization code + PKCE S256, a
//   state bound to a short-lived cookie), /dashboard/callback exchanges the code on the server;
// - the browser gets only a session cookie (HttpOnly, SameSite=Lax; `__Host-` and Secure when
//   PUBLIC_URL is https); the tokens stay sealed in the database (sessions.ts);
// - /dashboard/api/v1/* forwards to /v1/* with the session's access token, refreshed when due
//   (an import's file up to the endpoint's 32 MiB, read only for a live session);
// - every state change (any method but GET and HEAD) must be same-origin by Fetch Metadata and
//   Origin and carry the session's CSRF token (x-csrf-token);
// - sign-out deletes the session (a copied cookie stops working), revokes the dashboard's grant
//   (its tokens) and ends the service's sign-in and the authorization server's session.
// The /v1 calls and the token endpoint are reached in-process (Fastify's inject): the same
// routes, checks and rate limits as over the network, without depending on PUBLIC_URL being
// reachable from the server itself.
import { Readable } from 'node:stream';
import { errorCodes, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { BrowserSession } from '../auth/browser-session.js';
import { DASHBOARD_CLIENT_ID, DASHBOARD_REDIRECT_PATH, DASHBOARD_SCOPES } from '../auth/clients.js';
import { errorPage } from '../auth/pages/pages.js';
import { OAUTH_ROUTES } from '../auth/provider.js';
import { MAX_UPLOAD_BYTES } from '../domain/images.js';
import { MAX_IMPORT_BYTES } from '../domain/import/model.js';
import { Problem } from '../domain/problems.js';
import { DASHBOARD_CSP } from '../http/security-headers.js';
import { sendProblem } from '../http/v1/problem-responses.js';
import type { DashboardAssets } from './assets.js';
import { pkceChallenge, type DashboardSessions, type LoadedSession, type Tokens } from './sessions.js';

export const DASHBOARD_PREFIX = '/dashboard';
/** Refresh an access token this long before it expires, so a forwarded call never carries a dying one. */
const REFRESH_MARGIN_MS = 60_000;
/** Response headers of /v1 the dashboard's calls see. */
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'etag', 'cache-control', 'retry-after', 'location', 'content-disposition'];
const FORWARDED_REQUEST_HEADERS = ['content-type', 'accept', 'if-none-match', 'if-match', 'idempotency-key'];
/** An image upload (multipart: the file and its part's headers) as large as /v1 takes one. */
const UPLOAD_BODY_LIMIT = MAX_UPLOAD_BYTES + 64 * 1024;

const isMultipart = (request: FastifyRequest) => (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'multipart/form-data';

export interface DashboardDependencies {
  config: Config;
  /** The whole service, to reach the token endpoint and /v1 in-process. */
  service: FastifyInstance;
  sessions: DashboardSessions;
  browserSession: BrowserSession;
  assets: DashboardAssets;
  clientSecret: string;
}

/** The dashboard's cookie names: `__Host-` (Secure, path /, no Domain) when served over https. */
export function dashboardCookieNames(secure: boolean) {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}switchboard_dashboard`, signIn: `${prefix}switchboard_dashboard_signin` };
}

/**
 * A same-origin path of the dashboard to return to after sign-in, or the Overview: never another
 * origin (`//evil`, `/\evil`, an absolute URL), never a path outside /dashboard.
 */
export function safeReturnPath(raw: unknown, publicUrl: string): string {
  const fallback = `${DASHBOARD_PREFIX}/`;
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//') || /[\\\p{Cc}]/u.test(raw) || raw.length > 1000) return fallback;
  let url: URL;
  try {
    url = new URL(raw, publicUrl);
  } catch {
    return fallback;
  }
  if (url.origin !== new URL(publicUrl).origin) return fallback;
  if (url.pathname !== DASHBOARD_PREFIX && !url.pathname.startsWith(`${DASHBOARD_PREFIX}/`)) return fallback;
  if (url.pathname.startsWith(`${DASHBOARD_PREFIX}/api/`) || url.pathname === `${DASHBOARD_PREFIX}/login` || url.pathname === DASHBOARD_REDIRECT_PATH) return fallback;
  return `${url.pathname}${url.search}`;
}

export async function dashboardRoutes(app: FastifyInstance, deps: DashboardDependencies): Promise<void> {
  const { config, service, sessions, browserSession, assets, clientSecret } = deps;
  const secure = config.publicUrl.startsWith('https:');
  const cookies = dashboardCookieNames(secure);
  const cookieBase = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure };
  const origin = new URL(config.publicUrl).origin;
  const redirectUri = `${config.publicUrl}${DASHBOARD_REDIRECT_PATH}`;
  const basicAuth = `Basic ${Buffer.from(`${encodeURIComponent(DASHBOARD_CLIENT_ID)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
  /** Refreshes under way, one per session in this process (across processes, sessions.refreshOnce takes a lease). */
  const refreshing = new Map<string, Promise<Tokens | undefined>>();

  // Request bodies reach /v1 as they came: /v1 validates them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  // Image uploads (POST /v1/users/{user}/images) are larger than the service's JSON limit; they are
  // read only once the session and its CSRF token passed (the onRequest hook below), so no one
  // else can make the server hold megabytes.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer', bodyLimit: UPLOAD_BODY_LIMIT }, (_request, body, done) => done(null, body));

  const page = (reply: FastifyReply, status: number, title: string, message: string) =>
    reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(errorPage(title, message, undefined, { instanceName: config.instanceName }));

  async function tokenRequest(form: Record<string, string>, remoteAddress: string): Promise<{ ok: true; tokens: Tokens } | { ok: false; error: string }> {
    const response = await service.inject({
      method: 'POST',
      url: OAUTH_ROUTES.token,
      remoteAddress,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth },
      payload: new URLSearchParams(form).toString(),
    });
    const body = response.json<{ access_token?: string; refresh_token?: string; expires_in?: number; error?: string; error_description?: string }>();
    if (response.statusCode !== 200 || typeof body.access_token !== 'string') return { ok: false, error: body.error_description ?? body.error ?? `status ${response.statusCode}` };
    return {
      ok: true,
      tokens: { kind: 'session', accessToken: body.access_token, accessExpiresAt: Date.now() + (body.expires_in ?? 60) * 1000, refreshToken: body.refresh_token },
    };
  }

  async function currentSession(request: FastifyRequest): Promise<LoadedSession | undefined> {
    const id = request.cookies[cookies.session];
    return id ? sessions.load(id) : undefined;
  }

  /** The session's access token, refreshed when due; undefined when it cannot be (signed out, revoked). */
  async function accessToken(session: LoadedSession, remoteAddress: string): Promise<string | undefined> {
    if (session.tokens.accessExpiresAt - REFRESH_MARGIN_MS > Date.now()) return session.tokens.accessToken;
    if (!session.tokens.refreshToken) return undefined;
    let refresh = refreshing.get(session.idHash);
    if (!refresh) {
      refresh = sessions
        .refreshOnce(session, async (token) => {
          const result = await tokenRequest({ grant_type: 'refresh_token', refresh_token: token }, remoteAddress);
          return result.ok ? result.tokens : undefined;
        })
        .finally(() => refreshing.delete(session.idHash));
      refreshing.set(session.idHash, refresh);
    }
    return (await refresh)?.accessToken;
  }

  /**
   * Refuses a state change that is not plainly from the dashboard's own pages: another site by
   * Fetch Metadata (browsers send Sec-Fetch-Site on every request) or by Origin, or without the
   * session's CSRF token.
   */
  function crossSiteRefusal(request: FastifyRequest, session: LoadedSession): string | undefined {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') return `refused: a ${String(site)} request cannot change anything here`;
    const from = request.headers.origin;
    if (from !== undefined && from !== origin) return 'refused: the request came from another origin';
    if (!sessions.verifyCsrf(session.id, request.headers['x-csrf-token'])) return 'refused: the CSRF token is missing or not this session’s';
    return undefined;
  }

  const signedOut = (reply: FastifyReply) =>
    sendProblem(reply.header('cache-control', 'no-store'), new Problem('invalid-auth', 'the dashboard session ended; sign in again'));

  // A multipart body is refused before it is read unless it is a signed-in member's same-origin
  // write (the forwarding route checks every request again, multipart or not).
  app.addHook('onRequest', async (request, reply) => {
    if (!isMultipart(request)) return;
    const session = await currentSession(request);
    if (!session) return signedOut(reply);
    const refused = crossSiteRefusal(request, session);
    if (refused) return sendProblem(reply, new Problem('cross-site-request', refused));
  });

  app.get(DASHBOARD_PREFIX, async (_request, reply) => reply.redirect(`${DASHBOARD_PREFIX}/`, 308));

  app.get<{ Querystring: { return?: unknown } }>(`${DASHBOARD_PREFIX}/login`, async (request, reply) => {
    const returnTo = safeReturnPath(request.query.return, config.publicUrl);
    const { id, pending } = await sessions.startSignIn(returnTo);
    const query = new URLSearchParams({
      client_id: DASHBOARD_CLIENT_ID,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: DASHBOARD_SCOPES.join(' '),
      state: pending.state,
      code_challenge: pkceChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return reply
      .header('cache-control', 'no-store')
      .setCookie(cookies.signIn, id, { ...cookieBase, maxAge: 15 * 60 })
      .redirect(`${OAUTH_ROUTES.authorization}?${query.toString()}`, 303);
  });

  app.get<{ Querystring: Record<string, unknown> }>(DASHBOARD_REDIRECT_PATH, async (request, reply) => {
    const signInId = request.cookies[cookies.signIn];
    reply.clearCookie(cookies.signIn, cookieBase);
    const pending = signInId ? await sessions.takeSignIn(signInId) : undefined;
    const { code, state, error } = request.query;
    if (!pending || typeof state !== 'string' || state !== pending.state) {
      return page(reply, 400, 'Sign-in expired', 'This sign-in was not started in this browser, or it expired. Open the dashboard again.');
    }
    if (typeof error === 'string' || typeof code !== 'string') {
      return page(reply, 400, 'Not signed in', 'The sign-in did not complete. Open the dashboard to try again.');
    }
    const result = await tokenRequest({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: pending.verifier }, request.ip);
    if (!result.ok) return page(reply, 400, 'Not signed in', 'The sign-in could not be completed. Open the dashboard to try again.');
    const token = await service.provider.AccessToken.find(result.tokens.accessToken);
    if (!token?.accountId) return page(reply, 400, 'Not signed in', 'The sign-in could not be completed. Open the dashboard to try again.');
    const id = await sessions.create(token.accountId, result.tokens);
    return reply
      .header('cache-control', 'no-store')
      .setCookie(cookies.session, id, { ...cookieBase, maxAge: config.ttl.session })
      .redirect(pending.returnTo, 303);
  });

  app.get(`${DASHBOARD_PREFIX}/assets/:name`, async (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const file = await assets.asset(request.params.name, request.headers['accept-encoding']);
    if (!file) return reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('not found');
    if (file.encoding) reply.header('content-encoding', file.encoding);
    // Names carry a hash of their content: a new build is new names.
    return reply.header('cache-control', 'public, max-age=31536000, immutable').header('vary', 'accept-encoding').type(file.type).send(file.body);
  });

  app.get(`${DASHBOARD_PREFIX}/api/session`, async (request, reply) => {
    const session = await currentSession(request);
    if (!session) return signedOut(reply);
    return reply.header('cache-control', 'no-store').send({ userId: session.userId, csrfToken: sessions.csrfToken(session.id) });
  });

  app.post(`${DASHBOARD_PREFIX}/api/sign-out`, async (request, reply) => {
    const session = await currentSession(request);
    if (!session) return signedOut(reply);
    const refused = crossSiteRefusal(request, session);
    if (refused) return sendProblem(reply, new Problem('cross-site-request', refused));
    await sessions.end(session.id);
    // Revoking the refresh token revokes the grant, and with it every token of this sign-in.
    for (const token of [session.tokens.refreshToken, session.tokens.accessToken]) {
      if (token === undefined) continue;
      await service.inject({
        method: 'POST',
        url: OAUTH_ROUTES.revocation,
        remoteAddress: request.ip,
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth },
        payload: new URLSearchParams({ token }).toString(),
      });
    }
    await browserSession.signOut(request, reply);
    reply.clearCookie(cookies.session, cookieBase);
    return reply.code(204).header('cache-control', 'no-store').send();
  });

  async function forward(request: FastifyRequest, reply: FastifyReply) {
    const session = await currentSession(request);
    if (!session) return signedOut(reply);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const refused = crossSiteRefusal(request, session);
      if (refused) return sendProblem(reply, new Problem('cross-site-request', refused));
    }
    const token = await accessToken(session, request.ip);
    if (!token) return signedOut(reply);
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const response = await service.inject({
      // The member's address, for /v1's per-IP rate limit (else every member would share one).
      remoteAddress: request.ip,
      method: request.method as 'GET',
      // `/dashboard/api/v1/…?…` is `/v1/…?…`.
      url: request.url.slice(`${DASHBOARD_PREFIX}/api`.length),
      headers,
      ...(Buffer.isBuffer(request.body) || request.body instanceof Readable ? { payload: request.body } : {}),
    });
    // A streamed body the service refused part-way is not read further: the connection goes.
    if (request.body instanceof Readable && !request.body.readableEnded) reply.header('connection', 'close');
    reply.code(response.statusCode);
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = response.headers[name];
      if (value !== undefined) reply.header(name, value);
    }
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return reply.send(response.rawPayload);
  }

  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url: `${DASHBOARD_PREFIX}/api/v1/*`, handler: forward });

  // An import's file may be as large as /v1 takes (32 MiB), far over the service's default body
  // limit; so large a body is read only for a live session's same-origin write with its CSRF
  // token (checked before the body is, as for an image upload). It is not held here: the request
  // stream is the injected request's body, which /v1 streams into its import worker as it comes
  // (and refuses with 413 as soon as it passes the cap).
  await app.register(async (imports) => {
    imports.removeAllContentTypeParsers();
    imports.addContentTypeParser('*', (request, payload, done) => {
      if (Number(request.headers['content-length']) > MAX_IMPORT_BYTES) done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), undefined);
      else done(null, payload);
    });
    imports.post(`${DASHBOARD_PREFIX}/api/v1/users/:user/system/import`, {
      async onRequest(request, reply) {
        const session = await currentSession(request);
        if (!session) return signedOut(reply);
        const refused = crossSiteRefusal(request, session);
        if (refused) return sendProblem(reply, new Problem('cross-site-request', refused));
      },
      errorHandler(error: FastifyError, _request, reply) {
        if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendProblem(reply, new Problem('body-too-large', `the file is larger than ${MAX_IMPORT_BYTES / (1024 * 1024)} MiB, the most an import takes`));
        throw error;
      },
      handler: forward,
    });
  });

  // Every other path under /dashboard/ is a page of the app: its one document for a signed-in
  // member, the sign-in for anyone else (coming back to the page asked for).
  app.get(`${DASHBOARD_PREFIX}/*`, async (request, reply) => {
    if (request.url.startsWith(`${DASHBOARD_PREFIX}/api/`)) return sendProblem(reply, new Problem('not-found', 'no such dashboard endpoint'));
    const session = await currentSession(request);
    if (!session) return reply.header('cache-control', 'no-store').redirect(`${DASHBOARD_PREFIX}/login?return=${encodeURIComponent(request.url)}`, 303);
    const html = assets.indexHtml();
    if (html === undefined) return page(reply, 503, 'Dashboard not built', 'The dashboard has not been built on this installation: run npm run build.');
    return reply.header('cache-control', 'no-store').header('content-security-policy', DASHBOARD_CSP).type('text/html; charset=utf-8').send(html);
  });
}
