// The linked-accounts store on each keyv backend the bot supports, and what a copy of it reveals.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { LinkLockTimeoutError } from '../../../src/bot/links/link-lock.js';
import { openLinkStore, type StoredLink } from '../../../src/bot/links/link-store.js';
import { createTestDatabase, type TestDatabase } from '../../support/dialects.js';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from '../../support/environment.js';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-links-'));
const namespace = randomBytes(4).toString('hex');

// PostgreSQL gets a fresh schema (search_path in the URL), dropped afterwards.
const postgres: TestDatabase | undefined = process.env.TEST_DATABASE_URL ? await createTestDatabase('postgres') : undefined;

const BACKENDS: Array<[string, string]> = [
  ['sqlite', `sqlite://${join(dir, 'links.sqlite')}`],
  ...(REDIS_AVAILABLE ? [['redis', TEST_REDIS_URL] as [string, string]] : []),
  ...(postgres ? [['postgres', `${postgres.url}&schema=${/search_path=(\w+)/.exec(decodeURIComponent(postgres.url))?.[1] ?? ''}`] as [string, string]] : []),
];

const link = (): StoredLink => ({
  accessToken: `at-${randomBytes(24).toString('base64url')}`,
  refreshToken: `rt-${randomBytes(24).toString('base64url')}`,
  expiresAt: Date.now() + 3_600_000,
  scope: 'openid alters:read',
  linkedAt: Date.now(),
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await postgres?.drop();
});

describe.each(BACKENDS)('link store on %s', (backend, url) => {
  const key = randomBytes(32);
  const userId = `4${namespace.replace(/[a-f]/g, '1')}0000000001`.slice(0, 18);

  it('stores, reads back and deletes a link', async () => {
    const store = await openLinkStore(url, key);
    try {
      const value = link();
      await store.set(userId, value);
      expect(await store.get(userId)).toEqual(value);
      expect(await store.get('499999999999999999')).toBeUndefined();
      await store.delete(userId);
      expect(await store.get(userId)).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it('keeps neither the tokens nor the Discord user id readable at rest', async () => {
    const store = await openLinkStore(url, key);
    const value = link();
    try {
      await store.set(userId, value);
      let raw = '';
      // The write-ahead log too: a write stays there until a checkpoint copies it into the file.
      if (backend === 'sqlite') raw = ['links.sqlite', 'links.sqlite-wal'].map((name) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name)).toString('latin1') : '')).join('');
      if (backend === 'redis') {
        const redis = new Redis(url);
        const keys = await redis.keys('*switchboard-bot-links*');
        raw = JSON.stringify([keys, await Promise.all(keys.map((k) => redis.get(k).catch(() => '')))]);
        await redis.quit();
      }
      if (backend === 'postgres') {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        raw = JSON.stringify((await client.query('select * from switchboard_bot_links')).rows);
        await client.end();
      }
      expect(raw.length).toBeGreaterThan(0);
      for (const secret of [value.accessToken, value.refreshToken ?? '', userId]) expect(raw).not.toContain(secret);
      // Another key cannot open it.
      const other = await openLinkStore(url, randomBytes(32));
      expect(await other.get(userId)).toBeUndefined();
      await other.close();
    } finally {
      await store.delete(userId);
      await store.close();
    }
  });

  // Two openings of the store stand for two bot processes: separate connections, separate owners.
  it('holds a user’s lock against another process until released, and only that user’s', async () => {
    const [a, b] = await Promise.all([openLinkStore(url, key), openLinkStore(url, key)]);
    try {
      const events: string[] = [];
      const first = a.lock(userId, async () => {
        events.push('a holds');
        await sleep(300);
        events.push('a releases');
      });
      await sleep(50);
      const other = b.lock(`${userId.slice(0, -1)}9`, async () => events.push('b holds another user'));
      const second = b.lock(userId, async () => events.push('b holds'));
      await Promise.all([first, other, second]);
      expect(events).toEqual(['a holds', 'b holds another user', 'a releases', 'b holds']);
      // A failed holder releases too.
      await expect(a.lock(userId, async () => Promise.reject(new Error('refresh failed')))).rejects.toThrow('refresh failed');
      expect(await b.lock(userId, async () => 'free')).toBe('free');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('gives up waiting for a held lock after its wait limit', async () => {
    const [a, b] = await Promise.all([openLinkStore(url, key), openLinkStore(url, key, { waitMs: 200 })]);
    try {
      const holding = a.lock(userId, () => sleep(1000));
      await sleep(50);
      const started = Date.now();
      await expect(b.lock(userId, async () => 'never')).rejects.toBeInstanceOf(LinkLockTimeoutError);
      expect(Date.now() - started).toBeLessThan(900);
      await holding;
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
