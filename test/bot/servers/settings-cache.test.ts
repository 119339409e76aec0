// The bot's settings cache on its own, against a scripted service (as test/bot/proxy/profiles.test.ts
// does for profiles): it asks only when told a newer revision, revalidates with the ETag, keeps its
// copy while the service is away, and proxies under the defaults when its client may not read them.
import { describe, expect, it } from 'vitest';
import { ApiError, type ApiClient } from '../../../src/bot/api-client.js';
import { createGuildSettingsCache } from '../../../src/bot/servers/settings-cache.js';
import { defaultGuildSettings, type GuildSettings } from '../../../src/domain/guild.js';
import { quietLog } from '../../support/bot.js';

const GUILD = '300000000000000001';
const settingsAt = (revision: number, proxyDelayMs = 0): GuildSettings => ({
  guildId: GUILD,
  revision,
  ...defaultGuildSettings(),
  proxyDelay: { milliseconds: proxyDelayMs, changedBy: null, changedAt: null },
});

function service() {
  let next: GuildSettings | 'down' | 'misconfigured' = 'down';
  const calls: Array<string | undefined> = [];
  const api = {
    async getGuildSettings(_guild: string, etag?: string) {
      calls.push(etag);
      if (next === 'down') throw new ApiError('unavailable', 0, 'unavailable', 'down');
      if (next === 'misconfigured') throw new ApiError('misconfigured', 400, 'invalid_scope', 'no scope');
      if (etag === `"g1-${next.revision}"`) return { notModified: true as const };
      return { notModified: false as const, settings: next, etag: `"g1-${next.revision}"` };
    },
  } as unknown as ApiClient;
  return { cache: createGuildSettingsCache(api, quietLog), calls, answer: (value: typeof next) => void (next = value) };
}

describe('server settings cache', () => {
  it('asks only when told a newer revision, and revalidates with the ETag it holds', async () => {
    const { cache, calls, answer } = service();
    answer(settingsAt(3, 100));
    expect((await cache.atRevision(GUILD, 3))?.rules.proxyDelayMs).toBe(100);
    expect(calls).toEqual([undefined]);
    for (let i = 0; i < 5; i++) await cache.atRevision(GUILD, 3);
    expect(calls).toHaveLength(1);
    answer(settingsAt(4, 200));
    expect((await cache.atRevision(GUILD, 4))?.rules.proxyDelayMs).toBe(200);
    expect(calls).toEqual([undefined, '"g1-3"']);
    // A revision told late (older than what is held) asks nothing.
    await cache.atRevision(GUILD, 2);
    expect(calls).toHaveLength(2);
    // A fresh read revalidates: 304 keeps the copy.
    expect((await cache.fresh(GUILD)).settings.revision).toBe(4);
    expect(calls).toEqual([undefined, '"g1-3"', '"g1-4"']);
  });

  it('keeps its copy while the service is away, and has none to give when it never had one', async () => {
    const { cache, answer } = service();
    expect(await cache.atRevision(GUILD, 1)).toBeUndefined();
    answer(settingsAt(1, 100));
    await cache.atRevision(GUILD, 1);
    answer('down');
    expect((await cache.atRevision(GUILD, 2))?.settings.revision).toBe(1);
  });

  it('proxies under the defaults when its client may not read settings, asking again only after a minute', async () => {
    const { cache, calls, answer } = service();
    answer('misconfigured');
    expect((await cache.atRevision(GUILD, 0))?.settings).toEqual(settingsAt(0));
    expect((await cache.atRevision(GUILD, 0))?.settings.revision).toBe(0);
    expect(calls).toHaveLength(1);
  });
});
