// The proxy engine: for one incoming message, whether to proxy it, as whom, with what text, and
// which autoproxy state changes (proxy-rules.md). Pure: the caller passes the clock and stores the
// state. This module is the order of evaluation (R2); each rule lives in its own module.
import { chooseAutoproxyAlter, entryInEffect, stateAfterProxy, type InEffect } from './autoproxy.js';
import { escapeLevel } from './escapes.js';
import { leadingMentionBlock } from './markup.js';
import { Subject } from './match.js';
import { compileSystem, findWinner, type CompiledSystem } from './tag-index.js';
import { exceedsContentLimit } from './text.js';
import type { DecisionInput, ProxyAlter, ProxyInput, ProxyOutput, ProxyReason, ProxySystem, ProxyTag } from './types.js';

export type {
  DecisionInput,
  Entry,
  ProxyAlter,
  ProxyInput,
  ProxyOutput,
  ProxyReason,
  ProxyResult,
  ProxySystem,
  ProxyTag,
  Scope,
  StateChange,
} from './types.js';
export { compileSystem, type CompiledSystem } from './tag-index.js';

const notProxied = (): ProxyOutput => ({ result: { proxy: false }, state: null });

/** R9 then R11, for a proxy already decided. */
function send(content: string, alterId: number, reason: ProxyReason, inEffect: InEffect | null, now: number): ProxyOutput {
  if (exceedsContentLimit(content)) return { result: { proxy: false, error: 'tooLong' }, state: null };
  return { result: { proxy: true, alterId, content, reason }, state: stateAfterProxy(inEffect, alterId, now) };
}

/** R2 step 4: a tag proxy, or null when no tag decides (none matched, or R8 discarded the match). */
function proxyByTag(compiled: CompiledSystem, input: DecisionInput, inEffect: InEffect | null): ProxyOutput | null {
  if (compiled.pairs.length === 0) return null;
  const { content, hasAttachment } = input.message;
  const mentions = leadingMentionBlock(content);
  const t = new Subject(mentions === '' ? content : content.slice(mentions.length));
  const trimmedText = t.text.trim();
  const match = findWinner(compiled, t, trimmedText.length === t.text.length ? t : new Subject(trimmedText));
  if (!match) return null;

  const block = mentions.trimEnd();
  const inner = match.inner.trim();
  const stripped = block !== '' && inner !== '' ? `${block} ${inner}` : block + inner;
  // R8: judged on the stripped content even with keep-proxy, so `[]` is blank either way.
  if (stripped === '' && !hasAttachment) return null;
  return send(compiled.keepProxy ? content.trim() : stripped, match.alterId, 'tag', inEffect, input.now);
}

/** R2 step 6: R10, then R9 and R11. */
function proxyByAutoproxy(compiled: CompiledSystem, input: DecisionInput, inEffect: InEffect | null): ProxyOutput {
  const choice = chooseAutoproxyAlter(inEffect, input, compiled.alterIds, compiled.autoproxyIds);
  if (choice.alterId === null) return { result: { proxy: false }, state: choice.state };
  const content = input.message.content.trim();
  if (content === '' && !input.message.hasAttachment) return notProxied();
  return send(content, choice.alterId, choice.reason, inEffect, input.now);
}

/**
 * The decision for a system compiled beforehand with `compileSystem`, which the caller keeps while
 * the system is unchanged. `input.system`, if present, is not read.
 */
export function decideProxyCompiled(compiled: CompiledSystem, input: DecisionInput): ProxyOutput {
  const level = escapeLevel(input.message.content);
  const inEffect = entryInEffect(input.autoproxy.scopes);

  if (level >= 3) {
    const turnOff = inEffect !== null && inEffect.entry.mode !== 'off';
    return { result: { proxy: false }, state: turnOff ? { scope: inEffect.scope, mode: 'off' } : null };
  }
  if (level === 2 && inEffect?.entry.mode === 'latch') {
    return { result: { proxy: false }, state: inEffect.entry.latch != null ? { scope: inEffect.scope, latch: null } : null };
  }
  const tagged = proxyByTag(compiled, input, inEffect);
  if (tagged) return tagged;
  if (level >= 1) return notProxied();
  return proxyByAutoproxy(compiled, input, inEffect);
}

// decideProxy compiles each system object once. Callers may edit a system object between calls,
// so a cached compilation is used only while the fields it was built from are unchanged: a pass
// over the tags comparing strings that are almost always the very same strings, far below a
// compilation. Callers holding a `compileSystem` result skip even that.
type Fingerprint = {
  caseSensitive: boolean;
  keepProxy: boolean;
  alters: readonly ProxyAlter[];
  ids: number[];
  autoproxy: boolean[];
  tagCounts: number[];
  sides: string[];
};
const compiledSystems = new WeakMap<ProxySystem, { fingerprint: Fingerprint; compiled: CompiledSystem }>();

function fingerprintOf(system: ProxySystem): Fingerprint {
  const ids: number[] = [];
  const autoproxy: boolean[] = [];
  const tagCounts: number[] = [];
  const sides: string[] = [];
  for (const alter of system.alters) {
    ids.push(alter.id);
    autoproxy.push(alter.autoproxy !== false);
    tagCounts.push(alter.proxyTags.length);
    for (const tag of alter.proxyTags) sides.push(tag.prefix, tag.suffix);
  }
  return { caseSensitive: system.caseSensitive, keepProxy: system.keepProxy, alters: system.alters, ids, autoproxy, tagCounts, sides };
}

function hasFingerprint(system: ProxySystem, fingerprint: Fingerprint): boolean {
  const { alters } = system;
  if (system.caseSensitive !== fingerprint.caseSensitive || system.keepProxy !== fingerprint.keepProxy || alters.length !== fingerprint.ids.length)
    return false;
  const { ids, autoproxy, tagCounts, sides } = fingerprint;
  let side = 0;
  for (let a = 0; a < alters.length; a++) {
    const alter = alters[a] as ProxyAlter;
    const tags = alter.proxyTags;
    if (alter.id !== ids[a] || tags.length !== tagCounts[a] || (alter.autoproxy !== false) !== autoproxy[a]) return false;
    for (let t = 0; t < tags.length; t++) {
      const tag = tags[t] as ProxyTag;
      if (tag.prefix !== sides[side] || tag.suffix !== sides[side + 1]) return false;
      side += 2;
    }
  }
  return true;
}

function compiledFor(system: ProxySystem): CompiledSystem {
  const cached = compiledSystems.get(system);
  if (cached && hasFingerprint(system, cached.fingerprint)) return cached.compiled;
  const compiled = compileSystem(system);
  compiledSystems.set(system, { fingerprint: fingerprintOf(system), compiled });
  return compiled;
}

/** R1: the whole decision for one message. */
export function decideProxy(input: ProxyInput): ProxyOutput {
  return decideProxyCompiled(compiledFor(input.system), input);
}
