// From what the service stores to what the proxy engine reads, and back (proxy-rules.md, "Mapping
// from the stored model"): the engine's input for one message from a proxy profile, and the
// service's state-change body from the engine's `state`.
import { engineMode, scopeLabels, type Autoproxy, type AutoproxyStateChange } from './autoproxy.js';
import type { ProxyProfile } from './proxy-profile.js';
import type { DecisionInput, Entry, ProxyInput, ProxySystem, Scope, StateChange } from './proxy/index.js';

export interface MessageContext {
  content: string;
  hasAttachment: boolean;
  /**
   * The channel whose autoproxy entry applies: the channel itself, or for a thread or forum post
   * its parent channel (threads are not configured one by one).
   */
  channelId: string;
  now: number;
}

/** The stored entries that can apply to one message, by the engine's scope names. */
export type EntriesInScope = Partial<Record<Scope, Autoproxy>>;

function toEntry(stored: Autoproxy): Entry {
  const { mode } = engineMode(stored.autoproxyMode);
  const alterId = stored.autoproxyAlter === null ? undefined : Number(stored.autoproxyAlter);
  if (mode === 'alter') return alterId === undefined ? { mode } : { mode, alterId };
  if (mode === 'latch') {
    const at = stored.lastLatchTimestamp === null ? NaN : Date.parse(stored.lastLatchTimestamp);
    return { mode, latch: alterId !== undefined && Number.isFinite(at) ? { alterId, at } : null };
  }
  return { mode };
}

/**
 * The engine's view of the profile's system: alters with their tags, case and keep-proxy. The bot
 * compiles it once per profile it holds (bot/proxy/profiles.ts), so this is not remembered here.
 */
export function proxySystemOf(profile: ProxyProfile): ProxySystem {
  return {
    // Nickname-mode alters speak through the member's nickname, never through the webhook: the
    // engine does not see them, so their tags stay in the text and autoproxy does not pick them.
    alters: profile.alters
      .filter((alter) => alter.alterMode !== 'nickname')
      .map((alter) => ({ id: alter.alterId, name: alter.username, proxyTags: alter.proxyTags, autoproxy: alter.autoproxyEnabled })),
    caseSensitive: profile.caseSensitive,
    keepProxy: profile.keepProxy,
  };
}

/**
 * The engine's input for one message apart from the system (which callers compile once, see
 * `decideProxyCompiled`), or undefined when the system does not proxy here at all (disabled, or
 * turned off in this server): then nothing is decided and nothing changes.
 */
export function decisionInputFor(profile: ProxyProfile, message: MessageContext): { input: DecisionInput; entries: EntriesInScope } | undefined {
  if (profile.disabled || profile.guildDisabled) return undefined;
  const labels = scopeLabels(profile.guildId, message.channelId);
  const byLabel = new Map(profile.autoproxy.map((entry) => [entry.serverId, entry]));
  const entries: EntriesInScope = {};
  for (const scope of ['channel', 'server', 'global'] as const) {
    const stored = byLabel.get(labels[scope]);
    if (stored) entries[scope] = stored;
  }
  // "front" means the entry in effect's front: the primary of the newest switch, or of the followed client's.
  const inEffect = entries.channel ?? entries.server ?? entries.global;
  const frontClient = inEffect ? engineMode(inEffect.autoproxyMode).frontClient : null;
  const front = frontClient === null ? profile.front.latest : (profile.front.byClient[frontClient] ?? null);
  const scopes: ProxyInput['autoproxy']['scopes'] = {};
  for (const scope of ['channel', 'server', 'global'] as const) {
    const stored = entries[scope];
    if (stored) scopes[scope] = toEntry(stored);
  }
  return {
    input: {
      message: { content: message.content, hasAttachment: message.hasAttachment },
      autoproxy: { scopes, latchExpirationMs: profile.latchExpirationMs, front },
      now: message.now,
    },
    entries,
  };
}

/** The engine's whole input for one message (`decideProxy`'s), system included; see `decisionInputFor`. */
export function proxyInputFor(profile: ProxyProfile, message: MessageContext): { input: ProxyInput; entries: EntriesInScope } | undefined {
  const mapped = decisionInputFor(profile, message);
  if (!mapped) return undefined;
  const { message: text, autoproxy, now } = mapped.input;
  return { input: { message: text, system: proxySystemOf(profile), autoproxy, now }, entries: mapped.entries };
}

/** The body that stores the engine's state change, conditional on the entry it was decided on. */
export function stateChangeFor(state: StateChange, entries: EntriesInScope, now: number): AutoproxyStateChange | undefined {
  if (state === null) return undefined;
  const entry = entries[state.scope];
  if (!entry) return undefined; // the engine only changes the entry in effect, which exists
  // An account's own entry is named by its account too (the system's has none).
  const account = entry.account === null ? {} : { account: entry.account };
  const base = { serverId: entry.serverId, ...account, revision: entry.revision, at: new Date(now).toISOString() };
  if ('mode' in state) return { ...base, mode: 'off' };
  return { ...base, latch: state.latch === null ? null : { alterId: state.latch.alterId } };
}

/** The stored entry as it is once the engine's state change is applied (the bot's local copy). */
export function entryAfter(state: StateChange, entries: EntriesInScope, now: number): Autoproxy | undefined {
  if (state === null) return undefined;
  const entry = entries[state.scope];
  if (!entry) return undefined;
  if ('mode' in state) return { ...entry, autoproxyMode: 'off', autoproxyAlter: null, lastLatchTimestamp: null };
  if (state.latch === null) return { ...entry, autoproxyAlter: null, lastLatchTimestamp: null };
  return { ...entry, autoproxyAlter: String(state.latch.alterId), lastLatchTimestamp: new Date(now).toISOString() };
}
