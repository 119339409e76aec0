// Autoproxy (R10) and the latch bookkeeping every proxy does (R11). All state changes name the
// entry in effect and no other (D13).
import type { DecisionInput, Entry, ProxyReason, Scope, StateChange } from './types.js';

export type InEffect = { scope: Scope; entry: Entry };

/** The narrowest present entry wins, even in mode `off`: that is how a channel opts out. */
export function entryInEffect(scopes: DecisionInput['autoproxy']['scopes']): InEffect | null {
  if (scopes.channel != null) return { scope: 'channel', entry: scopes.channel };
  if (scopes.server != null) return { scope: 'server', entry: scopes.server };
  if (scopes.global != null) return { scope: 'global', entry: scopes.global };
  return null;
}

export type AutoproxyChoice =
  | { alterId: number; reason: Exclude<ProxyReason, 'tag'> }
  | { alterId: null; state: StateChange };

const nothing: AutoproxyChoice = { alterId: null, state: null };

/**
 * Which alter autoproxy would send as. A missing alter in `alter` or `front` mode leaves the
 * setting alone (the user may restore it); a latch on a missing alter or past its expiry is
 * cleared when found (D11). An alter left out of autoproxy (`autoproxy: false`, in `autoproxyIds`'
 * absence) is never chosen by `front` or `latch`: the message is not proxied and the latch stays
 * (its next tag proxy moves it on); `alter` mode names its alter outright and still sends as it.
 */
export function chooseAutoproxyAlter(
  inEffect: InEffect | null,
  input: DecisionInput,
  alterIds: ReadonlySet<number>,
  autoproxyIds: ReadonlySet<number> = alterIds,
): AutoproxyChoice {
  if (!inEffect) return nothing;
  const { scope, entry } = inEffect;
  switch (entry.mode) {
    case 'alter':
      return entry.alterId !== undefined && alterIds.has(entry.alterId) ? { alterId: entry.alterId, reason: 'autoproxy' } : nothing;
    case 'front': {
      const front = input.autoproxy.front;
      return front !== null && autoproxyIds.has(front) ? { alterId: front, reason: 'front' } : nothing;
    }
    case 'latch': {
      const latch = entry.latch;
      if (latch == null) return nothing;
      const { latchExpirationMs } = input.autoproxy;
      // Strict: a latch used exactly `latchExpirationMs` ago is still valid.
      const expired = latchExpirationMs > 0 && input.now - latch.at > latchExpirationMs;
      if (expired || !alterIds.has(latch.alterId)) return { alterId: null, state: { scope, latch: null } };
      return autoproxyIds.has(latch.alterId) ? { alterId: latch.alterId, reason: 'latch' } : nothing;
    }
    default:
      // `off`, and any mode a caller's data might hold that the contract does not know.
      return nothing;
  }
}

/** R11: a proxy, by tag or latch, while the entry in effect latches, restarts the latch there. */
export function stateAfterProxy(inEffect: InEffect | null, alterId: number, now: number): StateChange {
  if (!inEffect || inEffect.entry.mode !== 'latch') return null;
  return { scope: inEffect.scope, latch: { alterId, at: now } };
}
