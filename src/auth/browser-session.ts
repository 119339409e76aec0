// The browser side of signing in: a signed cookie naming a sign-in held on the server (the
// browser_sessions table: user, sign-in time, end), set by every sign-in method and read by the
// authorization step and the account pages, and CSRF tokens for the forms, bound to a per-browser
// random cookie and to the form's purpose. Signing out deletes the row, so a copy of the cookie
// taken before is worthless afterwards.
//
// That cookie is the one truth about who this browser is. The authorization server (oidc-provider)
// keeps a session of its own; it must never name anyone else, nor outlive the cookie: signing out
// ends both, a sign-in as someone else ends the provider's, and before every front-channel request
// of the provider (authorization, device verification) a provider session that does not belong to
// the cookie's user (or outlived it) is ended. Both last SESSION_TTL from the sign-in.
import { createHmac, randomBytes } from 'node:crypto';
import '@fastify/cookie';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import { deleteBrowserSession, findBrowserSession, insertBrowserSession } from '../db/repositories/browser-sessions.js';
import type { Schema } from '../db/tables.js';
import { constantTimeEqual, type StorageCrypto } from '../security/crypto.js';

export const USER_COOKIE = 'switchboard_user';
const CSRF_COOKIE = 'switchboard_csrf';

export interface BrowserSessionOptions {
  secure: boolean;
  sessionTtlSeconds: number;
  cookieSecrets: string[];
  /** The authorization server, whose session must follow this one. */
  provider: Provider;
  db: Kysely<Schema>;
  crypto: StorageCrypto;
}

export interface BrowserSession {
  /**
   * An onRequest hook (after the cookie plugin's) that looks the cookie's sign-in up, so the
   * synchronous reads below see whether it still lives.
   */
  load: onRequestHookHandler;
  signedInUser(request: FastifyRequest): string | undefined;
  /** When the signed-in user signed in (ms since the epoch); undefined for older cookies. */
  signedInAt(request: FastifyRequest): number | undefined;
  /** Signs `userId` in; ends the authorization server's session when it is someone else's. */
  signIn(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<void>;
  /** Signs out of this service and ends the authorization server's session. */
  signOut(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * Ends the authorization server's session of this browser when it names anyone but the
   * signed-in user (or anyone at all, when nobody is signed in). Runs before the provider sees a
   * front-channel request, so it never acts on a stale or foreign session.
   */
  alignProviderSession(request: FastifyRequest): Promise<void>;
  /** A CSRF token for a form with this purpose; sets the browser's CSRF cookie when missing. */
  csrfToken(request: FastifyRequest, reply: FastifyReply, purpose: string): string;
  verifyCsrf(request: FastifyRequest, purpose: string, token: unknown): boolean;
}

export function createBrowserSession(options: BrowserSessionOptions): BrowserSession {
  const base = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: options.secure };
  const mac = (secret: string, browserSecret: string, purpose: string) =>
    createHmac('sha256', secret).update(`csrf\0${browserSecret}\0${purpose}`).digest('base64url');

  const { provider } = options;
  const providerCookie = provider.cookieName('session');

  const loaded = new WeakMap<FastifyRequest, { idHash: string; userId: string; signedInAt: number }>();
  const hashOf = (id: string) => options.crypto.lookupHash('browser-session', id);

  /** The id in a validly signed cookie. */
  function cookieId(request: FastifyRequest): string | undefined {
    const raw = request.cookies[USER_COOKIE];
    if (!raw) return undefined;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value ? unsigned.value : undefined;
  }

  /** The cookie's user and sign-in time, while its sign-in lives on the server. */
  function current(request: FastifyRequest): { userId: string; signedInAt: number | undefined } | undefined {
    return loaded.get(request);
  }

  /**
   * Ends the provider's session named by this browser's cookie unless `keep` says otherwise. The
   * cookie's signature is not checked: its value is the session's unguessable id, and ending a
   * session is the only thing done with it.
   */
  async function endProviderSession(request: FastifyRequest, keep: (accountId: string | undefined) => boolean): Promise<boolean> {
    const id = request.cookies[providerCookie];
    if (!id) return false;
    const providerSession = await provider.Session.find(id);
    if (!providerSession || keep(providerSession.accountId)) return false;
    // As the provider's own end_session: an app authorized without offline_access holds its
    // tokens for this session only, and its grant (its events too) ends with it.
    for (const { grantId, persistsLogout } of Object.values(providerSession.authorizations ?? {})) {
      if (grantId && !persistsLogout) await revokeSessionGrant(grantId);
    }
    await providerSession.destroy();
    return true;
  }

  async function revokeSessionGrant(grantId: string): Promise<void> {
    await Promise.all(
      [provider.AccessToken, provider.AuthorizationCode, provider.RefreshToken, provider.DeviceCode].map((model) => model.revokeByGrantId(grantId)),
    );
    const grant = await provider.Grant.find(grantId);
    await grant?.destroy();
  }

  return {
    load(request, _reply, done) {
      const id = cookieId(request);
      if (id === undefined) return done();
      const idHash = hashOf(id);
      findBrowserSession(options.db, idHash, Date.now()).then((found) => {
        if (found) loaded.set(request, { idHash, ...found });
        done();
      }, done);
    },
    signedInUser(request) {
      return current(request)?.userId;
    },
    signedInAt(request) {
      return current(request)?.signedInAt;
    },
    async signIn(request, reply, userId) {
      await endProviderSession(request, (accountId) => accountId === undefined || accountId === userId);
      const previous = loaded.get(request);
      if (previous) await deleteBrowserSession(options.db, previous.idHash);
      const now = Date.now();
      const id = randomBytes(32).toString('base64url');
      const session = { idHash: hashOf(id), userId, signedInAt: now };
      await insertBrowserSession(options.db, { ...session, expiresAt: now + options.sessionTtlSeconds * 1000 });
      loaded.set(request, session);
      reply.setCookie(USER_COOKIE, id, { ...base, signed: true, maxAge: options.sessionTtlSeconds });
    },
    async signOut(request, reply) {
      // Whatever the cookie names ends, even a sign-in that expired a moment ago.
      const id = cookieId(request);
      if (id !== undefined) await deleteBrowserSession(options.db, hashOf(id));
      loaded.delete(request);
      await endProviderSession(request, () => false);
      reply.clearCookie(USER_COOKIE, base);
      reply.clearCookie(providerCookie, base);
      reply.clearCookie(`${providerCookie}.sig`, base);
    },
    async alignProviderSession(request) {
      const userId = current(request)?.userId;
      await endProviderSession(request, (accountId) => accountId === undefined || accountId === userId);
    },
    csrfToken(request, reply, purpose) {
      let browserSecret = request.cookies[CSRF_COOKIE];
      if (!browserSecret || browserSecret.length < 32) {
        browserSecret = randomBytes(32).toString('base64url');
        reply.setCookie(CSRF_COOKIE, browserSecret, base);
      }
      return mac(options.cookieSecrets[0] as string, browserSecret, purpose);
    },
    verifyCsrf(request, purpose, token) {
      const browserSecret = request.cookies[CSRF_COOKIE];
      if (!browserSecret || typeof token !== 'string') return false;
      return options.cookieSecrets.some((secret) => constantTimeEqual(mac(secret, browserSecret, purpose), token));
    },
  };
}
