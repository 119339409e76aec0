// The browser side of signing in: a signed cookie naming the signed-in Discord user (set by every
// sign-in method, read by the authorization step and the account pages), and CSRF tokens for the
// forms, bound to a per-browser random cookie and to the form's purpose.
import { createHmac, randomBytes } from 'node:crypto';
import '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../security/crypto.js';

export const USER_COOKIE = 'switchboard_user';
const CSRF_COOKIE = 'switchboard_csrf';

export interface BrowserSessionOptions {
  secure: boolean;
  sessionTtlSeconds: number;
  cookieSecrets: string[];
}

export interface BrowserSession {
  signedInUser(request: FastifyRequest): string | undefined;
  signIn(reply: FastifyReply, userId: string): void;
  signOut(reply: FastifyReply): void;
  /** A CSRF token for a form with this purpose; sets the browser's CSRF cookie when missing. */
  csrfToken(request: FastifyRequest, reply: FastifyReply, purpose: string): string;
  verifyCsrf(request: FastifyRequest, purpose: string, token: unknown): boolean;
}

export function createBrowserSession(options: BrowserSessionOptions): BrowserSession {
  const base = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: options.secure };
  const mac = (secret: string, browserSecret: string, purpose: string) =>
    createHmac('sha256', secret).update(`csrf\0${browserSecret}\0${purpose}`).digest('base64url');

  return {
    signedInUser(request) {
      const raw = request.cookies[USER_COOKIE];
      if (!raw) return undefined;
      const unsigned = request.unsignCookie(raw);
      if (!unsigned.valid || unsigned.value === null) return undefined;
      const [userId, expires] = unsigned.value.split(':');
      if (!userId || !expires || Number(expires) <= Date.now()) return undefined;
      return userId;
    },
    signIn(reply, userId) {
      const expires = Date.now() + options.sessionTtlSeconds * 1000;
      reply.setCookie(USER_COOKIE, `${userId}:${expires}`, { ...base, signed: true, maxAge: options.sessionTtlSeconds });
    },
    signOut(reply) {
      reply.clearCookie(USER_COOKIE, base);
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
