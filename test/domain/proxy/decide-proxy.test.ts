// The proxy engine against proxy-rules.md, one case per rule, decision, worked example and peer
// bug. Each case is named by what it covers, so a failure points at the rule it breaks.
import { describe, expect, it } from 'vitest';
import { compileSystem, decideProxy, decideProxyCompiled, type Entry, type ProxyAlter, type ProxyInput, type ProxyOutput, type Scope } from '../../../src/domain/proxy/index.js';
import { escapeLevel } from '../../../src/domain/proxy/escapes.js';
import { isWhitespace } from '../../../src/domain/proxy/text.js';

const NOW = 1_700_000_000_000;

type Tag = [prefix: string, suffix: string];
const alter = (id: number, ...tags: Tag[]): ProxyAlter => ({ id, name: `alter ${id}`, proxyTags: tags.map(([prefix, suffix]) => ({ prefix, suffix })) });

type Given = {
  content: string;
  alters?: ProxyAlter[];
  attachment?: boolean;
  caseSensitive?: boolean;
  keepProxy?: boolean;
  scopes?: { channel?: Entry; server?: Entry; global?: Entry };
  latchExpirationMs?: number;
  front?: number | null;
};

// Defaults as in the specification's examples.
const build = (given: Given): ProxyInput => ({
  message: { content: given.content, hasAttachment: given.attachment ?? false },
  system: { alters: given.alters ?? [], caseSensitive: given.caseSensitive ?? true, keepProxy: given.keepProxy ?? false },
  autoproxy: { scopes: given.scopes ?? {}, latchExpirationMs: given.latchExpirationMs ?? 0, front: given.front ?? null },
  now: NOW,
});

const tag = (alterId: number, content: string, state: ProxyOutput['state'] = null): ProxyOutput => ({ result: { proxy: true, alterId, content, reason: 'tag' }, state });
const auto = (alterId: number, content: string, state: ProxyOutput['state'] = null): ProxyOutput => ({ result: { proxy: true, alterId, content, reason: 'autoproxy' }, state });
const latched = (alterId: number, content: string, scope: Scope = 'server'): ProxyOutput => ({
  result: { proxy: true, alterId, content, reason: 'latch' },
  state: { scope, latch: { alterId, at: NOW } },
});
const fronted = (alterId: number, content: string): ProxyOutput => ({ result: { proxy: true, alterId, content, reason: 'front' }, state: null });
const none = (state: ProxyOutput['state'] = null): ProxyOutput => ({ result: { proxy: false }, state });
const tooLong: ProxyOutput = { result: { proxy: false, error: 'tooLong' }, state: null };
const setLatch = (scope: Scope, alterId: number) => ({ scope, latch: { alterId, at: NOW } });
const clearLatch = (scope: Scope) => ({ scope, latch: null });
const turnOff = (scope: Scope) => ({ scope, mode: 'off' as const });

const alterMode = (alterId: number): Entry => ({ mode: 'alter', alterId });
const latchMode = (alterId: number | null, at = NOW - 1000): Entry => ({ mode: 'latch', latch: alterId === null ? null : { alterId, at } });
const OFF: Entry = { mode: 'off' };
const FRONT: Entry = { mode: 'front' };

// Recurring systems.
const BRACKETS = alter(1, ['[', ']']);
const DASH_B = alter(2, ['', ' -b']);
const DOUBLE = alter(3, ['[[', ']]']);
const ANGLES = alter(1, ['<', '>']);
const NO_AUTO: ProxyAlter = { ...alter(5, ['n:', '']), autoproxy: false };
const ZWSP = '\u200b';
const VS16 = '\ufe0f';

type Case = { rule: string; name: string; given: Given; expected: ProxyOutput };

const cases: Case[] = [
  // R2. Order of evaluation
  { rule: 'R2', name: 'example: a tag beats the server alter entry', given: { content: 'hi -b', alters: [BRACKETS, DASH_B], scopes: { server: alterMode(1) } }, expected: tag(2, 'hi') },
  { rule: 'R2', name: 'example: an untagged message is autoproxied', given: { content: 'hello', alters: [BRACKETS, DASH_B], scopes: { server: alterMode(1) } }, expected: auto(1, 'hello') },
  { rule: 'R2', name: 'peer PB: a tagged message is proxied once, by its tag, not also by autoproxy', given: { content: '[hi]', alters: [BRACKETS, DASH_B], scopes: { server: alterMode(2) } }, expected: tag(1, 'hi') },
  { rule: 'R2', name: 'a tag proxy refused for length does not fall back to autoproxy', given: { content: `[${'x'.repeat(2001)}]`, alters: [BRACKETS, DASH_B], scopes: { server: alterMode(2) } }, expected: tooLong },
  { rule: 'R2', name: 'step 5: an escaped untagged message is not autoproxied', given: { content: '\\hello', alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: none() },
  { rule: 'R2', name: 'step 2 comes before tags: a level-3 escape stops a tagged message', given: { content: '\\\\\\[hi]', alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: none(turnOff('server')) },
  { rule: 'R2', name: 'no tags, no entry: nothing happens', given: { content: 'hello', alters: [BRACKETS] }, expected: none() },

  // R3. Which tags take part
  { rule: 'R3', name: 'an all-empty tag matches nothing; autoproxy decides', given: { content: 'hello', alters: [alter(1, ['', '']), alter(2, ['[', ']'])], scopes: { server: alterMode(1) } }, expected: auto(1, 'hello') },
  { rule: 'R3', name: 'a selector-only tag counts as empty', given: { content: `${VS16}hello`, alters: [alter(1, [VS16, '']), alter(2, ['', '\ufe0e'])] }, expected: none() },
  { rule: 'R3', name: 'a selector-only side is absent: it removes nothing', given: { content: `${VS16}hi]`, alters: [alter(1, [VS16, ']'])] }, expected: tag(1, `${VS16}hi`) },
  { rule: 'R3', name: 'a tag with a selector and a character takes part', given: { content: '✨hello', alters: [alter(1, [`✨${VS16}`, ''])] }, expected: tag(1, 'hello') },
  { rule: 'R3', name: 'peer: an empty tag never matches every message', given: { content: 'anything', alters: [alter(1, ['', ''])] }, expected: none() },

  // R4. Which tag wins
  { rule: 'R4', name: 'example: [[hi]] goes to the heavier [[…]]', given: { content: '[[hi]]', alters: [BRACKETS, DOUBLE] }, expected: tag(3, 'hi') },
  { rule: 'R4', name: 'example: [[hi] goes to […] with [hi', given: { content: '[[hi]', alters: [BRACKETS, DOUBLE] }, expected: tag(1, '[hi') },
  { rule: 'R4', name: 'example: prefix [[[ (weight 3) beats [[…]] (weight 4 needs both sides)', given: { content: '[[[hi]', alters: [BRACKETS, DOUBLE, alter(4, ['[[[', ''])] }, expected: tag(4, 'hi]') },
  { rule: 'R4', name: 'example: equal tags on alters 5 and 2 (in that order) go to alter 2', given: { content: '[x]', alters: [alter(5, ['[', ']']), alter(2, ['[', ']'])] }, expected: tag(2, 'x') },
  { rule: 'R4', name: 'example: one alter with prefix [ then suffix ]: the first tag wins', given: { content: '[x]', alters: [alter(1, ['[', ''], ['', ']'])] }, expected: tag(1, 'x]') },
  { rule: 'R4', name: 'example: [[]] blank under [[…]]: […] is never tried, autoproxy sends [[]]', given: { content: '[[]]', alters: [BRACKETS, DOUBLE], scopes: { server: alterMode(1) } }, expected: auto(1, '[[]]') },
  { rule: 'R4', name: 'peer PB: the first alter’s [ does not shadow a later [[', given: { content: '[[hi]]', alters: [alter(1, ['[', '']), alter(2, ['[[', ''])] }, expected: tag(2, 'hi]]') },
  { rule: 'R4', name: 'weight counts prefix plus suffix', given: { content: 'ab:hi:c', alters: [alter(1, ['ab:', '']), alter(2, ['a', 'i:c'])] }, expected: tag(2, 'b:h') },

  // R5.1 Edges
  { rule: 'R5.1', name: 'example: --…-- does not match ---', given: { content: '---', alters: [alter(1, ['--', '--'])], attachment: true }, expected: none() },
  { rule: 'R5.1', name: 'example: ---- matches --…-- and is blank (discarded without attachment)', given: { content: '----', alters: [alter(1, ['--', '--'])] }, expected: none() },
  { rule: 'R5.1', name: 'example: " A: x" does not match A:', given: { content: ' A: x', alters: [alter(1, ['A:', ''])] }, expected: none() },
  { rule: 'R5.1', name: 'example: {x} does not match "{ "…" }"', given: { content: '{x}', alters: [alter(1, ['{ ', ' }'])] }, expected: none() },
  { rule: 'R5.1', name: 'example: A:x does not match "A: "', given: { content: 'A:x', alters: [alter(1, ['A: ', ''])] }, expected: none() },
  { rule: 'R5.1', name: 'whitespace after the suffix counts: T is not trimmed for the regular form', given: { content: '[hi] ', alters: [BRACKETS] }, expected: none() },
  { rule: 'R5.1', name: 'the prefix must be at the very start', given: { content: 'oh [hi]', alters: [BRACKETS] }, expected: none() },
  { rule: 'R5.1', name: 'peer PB: prefix and suffix may not overlap (-…- on -x is no match, suffix-only alter wins)', given: { content: '-x-', alters: [alter(1, ['-x', 'x-']), alter(2, ['', '-'])] }, expected: tag(2, '-x') },

  // R5.2 Literal, per code point
  { rule: 'R5.2', name: 'example: tag .* is literal and does not match hello', given: { content: 'hello', alters: [alter(1, ['.*', ''])] }, expected: none() },
  { rule: 'R5.2', name: 'tag .* matches a literal .*', given: { content: '.*hello', alters: [alter(1, ['.*', ''])] }, expected: tag(1, 'hello') },
  { rule: 'R5.2', name: 'peer: a tag is never a regular expression ([a-z]+)', given: { content: 'abc:hi', alters: [alter(1, ['[a-z]+:', ''])] }, expected: none() },
  { rule: 'R5.2', name: 'case-sensitive by default: A: does not match a:', given: { content: 'a: hi', alters: [alter(1, ['A:', ''])] }, expected: none() },
  { rule: 'R5.2', name: 'case-insensitive: a = A', given: { content: 'A: hi', alters: [alter(1, ['a:', ''])], caseSensitive: false }, expected: tag(1, 'hi') },
  { rule: 'R5.2', name: 'peer PK: a U+200B-only tag does not match every message', given: { content: 'hello', alters: [alter(1, [ZWSP, ''])] }, expected: none() },
  { rule: 'R5.2', name: 'a U+200B tag matches a message that starts with U+200B', given: { content: `${ZWSP}hello`, alters: [alter(1, [ZWSP, ''])] }, expected: tag(1, 'hello') },
  { rule: 'R5.2', name: 'peer PK: U+200B[hi] does not match […]', given: { content: `${ZWSP}[hi]`, alters: [BRACKETS] }, expected: none() },
  { rule: 'R5.2', name: 'peer PK: suffix ✨ cuts the whole trailing ✨️, not only its selector', given: { content: `hi ✨${VS16}`, alters: [alter(1, ['', '✨'])] }, expected: tag(1, 'hi') },
  { rule: 'R5.2', name: 'a surrogate pair is one code point on both sides', given: { content: '😀hi😀', alters: [alter(1, ['😀', '😀'])] }, expected: tag(1, 'hi') },

  // R5.3 Selectors
  { rule: 'R5.3', name: 'example: tag ✨ on ✨️hi sends hi (selector after the prefix goes with it)', given: { content: `✨${VS16}hi`, alters: [alter(1, ['✨', ''])] }, expected: tag(1, 'hi') },
  { rule: 'R5.3', name: 'example: tag ❤️ matches a typed ❤', given: { content: '❤ hi', alters: [alter(1, [`❤${VS16}`, ''])] }, expected: tag(1, 'hi') },
  { rule: 'R5.3', name: 'peer PK #745: ✨️✨️ matches ✨✨ typed without selectors', given: { content: '✨✨hi', alters: [alter(1, [`✨${VS16}`, '']), alter(2, [`✨${VS16}✨${VS16}`, ''])] }, expected: tag(2, 'hi') },
  { rule: 'R5.3', name: 'example (#745): ✨️✨️ matches ✨✨️ typed with one selector', given: { content: `✨✨${VS16}hi`, alters: [alter(1, [`✨${VS16}`, '']), alter(2, [`✨${VS16}✨${VS16}`, ''])] }, expected: tag(2, 'hi') },
  { rule: 'R5.3', name: 'example (#745): ✨️ on a single ✨ typed without selector', given: { content: '✨ hi', alters: [alter(1, [`✨${VS16}`, '']), alter(2, [`✨${VS16}✨${VS16}`, ''])] }, expected: tag(1, 'hi') },
  { rule: 'R5.3', name: 'a selector before the prefix is skipped and goes with it', given: { content: `${VS16}[hi]`, alters: [BRACKETS] }, expected: tag(1, 'hi') },
  { rule: 'R5.3', name: 'a selector after the suffix is skipped and goes with it', given: { content: `[hi]${VS16}`, alters: [BRACKETS] }, expected: tag(1, 'hi') },
  { rule: 'R5.3', name: 'a selector just before the suffix stays with the text', given: { content: `hi${VS16}✨`, alters: [alter(1, ['', '✨'])] }, expected: tag(1, `hi${VS16}`) },
  { rule: 'R5.3', name: 'selectors inside the typed suffix go with it', given: { content: `hi ✨${VS16}✨${VS16}`, alters: [alter(1, ['', '✨✨'])] }, expected: tag(1, 'hi') },
  { rule: 'R5.3', name: 'a text selector U+FE0E is skipped too', given: { content: '❤\ufe0e hi', alters: [alter(1, [`❤${VS16}`, ''])] }, expected: tag(1, 'hi') },
  { rule: 'R5.3', name: 'peer PK #181: content of only U+FE0F is not special (blank under ✨ with attachment)', given: { content: `✨${VS16}`, alters: [alter(1, ['✨', ''])], attachment: true }, expected: tag(1, '') },

  // R5.4 No other normalization
  { rule: 'R5.4', name: 'U+200B inside a tag compares as itself', given: { content: 'a:hi', alters: [alter(1, [`a${ZWSP}:`, ''])] }, expected: none() },
  { rule: 'R5.4', name: 'NBSP is not a space in a tag', given: { content: 'A:\u00a0hi', alters: [alter(1, ['A: ', ''])] }, expected: none() },
  { rule: 'R5.4', name: 'no NFC: é (precomposed) does not match e + U+0301', given: { content: 'e\u0301: hi', alters: [alter(1, ['é:', ''])] }, expected: none() },
  { rule: 'R5.4', name: 'U+200D compares as itself', given: { content: `a\u200d:hi`, alters: [alter(1, ['a:', ''])] }, expected: none() },

  // R5.5 Grapheme boundaries
  { rule: 'R5.5', name: 'example: 👍 does not match 👍🏽 sounds good', given: { content: '👍🏽 sounds good', alters: [alter(1, ['👍', ''])] }, expected: none() },
  { rule: 'R5.5', name: '👍 matches 👍 sounds good', given: { content: '👍 sounds good', alters: [alter(1, ['👍', ''])] }, expected: tag(1, 'sounds good') },
  { rule: 'R5.5', name: 'example: 🏳️ does not match 🏳️‍🌈 pride', given: { content: '🏳️‍🌈 pride', alters: [alter(1, ['🏳️', ''])] }, expected: none() },
  { rule: 'R5.5', name: 'example: a 🏳️‍🌈 tag matches 🏳️‍🌈 pride', given: { content: '🏳️‍🌈 pride', alters: [alter(1, ['🏳️‍🌈', ''])] }, expected: tag(1, 'pride') },
  { rule: 'R5.5', name: 'the suffix start too: suffix 🏽 does not cut 👍🏽', given: { content: 'ok 👍🏽', alters: [alter(1, ['', '🏽'])] }, expected: none() },
  { rule: 'R5.5', name: 'a refused pair does not match; the next pair is tried', given: { content: '👍🏽 sounds good', alters: [alter(1, ['👍', '']), alter(2, ['', ' good'])] }, expected: tag(2, '👍🏽 sounds') },
  { rule: 'R5.5', name: 'a combining mark after the prefix is part of its last letter', given: { content: 'A:\u0301 hi', alters: [alter(1, ['A:', ''])] }, expected: none() },
  { rule: 'R5.5', name: 'a regional-indicator flag is not split', given: { content: '🇫🇷🇩🇪 hi', alters: [alter(1, ['🇫', ''])] }, expected: none() },
  { rule: 'R5.5', name: 'CR LF is one grapheme: prefix ending in CR does not split it', given: { content: 'a:\r\nhi', alters: [alter(1, ['a:\r', ''])] }, expected: none() },

  // R5.6 Discord markup
  { rule: 'R5.6', name: 'example: <…> on <hi> sends hi', given: { content: '<hi>', alters: [ANGLES] }, expected: tag(1, 'hi') },
  { rule: 'R5.6', name: 'example: <…> does not match <@123>', given: { content: '<@123>', alters: [ANGLES], attachment: true }, expected: none() },
  { rule: 'R5.6', name: "example: <…> does not match <@123> what's up>", given: { content: "<@123> what's up>", alters: [ANGLES] }, expected: none() },
  { rule: 'R5.6', name: 'example: <<@123> hi> sends <@123> hi', given: { content: '<<@123> hi>', alters: [ANGLES] }, expected: tag(1, '<@123> hi') },
  { rule: 'R5.6', name: 'example: <:wave:123> hi> refuses <…> and goes to suffix >', given: { content: '<:wave:123> hi>', alters: [ANGLES, alter(2, ['', '>'])] }, expected: tag(2, '<:wave:123> hi') },
  { rule: 'R5.6', name: 'example: suffix > does not cut a timestamp', given: { content: 'see you <t:1700000000:R>', alters: [alter(2, ['', '>'])] }, expected: none() },
  { rule: 'R5.6', name: 'example: suffix > does not cut a slash-command mention', given: { content: 'try </help:123>', alters: [alter(2, ['', '>'])] }, expected: none() },
  { rule: 'R5.6', name: 'example: a prefix covering a whole custom emoji is fine', given: { content: '<:wave:123> hi', alters: [alter(1, ['<:wave:123>', ''])] }, expected: tag(1, 'hi') },
  { rule: 'R5.6', name: 'peer PK #37/#370: <…> does not eat a mention inside the text', given: { content: '<@123> and <@&9>', alters: [alter(1, ['<', '']), alter(2, ['', '>'])] }, expected: none() },
  { rule: 'R5.6', name: 'peer PK #165: prefix < does not cut an animated emoji', given: { content: '<a:dance:42> party', alters: [alter(1, ['<', ''])] }, expected: none() },
  { rule: 'R5.6', name: 'a negative timestamp and a short one are tokens', given: { content: 'when <t:-5> and <t:7>', alters: [alter(1, ['', '>'])] }, expected: none() },
  { rule: 'R5.6', name: 'a timestamp with an unknown style is plain text', given: { content: 'at <t:7:X>', alters: [alter(1, ['', '>'])] }, expected: tag(1, 'at <t:7:X') },
  { rule: 'R5.6', name: 'a channel mention inside the text is protected from suffix >', given: { content: 'go <#55>', alters: [alter(1, ['', '>'])] }, expected: none() },
  { rule: 'R5.6', name: 'a slash command with a subcommand and space is one token', given: { content: 'use </tag add:123>', alters: [alter(1, ['', 'add:123>'])] }, expected: none() },
  { rule: 'R5.6', name: 'a prefix cutting a timestamp is refused', given: { content: '<t:1:R> x', alters: [alter(1, ['<t', ''])] }, expected: none() },

  // R5.7 Tag-only form
  { rule: 'R5.7', name: 'example: {} matches "{ "…" }" (image-only with attachment)', given: { content: '{}', alters: [alter(1, ['{ ', ' }'])], attachment: true }, expected: tag(1, '') },
  { rule: 'R5.7', name: 'example: { } matches "{ "…" }" (PK misses it)', given: { content: '{ }', alters: [alter(1, ['{ ', ' }'])], attachment: true }, expected: tag(1, '') },
  { rule: 'R5.7', name: 'example: A: matches "A: "', given: { content: 'A:', alters: [alter(1, ['A: ', ''])], attachment: true }, expected: tag(1, '') },
  { rule: 'R5.7', name: 'example: -b matches suffix " -b"', given: { content: '-b', alters: [DASH_B], attachment: true }, expected: tag(2, '') },
  { rule: 'R5.7', name: 'example: - does not match -…-', given: { content: '-', alters: [alter(1, ['-', '-'])], attachment: true }, expected: none() },
  { rule: 'R5.7', name: 'example: a tag-only match without attachment is discarded (R8)', given: { content: '{ }', alters: [alter(1, ['{ ', ' }'])] }, expected: none() },
  { rule: 'R5.7', name: 'a tag-only match decides: the lighter suffix : is never tried', given: { content: 'A:', alters: [alter(1, ['A: ', '']), alter(2, ['', ':'])] }, expected: none() },
  { rule: 'R5.7', name: 'a tag-only match decides even with attachment', given: { content: 'A:', alters: [alter(1, ['A: ', '']), alter(2, ['', ':'])], attachment: true }, expected: tag(1, '') },
  { rule: 'R5.7', name: 'example: <@1> {} keeps the mention as content', given: { content: '<@1> {}', alters: [alter(1, ['{ ', ' }'])] }, expected: tag(1, '<@1>') },
  { rule: 'R5.7', name: 'the tag-only form applies to trimmed T', given: { content: '{ }  ', alters: [alter(1, ['{ ', ' }'])], attachment: true }, expected: tag(1, '') },
  { rule: 'R5.7', name: 'edge whitespace around a plain tag-only message is trimmed first', given: { content: ' []  ', alters: [BRACKETS], attachment: true }, expected: tag(1, '') },
  { rule: 'R5.7', name: 'tag-only form with keep-proxy sends the typed tag', given: { content: '{}', alters: [alter(1, ['{ ', ' }'])], attachment: true, keepProxy: true }, expected: tag(1, '{}') },
  { rule: 'R5.7', name: 'an all-whitespace tag has an empty tag-only form: it matches a blank message', given: { content: '', alters: [alter(1, ['  ', ''])], attachment: true, scopes: { server: alterMode(1) } }, expected: tag(1, '') },
  { rule: 'R5.7', name: 'the tag-only form needs only whitespace between the tag sides', given: { content: '{ x }', alters: [alter(9, ['{  ', '  }'])] }, expected: none() },

  // R6. Leading mentions
  { rule: 'R6', name: 'example: <@123> [hi]', given: { content: '<@123> [hi]', alters: [BRACKETS] }, expected: tag(1, '<@123> hi') },
  { rule: 'R6', name: 'example: <@123>[hi] (no whitespace)', given: { content: '<@123>[hi]', alters: [BRACKETS] }, expected: tag(1, '<@123> hi') },
  { rule: 'R6', name: 'example: <@123> followed by two spaces', given: { content: '<@123>  [hi]', alters: [BRACKETS] }, expected: tag(1, '<@123> hi') },
  { rule: 'R6', name: 'example: user, role and channel mentions then a newline', given: { content: '<@1> <@&2>  <#3>\n[hi]', alters: [BRACKETS] }, expected: tag(1, '<@1> <@&2>  <#3> hi') },
  { rule: 'R6', name: 'example: a mention inside the tags stays inside', given: { content: '[hi <@123>]', alters: [BRACKETS] }, expected: tag(1, 'hi <@123>') },
  { rule: 'R6', name: 'a nickname mention <@!id> belongs to the block', given: { content: '<@!42>[hi]', alters: [BRACKETS] }, expected: tag(1, '<@!42> hi') },
  { rule: 'R6', name: 'without a matching tag the block changes nothing: autoproxy sends all', given: { content: '<@1> hello', alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: auto(1, '<@1> hello') },
  { rule: 'R6', name: 'a custom emoji does not start a mention block', given: { content: '<:wave:1> [hi]', alters: [BRACKETS] }, expected: none() },
  { rule: 'R6', name: 'peer PK: two user mentions before the tag', given: { content: '<@1> <@2> [x]', alters: [BRACKETS] }, expected: tag(1, '<@1> <@2> x') },
  { rule: 'R6', name: 'peer PK: a role mention before the tag', given: { content: '<@&7> [x]', alters: [BRACKETS] }, expected: tag(1, '<@&7> x') },
  { rule: 'R6', name: 'peer PK: a channel mention before the tag', given: { content: '<#7> [x]', alters: [BRACKETS] }, expected: tag(1, '<#7> x') },
  { rule: 'R6', name: 'escapes count only at the raw start: <@1> \\\\hi is autoproxied', given: { content: '<@1> \\\\hi', alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: latched(1, '<@1> \\\\hi') },
  { rule: 'R6', name: 'peer PB: mention-prefixed suffix tags match too', given: { content: '<@5> hi -b', alters: [DASH_B] }, expected: tag(2, '<@5> hi') },

  // R7. Content sent
  { rule: 'R7', name: 'example: inner text trimmed', given: { content: '[  hello  ]', alters: [BRACKETS] }, expected: tag(1, 'hello') },
  { rule: 'R7', name: 'example: keep-proxy sends the original', given: { content: '[  hello  ]', alters: [BRACKETS], keepProxy: true }, expected: tag(1, '[  hello  ]') },
  { rule: 'R7', name: 'example: $-sequences are sent unchanged', given: { content: '[a $& b $1 $$]', alters: [BRACKETS] }, expected: tag(1, 'a $& b $1 $$') },
  { rule: 'R7', name: "example: $` and $' are sent unchanged too", given: { content: "<@1> [$` x $']", alters: [BRACKETS] }, expected: tag(1, "<@1> $` x $'") },
  { rule: 'R7', name: 'example: A: then newlines', given: { content: 'A:\none\ntwo', alters: [alter(1, ['A:', ''])] }, expected: tag(1, 'one\ntwo') },
  { rule: 'R7', name: 'markdown: a spoiler around the tags does not match', given: { content: '||[x]||', alters: [BRACKETS] }, expected: none() },
  { rule: 'R7', name: 'markdown: a code fence around the tags does not match', given: { content: '```\n[x]\n```', alters: [BRACKETS] }, expected: none() },
  { rule: 'R7', name: 'markdown: a quote line before the tag does not match', given: { content: '> quoted\n[x]', alters: [BRACKETS] }, expected: none() },
  { rule: 'R7', name: 'markdown inside is sent unchanged', given: { content: '[```js\nx ||y||\n```]', alters: [BRACKETS] }, expected: tag(1, '```js\nx ||y||\n```') },
  { rule: 'R7', name: 'autoproxy sends the original content trimmed', given: { content: '  hello\n ', alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: auto(1, 'hello') },

  // R8. Blank content and attachments
  { rule: 'R8', name: 'example: [] under a latch on alter 2 is latch-proxied as [] (latch refreshed)', given: { content: '[]', alters: [BRACKETS, DASH_B], scopes: { server: latchMode(2) } }, expected: latched(2, '[]') },
  { rule: 'R8', name: 'example: [] with attachment is image-only', given: { content: '[]', alters: [BRACKETS], attachment: true }, expected: tag(1, '') },
  { rule: 'R8', name: 'example: [   ] with attachment is image-only', given: { content: '[   ]', alters: [BRACKETS], attachment: true }, expected: tag(1, '') },
  { rule: 'R8', name: 'example: ---- under --…-- with attachment is image-only', given: { content: '----', alters: [alter(1, ['--', '--'])], attachment: true }, expected: tag(1, '') },
  { rule: 'R8', name: 'example: [   ] with attachment and keep-proxy sends the typed text', given: { content: '[   ]', alters: [BRACKETS], attachment: true, keepProxy: true }, expected: tag(1, '[   ]') },
  { rule: 'R8', name: 'blank tag match with keep-proxy and no attachment is still discarded', given: { content: '[]', alters: [BRACKETS], keepProxy: true }, expected: none() },
  { rule: 'R8', name: 'blank content without attachment is not autoproxied', given: { content: ' \n ', alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: none() },
  { rule: 'R8', name: 'empty content with attachment is autoproxied empty', given: { content: '', alters: [BRACKETS], scopes: { server: alterMode(1) }, attachment: true }, expected: auto(1, '') },
  { rule: 'R8', name: 'example: <@id> [] is not blank: it proxies the ping', given: { content: '<@99> []', alters: [BRACKETS] }, expected: tag(1, '<@99>') },
  { rule: 'R8', name: 'peer PB: a blank tag match is never sent empty; autoproxy takes the message', given: { content: '[ ]', alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: auto(1, '[ ]') },
  { rule: 'R8', name: 'a discarded match under level 1 is not autoproxied (R2 step 5)', given: { content: '\\', alters: [alter(1, ['\\', ''])], scopes: { server: alterMode(1) } }, expected: none() },

  // R9. Length
  { rule: 'R9', name: 'example: [ + 1999 x + ] is proxied (1999)', given: { content: `[${'x'.repeat(1999)}]`, alters: [BRACKETS] }, expected: tag(1, 'x'.repeat(1999)) },
  { rule: 'R9', name: 'example: the same with keep-proxy is too long', given: { content: `[${'x'.repeat(1999)}]`, alters: [BRACKETS], keepProxy: true }, expected: tooLong },
  { rule: 'R9', name: 'example: 1500 emoji (3000 UTF-16 units) autoproxied', given: { content: '😀'.repeat(1500), alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: auto(1, '😀'.repeat(1500)) },
  { rule: 'R9', name: 'exactly 2000 code points is allowed', given: { content: 'x'.repeat(2000), alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: auto(1, 'x'.repeat(2000)) },
  { rule: 'R9', name: '2001 code points autoproxied is too long, state null', given: { content: 'x'.repeat(2001), alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: tooLong },
  { rule: 'R9', name: 'example: a too-long tag proxy in latch mode leaves the latch alone', given: { content: `[${'x'.repeat(2001)}]`, alters: [BRACKETS], scopes: { server: latchMode(2) } }, expected: tooLong },
  { rule: 'R9', name: 'peer PK #354: a 2001-character message whose content sent is 1999', given: { content: `<@1> [${'x'.repeat(1994)}]`, alters: [BRACKETS] }, expected: tag(1, `<@1> ${'x'.repeat(1994)}`) },
  { rule: 'R9', name: 'edge whitespace does not count (trimmed before counting)', given: { content: `[  ${'x'.repeat(2000)}  ]`, alters: [BRACKETS] }, expected: tag(1, 'x'.repeat(2000)) },

  // R10. Autoproxy
  { rule: 'R10', name: 'example: channel off over server alter: not proxied', given: { content: 'hello', alters: [BRACKETS], scopes: { channel: OFF, server: alterMode(1) } }, expected: none() },
  { rule: 'R10', name: 'example: latch exactly at the expiry limit is valid and refreshed', given: { content: 'hello', alters: [BRACKETS], scopes: { server: latchMode(1, NOW - 60_000) }, latchExpirationMs: 60_000 }, expected: latched(1, 'hello') },
  { rule: 'R10', name: 'example: latch 1 ms past the limit is cleared', given: { content: 'hello', alters: [BRACKETS], scopes: { server: latchMode(1, NOW - 60_001) }, latchExpirationMs: 60_000 }, expected: none(clearLatch('server')) },
  { rule: 'R10', name: 'latchExpirationMs 0: the latch never expires', given: { content: 'hello', alters: [BRACKETS], scopes: { global: latchMode(1, 0) } }, expected: latched(1, 'hello', 'global') },
  { rule: 'R10', name: 'alter mode on a missing alter: no proxy, setting left alone', given: { content: 'hello', alters: [BRACKETS], scopes: { server: alterMode(9) } }, expected: none() },
  { rule: 'R10', name: 'alter mode without alterId: no proxy', given: { content: 'hello', alters: [BRACKETS], scopes: { server: { mode: 'alter' } } }, expected: none() },
  { rule: 'R10', name: 'front mode proxies as the front', given: { content: 'hello', alters: [BRACKETS, DASH_B], scopes: { server: FRONT }, front: 2 }, expected: fronted(2, 'hello') },
  { rule: 'R10', name: 'front mode with no front: no proxy', given: { content: 'hello', alters: [BRACKETS], scopes: { server: FRONT }, front: null }, expected: none() },
  { rule: 'R10', name: 'front mode with a front not in alters: no proxy', given: { content: 'hello', alters: [BRACKETS], scopes: { server: FRONT }, front: 8 }, expected: none() },
  { rule: 'R10', name: 'latch mode without a latch: no proxy, nothing changes', given: { content: 'hello', alters: [BRACKETS], scopes: { server: latchMode(null) } }, expected: none() },
  { rule: 'R10', name: 'latch mode with latch undefined: no proxy', given: { content: 'hello', alters: [BRACKETS], scopes: { server: { mode: 'latch' } } }, expected: none() },
  { rule: 'R10', name: 'a latch on a missing alter is cleared', given: { content: 'hello', alters: [BRACKETS], scopes: { channel: latchMode(7) } }, expected: none(clearLatch('channel')) },
  { rule: 'R10', name: 'order: a stale latch is cleared even for blank content', given: { content: '  ', alters: [BRACKETS], scopes: { server: latchMode(1, NOW - 5000) }, latchExpirationMs: 1000 }, expected: none(clearLatch('server')) },
  { rule: 'R10', name: 'order: blank content with a valid latch changes nothing', given: { content: '', alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: none() },
  { rule: 'R10', name: 'order: an attachment-only message is latch-proxied', given: { content: '', alters: [BRACKETS], scopes: { server: latchMode(1) }, attachment: true }, expected: latched(1, '') },
  { rule: 'R10', name: 'server entry beats global', given: { content: 'hello', alters: [BRACKETS, DASH_B], scopes: { server: alterMode(2), global: alterMode(1) } }, expected: auto(2, 'hello') },
  { rule: 'R10', name: 'global entry applies alone', given: { content: 'hello', alters: [BRACKETS, DASH_B], scopes: { global: alterMode(2) } }, expected: auto(2, 'hello') },
  { rule: 'R10', name: 'channel alter entry beats a server latch', given: { content: 'hello', alters: [BRACKETS, DASH_B], scopes: { channel: alterMode(2), server: latchMode(1) } }, expected: auto(2, 'hello') },
  // Issue 27: an alter left out of autoproxy (PluralKit's per-member autoproxy off).
  { rule: 'R10', name: 'front mode: a front left out of autoproxy is not proxied', given: { content: 'hello', alters: [BRACKETS, NO_AUTO], scopes: { server: FRONT }, front: 5 }, expected: none() },
  { rule: 'R10', name: 'latch mode: a latch on an alter left out of autoproxy proxies nothing and stays', given: { content: 'hello', alters: [BRACKETS, NO_AUTO], scopes: { server: latchMode(5) } }, expected: none() },
  { rule: 'R10', name: 'latch mode: an expired latch on an alter left out is still cleared', given: { content: 'hello', alters: [NO_AUTO], scopes: { server: latchMode(5, NOW - 5000) }, latchExpirationMs: 1000 }, expected: none(clearLatch('server')) },
  { rule: 'R10', name: 'alter mode still sends as an alter left out of autoproxy (it is named outright)', given: { content: 'hello', alters: [NO_AUTO], scopes: { server: alterMode(5) } }, expected: auto(5, 'hello') },
  { rule: 'R10', name: 'an alter left out of autoproxy still proxies by its tag, and the latch follows it', given: { content: 'n: hi', alters: [BRACKETS, NO_AUTO], scopes: { server: latchMode(1) } }, expected: tag(5, 'hi', setLatch('server', 5)) },
  { rule: 'R10', name: 'autoproxy: true is the same as leaving it out', given: { content: 'hello', alters: [{ ...BRACKETS, autoproxy: true }], scopes: { server: FRONT }, front: 1 }, expected: fronted(1, 'hello') },
  { rule: 'R10', name: 'an alter without tags can be autoproxied', given: { content: 'hello', alters: [alter(4)], scopes: { server: alterMode(4) } }, expected: auto(4, 'hello') },

  // R11. Latch updates
  { rule: 'R11', name: 'example: a tag proxy under a channel latch entry with no latch sets it', given: { content: '[hi]', alters: [BRACKETS], scopes: { channel: latchMode(null), server: latchMode(2) } }, expected: tag(1, 'hi', setLatch('channel', 1)) },
  { rule: 'R11', name: 'example: channel alter entry over a server latch: state null', given: { content: '[hi]', alters: [BRACKETS, DASH_B], scopes: { channel: alterMode(2), server: latchMode(2) } }, expected: tag(1, 'hi') },
  { rule: 'R11', name: 'a tag proxy sets an expired latch anew', given: { content: '[hi]', alters: [BRACKETS, DASH_B], scopes: { server: latchMode(2, 0) }, latchExpirationMs: 1000 }, expected: tag(1, 'hi', setLatch('server', 1)) },
  { rule: 'R11', name: 'a latch proxy refreshes the latch', given: { content: 'hello', alters: [BRACKETS, DASH_B], scopes: { server: latchMode(2, NOW - 10) } }, expected: latched(2, 'hello') },
  { rule: 'R11', name: 'front mode never gets latch changes', given: { content: '[hi]', alters: [BRACKETS], scopes: { server: FRONT }, front: 1 }, expected: tag(1, 'hi') },
  { rule: 'R11', name: 'peer PB: a global latch moves on use', given: { content: 'hello', alters: [BRACKETS], scopes: { global: latchMode(1, NOW - 5000) } }, expected: latched(1, 'hello', 'global') },
  { rule: 'R11', name: 'peer PB: a channel latch moves on a tag proxy', given: { content: 'hi -b', alters: [BRACKETS, DASH_B], scopes: { channel: latchMode(1), server: latchMode(1) } }, expected: tag(2, 'hi', setLatch('channel', 2)) },

  // R12. Escapes
  { rule: 'R12', name: 'level 2 outside latch mode skips autoproxy', given: { content: '\\\\hello', alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: none() },
  { rule: 'R12', name: 'level 2 in latch mode clears a latch', given: { content: '\\\\hello', alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: none(clearLatch('server')) },
  { rule: 'R12', name: 'level 2 in latch mode with no latch changes nothing', given: { content: '\\\\', alters: [BRACKETS], scopes: { server: latchMode(null) } }, expected: none() },
  { rule: 'R12', name: 'level 2 in latch mode stops before tags', given: { content: '\\\\hi -b', alters: [DASH_B], scopes: { server: latchMode(2) } }, expected: none(clearLatch('server')) },
  { rule: 'R12', name: 'example: \\ U+200B \\ is level 2', given: { content: `\\${ZWSP}\\hello`, alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: none(clearLatch('server')) },
  { rule: 'R12', name: 'example: \\\\ U+200B \\ is level 3', given: { content: `\\\\${ZWSP}\\hello`, alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: none(turnOff('server')) },
  { rule: 'R12', name: 'example: \\ U+200B U+200B \\ is level 1', given: { content: `\\${ZWSP}${ZWSP}\\hello`, alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: none() },
  { rule: 'R12', name: 'example: \\ U+200B hi is level 1', given: { content: `\\${ZWSP}hi`, alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: none() },
  { rule: 'R12', name: 'example: four backslashes turn off the entry in effect', given: { content: '\\\\\\\\hi', alters: [BRACKETS], scopes: { channel: alterMode(1), server: latchMode(1) } }, expected: none(turnOff('channel')) },
  { rule: 'R12', name: 'level 3 without an entry changes nothing', given: { content: '\\\\\\hi', alters: [BRACKETS] }, expected: none() },
  { rule: 'R12', name: 'level 3 with the entry in effect off changes nothing', given: { content: '\\\\\\hi', alters: [BRACKETS], scopes: { channel: OFF, server: alterMode(1) } }, expected: none() },
  { rule: 'R12', name: 'level 3 turns off a global front entry', given: { content: '\\\\\\', alters: [BRACKETS], scopes: { global: FRONT } }, expected: none(turnOff('global')) },
  { rule: 'R12', name: 'example: level 1 still matches tags: \\hi -b sends \\hi', given: { content: '\\hi -b', alters: [BRACKETS, DASH_B], scopes: { server: alterMode(1) } }, expected: tag(2, '\\hi') },
  { rule: 'R12', name: 'example: a backslash prefix tag works', given: { content: '\\hi', alters: [alter(1, ['\\', ''])], scopes: { server: alterMode(1) } }, expected: tag(1, 'hi') },
  { rule: 'R12', name: 'example: a markdown escape \\[x] does not match and skips autoproxy', given: { content: '\\[x]', alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: none() },
  { rule: 'R12', name: 'example: in latch mode a level-1 tag proxy moves the latch', given: { content: '\\hi -b', alters: [BRACKETS, DASH_B], scopes: { server: latchMode(1) } }, expected: tag(2, '\\hi', setLatch('server', 2)) },
  { rule: 'R12', name: 'level 2 outside latch mode still matches tags', given: { content: '\\\\hi', alters: [alter(1, ['\\\\', ''])], scopes: { server: alterMode(1) } }, expected: tag(1, 'hi') },
  { rule: 'R12', name: 'peer PB: \\ is checked after tags in alter mode', given: { content: '\\[x] -b', alters: [DASH_B], scopes: { server: alterMode(2) } }, expected: tag(2, '\\[x]') },
  { rule: 'R12', name: 'peer PB: \\\\\\ exists and turns off a latch entry', given: { content: '\\\\\\', alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: none(turnOff('server')) },

  // Decisions
  { rule: 'D1', name: 'equal weight: the lowest alter id wins whatever the input order', given: { content: 'a: hi :z', alters: [alter(7, ['a:', '']), alter(3, ['', ':z'])] }, expected: tag(3, 'a: hi') },
  { rule: 'D1', name: 'equal weight, same alter: the earlier tag wins', given: { content: 'ahiz', alters: [alter(4, ['', 'z'], ['a', ''])] }, expected: tag(4, 'ahi') },
  { rule: 'D1', name: 'peer PK: ties are not left to database order', given: { content: '[x]', alters: [alter(9, ['[', ']']), alter(8, ['[', ']']), alter(10, ['[', ']'])] }, expected: tag(8, 'x') },
  { rule: 'D2', name: 'a message of only U+200B is autoproxied as is', given: { content: ZWSP, alters: [BRACKETS], scopes: { server: alterMode(1) } }, expected: auto(1, ZWSP) },
  { rule: 'D2', name: 'U+0085 and U+200B are not trimmed from inner text', given: { content: `[\u0085hi${ZWSP}]`, alters: [BRACKETS] }, expected: tag(1, `\u0085hi${ZWSP}`) },
  { rule: 'D2', name: 'U+3000, NBSP and U+FEFF are trimmed', given: { content: '[\u3000hi\u00a0\ufeff]', alters: [BRACKETS] }, expected: tag(1, 'hi') },
  { rule: 'D3', name: 'é = É case-insensitively (not ASCII-only)', given: { content: 'ÉLA: hi', alters: [alter(1, ['éla:', ''])], caseSensitive: false }, expected: tag(1, 'hi') },
  { rule: 'D3', name: 'peer PK #562: m ≠ Ⓜ case-insensitively', given: { content: 'Ⓜ️ hi', alters: [alter(1, ['m', ''])], caseSensitive: false }, expected: none() },
  { rule: 'D3', name: 'peer PK #562: cl ≠ 🆑 case-insensitively', given: { content: '🆑 hi', alters: [alter(1, ['cl', ''])], caseSensitive: false }, expected: none() },
  { rule: 'D3', name: 'İ lowercases to two code points and equals only itself', given: { content: 'i: hi', alters: [alter(1, ['İ:', ''])], caseSensitive: false }, expected: none() },
  { rule: 'D3', name: 'İ matches İ case-insensitively', given: { content: 'İ: hi', alters: [alter(1, ['İ:', ''])], caseSensitive: false }, expected: tag(1, 'hi') },
  { rule: 'D3', name: 'KELVIN SIGN lowercases to k, so it equals K', given: { content: '\u212a: hi', alters: [alter(1, ['K:', ''])], caseSensitive: false }, expected: tag(1, 'hi') },
  { rule: 'D3', name: 'case-sensitive compares code points exactly', given: { content: 'é: hi', alters: [alter(1, ['É:', ''])] }, expected: none() },
  { rule: 'D4', name: 'a right-to-left mark before a tag means no match', given: { content: '\u200f[hi]', alters: [BRACKETS] }, expected: none() },
  { rule: 'D5', name: 'no cutting inside a grapheme (👍 vs 👍🏽)', given: { content: '👍🏽hi', alters: [alter(1, ['👍', ''])] }, expected: none() },
  { rule: 'D6', name: 'lone ✨️ under tag ✨ with attachment is image-only', given: { content: `✨${VS16}`, alters: [alter(1, ['', '✨'])], attachment: true }, expected: tag(1, '') },
  { rule: 'D6', name: 'lone ✨️ under tag ✨ without attachment is discarded, then autoproxied', given: { content: `✨${VS16}`, alters: [alter(1, ['✨', '']), DASH_B], scopes: { server: alterMode(2) } }, expected: auto(2, `✨${VS16}`) },
  { rule: 'D6', name: 'lone ✨️ with attachment and keep-proxy sends ✨️', given: { content: `✨${VS16}`, alters: [alter(1, ['✨', ''])], attachment: true, keepProxy: true }, expected: tag(1, `✨${VS16}`) },
  { rule: 'D7', name: 'several mentions with mixed whitespace are re-emitted as typed', given: { content: '<@1><#2>\t<@&3>\n\n[hi]', alters: [BRACKETS] }, expected: tag(1, '<@1><#2>\t<@&3> hi') },
  { rule: 'D8', name: 'peer PK: keep-proxy is not rebuilt from the stored tag (the typed case stays)', given: { content: 'JOHN: hi', alters: [alter(1, ['John:', ''])], caseSensitive: false, keepProxy: true }, expected: tag(1, 'JOHN: hi') },
  { rule: 'D8', name: 'peer PK: keep-proxy keeps a leading mention in front, not inside the tags', given: { content: '<@1> [hi]', alters: [BRACKETS], keepProxy: true }, expected: tag(1, '<@1> [hi]') },
  { rule: 'D8', name: 'peer PK: keep-proxy does not wrap autoproxied messages', given: { content: 'hello', alters: [BRACKETS], keepProxy: true, scopes: { server: alterMode(1) } }, expected: auto(1, 'hello') },
  { rule: 'D9', name: 'timestamps are protected for every tag (prefix <t:1)', given: { content: '<t:1:R>', alters: [alter(1, ['<t:1', ''])], attachment: true }, expected: none() },
  { rule: 'D10', name: 'length is counted in code points of the content sent', given: { content: `[${'😀'.repeat(2000)}]`, alters: [BRACKETS] }, expected: tag(1, '😀'.repeat(2000)) },
  { rule: 'D10', name: '2001 emoji sent is too long', given: { content: `[${'😀'.repeat(2001)}]`, alters: [BRACKETS] }, expected: tooLong },
  { rule: 'D11', name: 'an expired latch is cleared when found', given: { content: 'hi', alters: [BRACKETS], scopes: { channel: latchMode(1, NOW - 2) }, latchExpirationMs: 1 }, expected: none(clearLatch('channel')) },
  { rule: 'D11', name: 'a proxy refused for length does not move the latch', given: { content: 'y'.repeat(2001), alters: [BRACKETS], scopes: { server: latchMode(1) } }, expected: tooLong },
  { rule: 'D12', name: '\\\\\\ turns off the entry in effect, whatever its scope', given: { content: '\\\\\\', alters: [BRACKETS], scopes: { channel: latchMode(1) } }, expected: none(turnOff('channel')) },
  { rule: 'D13', name: 'a shadowed server latch is never touched by a tag proxy', given: { content: '[hi]', alters: [BRACKETS], scopes: { channel: alterMode(1), server: latchMode(1, 0) }, latchExpirationMs: 1 }, expected: tag(1, 'hi') },
  { rule: 'D13', name: 'level 2 under a channel alter entry leaves a server latch alone', given: { content: '\\\\hi', alters: [BRACKETS], scopes: { channel: alterMode(1), server: latchMode(1) } }, expected: none() },
  { rule: 'D14', name: 'peer PK: ✨️ weighs 1 and ✨✨ weighs 2, so they do not tie', given: { content: '✨✨ hi', alters: [alter(1, [`✨${VS16}`, '']), alter(2, ['✨✨', ''])] }, expected: tag(2, 'hi') },
  { rule: 'D14', name: 'a surrogate pair weighs 1, tying with one ASCII character', given: { content: '😀hi!', alters: [alter(1, ['', '!']), alter(2, ['😀', ''])] }, expected: tag(1, '😀hi') },
  { rule: 'D14', name: 'whitespace in a tag counts toward weight', given: { content: 'a: hi', alters: [alter(1, ['a:', '']), alter(2, ['a: ', ''])] }, expected: tag(2, 'hi') },
];

describe('decideProxy: the rules', () => {
  it.each(cases)('$rule: $name', ({ given, expected }) => {
    const input = build(given);
    expect(decideProxy(input)).toStrictEqual(expected);
    expect(decideProxyCompiled(compileSystem(input.system), input)).toStrictEqual(expected);
  });

  it('covers every rule R2–R12 and decision D1–D14', () => {
    const covered = new Set(cases.map((c) => c.rule.split('.')[0]));
    for (const n of [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) expect(covered, `R${n}`).toContain(`R${n}`);
    for (let n = 1; n <= 14; n++) expect(covered, `D${n}`).toContain(`D${n}`);
  });
});

describe('Terms and R12 helpers', () => {
  it('Terms: whitespace is exactly what String.prototype.trim removes', () => {
    for (let unit = 0; unit <= 0xffff; unit++) {
      const char = String.fromCharCode(unit);
      expect(isWhitespace(unit), unit.toString(16)).toBe(char.trim() === '');
    }
  });

  it.each([
    ['\\\\', 2],
    [`\\${ZWSP}\\`, 2],
    [`\\\\${ZWSP}\\`, 3],
    [`\\${ZWSP}${ZWSP}\\`, 1],
    [`\\${ZWSP}hi`, 1],
    ['\\\\\\\\', 3],
    ['hi\\\\', 0],
    [`${ZWSP}\\\\`, 0],
  ])('R12: escape level of %j is %i', (content, level) => {
    expect(escapeLevel(content)).toBe(level);
  });
});

describe('decideProxy: the compiled system cache', () => {
  it('recompiles when the caller edits the system object between calls (R1: pure)', () => {
    const input = build({ content: '[hi]', alters: [BRACKETS] });
    expect(decideProxy(input)).toStrictEqual(tag(1, 'hi'));
    input.system.alters = [alter(2, ['[', ']'])];
    expect(decideProxy(input)).toStrictEqual(tag(2, 'hi'));
    const first = input.system.alters[0] as ProxyAlter;
    first.proxyTags[0] = { prefix: '{', suffix: '}' };
    expect(decideProxy(input)).toStrictEqual(none());
    input.system.keepProxy = true;
    input.message.content = '{hi}';
    expect(decideProxy(input)).toStrictEqual(tag(2, '{hi}'));
  });

  it('a compiled system ignores input.system', () => {
    const compiled = compileSystem({ alters: [BRACKETS], caseSensitive: true, keepProxy: false });
    const input = build({ content: '[hi]', alters: [DASH_B] });
    expect(decideProxyCompiled(compiled, input)).toStrictEqual(tag(1, 'hi'));
  });

  it('a system of 1,000 alters × 3 tags decides by index', () => {
    const alters = Array.from({ length: 1000 }, (_, i) => alter(i + 1, [`a${i + 1}:`, ''], ['', ` -a${i + 1}`], [`{${i + 1}`, '}']));
    const compiled = compileSystem({ alters, caseSensitive: false, keepProxy: false });
    const at = (content: string) => decideProxyCompiled(compiled, build({ content }));
    expect(at('A7: hi')).toStrictEqual(tag(7, 'hi'));
    expect(at('a700: hi')).toStrictEqual(tag(700, 'hi'));
    expect(at('hi -a999')).toStrictEqual(tag(999, 'hi'));
    expect(at('{42 hi}')).toStrictEqual(tag(42, 'hi'));
    expect(at('{42}')).toStrictEqual(none());
    expect(at('and then')).toStrictEqual(none());
  });
});
