// Two bot processes (shards) sharing one link store, against the real service: they refresh the
// same user's expiring link at the same moment, or one unlinks while the other refreshes. The
// token endpoint's answers are held back (token-proxy.ts) so the two overlap every time: the
// service has rotated the refresh token before the refreshing process learns the new one. Each
// process is a child running refresh-worker.ts (bundled once, test/support/test-bundle.ts); the
// store is SQLite (a file), Redis, and PostgreSQL when TEST_DATABASE_URL is set.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBotClient } from '../../src/auth/clients.js';
import { createApiClient, type ApiClient } from '../../src/bot/api-client.js';
import { openLinkStore, type LinkStore, type StoredLink } from '../../src/bot/links/link-store.js';
import { linkThroughDeviceFlow } from '../support/bot.js';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from '../support/environment.js';
import { createTestDatabase, type TestDatabase } from '../support/dialects.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { testScriptBundle } from '../support/test-bundle.js';
import { startTokenProxy, TOKEN_PATH, type TokenProxy } from './token-proxy.js';

const WORKER = fileURLToPath(new URL('./refresh-worker.ts', import.meta.url));
const SECRET = randomBytes(32).toString('base64url');
const TOKEN_DELAY_MS = 600;
const dir = mkdtempSync(join(tmpdir(), 'switchboard-refresh-'));
const postgres: TestDatabase | undefined = process.env.TEST_DATABASE_URL ? await createTestDatabase('postgres') : undefined;

const BACKENDS: Array<[string, string]> = [
  ['SQLite (one file)', `sqlite://${join(dir, 'links.sqlite')}`],
  ...(REDIS_AVAILABLE ? [['Redis', TEST_REDIS_URL] as [string, string]] : []),
  ...(postgres ? [['PostgreSQL', `${postgres.url}&schema=${/search_path=(\w+)/.exec(decodeURIComponent(postgres.url))?.[1] ?? ''}`] as [string, string]] : []),
];

let server: TestServer;
let proxy: TokenProxy;
let api: ApiClient;
let clientId: string;
let nextUser = 0;

beforeAll(async () => {
  server = await startTestServer('sqlite');
  clientId = (await ensureBotClient(server.database.db, SECRET)).id;
  proxy = await startTokenProxy(server.address);
  api = createApiClient({ baseUrl: server.url, clientId, clientSecret: SECRET, timeoutMs: 10_000 });
});
afterAll(async () => {
  await proxy?.close();
  await server?.stop();
  await postgres?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Links a fresh user through the device flow and stores the link already expired. */
async function linkExpired(store: LinkStore): Promise<{ userId: string; link: StoredLink }> {
  const userId = String(410_000_000_000_000_000n + BigInt(randomInt(1_000_000_000)) * 100n + BigInt(nextUser++));
  const link: StoredLink = { ...(await linkThroughDeviceFlow(api, userId)), expiresAt: Date.now() - 1000, linkedAt: Date.now() };
  await store.set(userId, link);
  return { userId, link };
}

interface Worker {
  go(): void;
  result: Promise<Record<string, unknown>>;
  stderr: string[];
}

/** Starts refresh-worker.ts and resolves once it is ready for "go". */
async function startWorker(env: Record<string, string>): Promise<Worker> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [testScriptBundle(WORKER)], {
    env: { ...process.env, SB_API_URL: proxy.url, SB_CLIENT_ID: clientId, SB_CLIENT_SECRET: SECRET, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    lines.on('line', (line) => {
      if (line === 'ready') ready();
      else if (line.startsWith('{')) resolve(JSON.parse(line) as Record<string, unknown>);
    });
    void exited.then((code) => reject(new Error(`worker exited (${code}) without a result: ${stderr.join('')}`)));
  });
  result.catch(() => undefined);
  await Promise.race([isReady, exited.then((code) => Promise.reject(new Error(`worker exited (${code}): ${stderr.join('')}`)))]);
  return { go: () => child.stdin.write('go\n'), result, stderr };
}

const tokenRequests = () => proxy.log.filter((r) => r.method === 'POST' && r.path === TOKEN_PATH);
const slowTokenEndpoint = () => proxy.reset(TOKEN_DELAY_MS);
const systemStatus = async (accessToken: string) => (await fetch(`${server.url}/v1/users/@me/system`, { headers: { authorization: `Bearer ${accessToken}` } })).status;

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(BACKENDS)('token refresh across two bot processes sharing a %s store', (_name, url) => {
  const key = randomBytes(32);
  const workerEnv = (userId: string, extra: Record<string, string> = {}) => ({ SB_STORE_URL: url, SB_STORE_KEY: key.toString('hex'), SB_USER_ID: userId, ...extra });

  it('refreshes once when both refresh the same expiring link at the same moment; the link survives', async () => {
    const store = await openLinkStore(url, key);
    try {
      const { userId, link } = await linkExpired(store);
      const workers = await Promise.all([startWorker(workerEnv(userId)), startWorker(workerEnv(userId))]);
      slowTokenEndpoint();
      for (const worker of workers) worker.go();
      const results = await Promise.all(workers.map((w) => w.result));

      expect(results, workers.flatMap((w) => w.stderr).join('')).toEqual([expect.objectContaining({ ok: true }), expect.objectContaining({ ok: true })]);
      // One refresh; the process that waited re-read the store and used the other's tokens.
      expect(tokenRequests()).toHaveLength(1);
      expect(results[0]?.accessToken).toBe(results[1]?.accessToken);
      const stored = await store.get(userId);
      expect(stored?.accessToken).toBe(results[0]?.accessToken);
      expect(stored?.refreshToken).not.toBe(link.refreshToken);
      // The service did not revoke the grant: the token works, and so does the rotated refresh token.
      expect(await systemStatus(String(stored?.accessToken))).toBe(200);
      const again = await api.refresh(String(stored?.refreshToken));
      expect(await systemStatus(again.accessToken)).toBe(200);
    } finally {
      await store.close();
    }
  });

  it('without the lock the same race ends the link (the check above is not vacuous)', async () => {
    const store = await openLinkStore(url, key);
    try {
      const { userId } = await linkExpired(store);
      const workers = await Promise.all([startWorker(workerEnv(userId, { SB_NO_LOCK: '1' })), startWorker(workerEnv(userId, { SB_NO_LOCK: '1' }))]);
      slowTokenEndpoint();
      for (const worker of workers) worker.go();
      const results = await Promise.all(workers.map((w) => w.result));
      // Both redeemed the same refresh token: the service saw reuse and revoked the whole grant
      // (the process whose refresh went through then gets a 401 and tries once more).
      expect(tokenRequests().length).toBeGreaterThanOrEqual(2);
      expect(results).toEqual([expect.objectContaining({ ok: false, kind: 'expired' }), expect.objectContaining({ ok: false, kind: 'expired' })]);
      expect(await store.get(userId)).toBeUndefined();
      for (const r of results) if (r.accessToken) expect(await systemStatus(String(r.accessToken))).toBe(401);
    } finally {
      await store.close();
    }
  });

  it('an /unlink in one process during a refresh in another stays unlinked, and the new tokens are revoked', async () => {
    const store = await openLinkStore(url, key);
    try {
      const { userId, link } = await linkExpired(store);
      const [refresher, unlinker] = await Promise.all([startWorker(workerEnv(userId, { SB_ACTION: 'refresh' })), startWorker(workerEnv(userId, { SB_ACTION: 'unlink' }))]);
      slowTokenEndpoint();
      refresher.go();
      await waitFor(() => tokenRequests().some((r) => r.answered)); // the service has rotated the refresh token
      unlinker.go();
      const [refreshed, unlinked] = await Promise.all([refresher.result, unlinker.result]);

      expect(unlinked).toEqual({ ok: true, unlinked: true });
      expect(await store.get(userId)).toBeUndefined();
      // The refresh got its new tokens …
      expect(refreshed).toMatchObject({ ok: true });
      expect(refreshed.accessToken).not.toBe(link.accessToken);
      // … and unlink revoked them at the service (it waited for the refresh and read what it wrote).
      expect(await systemStatus(String(refreshed.accessToken))).toBe(401);
      expect(proxy.log.filter((r) => r.path === '/auth/oauth2/revoke')).toHaveLength(2);
      expect(await store.get(userId)).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
