// The tokens behind each linked Discord user: handed out fresh, refreshed shortly before expiry or
// after a 401, one refresh at a time per user (the service revokes a whole grant when a refresh
// token is redeemed twice, so parallel refreshes would end the link). A refused refresh ends the
// link; the user is asked to link again.
import { ApiError, type ApiClient } from './api-client.js';
import type { LinkStore, StoredLink } from './link-store.js';

/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 60_000;

export class NotLinkedError extends Error {
  constructor(readonly reason: 'never' | 'expired') {
    super(reason === 'never' ? 'not linked' : 'link expired');
    this.name = 'NotLinkedError';
  }
}

export function createLinkedAccounts(store: LinkStore, api: ApiClient) {
  const refreshing = new Map<string, Promise<StoredLink>>();

  async function refresh(userId: string, stale: StoredLink): Promise<StoredLink> {
    const running = refreshing.get(userId);
    if (running) return running;
    const attempt = (async () => {
      // Another caller may have refreshed while this one waited for the store.
      const current = await store.get(userId);
      if (current && current.accessToken !== stale.accessToken) return current;
      if (!current?.refreshToken) {
        await store.delete(userId);
        throw new NotLinkedError('expired');
      }
      try {
        const tokens = await api.refresh(current.refreshToken);
        const next: StoredLink = { ...tokens, refreshToken: tokens.refreshToken ?? current.refreshToken, linkedAt: current.linkedAt };
        await store.set(userId, next);
        return next;
      } catch (error) {
        if (error instanceof ApiError && error.kind === 'oauth') {
          await store.delete(userId);
          throw new NotLinkedError('expired');
        }
        throw error;
      }
    })();
    refreshing.set(userId, attempt);
    try {
      return await attempt;
    } finally {
      refreshing.delete(userId);
    }
  }

  async function current(userId: string): Promise<StoredLink> {
    const link = await store.get(userId);
    if (!link) throw new NotLinkedError('never');
    return link.expiresAt - Date.now() < REFRESH_MARGIN_MS ? refresh(userId, link) : link;
  }

  return {
    isLinked: async (userId: string) => (await store.get(userId)) !== undefined,

    async save(userId: string, link: StoredLink): Promise<void> {
      await store.set(userId, link);
    },

    /** Runs `call` with a valid access token; after a 401 refreshes once and tries again. */
    async withToken<T>(userId: string, call: (accessToken: string) => Promise<T>): Promise<T> {
      const link = await current(userId);
      try {
        return await call(link.accessToken);
      } catch (error) {
        if (!(error instanceof ApiError && error.kind === 'unauthorized')) throw error;
        const renewed = await refresh(userId, link);
        try {
          return await call(renewed.accessToken);
        } catch (again) {
          if (again instanceof ApiError && again.kind === 'unauthorized') {
            await store.delete(userId);
            throw new NotLinkedError('expired');
          }
          throw again;
        }
      }
    },

    /** Revokes the tokens at the service (best effort) and forgets them. */
    async unlink(userId: string): Promise<boolean> {
      const link = await store.get(userId);
      if (!link) return false;
      if (link.refreshToken) await api.revoke(link.refreshToken, 'refresh_token').catch(() => undefined);
      await api.revoke(link.accessToken, 'access_token').catch(() => undefined);
      await store.delete(userId);
      return true;
    },
  };
}

export type LinkedAccounts = ReturnType<typeof createLinkedAccounts>;
