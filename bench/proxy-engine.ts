// The proxy engine's throughput on a large system (1,000 alters × 3 tags) against a naive engine
// that tries every tag in weight order. Both run the same mixed message set in the same process,
// so the ratio holds on a noisy machine. Alone: `node --import tsx bench/proxy-engine.ts [--quick]`.
import { pathToFileURL } from 'node:url';
import { compileSystem, decideProxyCompiled, type DecisionInput, type Entry, type ProxyAlter, type ProxySystem } from '../src/domain/proxy/index.js';

export interface ProxyEngineBench {
  compiledPerSecond: number;
  naivePerSecond: number;
  microsPerDecision: number;
}

const ALTERS = 1000;
const NOW = 1_700_000_000_000;
const BRACKETS: [string, string][] = [
  ['[', ']'],
  ['{', '}'],
  ['(', ')'],
  ['«', '»'],
  ['<', '>'],
];

// Tags like users write them: `a1:` prefixes, ` -a1` suffixes, bracket pairs, some emoji.
function buildSystem(): ProxySystem {
  const alters: ProxyAlter[] = [];
  for (let id = 1; id <= ALTERS; id++) {
    const [open, close] = BRACKETS[id % BRACKETS.length] as [string, string];
    const third = id % 7 === 0 ? { prefix: `🌙${id}`, suffix: '✨️' } : { prefix: `${open}${id}|`, suffix: close };
    alters.push({ id, name: `alter ${id}`, proxyTags: [{ prefix: `a${id}:`, suffix: '' }, { prefix: '', suffix: ` -a${id}` }, third] });
  }
  return { alters, caseSensitive: false, keepProxy: false };
}

// A fixed pseudo-random sequence, so every run measures the same messages.
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

const LOREM = 'and then we went to the store, which was closed, so we came back home and made tea instead. ';

function buildMessages(): DecisionInput[] {
  const random = lcg(7);
  const pick = () => 1 + Math.floor(random() * ALTERS);
  const entries: ({ channel?: Entry; server?: Entry; global?: Entry })[] = [
    {},
    { server: { mode: 'alter', alterId: 12 } },
    { channel: { mode: 'latch', latch: { alterId: 40, at: NOW - 1000 } } },
    { global: { mode: 'front' } },
    { channel: { mode: 'off' }, server: { mode: 'alter', alterId: 3 } },
  ];
  const texts: string[] = [];
  for (let i = 0; i < 40; i++) {
    const id = pick();
    const [open, close] = BRACKETS[id % BRACKETS.length] as [string, string];
    texts.push(
      `a${id}: hello there, how is everyone doing?`,
      `A${id}: shouting the tag in capitals`,
      `some text with a suffix tag -a${id}`,
      id % 7 === 0 ? `🌙${id} good night ✨` : `${open}${id}| inside brackets ${close}`,
      LOREM.slice(0, 20 + (i % 60)),
      `<@123456789012345678> a${id}: replying with a ping`,
      `<@123456789012345678> <#987654321098765432> just mentions, no tag`,
      i % 3 === 0 ? `\\a${id}: escaped once` : i % 3 === 1 ? '\\\\ unlatch' : '\\\\\\',
      `[${id}| see <t:1700000000:R> and <:wave:123> ]`,
      i % 2 === 0 ? LOREM.repeat(16) : `a${id}: ${'x'.repeat(2100)}`,
      `👍🏽 sounds good`,
      `[${id}|]`,
    );
  }
  return texts.map((content, i) => ({
    message: { content, hasAttachment: i % 11 === 0 },
    autoproxy: { scopes: entries[i % entries.length] as DecisionInput['autoproxy']['scopes'], latchExpirationMs: 3_600_000, front: 5 },
    now: NOW,
  }));
}

type NaivePair = { alterId: number; prefix: string; suffix: string; lowerPrefix: string; lowerSuffix: string };

/**
 * The baseline: every tag in weight order, each checked with startsWith / endsWith on the content
 * (lowercased once per message, as the system is case-insensitive). It skips what the engine does
 * on top (selectors, graphemes, tokens, mentions, tag-only form), so it flatters the baseline.
 */
function naiveEngine(system: ProxySystem): (input: DecisionInput) => number {
  const pairs: NaivePair[] = [];
  for (const alter of system.alters)
    for (const { prefix, suffix } of alter.proxyTags) {
      if (prefix + suffix === '') continue;
      pairs.push({ alterId: alter.id, prefix, suffix, lowerPrefix: prefix.toLowerCase(), lowerSuffix: suffix.toLowerCase() });
    }
  pairs.sort((a, b) => b.prefix.length + b.suffix.length - (a.prefix.length + a.suffix.length) || a.alterId - b.alterId);
  const alterIds = new Set(system.alters.map((a) => a.id));
  return (input) => {
    const content = input.message.content;
    const lower = content.toLowerCase();
    for (const pair of pairs) {
      if (lower.length < pair.lowerPrefix.length + pair.lowerSuffix.length) continue;
      if (!lower.startsWith(pair.lowerPrefix) || !lower.endsWith(pair.lowerSuffix)) continue;
      const inner = content.slice(pair.prefix.length, content.length - pair.suffix.length).trim();
      if (inner !== '' || input.message.hasAttachment) return inner.length <= 2000 ? pair.alterId : -1;
    }
    const { channel, server, global } = input.autoproxy.scopes;
    const entry = channel ?? server ?? global;
    if (content.startsWith('\\') || !entry) return 0;
    const id = entry.mode === 'alter' ? entry.alterId : entry.mode === 'latch' ? entry.latch?.alterId : entry.mode === 'front' ? (input.autoproxy.front ?? undefined) : undefined;
    return id !== undefined && alterIds.has(id) ? id : 0;
  };
}

/** Decisions per second over the message set, cycling, for `seconds` after a warm-up. */
function measure(decide: (input: DecisionInput) => unknown, messages: DecisionInput[], seconds: number): number {
  let sink = 0;
  const run = (limitMs: number) => {
    const start = performance.now();
    let count = 0;
    let elapsed = 0;
    do {
      for (let k = 0; k < 64; k++) {
        if (decide(messages[count % messages.length] as DecisionInput) !== undefined) sink++;
        count++;
      }
      elapsed = performance.now() - start;
    } while (elapsed < limitMs);
    return (count / elapsed) * 1000;
  };
  run(Math.max(100, seconds * 250));
  const perSecond = run(seconds * 1000);
  if (sink < 0) console.log(sink); // keeps the results observable
  return perSecond;
}

export async function benchProxyEngine(opts: { quick: boolean }): Promise<ProxyEngineBench> {
  const seconds = opts.quick ? 0.2 : 2;
  const system = buildSystem();
  const messages = buildMessages();
  const compiled = compileSystem(system);
  const naive = naiveEngine(system);
  const compiledPerSecond = measure((input) => decideProxyCompiled(compiled, input), messages, seconds);
  await new Promise((resolve) => setImmediate(resolve));
  const naivePerSecond = measure(naive, messages, seconds);
  return { compiledPerSecond, naivePerSecond, microsPerDecision: 1e6 / compiledPerSecond };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes('--quick');
  const started = performance.now();
  const compiled = compileSystem(buildSystem());
  const compileMs = performance.now() - started;
  const result = await benchProxyEngine({ quick });
  const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  console.log(`proxy engine, ${ALTERS} alters × 3 tags (${compiled.pairs.length} pairs), ${buildMessages().length} mixed messages`);
  console.log(`  compile once:   ${fmt(compileMs, 1)} ms`);
  console.log(`  compiled:       ${fmt(result.compiledPerSecond)} decisions/s (${fmt(result.microsPerDecision, 2)} µs each)`);
  console.log(`  naive baseline: ${fmt(result.naivePerSecond)} decisions/s (${fmt(1e6 / result.naivePerSecond, 2)} µs each)`);
  console.log(`  ratio:          ${fmt(result.compiledPerSecond / result.naivePerSecond, 1)}×`);
}
