// Servers' settings held in memory, exact without a round trip per message: every proxy profile
// answer (which the message path reads anyway, revalidated on each message) tells the server's
// settings revision, and the held copy is refetched (with If-None-Match) only when that revision
// is newer than it. A change made through any bot process therefore applies to the next message in
// every process, and the steady state asks nothing more of the service.
import { compileGuildRules, type CompiledGuildRules } from '../../domain/guild-rules.js';
import type { GuildSettings } from '../../domain/guild.js';
import { defaultGuildSettings } from '../../domain/guild.js';
import { ApiError, type ApiClient } from '../api-client.js';
import type { BotLog } from '../log.js';

export interface HeldSettings {
  settings: GuildSettings;
  /** The settings as the message path asks them (set lookups), made once per revision. */
  rules: CompiledGuildRules;
  etag: string;
}

export interface GuildSettingsCache {
  /**
   * The settings at least as new as `revision` (the one the newest proxy profile told): the held
   * copy when it is, otherwise fetched. Undefined when they cannot be had (service away and
   * nothing held).
   */
  atRevision(guildId: string, revision: number | undefined): Promise<HeldSettings | undefined>;
  /** Revalidated with the service (commands, logging): one conditional request. */
  fresh(guildId: string): Promise<HeldSettings>;
  /** What is held, without asking. */
  held(guildId: string): HeldSettings | undefined;
  /** Settings the service just answered (an edit): kept when newer than what is held. */
  store(settings: GuildSettings, etag?: string): HeldSettings;
}

const MAX_GUILDS = 10_000;
/** After the service refused the bot's client the scope, how long before asking again. */
const MISCONFIGURED_RETRY_MS = 60_000;

export function createGuildSettingsCache(api: ApiClient, log: BotLog): GuildSettingsCache {
  const held = new Map<string, HeldSettings>();
  const inFlight = new Map<string, Promise<HeldSettings>>();
  let misconfiguredUntil = 0;

  /**
   * A bot whose client may not read servers' settings (registered by hand without guilds:manage)
   * could never have changed them either: it proxies under the defaults, says so once a minute in
   * its log, and asks again then.
   */
  function defaultsFor(guildId: string): HeldSettings {
    const settings = { guildId, revision: 0, ...defaultGuildSettings() };
    return { settings, rules: compileGuildRules(settings), etag: '' };
  }

  function store(settings: GuildSettings, etag = `"g1-${settings.revision}"`): HeldSettings {
    const current = held.get(settings.guildId);
    if (current && current.settings.revision >= settings.revision) return current;
    const entry = { settings, rules: compileGuildRules(settings), etag };
    held.delete(settings.guildId);
    if (held.size >= MAX_GUILDS) held.delete(held.keys().next().value as string);
    held.set(settings.guildId, entry);
    return entry;
  }

  function fresh(guildId: string): Promise<HeldSettings> {
    let pending = inFlight.get(guildId);
    if (pending) return pending;
    pending = (async () => {
      const current = held.get(guildId);
      const answer = await api.getGuildSettings(guildId, current?.etag);
      if (answer.notModified && current) return current;
      // Only a conditional request can be answered 304, and it is sent only with a held copy.
      if (answer.notModified) throw new Error('the service answered 304 to an unconditional request');
      return store(answer.settings, answer.etag);
    })().finally(() => inFlight.delete(guildId));
    inFlight.set(guildId, pending);
    return pending;
  }

  return {
    async atRevision(guildId, revision) {
      const current = held.get(guildId);
      if (current && (revision === undefined || current.settings.revision >= revision)) return current;
      if (!current && Date.now() < misconfiguredUntil) return defaultsFor(guildId);
      try {
        return await fresh(guildId);
      } catch (error) {
        if (!current && error instanceof ApiError && error.kind === 'misconfigured') {
          misconfiguredUntil = Date.now() + MISCONFIGURED_RETRY_MS;
          log.warn({ err: error }, 'the bot’s client may not read servers’ settings (it needs client_credentials and guilds:manage, as a first-party client): proxying under the default settings');
          return defaultsFor(guildId);
        }
        log.warn({ err: error, guild: guildId }, current ? 'server settings could not be refreshed; the held copy applies' : 'server settings unavailable');
        return current;
      }
    },
    fresh,
    held: (guildId) => held.get(guildId),
    store,
  };
}
