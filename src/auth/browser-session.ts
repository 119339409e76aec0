// The browser side of signing in: a signed cookie naming the signed-in Discord user (set by every
// sign-in method, read by the authorization step and the account pages), and CSRF tokens for the
// forms, bound to a per-browser random cookie and to the form's purpose.
//
// That cookie is the one truth about who this browser is. The authorization server (oidc-provider)
// keeps a session of its own; it must never name anyone else, nor outlive the cookie: signing out
// ends both, a sign-in as someone else ends the provider's, and before every front-channel request
// of the provider (authorization, device verification) a provider session that does not belong to
// the cookie's user (or outlived it) is ended. Both last SESSION_TTL from the sign-in.
import { createHmac, randomBytes } from 'node:crypto';
import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { constantTimeEqual } from '../security/crypto.js';

export const USER_COOKIE = 'switchboard_user';
const CSRF_COOKIE = 'switchboard_csrf';

export interface BrowserSessionOptions {
  secure: boolean;
  sessionTtlSeconds: number;
  cookieSecrets: string[];
  /** The authorization server, whose session must follow this one. */
  provider: Provider;
}

export interface BrowserSession {
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

  /** The cookie's user and sign-in time, while it is valid and unexpired. */
  function current(request: FastifyRequest): { userId: string; signedInAt: number | undefined } | undefined {
    const raw = request.cookies[USER_COOKIE];
    if (!raw) return undefined;
    const unsigned = request.unsignCookie(raw);
    if (!unsigned.valid || unsigned.value === null) return undefined;
    const [userId, expires, signedInAt] = unsigned.value.split(':');
    if (!userId || !expires || Number(expires) <= Date.now()) return undefined;
    return { userId, signedInAt: signedInAt ? Number(signedInAt) : undefined };
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
    await Promise.all([provider.AccessToken, provider.AuthorizationCode, provider.RefreshToken, provider.DeviceCode].map((model) => model.revokeByGrantId(grantId)));
    const grant = await provider.Grant.find(grantId);
    await grant?.destroy();
  }

  return {
    signedInUser(request) {
      return current(request)?.userId;
    },
    signedInAt(request) {
      return current(request)?.signedInAt;
    },
    async signIn(request, reply, userId) {
      await endProviderSession(request, (accountId) => accountId === undefined || accountId === userId);
      const now = Date.now();
      const expires = now + options.sessionTtlSeconds * 1000;
      reply.setCookie(USER_COOKIE, `${userId}:${expires}:${now}`, { ...base, signed: true, maxAge: options.sessionTtlSeconds });
    },
    async signOut(request, reply) {
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
