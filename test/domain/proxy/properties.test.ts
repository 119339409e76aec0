// Properties of the proxy engine over generated systems, autoproxy settings and messages built to
// hit tags, selectors, graphemes, Discord tokens, mentions, escapes and the length limit.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileSystem, decideProxy, decideProxyCompiled, type Entry, type ProxyAlter, type ProxyInput, type ProxyOutput } from '../../../src/domain/proxy/index.js';
import { escapeLevel } from '../../../src/domain/proxy/escapes.js';
import { leadingMentionBlock } from '../../../src/domain/proxy/markup.js';
import { Subject } from '../../../src/domain/proxy/match.js';
import { findWinner, findWinnerLinear } from '../../../src/domain/proxy/tag-index.js';

const RUNS = { numRuns: 300 };
const VS16 = '\ufe0f';

// ---- Generators ----------------------------------------------------------------------------

// Body atoms never start with a combining mark, selector or other extender, so cutting between
// atoms, and trimming, stays on grapheme boundaries; inside, they are as awkward as Discord gets.
const BODY_ATOMS = [
  'a', 'b', 'Z', 'hi', ' ', '  ', '\n', '\t', '\r\n', '\u00a0', '\u3000', '\u200b', '\u0085', '\u200f',
  'é', 'e\u0301', 'É', 'İ', 'ß', 'Σ', '\u212a', '$&', "$'", '$1', '$$', '||', '```', '.*',
  '😀', '👍', '👍🏽', '🏳️‍🌈', '🇫🇷', '✨', `✨${VS16}`, '❤', '🆑', 'Ⓜ',
  '<@123>', '<@!4>', '<@&5>', '<#6>', '<:wave:7>', '<a:dance:8>', '<t:9>', '<t:-1:R>', '</tag add:10>',
  '<', '>', '[', ']', '{', '}', '-', ':', '\\',
];
const atom = fc.constantFrom(...BODY_ATOMS);
const shortBody = fc.array(atom, { maxLength: 8 }).map((atoms) => atoms.join(''));
const longBody = fc.tuple(fc.constantFrom('x', '😀', 'é '), fc.integer({ min: 990, max: 2010 })).map(([unit, n]) => unit.repeat(n));
const body = fc.oneof({ arbitrary: shortBody, weight: 9 }, { arbitrary: longBody, weight: 1 });

const TAG_CHARS = ['[', ']', '<', '>', ' ', '-', 'a', 'A', ':', '✨', VS16, '👍', '\\', '{', '}', 'é', 'É', '\u200b', '🏳️'];
const tagText = fc.array(fc.constantFrom(...TAG_CHARS), { maxLength: 3 }).map((chars) => chars.join(''));
const proxyTag = fc.record({ prefix: tagText, suffix: tagText });

function altersFrom(tagSides: fc.Arbitrary<{ prefix: string; suffix: string }>): fc.Arbitrary<ProxyAlter[]> {
  return fc
    .uniqueArray(fc.record({ id: fc.integer({ min: 1, max: 6 }), proxyTags: fc.array(tagSides, { maxLength: 3 }) }), { selector: (a) => a.id, maxLength: 5 })
    .map((list) => list.map(({ id, proxyTags }) => ({ id, name: `alter ${id}`, proxyTags })));
}

const NOW = 1_700_000_000_000;
// Mostly alters that exist, sometimes one that does not.
const alterId = fc.integer({ min: 1, max: 7 });
const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.constant<Entry>({ mode: 'off' }),
  alterId.map((id): Entry => ({ mode: 'alter', alterId: id })),
  fc.constant<Entry>({ mode: 'front' }),
  fc.option(fc.record({ alterId, at: fc.integer({ min: NOW - 70_000, max: NOW }) }), { nil: null }).map((latch): Entry => ({ mode: 'latch', latch })),
);
const scopes = fc.record({ channel: entry, server: entry, global: entry }, { requiredKeys: [] });
const autoproxy = fc.record({
  scopes,
  latchExpirationMs: fc.constantFrom(0, 1_000, 60_000),
  front: fc.option(alterId, { nil: null }),
});

const lead = fc.oneof(
  { arbitrary: fc.constant(''), weight: 6 },
  { arbitrary: fc.constantFrom('<@1> ', '<@1><#2>\n', '\\', '\\\\', '\\\\\\', '\\\u200b\\', ' '), weight: 4 },
);

/** A message around one of the system's tags (or none), so matches are frequent. */
function messageFor(alters: ProxyAlter[], bodies: fc.Arbitrary<string> = body): fc.Arbitrary<string> {
  const tags = alters.flatMap((a) => a.proxyTags);
  const sides = tags.length > 0 ? fc.oneof(fc.constantFrom(...tags), fc.constant({ prefix: '', suffix: '' })) : fc.constant({ prefix: '', suffix: '' });
  return fc.tuple(lead, sides, bodies, fc.boolean()).map(([start, { prefix, suffix }, text, tagged]) => (tagged ? `${start}${prefix}${text}${suffix}` : `${start}${text}`));
}

const input: fc.Arbitrary<ProxyInput> = fc
  .tuple(altersFrom(proxyTag), fc.boolean(), fc.boolean())
  .chain(([alters, caseSensitive, keepProxy]) =>
    fc.record({
      message: fc.record({ content: messageFor(alters), hasAttachment: fc.boolean() }),
      system: fc.constant({ alters, caseSensitive, keepProxy }),
      autoproxy,
      now: fc.constant(NOW),
    }),
  );

// ---- Helpers -------------------------------------------------------------------------------

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const sortedKeys = (value: object) => Object.keys(value).sort();
const codePoints = (text: string) => [...text].length;

// An independent spelling of the Discord tokens and grapheme clusters: the units no edge may split.
const TOKEN = /<(?:@[!&]?\d+|#\d+|a?:\w+:\d+|t:-?\d+(?::[tTdDfFR])?|\/[^<>\n]+:\d+)>/g;
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
function units(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  const gap = (end: number) => {
    for (const { segment } of graphemes.segment(text.slice(at, end))) out.push(segment);
  };
  for (const match of text.matchAll(TOKEN)) {
    gap(match.index);
    out.push(match[0]);
    at = match.index + match[0].length;
  }
  gap(text.length);
  return out;
}
function isContiguousRun(run: string[], within: string[]): boolean {
  if (run.length === 0) return true;
  for (let i = 0; i + run.length <= within.length; i++) if (run.every((unit, k) => within[i + k] === unit)) return true;
  return false;
}

// Trim (D2) removes whitespace even when a selector, combining mark or skin tone extends it into
// one grapheme; that is the specified trim, not an edge, so such messages are left out.
const EXTENDED_WHITESPACE = /\s(?:\p{M}|\p{Emoji_Modifier}|\u200d|\ufe0e|\ufe0f)/u;

/** The sent content of a tag proxy is whole units (tokens, graphemes) of the original, in a row. */
function splitsNothing(given: ProxyInput): boolean {
  const { result } = decideProxy(given);
  const content = given.message.content;
  if (!result.proxy || result.reason !== 'tag' || given.system.keepProxy) return true;
  if (leadingMentionBlock(content) !== '' || EXTENDED_WHITESPACE.test(content)) return true;
  return isContiguousRun(units(result.content), units(content));
}

// Tags that would cut an emoji sequence, a flag, a combining sequence or a token, on messages made
// of exactly such things.
const CUTTING_PREFIXES = ['👍', '<', '🏳️', '🇫', 'e', '<t', '<t:9', '<:wave', '[', 'a:', '✨'];
const CUTTING_SUFFIXES = ['>', '🏽', ']', '\u0301', ':R>', '🌈', '‍🌈', '🇷', '7>', '9>', VS16 + ']'];
const AWKWARD = ['👍🏽', '👍', '🏽', ' hi ', 'x', '<t:9:R>', '<t:9>', '<:wave:7>', '<@5>', '🏳️‍🌈', '🇫🇷', 'e\u0301', 'e', '\u0301', '[', ']', '<', '>', ':', 'a:', '✨', VS16, '\r', '\n'];
const cuttingInput: fc.Arbitrary<ProxyInput> = fc
  .tuple(altersFrom(fc.record({ prefix: fc.constantFrom('', ...CUTTING_PREFIXES), suffix: fc.constantFrom('', ...CUTTING_SUFFIXES) })), fc.boolean())
  .chain(([alters, caseSensitive]) =>
    fc.record({
      message: fc.record({ content: fc.array(fc.constantFrom(...AWKWARD, ...CUTTING_PREFIXES, ...CUTTING_SUFFIXES), { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')), hasAttachment: fc.boolean() }),
      system: fc.constant({ alters, caseSensitive, keepProxy: false }),
      autoproxy: fc.constant({ scopes: {}, latchExpirationMs: 0, front: null }),
      now: fc.constant(NOW),
    }),
  );

// ---- Properties ----------------------------------------------------------------------------

describe('decideProxy: properties', () => {
  it('R1: the output has exactly the contract’s keys; a message is proxied at most once, as an existing alter', () => {
    fc.assert(
      fc.property(input, (given) => {
        const out = decideProxy(given);
        const { result, state } = out;
        expect(sortedKeys(out)).toEqual(['result', 'state']);
        if (result.proxy) {
          expect(sortedKeys(result)).toEqual(['alterId', 'content', 'proxy', 'reason']);
          expect(given.system.alters.some((a) => a.id === result.alterId)).toBe(true);
          expect(['tag', 'autoproxy', 'latch', 'front']).toContain(result.reason);
        } else {
          expect(sortedKeys(result)).toEqual('error' in result ? ['error', 'proxy'] : ['proxy']);
        }
        if (state !== null) {
          const keys = sortedKeys(state);
          expect([['latch', 'scope'], ['mode', 'scope']]).toContainEqual(keys);
          if ('latch' in state && state.latch !== null) expect(sortedKeys(state.latch)).toEqual(['alterId', 'at']);
          // D13: the entry in effect, which must exist.
          const effective = given.autoproxy.scopes.channel ? 'channel' : given.autoproxy.scopes.server ? 'server' : 'global';
          expect(state.scope).toBe(effective);
        }
      }),
      RUNS,
    );
  });

  it('R1: deterministic, and the input is not mutated', () => {
    fc.assert(
      fc.property(input, (given) => {
        const copy = structuredClone(given);
        const frozen = deepFreeze(structuredClone(given));
        const first = decideProxy(frozen);
        expect(decideProxy(frozen)).toStrictEqual(first);
        expect(decideProxy(copy)).toStrictEqual(first);
        // Compared as clones: generated records may have a null prototype.
        expect(structuredClone(frozen)).toStrictEqual(copy);
      }),
      RUNS,
    );
  });

  it('D1: the order of alters and of the scopes object does not matter', () => {
    const shuffled = input.chain((given) =>
      fc.tuple(fc.constant(given), fc.shuffledSubarray(given.system.alters, { minLength: given.system.alters.length, maxLength: given.system.alters.length })),
    );
    fc.assert(
      fc.property(shuffled, ([given, alters]) => {
        const reordered: ProxyInput = { ...given, system: { ...given.system, alters } };
        expect(decideProxy(reordered)).toStrictEqual(decideProxy(given));
      }),
      RUNS,
    );
  });

  it('the compiled path equals the uncompiled one, and the index finds what trying every pair finds', () => {
    fc.assert(
      fc.property(input, (given) => {
        const compiled = compileSystem(given.system);
        expect(decideProxyCompiled(compiled, given)).toStrictEqual(decideProxy(given));
        const content = given.message.content;
        const t = new Subject(content.slice(leadingMentionBlock(content).length));
        const trimmed = new Subject(t.text.trim());
        expect(findWinner(compiled, t, trimmed)).toStrictEqual(findWinnerLinear(compiled, t, trimmed));
      }),
      { numRuns: 500 },
    );
  });

  it('R9: content sent is at most 2000 code points', () => {
    fc.assert(
      fc.property(input, (given) => {
        const { result } = decideProxy(given);
        if (result.proxy) expect(codePoints(result.content)).toBeLessThanOrEqual(2000);
        else if ('error' in result) expect(codePoints(given.message.content.trim())).toBeGreaterThan(2000 - 4);
      }),
      RUNS,
    );
  });

  it('R5.5, R5.6: a tag proxy never splits a grapheme or a Discord token', () => {
    fc.assert(fc.property(fc.oneof(input, cuttingInput), (given) => {
        expect(splitsNothing(given)).toBe(true);
      }), { numRuns: 1000 });
  });
});

// Tags over characters no body contains: where a tag was matched is then known without the engine.
const SIGILS = ['«', '»', '§', '¶', '¤', '✦', '⟦', '⟧', '🜁', '·'];
const sigilText = fc.array(fc.constantFrom(...SIGILS, ...SIGILS.map((s) => s + VS16)), { minLength: 0, maxLength: 3 }).map((parts) => parts.join(''));
const sigilTag = fc.record({ prefix: sigilText, suffix: sigilText }).filter(({ prefix, suffix }) => (prefix + suffix).replaceAll(VS16, '') !== '');
const PLAIN_ATOMS = BODY_ATOMS.filter((a) => !a.includes(VS16) && !a.includes('\\'));
const plainBody = fc.array(fc.constantFrom(...PLAIN_ATOMS), { minLength: 1, maxLength: 8 }).map((atoms) => atoms.join(''));
const stripSelectors = (text: string) => text.replaceAll(VS16, '');
const sigilCount = (text: string) => [...stripSelectors(text)].filter((c) => SIGILS.includes(c)).length;

const tagged = fc
  .tuple(altersFrom(sigilTag).filter((alters) => alters.some((a) => a.proxyTags.length > 0)), fc.boolean(), autoproxy, fc.boolean())
  .chain(([alters, keepProxy, settings, hasAttachment]) => {
    const tags = alters.flatMap((a) => a.proxyTags);
    return fc.tuple(fc.constantFrom(...tags), plainBody).map(([{ prefix, suffix }, text]): ProxyInput => ({
      message: { content: `${prefix}${text}${suffix}`, hasAttachment },
      system: { alters, caseSensitive: true, keepProxy },
      autoproxy: settings,
      now: NOW,
    }));
  });

describe('decideProxy: tags', () => {
  it('R2: a tagged message with non-blank content is never autoproxied', () => {
    fc.assert(
      fc.property(tagged, (given) => {
        const content = given.message.content;
        fc.pre([...content].some((c) => !SIGILS.includes(c) && c.trim() !== '' && c !== VS16));
        const { result } = decideProxy(given);
        if (result.proxy) expect(result.reason).toBe('tag');
        const level = escapeLevel(content);
        const latch = (given.autoproxy.scopes.channel ?? given.autoproxy.scopes.server ?? given.autoproxy.scopes.global)?.mode === 'latch';
        if (level === 0 || level === 1 || (level === 2 && !latch)) expect(result.proxy || 'error' in result).toBe(true);
      }),
      RUNS,
    );
  });

  it('R7: without keep-proxy the sent content is the text between one of the winner’s tags, so never that tag', () => {
    fc.assert(
      fc.property(tagged, (given) => {
        const { result } = decideProxy(given);
        const content = stripSelectors(given.message.content);
        if (!result.proxy || result.reason !== 'tag') return;
        if (given.system.keepProxy) {
          expect(result.content).toBe(given.message.content.trim());
          return;
        }
        if (leadingMentionBlock(content) !== '') return;
        const winner = given.system.alters.find((a) => a.id === result.alterId) as ProxyAlter;
        const explained = winner.proxyTags.some((tag) => {
          const prefix = stripSelectors(tag.prefix);
          const suffix = stripSelectors(tag.suffix);
          if (!content.startsWith(prefix) || !content.endsWith(suffix) || prefix.length + suffix.length > content.length) return false;
          const between = content.slice(prefix.length, content.length - suffix.length).trim();
          return stripSelectors(result.content) === between && sigilCount(result.content) === sigilCount(content) - [...prefix].length - [...suffix].length;
        });
        expect(explained).toBe(true);
      }),
      RUNS,
    );
  });

  it('R7: a one-tag system sends exactly the trimmed body, free of tag characters', () => {
    const single = fc.tuple(sigilTag, plainBody).map(([proxyTag, text]): [ProxyInput, string] => [
      {
        message: { content: `${proxyTag.prefix}${text}${proxyTag.suffix}`, hasAttachment: false },
        system: { alters: [{ id: 1, name: 'one', proxyTags: [proxyTag] }], caseSensitive: true, keepProxy: false },
        autoproxy: { scopes: {}, latchExpirationMs: 0, front: null },
        now: NOW,
      },
      text,
    ]);
    fc.assert(
      fc.property(single, ([given, text]) => {
        const out: ProxyOutput = decideProxy(given);
        const block = leadingMentionBlock(given.message.content);
        const expectedText = block === '' ? text.trim() : [block.trimEnd(), text.slice(block.length).trim()].filter((s) => s !== '').join(' ');
        if (expectedText === '') expect(out.result).toStrictEqual({ proxy: false });
        else if (codePoints(expectedText) > 2000) expect(out.result).toStrictEqual({ proxy: false, error: 'tooLong' });
        else expect(out.result).toStrictEqual({ proxy: true, alterId: 1, content: expectedText, reason: 'tag' });
        if (out.result.proxy) expect(sigilCount(out.result.content)).toBe(0);
      }),
      RUNS,
    );
  });
});
