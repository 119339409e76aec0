// The mapping between the stored model and the engine (proxy-rules.md, "Mapping from the stored
// model"): which entries apply to a message, what each stored mode means to the engine, which front
// "front" follows, and how the engine's state goes back as a conditional write.
import { describe, expect, it } from 'vitest';
import type { Autoproxy } from '../../src/domain/autoproxy.js';
import { entryAfter, proxyInputFor, proxySystemOf, stateChangeFor } from '../../src/domain/proxy-input.js';
import { decideProxy } from '../../src/domain/proxy/index.js';
import type { ProxyProfile } from '../../src/domain/proxy-profile.js';

const GUILD = '300000000000000001';
const CHANNEL = '400000000000000001';
const NOW = Date.parse('2026-11-23T12:00:00Z');

function entry(
  serverId: string,
  autoproxyMode: string,
  autoproxyAlter: string | null = null,
  lastLatchTimestamp: string | null = null,
  revision = 3,
): Autoproxy {
  return { serverId, autoproxyMode, autoproxyAlter, lastLatchTimestamp, revision, account: null };
}

function profile(overrides: Partial<ProxyProfile> = {}): ProxyProfile {
  return {
    revision: 7,
    systemId: '1',
    guildId: GUILD,
    disabled: false,
    guildDisabled: false,
    caseSensitive: true,
    keepProxy: false,
    showPronouns: false,
    displayTag: null,
    latchExpirationMs: 0,
    autoproxy: [],
    front: { latest: null, byClient: {} },
    alters: [
      { alterId: 1, username: 'kestrel', name: 'Kestrel', avatarUrl: null, pronouns: null, color: null, alterMode: 'webhook', proxyTags: [{ prefix: 'k:', suffix: '' }], autoproxyEnabled: true },
      { alterId: 2, username: 'wren', name: 'Wren', avatarUrl: null, pronouns: null, color: null, alterMode: 'webhook', proxyTags: [{ prefix: '', suffix: ' -w' }], autoproxyEnabled: false },
    ],
    ...overrides,
  };
}

const message = { content: 'hello', hasAttachment: false, channelId: CHANNEL, now: NOW };

describe('proxyInputFor', () => {
  it('maps the system: alters with their tags in stored order, username as name, flags', () => {
    const mapped = proxyInputFor(profile({ caseSensitive: false, keepProxy: true, latchExpirationMs: 60_000 }), message);
    expect(mapped?.input).toEqual({
      message: { content: 'hello', hasAttachment: false },
      system: {
        alters: [
          { id: 1, name: 'kestrel', proxyTags: [{ prefix: 'k:', suffix: '' }], autoproxy: true },
          { id: 2, name: 'wren', proxyTags: [{ prefix: '', suffix: ' -w' }], autoproxy: false },
        ],
        caseSensitive: false,
        keepProxy: true,
      },
      autoproxy: { scopes: {}, latchExpirationMs: 60_000, front: null },
      now: NOW,
    });
  });

  it('leaves nickname-mode alters out: they never speak through the webhook', () => {
    const base = profile();
    const [kestrel, wren] = base.alters as [ProxyProfile['alters'][number], ProxyProfile['alters'][number]];
    const mapped = proxyInputFor({ ...base, alters: [kestrel, { ...wren, alterMode: 'nickname' }] }, message);
    expect(mapped?.input.system.alters.map((alter) => alter.id)).toEqual([1]);
    const both = proxyInputFor({ ...base, alters: [kestrel, { ...wren, alterMode: 'both' }] }, message);
    expect(both?.input.system.alters.map((alter) => alter.id)).toEqual([1, 2]);
  });

  it.each([
    ['a disabled system', { disabled: true }],
    ['a server where the owner turned proxying off', { guildDisabled: true }],
  ])('decides nothing for %s', (_what, overrides) => {
    expect(proxyInputFor(profile(overrides), message)).toBeUndefined();
  });

  it('puts the channel, server and global entries in their scopes, and no other channel’s', () => {
    const stored = [
      entry('@global', 'front'),
      entry(GUILD, 'alter', '2'),
      entry(`${GUILD}/${CHANNEL}`, 'off'),
      entry(`${GUILD}/400000000000000009`, 'alter', '1'),
    ];
    const mapped = proxyInputFor(profile({ autoproxy: stored }), message);
    expect(mapped?.input.autoproxy.scopes).toEqual({ channel: { mode: 'off' }, server: { mode: 'alter', alterId: 2 }, global: { mode: 'front' } });
    expect(mapped?.entries).toEqual({ channel: stored[2], server: stored[1], global: stored[0] });
  });

  it.each<[string, Autoproxy, unknown]>([
    ['alter mode', entry(GUILD, 'alter', '2'), { mode: 'alter', alterId: 2 }],
    ['latch mode with a latch', entry(GUILD, 'latch', '1', '2026-11-23T11:00:00.000Z'), { mode: 'latch', latch: { alterId: 1, at: Date.parse('2026-11-23T11:00:00Z') } }],
    ['latch mode without a latch', entry(GUILD, 'latch'), { mode: 'latch', latch: null }],
    ['front mode', entry(GUILD, 'front'), { mode: 'front' }],
    ['off', entry(GUILD, 'off'), { mode: 'off' }],
    ['an integration’s client id (the origin’s AI/AP form)', entry(GUILD, 'switch-tracker'), { mode: 'front' }],
  ])('reads %s', (_what, stored, expected) => {
    expect(proxyInputFor(profile({ autoproxy: [stored] }), message)?.input.autoproxy.scopes.server).toEqual(expected);
  });

  it('feeds "front" with the newest push, or with the followed integration’s own push', () => {
    const front = { latest: 1, byClient: { 'switch-tracker': 2 } };
    expect(proxyInputFor(profile({ front, autoproxy: [entry(GUILD, 'front')] }), message)?.input.autoproxy.front).toBe(1);
    expect(proxyInputFor(profile({ front, autoproxy: [entry(GUILD, 'switch-tracker')] }), message)?.input.autoproxy.front).toBe(2);
    // An integration that never pushed leaves nobody at the front for that entry.
    expect(proxyInputFor(profile({ front, autoproxy: [entry(GUILD, 'quiet-app')] }), message)?.input.autoproxy.front).toBeNull();
    // The entry in effect decides: a channel entry following the tracker shadows the global front.
    const both = [entry('@global', 'front'), entry(`${GUILD}/${CHANNEL}`, 'switch-tracker')];
    expect(proxyInputFor(profile({ front, autoproxy: both }), message)?.input.autoproxy.front).toBe(2);
  });
});

describe('stateChangeFor', () => {
  const entries = { channel: entry(`${GUILD}/${CHANNEL}`, 'latch', null, null, 5), server: entry(GUILD, 'front', null, null, 2) };

  it('is nothing when nothing changes', () => {
    expect(stateChangeFor(null, entries, NOW)).toBeUndefined();
  });

  it.each([
    [{ scope: 'channel' as const, latch: { alterId: 2, at: NOW } }, { serverId: `${GUILD}/${CHANNEL}`, revision: 5, at: new Date(NOW).toISOString(), latch: { alterId: 2 } }],
    [{ scope: 'channel' as const, latch: null }, { serverId: `${GUILD}/${CHANNEL}`, revision: 5, at: new Date(NOW).toISOString(), latch: null }],
    [{ scope: 'server' as const, mode: 'off' as const }, { serverId: GUILD, revision: 2, at: new Date(NOW).toISOString(), mode: 'off' }],
  ])('sends %j to the entry it names, at the revision the engine saw', (state, expected) => {
    expect(stateChangeFor(state, entries, NOW)).toEqual(expected);
  });
});

describe('proxySystemOf', () => {
  it('builds the engine’s view of a profile (the bot compiles it once per held profile: test/bot/proxy/profiles.test.ts)', () => {
    const one = profile();
    expect(proxySystemOf(one)).toEqual(proxyInputFor(one, message)?.input.system);
  });

  it('carries each alter’s autoproxyEnabled to the engine, where front and latch autoproxy honour it', () => {
    expect(proxySystemOf(profile()).alters.map((alter) => [alter.id, alter.autoproxy])).toEqual([[1, true], [2, false]]);
    const fronting = profile({ front: { latest: 2, byClient: {} }, autoproxy: [entry(GUILD, 'front')] });
    const decided = proxyInputFor(fronting, message);
    expect(decided && decideProxy(decided.input).result).toEqual({ proxy: false });
  });
});

describe('entryAfter', () => {
  const latch = entry(GUILD, 'latch', '1', '2026-11-23T11:00:00.000Z', 4);
  it.each([
    [{ scope: 'server' as const, latch: { alterId: 2, at: NOW } }, { ...latch, autoproxyAlter: '2', lastLatchTimestamp: new Date(NOW).toISOString() }],
    [{ scope: 'server' as const, latch: null }, { ...latch, autoproxyAlter: null, lastLatchTimestamp: null }],
    [{ scope: 'server' as const, mode: 'off' as const }, { ...latch, autoproxyMode: 'off', autoproxyAlter: null, lastLatchTimestamp: null }],
  ])('applies %j to the bot’s copy of the entry, keeping its revision', (state, expected) => {
    expect(entryAfter(state, { server: latch }, NOW)).toEqual(expected);
  });
  it('changes nothing without a state or an entry', () => {
    expect(entryAfter(null, { server: latch }, NOW)).toBeUndefined();
    expect(entryAfter({ scope: 'channel', latch: null }, { server: latch }, NOW)).toBeUndefined();
  });
});
