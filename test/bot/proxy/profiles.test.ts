// The bot's proxy-profile cache: exact revalidation, the cached copy while the service is away, and
// the local overlay of engine state changes until the service's own copy shows them.
import { describe, expect, it } from 'vitest';
import { ApiError, type ApiClient } from '../../../src/bot/api-client.js';
import type { LinkedAccounts } from '../../../src/bot/links/linked-accounts.js';
import { createProfileCache } from '../../../src/bot/proxy/profiles.js';
import type { Autoproxy } from '../../../src/domain/autoproxy.js';
import type { ProxyProfile } from '../../../src/domain/proxy-profile.js';
import { quietLog } from '../../support/bot.js';

const GUILD = '300000000000000001';
const latch = (alter: string | null, revision = 1): Autoproxy => ({ serverId: GUILD, autoproxyMode: 'latch', autoproxyAlter: alter, lastLatchTimestamp: alter ? '2026-11-23T10:00:00.000Z' : null, revision, account: null });

function profile(revision: number, entry: Autoproxy): ProxyProfile {
  return {
    revision, systemId: '1', guildId: GUILD, disabled: false, guildDisabled: false, caseSensitive: true, keepProxy: false, showPronouns: false,
    displayTag: null, latchExpirationMs: 0, autoproxy: [entry], front: { latest: null, byClient: {} }, alters: [],
  };
}

/** A service whose next answer the test sets: a profile, "not modified", or unreachable. */
function service() {
  let next: ProxyProfile | 'not-modified' | 'down' = 'down';
  const api = {
    async getProxyProfile(_token: string, _guild: string, etag?: string) {
      if (next === 'down') throw new ApiError('unavailable', 0, 'unavailable', 'down');
      if (next === 'not-modified') {
        if (!etag) throw new Error('a 304 without an ETag');
        return { notModified: true as const };
      }
      return { notModified: false as const, profile: next, etag: `"${next.revision}"` };
    },
  } as unknown as ApiClient;
  const accounts = { withToken: (_user: string, call: (token: string) => Promise<unknown>) => call('token') } as unknown as LinkedAccounts;
  return { cache: createProfileCache(api, accounts, quietLog), answer: (value: typeof next) => void (next = value) };
}

const latchOf = (p: ProxyProfile | undefined) => p?.autoproxy[0]?.autoproxyAlter;

describe('profile cache', () => {
  it('serves the cached copy on 304 and while the service is away, and nothing when it never had one', async () => {
    const { cache, answer } = service();
    expect(await cache.get('u', GUILD)).toBeUndefined();
    answer(profile(1, latch('1')));
    expect(latchOf(await cache.get('u', GUILD))).toBe('1');
    answer('not-modified');
    expect(latchOf(await cache.get('u', GUILD))).toBe('1');
    answer('down');
    expect(latchOf(await cache.get('u', GUILD))).toBe('1');
  });

  it('compiles a profile’s system once: the same on 304, while away and under a local state change; anew with a new profile', async () => {
    const { cache, answer } = service();
    answer(profile(1, latch('1')));
    const first = await cache.forProxying('u', GUILD);
    expect(first?.system).toBeDefined();
    answer('not-modified');
    expect((await cache.forProxying('u', GUILD))?.system).toBe(first?.system);
    cache.applyLocally('u', GUILD, latch('2'));
    const overlaid = await cache.forProxying('u', GUILD);
    expect(latchOf(overlaid?.profile)).toBe('2');
    expect(overlaid?.system).toBe(first?.system);
    answer('down');
    expect((await cache.forProxying('u', GUILD))?.system).toBe(first?.system);
    answer(profile(2, latch('1')));
    expect((await cache.forProxying('u', GUILD))?.system).not.toBe(first?.system);
  });

  it('keeps a stored state change over profiles read before it landed, until the service shows it', async () => {
    const { cache, answer } = service();
    answer(profile(5, latch('1')));
    await cache.get('u', GUILD);
    const settle = cache.applyLocally('u', GUILD, latch('2'));
    expect(latchOf(await cache.get('u', GUILD))).toBe('2');
    settle({ stored: true, revision: 7 });
    // A profile read just before the write landed (revision 6) must not undo it.
    answer(profile(6, latch('1')));
    expect(latchOf(await cache.get('u', GUILD))).toBe('2');
    // The service's copy is as new as the write: it speaks from now on (here, a later change).
    answer(profile(7, latch('3')));
    expect(latchOf(await cache.get('u', GUILD))).toBe('3');
    answer(profile(8, latch('1')));
    expect(latchOf(await cache.get('u', GUILD))).toBe('1');
  });

  it('drops a local change the service refused, or when the owner changed the entry', async () => {
    const { cache, answer } = service();
    answer(profile(5, latch('1')));
    await cache.get('u', GUILD);
    cache.applyLocally('u', GUILD, latch('2'))({ stored: false });
    expect(latchOf(await cache.get('u', GUILD))).toBe('1');
    cache.applyLocally('u', GUILD, latch('2'));
    answer(profile(6, latch(null, 2))); // the owner re-set the entry: revision 2
    expect(latchOf(await cache.get('u', GUILD))).toBeNull();
  });

  it('lets a newer local change replace an older one that settles late', async () => {
    const { cache, answer } = service();
    answer(profile(5, latch('1')));
    await cache.get('u', GUILD);
    const first = cache.applyLocally('u', GUILD, latch('2'));
    cache.applyLocally('u', GUILD, latch('3'));
    first({ stored: false });
    answer('down');
    expect(latchOf(await cache.get('u', GUILD))).toBe('3');
  });
});
