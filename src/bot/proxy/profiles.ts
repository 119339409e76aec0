// Proxy profiles held in memory, per (user, server). Each message of a linked user revalidates its
// profile with If-None-Match (a 304 costs the service one indexed read), so the cache is exact;
// when the service is down, slow or rate-limiting, the cached profile keeps proxying working.
//
// The engine's state changes (latch moved, entry turned off) are applied here at once and kept as
// an overlay until the service has stored them, so a burst of messages sees its own latch even
// while the write is still in flight (or being retried). The owner's edits win: an overlay whose
// entry changed revision in a newer profile is dropped.
import type { Autoproxy } from '../../domain/autoproxy.js';
import type { ProxyProfile } from '../../domain/proxy-profile.js';
import { ApiError, type ApiClient } from '../api-client.js';
import type { BotLog } from '../bot.js';
import { NotLinkedError, type LinkedAccounts } from '../linked-accounts.js';

const MAX_PROFILES = 20_000;

interface Cached {
  profile: ProxyProfile;
  etag: string;
}

export interface ProfileCache {
  /** The user's profile for the server, or undefined when they cannot proxy (not linked, no access). */
  get(userId: string, guildId: string): Promise<ProxyProfile | undefined>;
  /** Applies an engine state change locally; call the function it returns once it is stored or refused. */
  applyLocally(userId: string, guildId: string, entry: Autoproxy): (stored: boolean) => void;
  forget(userId: string): void;
}

const keyOf = (userId: string, guildId: string) => `${userId}/${guildId}`;

export function createProfileCache(api: ApiClient, accounts: LinkedAccounts, log: BotLog): ProfileCache {
  const cache = new Map<string, Cached>();
  const overlays = new Map<string, Map<string, Autoproxy>>();

  function store(key: string, value: Cached): void {
    cache.delete(key);
    if (cache.size >= MAX_PROFILES) cache.delete(cache.keys().next().value as string);
    cache.set(key, value);
  }

  function withOverlay(key: string, profile: ProxyProfile): ProxyProfile {
    const overlay = overlays.get(key);
    if (!overlay || overlay.size === 0) return profile;
    const autoproxy = profile.autoproxy.map((entry) => {
      const local = overlay.get(entry.serverId);
      if (!local) return entry;
      if (local.revision !== entry.revision) {
        overlay.delete(entry.serverId); // the owner changed the entry: theirs wins
        return entry;
      }
      return local;
    });
    return { ...profile, autoproxy };
  }

  return {
    async get(userId, guildId) {
      const key = keyOf(userId, guildId);
      const cached = cache.get(key);
      try {
        const fetched = await accounts.withToken(userId, (token) => api.getProxyProfile(token, guildId, cached?.etag));
        if (fetched.notModified && cached) return withOverlay(key, cached.profile);
        if (!fetched.notModified) {
          store(key, { profile: fetched.profile, etag: fetched.etag });
          return withOverlay(key, fetched.profile);
        }
        return undefined;
      } catch (error) {
        if (error instanceof NotLinkedError) {
          cache.delete(key);
          return undefined;
        }
        if (error instanceof ApiError && error.kind === 'problem') {
          // No system, or a link made before the bot could proxy (no messages:write): nothing to do.
          cache.delete(key);
          log.info({ user: userId, type: error.type }, 'no proxy profile for this user');
          return undefined;
        }
        if (cached) return withOverlay(key, cached.profile);
        log.warn({ err: error, user: userId }, 'proxy profile unavailable and not cached');
        return undefined;
      }
    },

    applyLocally(userId, guildId, entry) {
      const key = keyOf(userId, guildId);
      let overlay = overlays.get(key);
      if (!overlay) overlays.set(key, (overlay = new Map()));
      overlay.set(entry.serverId, entry);
      return (stored) => {
        if (overlay.get(entry.serverId) !== entry) return; // a newer local change replaced it
        overlay.delete(entry.serverId);
        if (overlay.size === 0 && overlays.get(key) === overlay) overlays.delete(key);
        // Stored: the cached copy shows it too, in case the service is unreachable at the next
        // message (its ETag is older, so the next revalidation still fetches the service's copy).
        const cached = stored ? cache.get(key) : undefined;
        if (cached) {
          const autoproxy = cached.profile.autoproxy.map((old) => (old.serverId === entry.serverId && old.revision === entry.revision ? entry : old));
          cache.set(key, { ...cached, profile: { ...cached.profile, autoproxy } });
        }
      };
    },

    forget(userId) {
      for (const key of [...cache.keys()]) if (key.startsWith(`${userId}/`)) cache.delete(key);
      for (const key of [...overlays.keys()]) if (key.startsWith(`${userId}/`)) overlays.delete(key);
    },
  };
}
