// The bot's token refresh against the real service, in one process: an /unlink while a refresh is
// in flight stays unlinked, and the service refusing the bot's own client credentials (a mistyped
// BOT_CLIENT_SECRET) is a configuration error that keeps every link, not a dead grant.
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBotClient } from '../../src/auth/clients.js';
import { ApiError, createApiClient, MISCONFIGURED_MESSAGE, type ApiClient } from '../../src/bot/api-client.js';
import { messageFor } from '../../src/bot/interactions.js';
import { openLinkStore, type LinkStore, type StoredLink } from '../../src/bot/links/link-store.js';
import { createLinkedAccounts } from '../../src/bot/links/linked-accounts.js';
import { linkThroughDeviceFlow } from '../support/bot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { startTokenProxy, TOKEN_PATH, type TokenProxy } from './token-proxy.js';

const SECRET = randomBytes(32).toString('base64url');
const dir = mkdtempSync(join(tmpdir(), 'switchboard-refresh-'));

let server: TestServer;
let proxy: TokenProxy;
let api: ApiClient;
let slowApi: ApiClient;
let clientId: string;
let store: LinkStore;

beforeAll(async () => {
  server = await startTestServer('sqlite');
  clientId = (await ensureBotClient(server.database.db, SECRET)).id;
  proxy = await startTokenProxy(server.address);
  api = createApiClient({ baseUrl: server.url, clientId, clientSecret: SECRET, timeoutMs: 10_000 });
  slowApi = createApiClient({ baseUrl: proxy.url, clientId, clientSecret: SECRET, timeoutMs: 10_000 });
  store = await openLinkStore(`sqlite://${join(dir, 'links.sqlite')}`, randomBytes(32));
});
afterAll(async () => {
  await store?.close();
  await proxy?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function linkExpired(): Promise<{ userId: string; link: StoredLink }> {
  const userId = String(420_000_000_000_000_000n + BigInt(randomInt(1_000_000_000)));
  const link: StoredLink = { ...(await linkThroughDeviceFlow(api, userId)), expiresAt: Date.now() - 1000, linkedAt: Date.now() };
  await store.set(userId, link);
  return { userId, link };
}

const systemStatus = async (accessToken: string) => (await fetch(`${server.url}/v1/users/@me/system`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
const quiet = { error: () => undefined };

describe('an /unlink during a refresh', () => {
  it('stays unlinked: the refresh finishes first and unlink revokes the tokens it wrote', async () => {
    const accounts = createLinkedAccounts(store, slowApi, quiet);
    const { userId, link } = await linkExpired();
    proxy.reset(600); // the service rotates the refresh token at once; the bot learns it 600 ms later
    let used = '';
    // The call does not reach the service, so nothing but unlink itself can notice dead tokens.
    const using = accounts.withToken(userId, async (token) => {
      used = token;
    }).then(
      () => 'answered',
      (error: unknown) => error,
    );
    const until = Date.now() + 5000;
    // The service has rotated the refresh token; the bot is still waiting for the answer.
    while (!proxy.log.some((r) => r.path === TOKEN_PATH && r.answered) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await accounts.unlink(userId)).toBe(true);
    expect(await using).toBe('answered');

    expect(await store.get(userId)).toBeUndefined();
    expect(await accounts.isLinked(userId)).toBe(false);
    expect(used).not.toBe('');
    expect(used).not.toBe(link.accessToken); // the refresh did happen, before the unlink
    expect(await systemStatus(used)).toBe(401); // and unlink revoked what it wrote
    expect(proxy.log.filter((r) => r.path === '/auth/oauth2/revoke')).toHaveLength(2);
  });
});

describe('the service refusing the bot’s client credentials', () => {
  it('keeps the link, logs once what to check, tells the user the bot is misconfigured; the right secret then refreshes', async () => {
    const wrongApi = createApiClient({ baseUrl: server.url, clientId, clientSecret: `${SECRET}-mistyped`, timeoutMs: 10_000 });
    const logged: Array<[object, string | undefined]> = [];
    const accounts = createLinkedAccounts(store, wrongApi, { error: (object, message) => logged.push([object, message]) });
    const { userId, link } = await linkExpired();

    for (let i = 0; i < 3; i++) {
      const error = await accounts.withToken(userId, (token) => wrongApi.getSystem(token, '@me')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ kind: 'misconfigured', status: 401, type: 'invalid_client' });
      expect(messageFor(error)).toEqual({ content: MISCONFIGURED_MESSAGE, linkPrompt: false });
    }
    expect(messageFor(new ApiError('misconfigured', 401, 'invalid_client', MISCONFIGURED_MESSAGE)).content).toMatch(/bot is misconfigured/);
    expect(await store.get(userId)).toEqual(link);
    expect(await accounts.isLinked(userId)).toBe(true);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.[1]).toMatch(/BOT_CLIENT_ID and BOT_CLIENT_SECRET/);

    // The operator fixes the secret: the same link refreshes.
    const fixed = createLinkedAccounts(store, api, quiet);
    const system = await fixed.withToken(userId, (token) => api.getSystem(token, '@me'));
    expect(system).toBeTruthy();
    const stored = await store.get(userId);
    expect(stored?.accessToken).not.toBe(link.accessToken);
    expect(await systemStatus(String(stored?.accessToken))).toBe(200);
  });

  it('still ends the link when the grant itself is gone (invalid_grant)', async () => {
    const accounts = createLinkedAccounts(store, api, quiet);
    const { userId, link } = await linkExpired();
    await api.revoke(String(link.refreshToken), 'refresh_token');
    await expect(accounts.withToken(userId, (token) => api.getSystem(token, '@me'))).rejects.toMatchObject({ name: 'NotLinkedError', reason: 'expired' });
    expect(await store.get(userId)).toBeUndefined();
  });
});

describe('the token endpoint’s client-authentication answers', () => {
  let fake: Server;
  let answer: { status: number; body: unknown } = { status: 401, body: undefined };
  beforeAll(async () => {
    fake = createServer((_req, res) => {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => new Promise<void>((resolve) => fake.close(() => resolve())));

  it.each([
    [401, undefined, 'misconfigured'],
    [401, { error: 'invalid_client' }, 'misconfigured'],
    [400, { error: 'invalid_client' }, 'misconfigured'],
    [400, { error: 'unauthorized_client' }, 'misconfigured'],
    [400, { error: 'invalid_grant' }, 'oauth'],
  ])('%i %j is %s', async (status, body, kind) => {
    answer = { status, body };
    const client = createApiClient({ baseUrl: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`, clientId: 'bot', clientSecret: 'secret', timeoutMs: 5000 });
    await expect(client.refresh('rt')).rejects.toMatchObject({ kind });
  });
});
