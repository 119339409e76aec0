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
  // Links in use are remembered so a command does not read the store for every API call. Safe
  // with other processes sharing the store: a refresh always re-reads the store first, and an
  // access token another process replaced keeps working until it expires.
  const remembered = new Map<string, StoredLink>();
  const MAX_REMEMBERED = 10_000;
  // Users known not to be linked: most authors in a server are not systems, and their messages must
  // cost no store read. Linking and unlinking here update it at once; a link made through another
  // bot process (shards) is noticed when the entry expires.
  const unlinked = new Map<string, number>();
  const MAX_UNLINKED = 200_000;
  const UNLINKED_TTL_MS = 60_000;

  function knownUnlinked(userId: string): boolean {
    const until = unlinked.get(userId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    unlinked.delete(userId);
    return false;
  }

  function rememberUnlinked(userId: string): void {
    if (unlinked.size >= MAX_UNLINKED) unlinked.delete(unlinked.keys().next().value as string);
    unlinked.set(userId, Date.now() + UNLINKED_TTL_MS);
  }

  async function load(userId: string): Promise<StoredLink | undefined> {
    const known = remembered.get(userId);
    if (known) return known;
    const link = await store.get(userId);
    if (link) remember(userId, link);
    return link;
  }

  function remember(userId: string, link: StoredLink): void {
    if (remembered.size >= MAX_REMEMBERED && !remembered.has(userId)) remembered.delete(remembered.keys().next().value as string);
    remembered.set(userId, link);
  }

  async function save(userId: string, link: StoredLink): Promise<void> {
    await store.set(userId, link);
    unlinked.delete(userId);
    remember(userId, link);
  }

  async function forget(userId: string): Promise<void> {
    remembered.delete(userId);
    await store.delete(userId);
    rememberUnlinked(userId);
  }

  async function refresh(userId: string, stale: StoredLink): Promise<StoredLink> {
    const running = refreshing.get(userId);
    if (running) return running;
    const attempt = (async () => {
      // Another caller may have refreshed while this one waited for the store.
      const current = await store.get(userId);
      if (current && current.accessToken !== stale.accessToken) {
        remember(userId, current);
        return current;
      }
      if (!current?.refreshToken) {
        await forget(userId);
        throw new NotLinkedError('expired');
      }
      try {
        const tokens = await api.refresh(current.refreshToken);
        const next: StoredLink = { ...tokens, refreshToken: tokens.refreshToken ?? current.refreshToken, linkedAt: current.linkedAt };
        await save(userId, next);
        return next;
      } catch (error) {
        if (error instanceof ApiError && error.kind === 'oauth') {
          await forget(userId);
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
    const link = await load(userId);
    if (!link) throw new NotLinkedError('never');
    return link.expiresAt - Date.now() < REFRESH_MARGIN_MS ? refresh(userId, link) : link;
  }

  return {
    isLinked: async (userId: string) => {
      if (knownUnlinked(userId)) return false;
      const linked = (await load(userId)) !== undefined;
      if (!linked) rememberUnlinked(userId);
      return linked;
    },

    /** True when the user is known not to be linked, answered from memory (no store read). */
    knownUnlinked,

    save,

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
            await forget(userId);
            throw new NotLinkedError('expired');
          }
          throw again;
        }
      }
    },

    /** Revokes the tokens at the service (best effort) and forgets them. */
    async unlink(userId: string): Promise<boolean> {
      const link = await store.get(userId);
      if (!link) {
        remembered.delete(userId);
        rememberUnlinked(userId);
        return false;
      }
      if (link.refreshToken) await api.revoke(link.refreshToken, 'refresh_token').catch(() => undefined);
      await api.revoke(link.accessToken, 'access_token').catch(() => undefined);
      await forget(userId);
      return true;
    },
  };
}

export type LinkedAccounts = ReturnType<typeof createLinkedAccounts>;
