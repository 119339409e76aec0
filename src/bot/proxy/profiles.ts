// Proxy profiles held in memory, per (user, server). Each message of a linked user revalidates its
// profile with If-None-Match (a 304 costs the service one indexed read), so the cache is exact;
// when the service is down, slow or rate-limiting, the cached profile keeps proxying working.
//
// The engine's state changes (latch moved, entry turned off) are applied here at once and kept as
// an overlay until the service has stored them, so a burst of messages sees its own latch even
// while the write is still in flight (or being retried). The owner's edits win: an overlay whose
// entry changed revision in a newer profile is dropped.
import type { Autoproxy } from '../../domain/autoproxy.js';
import { compileSystem, type CompiledSystem } from '../../domain/proxy/index.js';
import { proxySystemOf } from '../../domain/proxy-input.js';
import type { ProxyProfile } from '../../domain/proxy-profile.js';
import { ApiError, type ApiClient } from '../api-client.js';
import type { BotLog } from '../log.js';
import { NotLinkedError, type LinkedAccounts } from '../links/linked-accounts.js';

const MAX_PROFILES = 20_000;

interface Cached {
  profile: ProxyProfile;
  etag: string;
  /** The engine's compiled system, made on the first message this profile decides (the one cache of it). */
  system?: CompiledSystem;
}

/** A profile with its system compiled for the engine (alters, tags, case and keep-proxy). */
export interface ProxyableProfile {
  profile: ProxyProfile;
  system: CompiledSystem;
}

export interface ProfileCache {
  /** The user's profile for the server, or undefined when they cannot proxy (not linked, no access). */
  get(userId: string, guildId: string): Promise<ProxyProfile | undefined>;
  /**
   * The same, with its system compiled for the engine: compiled once per profile the service
   * sends (a local autoproxy change keeps it, as it leaves alters and tags alone).
   */
  forProxying(userId: string, guildId: string): Promise<ProxyableProfile | undefined>;
  /**
   * Applies an engine state change locally. Call the function it returns once the service has
   * stored it (with the system's revision after that write) or refused it.
   */
  applyLocally(userId: string, guildId: string, entry: Autoproxy): (outcome: { stored: true; revision: number } | { stored: false }) => void;
  forget(userId: string): void;
  /** The user's link predates proxying (its token lacks messages:write): they must /link again. */
  needsRelink(userId: string): boolean;
  /**
   * The server's settings revision the service told with the newest profile answer for that
   * server (every answer, 304 included, carries it); undefined before any.
   */
  guildRevision(guildId: string): number | undefined;
}

const keyOf = (userId: string, guildId: string) => `${userId}/${guildId}`;

interface Overlay {
  entry: Autoproxy;
  /** Once stored: the revision from which the service's own profile shows it. */
  until: number | undefined;
}

export function createProfileCache(api: ApiClient, accounts: LinkedAccounts, log: BotLog): ProfileCache {
  const cache = new Map<string, Cached>();
  const overlays = new Map<string, Map<string, Overlay>>();
  const relink = new Set<string>();
  const guildRevisions = new Map<string, number>();

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
      // The owner changed the entry (theirs wins), or the service's copy already shows the change.
      if (local.entry.revision !== entry.revision || (local.until !== undefined && profile.revision >= local.until)) {
        overlay.delete(entry.serverId);
        return entry;
      }
      return local.entry;
    });
    if (overlay.size === 0) overlays.delete(key);
    return { ...profile, autoproxy };
  }

  /** The held profile for (user, server), revalidated; undefined when they cannot proxy. */
  async function current(userId: string, guildId: string): Promise<Cached | undefined> {
    const key = keyOf(userId, guildId);
    const cached = cache.get(key);
    try {
      const fetched = await accounts.withToken(userId, (token) => api.getProxyProfile(token, guildId, cached?.etag));
      relink.delete(userId);
      if (fetched.guildRevision !== undefined) guildRevisions.set(guildId, fetched.guildRevision);
      if (fetched.notModified && cached) return cached;
      if (!fetched.notModified) {
        const fresh = { profile: fetched.profile, etag: fetched.etag };
        store(key, fresh);
        return fresh;
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
        if (error.type === 'invalid-scopes') relink.add(userId);
        log.info({ user: userId, type: error.type }, 'no proxy profile for this user');
        return undefined;
      }
      if (cached) return cached;
      log.warn({ err: error, user: userId }, 'proxy profile unavailable and not cached');
      return undefined;
    }
  }

  return {
    async get(userId, guildId) {
      const held = await current(userId, guildId);
      return held && withOverlay(keyOf(userId, guildId), held.profile);
    },

    async forProxying(userId, guildId) {
      const held = await current(userId, guildId);
      if (!held) return undefined;
      held.system ??= compileSystem(proxySystemOf(held.profile));
      return { profile: withOverlay(keyOf(userId, guildId), held.profile), system: held.system };
    },

    applyLocally(userId, guildId, entry) {
      const key = keyOf(userId, guildId);
      let overlay = overlays.get(key);
      if (!overlay) overlays.set(key, (overlay = new Map()));
      const local: Overlay = { entry, until: undefined };
      overlay.set(entry.serverId, local);
      return (outcome) => {
        const current = overlays.get(key);
        if (current?.get(entry.serverId) !== local) return; // a newer local change replaced it
        // Stored: kept until a profile from the service is at least as new as the write (a profile
        // read just before it landed must not undo it). Refused: the service's copy stands.
        if (outcome.stored) local.until = outcome.revision;
        else current.delete(entry.serverId);
      };
    },

    forget(userId) {
      for (const key of [...cache.keys()]) if (key.startsWith(`${userId}/`)) cache.delete(key);
      for (const key of [...overlays.keys()]) if (key.startsWith(`${userId}/`)) overlays.delete(key);
      relink.delete(userId);
    },

    needsRelink: (userId) => relink.has(userId),
    guildRevision: (guildId) => guildRevisions.get(guildId),
  };
}
