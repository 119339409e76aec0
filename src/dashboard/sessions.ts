// The dashboard's sessions, held by its backend for the frontend (IETF "OAuth 2.0 for
// Browser-Based Applications", the BFF pattern): the member's tokens stay here, sealed in the
// dashboard_sessions table, and the browser holds only a cookie naming the row by a random id.
// A sign-in under way is a row of its own (state, PKCE verifier, the page asked for); the session
// made from it is a new row with a new id, so a cookie planted before sign-in names nothing after.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  deleteDashboardSession,
  findDashboardSession,
  insertDashboardSession,
  releaseDashboardRefreshLease,
  takeDashboardRefreshLease,
  updateDashboardSession,
} from '../db/repositories/dashboard-sessions.js';
import type { Schema } from '../db/tables.js';
import { constantTimeEqual, type StorageCrypto } from '../security/crypto.js';

export interface PendingSignIn {
  kind: 'pending';
  state: string;
  verifier: string;
  returnTo: string;
}

export interface Tokens {
  kind: 'session';
  accessToken: string;
  /** When the access token stops working (ms since the epoch). */
  accessExpiresAt: number;
  refreshToken: string | undefined;
}

export interface LoadedSession {
  id: string;
  idHash: string;
  userId: string;
  tokens: Tokens;
  /** The row's sealed content as read: a refresh lease is taken only if nobody changed it since. */
  sealed: string;
}

/** A sign-in under way lasts this long: the member signs in with Discord meanwhile. */
const PENDING_TTL_MS = 15 * 60 * 1000;
/** How long one process may hold a session's refresh before another may take it over (the token endpoint is called in-process). */
const REFRESH_LEASE_MS = 10_000;
/** How often a process waiting for another's refresh reads the session again. */
const REFRESH_POLL_MS = 50;

export const randomId = () => randomBytes(32).toString('base64url');

/** The S256 PKCE challenge of a verifier (RFC 7636 §4.2). */
export const pkceChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export function createDashboardSessions(db: Kysely<Schema>, crypto: StorageCrypto, cookieSecrets: string[], sessionTtlSeconds: number) {
  const hashOf = (id: string) => crypto.lookupHash('dashboard-session', id);
  const csrfOf = (secret: string, id: string) => createHmac('sha256', secret).update(`dashboard-csrf\0${id}`).digest('base64url');

  return {
    async startSignIn(returnTo: string, now = Date.now()): Promise<{ id: string; pending: PendingSignIn }> {
      const id = randomId();
      const idHash = hashOf(id);
      const pending: PendingSignIn = { kind: 'pending', state: randomId(), verifier: randomId(), returnTo };
      await insertDashboardSession(db, { idHash, userId: null, sealed: crypto.seal(pending, idHash), createdAt: now, expiresAt: now + PENDING_TTL_MS });
      return { id, pending };
    },

    /** The sign-in under way named by `id`, removed: a code is exchanged once. */
    async takeSignIn(id: string, now = Date.now()): Promise<PendingSignIn | undefined> {
      const idHash = hashOf(id);
      const row = await findDashboardSession(db, idHash, now);
      if (!row) return undefined;
      await deleteDashboardSession(db, idHash);
      const pending = crypto.unseal<PendingSignIn>(row.sealed, idHash);
      return row.userId === null && pending?.kind === 'pending' ? pending : undefined;
    },

    async create(userId: string, tokens: Tokens, now = Date.now()): Promise<string> {
      const id = randomId();
      const idHash = hashOf(id);
      await insertDashboardSession(db, { idHash, userId, sealed: crypto.seal(tokens, idHash), createdAt: now, expiresAt: now + sessionTtlSeconds * 1000 });
      return id;
    },

    async load(id: string, now = Date.now()): Promise<LoadedSession | undefined> {
      const idHash = hashOf(id);
      const row = await findDashboardSession(db, idHash, now);
      if (!row || row.userId === null) return undefined;
      const tokens = crypto.unseal<Tokens>(row.sealed, idHash);
      return tokens?.kind === 'session' ? { id, idHash, userId: row.userId, tokens, sealed: row.sealed } : undefined;
    },

    /**
     * Runs `refresh` for the session in at most one process at a time (a refresh token is used
     * once; a second use would revoke the grant): the process that takes the row's lease refreshes
     * and stores the new tokens, the others wait for them. Answers the tokens to use, or undefined
     * when the session cannot go on (signed out meanwhile, refresh refused).
     */
    async refreshOnce(session: LoadedSession, refresh: (refreshToken: string) => Promise<Tokens | undefined>): Promise<Tokens | undefined> {
      let current = session;
      for (;;) {
        const now = Date.now();
        const refreshToken = current.tokens.refreshToken;
        if (!refreshToken) return undefined;
        if (await takeDashboardRefreshLease(db, current.idHash, current.sealed, now, now + REFRESH_LEASE_MS)) {
          const tokens = await refresh(refreshToken).catch(() => undefined);
          if (!tokens) {
            await releaseDashboardRefreshLease(db, current.idHash);
            return undefined;
          }
          return (await updateDashboardSession(db, current.idHash, crypto.seal(tokens, current.idHash))) ? tokens : undefined;
        }
        // Another process refreshes (or just did): wait for the tokens it stores, or for its lease
        // to lapse (it stopped mid-refresh) and try again.
        await new Promise((resolve) => setTimeout(resolve, REFRESH_POLL_MS));
        const reread = await this.load(current.id);
        if (!reread) return undefined;
        if (reread.sealed !== current.sealed) return reread.tokens;
        current = reread;
      }
    },

    async end(id: string): Promise<void> {
      await deleteDashboardSession(db, hashOf(id));
    },

    /** The CSRF token of a session: bound to its id, so it is worth nothing for any other. */
    csrfToken(id: string): string {
      return csrfOf(cookieSecrets[0] as string, id);
    },

    verifyCsrf(id: string, token: unknown): boolean {
      return typeof token === 'string' && cookieSecrets.some((secret) => constantTimeEqual(csrfOf(secret, id), token));
    },
  };
}

export type DashboardSessions = ReturnType<typeof createDashboardSessions>;
