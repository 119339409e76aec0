// The bundle `npm start` runs (scripts/bundle.mjs): built from this checkout, started as a process of
// its own, and driven through the parts it loads lazily or from node_modules at run time (the
// authorization server, the /v1 API and its serializers, the API reference, PostgreSQL, the bot),
// and with every optional backend: rate limits kept in Redis, the bot's links on Redis and PostgreSQL.
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLinkStore } from '../../src/bot/links/link-store.js';
import { openDatabase } from '../../src/db/database.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/dialects.js';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from '../support/environment.js';
import { startFakeDiscord, user } from '../support/fake-discord.js';
import { createTestClient, obtainTokens } from '../support/oauth.js';
import { freePort, type TestServer } from '../support/server.js';
import { startService, stopService, waitReady, type Service } from '../support/service-process.js';
import { testBundle } from '../support/test-bundle.js';

// The bundle of this checkout's sources that the tests' processes run (scripts/bundle.mjs's options).
const main = join(testBundle(), 'main.js');
const REDIS_URL = TEST_REDIS_URL;

function serviceEnv(port: number, dataDir: string, databaseUrl: string) {
  return { NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'silent' };
}

describe.each(DIALECTS)('the bundle (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let dataDir: string;
  let service: Service | undefined;
  let base = '';

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect);
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bundle-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    service = startService(serviceEnv(port, dataDir, testDatabase.url), main);
    await waitReady(service, base);
  }, 60_000);
  afterAll(async () => {
    await stopService(service);
    await testDatabase.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs a user in, answers the API and serves its reference', { timeout: 60_000 }, async () => {
    const registration = openDatabase(testDatabase.url);
    let tokens: { access_token: string };
    try {
      const client = await createTestClient({ url: base, database: registration } as Pick<TestServer, 'url' | 'database'> as TestServer);
      ({ tokens } = await obtainTokens(client, { userId: '320000000000000001', scope: 'alters:read alters:write system:read system:write' }));
    } finally {
      await registration.close();
    }
    const headers = { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' };

    const created = await fetch(`${base}/v1/users/@me/system/create-alter`, { method: 'POST', headers, body: JSON.stringify({ username: 'ash', displayName: 'Ash' }) });
    expect(created.status).toBe(201);
    const { alterId } = (await created.json()) as { alterId: number };
    const read = await fetch(`${base}/v1/users/@me/alters/${alterId}`, { headers });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ isSelf: true, data: { alterId, username: 'ash', displayName: 'Ash' } });

    const refused = await fetch(`${base}/v1/users/@me/alters/${alterId}`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer /);
    expect(await refused.json()).toMatchObject({ errors: [expect.any(Object)] });

    // The import is read and planned in a worker thread, started from its own file in the bundle.
    const file = JSON.stringify({ version: 2, id: 'bndle', name: 'Bundled', members: [{ id: 'aaaaa', name: 'Ash' }, { id: 'bbbbb', name: 'Ash' }], groups: [], switches: [] });
    const preview = await fetch(`${base}/v1/users/@me/system/import?dryRun=true`, { method: 'POST', headers, body: file });
    expect(preview.status).toBe(200);
    expect(await preview.json()).toMatchObject({ data: { dryRun: true, counts: { alters: { created: 1, updated: 1 } }, renames: [{ id: 'bbbbb', to: 'Ash-2' }] } });

    const reference = await fetch(`${base}/openapi.json`);
    expect(reference.status).toBe(200);
    expect(((await reference.json()) as { openapi: string }).openapi).toMatch(/^3\./);
    expect((await fetch(`${base}/docs/`)).status).toBe(200);
  });
});

describe('the bundle with the bot', () => {
  it('connects the bot to Discord and answers a slash command', { timeout: 60_000 }, async () => {
    const fake = await startFakeDiscord();
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bundle-bot-'));
    const port = await freePort();
    let service: Service | undefined;
    try {
      service = startService({ ...serviceEnv(port, dataDir, ''), DISCORD_TOKEN: fake.botToken, DISCORD_API_BASE: fake.apiBase, DISCORD_GUILD_ID: fake.guild.id }, main);
      await waitReady(service, `http://127.0.0.1:${port}`);
      await fake.waitForReady(30_000);
      const help = fake.dispatchInteraction(fake.slashCommand({ name: 'help', user: user('320000000000000002', 'erin') }));
      const response = await help.waitForResponse(undefined, 20_000);
      expect(JSON.stringify(response.body)).toContain('/system');
    } finally {
      await stopService(service);
      await fake.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.runIf(REDIS_AVAILABLE)('the bundle with rate limits kept in Redis', () => {
  it('starts and counts a request in Redis', { timeout: 60_000 }, async () => {
    // A loopback address of this run's own keeps its count apart from others sharing the server.
    const from = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    const agent = new Agent({ localAddress: from });
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bundle-redis-'));
    const port = await freePort();
    const keys = async () => (await redis.scan('0', 'MATCH', `switchboard-rate-*ip:${from}`, 'COUNT', 100_000))[1];
    let service: Service | undefined;
    try {
      service = startService({ ...serviceEnv(port, dataDir, ''), REDIS_URL, RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PER_IP: '977', RATE_LIMIT_WINDOW: '60' }, main);
      await waitReady(service, `http://127.0.0.1:${port}`);
      expect(await keys()).toEqual([]);
      const response = await undiciFetch(`http://127.0.0.1:${port}/healthz`, { dispatcher: agent });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('977');
      expect(response.headers.get('x-ratelimit-remaining')).toBe('976');
      const counted = await keys();
      expect(counted).toHaveLength(1);
      expect(await redis.get(counted[0] ?? '')).toBe('1');
    } finally {
      await stopService(service);
      const left = await keys();
      if (left.length > 0) await redis.del(...left);
      await redis.quit();
      await agent.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// The bot's linked accounts on each shared store: a link written beside the bundle is found, its
// lock taken and the link deleted by the bundle's bot (/unlink), so the store is really in use.
const postgresStore: TestDatabase | undefined = DIALECTS.includes('postgres') ? await createTestDatabase('postgres') : undefined;
const BOT_STORES: Array<[string, string]> = [
  ...(REDIS_AVAILABLE ? [['Redis', REDIS_URL] as [string, string]] : []),
  ...(postgresStore ? [['PostgreSQL', `${postgresStore.url}&schema=${/search_path=(\w+)/.exec(decodeURIComponent(postgresStore.url))?.[1] ?? ''}`] as [string, string]] : []),
];
afterAll(async () => postgresStore?.drop());

describe.each(BOT_STORES)('the bundle with the bot keeping its links on %s', (_name, storeUrl) => {
  it('reaches ready and reads, locks and deletes a link in that store', { timeout: 60_000 }, async () => {
    const fake = await startFakeDiscord();
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bundle-store-'));
    const port = await freePort();
    const storeKey = randomBytes(32);
    const someone = user(`41${randomInt(10 ** 7, 10 ** 8)}${randomInt(10 ** 7, 10 ** 8)}`, 'frankie');
    const store = await openLinkStore(storeUrl, storeKey);
    let service: Service | undefined;
    try {
      await store.set(someone.id, { accessToken: 'not-a-real-token', refreshToken: 'not-a-real-refresh-token', expiresAt: Date.now() + 3_600_000, scope: 'openid', linkedAt: Date.now() });
      service = startService(
        { ...serviceEnv(port, dataDir, ''), DISCORD_TOKEN: fake.botToken, DISCORD_API_BASE: fake.apiBase, DISCORD_GUILD_ID: fake.guild.id, BOT_STORE_URL: storeUrl, BOT_STORE_KEY: storeKey.toString('base64url') },
        main,
      );
      await waitReady(service, `http://127.0.0.1:${port}`);
      const running = service;
      await fake.waitForReady(30_000).catch((error: Error) => Promise.reject(new Error(`${error.message}\n${running.output()}`)));
      const unlink = fake.dispatchInteraction(fake.slashCommand({ name: 'unlink', user: someone }));
      const response = await unlink.waitForResponse((r) => /linked/.test(JSON.stringify(r.body)), 20_000);
      expect(String(response.body.content), service.output()).toMatch(/^Unlinked/);
      expect(await store.get(someone.id)).toBeUndefined();
    } finally {
      await stopService(service);
      await store.delete(someone.id).catch(() => undefined);
      await store.close();
      await fake.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
