// The tokens behind each linked Discord user: handed out fresh, refreshed shortly before expiry or
// after a 401, one refresh at a time per user in every process sharing the store (the service
// revokes a whole grant when a refresh token is redeemed twice, so parallel refreshes would end
// the link): read, refresh and write happen under the store's lock, which save and unlink take
// too, so a refresh in flight never brings back a link /unlink removed. Only invalid_grant (the
// grant is gone) ends a link and asks the user to link again; the service refusing the bot's own
// client credentials is a configuration error: logged once, every link kept.
import { ApiError, type ApiClient, type TokenSet } from '../api-client.js';
import type { BotLog } from '../log.js';
import { LinkLockTimeoutError } from './link-lock.js';
import type { LinkStore, StoredLink } from './link-store.js';

/** Refresh this long before the access token expires. */
const REFRESH_MARGIN_MS = 60_000;

export class NotLinkedError extends Error {
  constructor(readonly reason: 'never' | 'expired') {
    super(reason === 'never' ? 'not linked' : 'link expired');
    this.name = 'NotLinkedError';
  }
}

const stderrLog: Pick<BotLog, 'error'> = { error: (object, message) => console.error(message, object) };

/** Links and unlinks, told to every bot process sharing the store (shared-store.ts's feed). */
export interface LinkChanges {
  publish(topic: string, message: string): Promise<void>;
  read(topic: string, cursor: string | undefined): Promise<{ cursor: string; messages: string[] }>;
}

const LINK_TOPIC = 'links';
/** How often the feed is read: a link or unlink made in another process is seen within 2 s. */
export const LINK_FEED_INTERVAL_MS = 1_000;

export function createLinkedAccounts(store: LinkStore, api: ApiClient, log: Pick<BotLog, 'error'> = stderrLog, changes?: LinkChanges) {
  const refreshing = new Map<string, Promise<StoredLink>>();
  // Links in use are remembered so a command does not read the store for every API call. Safe
  // with other processes sharing the store: a refresh always re-reads the store first, and an
  // access token another process replaced keeps working until it expires.
  const remembered = new Map<string, StoredLink>();
  const MAX_REMEMBERED = 10_000;
  // Users known not to be linked: most authors in a server are not systems, and their messages must
  // cost no store read. Linking and unlinking here update it at once; one made through another bot
  // process arrives on the link feed (its store key, mapped back through `userOfKey`), and an
  // entry expires anyway after a minute.
  const unlinked = new Map<string, number>();
  const MAX_UNLINKED = 200_000;
  const UNLINKED_TTL_MS = 60_000;
  // Store key → user, for the users held above (bounded on its own; a stale entry drops nothing).
  const userOfKey = new Map<string, string>();
  const MAX_KEYS = MAX_REMEMBERED + MAX_UNLINKED;
  function noteKey(userId: string): void {
    if (!changes) return;
    const key = store.keyOf(userId);
    if (userOfKey.has(key)) return;
    if (userOfKey.size >= MAX_KEYS) userOfKey.delete(userOfKey.keys().next().value as string);
    userOfKey.set(key, userId);
  }

  function knownUnlinked(userId: string): boolean {
    const until = unlinked.get(userId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    unlinked.delete(userId);
    return false;
  }

  function rememberUnlinked(userId: string): void {
    if (unlinked.size >= MAX_UNLINKED) unlinked.delete(unlinked.keys().next().value as string);
    if (!unlinked.has(userId)) noteKey(userId);
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
    if (!remembered.has(userId)) noteKey(userId);
    remembered.set(userId, link);
  }

  /** Tells the other processes (best effort: their entries expire anyway). */
  function announce(userId: string): Promise<void> {
    return changes ? changes.publish(LINK_TOPIC, store.keyOf(userId)).catch(() => undefined) : Promise.resolve();
  }

  let feedCursor: string | undefined;
  let feedStopped = false;
  let feedRead: Promise<void> = Promise.resolve();
  async function readFeed(): Promise<void> {
    if (!changes) return;
    try {
      const page = await changes.read(LINK_TOPIC, feedCursor);
      for (const key of page.messages) {
        const userId = userOfKey.get(key);
        if (userId === undefined) continue;
        remembered.delete(userId);
        unlinked.delete(userId);
      }
      feedCursor = page.cursor;
    } catch {
      // What changed meanwhile is unknown: nothing held is trusted.
      remembered.clear();
      unlinked.clear();
    }
  }
  const feedTimer = changes
    ? setInterval(() => {
        if (!feedStopped) feedRead = feedRead.then(readFeed);
      }, LINK_FEED_INTERVAL_MS)
    : undefined;
  feedTimer?.unref();
  if (changes) feedRead = readFeed();

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

  /** `work` under the user's lock in every process; a wait that times out reads as a slow service. */
  async function locked<T>(userId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await store.lock(userId, work);
    } catch (error) {
      if (error instanceof LinkLockTimeoutError) throw new ApiError('timeout', 0, 'timeout', 'switchboard took too long to answer. Try again in a moment.');
      throw error;
    }
  }

  async function revokeQuietly(tokens: TokenSet): Promise<void> {
    if (tokens.refreshToken) await api.revoke(tokens.refreshToken, 'refresh_token').catch(() => undefined);
    await api.revoke(tokens.accessToken, 'access_token').catch(() => undefined);
  }

  // Logged once until a refresh works again: with a wrong BOT_CLIENT_SECRET every refresh fails.
  let misconfiguredLogged = false;
  function reportMisconfigured(error: ApiError): void {
    if (misconfiguredLogged) return;
    misconfiguredLogged = true;
    log.error(
      { status: error.status, error: error.type },
      'switchboard refused the bot’s client credentials while refreshing a linked account: check that BOT_CLIENT_ID and BOT_CLIENT_SECRET (or DATA_DIR/keys/bot-client-secret.txt) match the client registered at the service. Links are kept; users are told the bot is misconfigured until this is fixed.',
    );
  }

  async function refresh(userId: string, stale: StoredLink): Promise<StoredLink> {
    const running = refreshing.get(userId);
    if (running) return running;
    const attempt = locked(userId, async () => {
      // Another caller or process may have refreshed while this one waited for the lock.
      const current = await store.get(userId);
      if (current && current.accessToken !== stale.accessToken) {
        remember(userId, current);
        return current;
      }
      if (!current?.refreshToken) {
        await forget(userId);
        throw new NotLinkedError('expired');
      }
      let tokens: TokenSet;
      try {
        tokens = await api.refresh(current.refreshToken);
      } catch (error) {
        if (error instanceof ApiError && error.kind === 'misconfigured') reportMisconfigured(error);
        // Only invalid_grant says the grant is gone; anything else keeps the link for a later try.
        if (error instanceof ApiError && error.kind === 'oauth' && error.type === 'invalid_grant') {
          await forget(userId);
          throw new NotLinkedError('expired');
        }
        throw error;
      }
      misconfiguredLogged = false;
      const next: StoredLink = { ...tokens, refreshToken: tokens.refreshToken ?? current.refreshToken, linkedAt: current.linkedAt };
      // Compare-and-set: write only over the link this refresh started from. The lock makes that
      // so unless a lease outlived a stalled holder; then what was stored meanwhile (or an
      // unlink) wins, and the tokens just issued are revoked.
      const stored = await store.get(userId);
      if (stored?.accessToken !== current.accessToken) {
        await revokeQuietly(next);
        if (stored) {
          remember(userId, stored);
          return stored;
        }
        remembered.delete(userId);
        rememberUnlinked(userId);
        throw new NotLinkedError('expired');
      }
      await save(userId, next);
      return next;
    });
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

  async function isLinked(userId: string): Promise<boolean> {
    if (knownUnlinked(userId)) return false;
    const linked = (await load(userId)) !== undefined;
    if (!linked) rememberUnlinked(userId);
    return linked;
  }

  /** Runs `call` with a valid access token; after a 401 refreshes once and tries again. */
  async function withToken<T>(userId: string, call: (accessToken: string) => Promise<T>): Promise<T> {
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
          // Forgotten only if still the stored link (another process may have linked anew).
          await locked(userId, async () => ((await store.get(userId))?.accessToken === renewed.accessToken ? forget(userId) : void remembered.delete(userId)));
          throw new NotLinkedError('expired');
        }
        throw again;
      }
    }
  }

  return {
    isLinked,

    /** Stops reading the link feed. */
    async stop(): Promise<void> {
      feedStopped = true;
      if (feedTimer) clearInterval(feedTimer);
      await feedRead;
    },

    /** True when the user is known not to be linked, answered from memory (no store read). */
    knownUnlinked,

    /** Stores a new link (under the user's lock: a refresh in flight does not overwrite it). */
    save: (userId: string, link: StoredLink) => locked(userId, () => save(userId, link)).then(() => announce(userId)),

    withToken,

    /**
     * Runs `call` as `viewerId` reading `target`'s data (`@me` or a user id). Their own data needs
     * their link. Another user's data needs none: a viewer who never linked (or whose link ended)
     * reads it with the bot's client-credentials token, which the service treats as a stranger,
     * so only what that user made public comes back. A linked viewer reads with their own token.
     */
    async asViewer<T>(viewerId: string, target: string, call: (accessToken: string) => Promise<T>): Promise<T> {
      if (target === '@me') return withToken(viewerId, call);
      if (!(await isLinked(viewerId))) return api.withClientToken(call);
      try {
        return await withToken(viewerId, call);
      } catch (error) {
        if (error instanceof NotLinkedError) return api.withClientToken(call);
        throw error;
      }
    },

    /**
     * Revokes the tokens at the service (best effort) and forgets them, under the user's lock: a
     * refresh in flight finishes first and its new tokens are the ones revoked, or it starts after
     * and finds no link.
     */
    async unlink(userId: string): Promise<boolean> {
      return locked(userId, async () => {
        const link = await store.get(userId);
        if (!link) {
          remembered.delete(userId);
          rememberUnlinked(userId);
          return false;
        }
        await revokeQuietly(link);
        await forget(userId);
        await announce(userId);
        return true;
      });
    },
  };
}

export type LinkedAccounts = ReturnType<typeof createLinkedAccounts>;
