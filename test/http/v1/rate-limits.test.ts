// Rate limits: per access token on /v1 and per client IP on every route, the X-RateLimit-* and
// Retry-After headers, each route family's 429 body, switching them off, and one shared count
// across processes when they are kept in Redis. The limits do not touch the database, so SQLite is
// enough.
import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from '../../support/environment.js';
import { errorTypes, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const REDIS_URL = TEST_REDIS_URL;
/** The limiter's key prefix (its nameSpace in src/http/plugins/rate-limits.ts). */
const KEY_PREFIX = 'switchboard-rate-';

const SYSTEM = '/v1/users/@me/system';

interface WithHeaders {
  headers: { get(name: string): string | null };
}

function expectRateLimitHeaders(response: WithHeaders, limit: number, remaining: number, windowSeconds: number): void {
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(windowSeconds);
}

/** Retry-After in seconds, checked to be a whole number within the window. */
function retryAfter(response: WithHeaders, windowSeconds: number): number {
  const header = response.headers.get('retry-after');
  expect(header).toMatch(/^\d+$/);
  const seconds = Number(header);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(windowSeconds);
  return seconds;
}

function expectRateLimitedProblem(response: ApiResponse): void {
  expect(response.status).toBe(429);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body).toEqual({ errors: [{ type: 'rate-limited', friendly: expect.any(String) }] });
}

describe('per access token', () => {
  let server: TestServer;
  let first: ApiUser;
  let second: ApiUser;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { RATE_LIMIT_PER_TOKEN: '3', RATE_LIMIT_PER_IP: '100', RATE_LIMIT_WINDOW: '60' });
    first = await signIn(server, '200000000000000001');
    second = await signIn(server, '200000000000000002');
  });
  afterAll(async () => server?.stop());

  it('counts each token on its own, announces the count, and answers the request over it with 429', async () => {
    for (const remaining of [2, 1, 0]) {
      const response = await first.call('GET', SYSTEM);
      expect(response.status).toBe(200);
      expectRateLimitHeaders(response, 3, remaining, 60);
      expect(response.headers.get('retry-after')).toBeNull();
    }
    const limited = await first.call('GET', SYSTEM);
    expectRateLimitedProblem(limited);
    expectRateLimitHeaders(limited, 3, 0, 60);
    retryAfter(limited, 60);
    // The limit is checked before the request is read or routed further: a write is refused too.
    expectRateLimitedProblem(await first.call('POST', '/v1/users/@me/system/edit', { systemName: 'x' }));

    // Another user's token has its own count.
    const other = await second.call('GET', SYSTEM);
    expect(other.status).toBe(200);
    expectRateLimitHeaders(other, 3, 2, 60);
  });

  it('limits tokens on /v1 only: the same header elsewhere counts only against the IP', async () => {
    const token = (await signIn(server, '200000000000000003')).token;
    for (let i = 0; i < 3; i++) expect((await request(server, 'GET', SYSTEM, { token })).status).toBe(200);
    expectRateLimitedProblem(await request(server, 'GET', SYSTEM, { token }));

    const health = await request(server, 'GET', '/healthz', { token });
    expect(health.status).toBe(200);
    expect(Number(health.headers.get('x-ratelimit-limit'))).toBe(100);
  });

  it('counts requests without a token against the IP only', async () => {
    const response = await request(server, 'GET', SYSTEM);
    expect(response.status).toBe(401);
    expect(errorTypes(response)).toEqual(['no-access-token']);
    expect(response.headers.get('x-ratelimit-limit')).toBe('100');
  });
});

describe('per client IP', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { RATE_LIMIT_PER_TOKEN: '1000', RATE_LIMIT_PER_IP: '5', RATE_LIMIT_WINDOW: '60' });
  });
  afterAll(async () => server?.stop());

  it('counts every request from the address, with or without tokens, on every route', async () => {
    // Unknown tokens are refused (401) only after they are counted, so they cannot dodge the limit.
    const requests = [
      () => request(server, 'GET', SYSTEM),
      () => request(server, 'GET', SYSTEM, { token: 'unknown-token-number-one-0123456789' }),
      () => request(server, 'GET', SYSTEM, { token: 'unknown-token-number-two-0123456789' }),
      () => request(server, 'GET', '/healthz'),
      () => request(server, 'POST', '/v1/users/@me/system/edit', { token: 'unknown-token-number-three-0123456789', body: {} }),
    ];
    for (const [index, send] of requests.entries()) {
      const response = await send();
      expect(response.status, `request ${index + 1}`).not.toBe(429);
      expectRateLimitHeaders(response, 5, 4 - index, 60);
    }

    const limited = await request(server, 'GET', SYSTEM, { token: 'yet-another-unknown-token-0123456789' });
    expectRateLimitedProblem(limited);
    retryAfter(limited, 60);
    // Without a token the limit still comes first: 429, not 401.
    expectRateLimitedProblem(await request(server, 'GET', SYSTEM));

    // The OAuth endpoints answer in their own (RFC 6749) error shape.
    const token = await fetch(`${server.url}/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=nobody',
    });
    expect(token.status).toBe(429);
    expect(token.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await token.json()).toEqual({ error: 'rate_limited', error_description: expect.any(String) });
    retryAfter(token, 60);

    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(429);
    await health.arrayBuffer();
  });
});

describe('switched off', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Tiny limits that would bite at once if they were applied.
    server = await startTestServer('sqlite', { RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_PER_TOKEN: '1', RATE_LIMIT_PER_IP: '2', RATE_LIMIT_WINDOW: '60' });
  });
  afterAll(async () => server?.stop());

  it('sends no rate-limit headers and never 429', async () => {
    const user = await signIn(server, '200000000000000001');
    for (let i = 0; i < 10; i++) {
      for (const response of [await user.call('GET', SYSTEM), await request(server, 'GET', SYSTEM), await request(server, 'GET', '/healthz')]) {
        expect(response.status).not.toBe(429);
        for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) expect(response.headers.get(header)).toBeNull();
      }
    }
    expect((await user.call('GET', SYSTEM)).status).toBe(200);
  });
});

describe('Retry-After', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { RATE_LIMIT_PER_TOKEN: '2', RATE_LIMIT_PER_IP: '1000', RATE_LIMIT_WINDOW: '1' });
  });
  afterAll(async () => server?.stop());

  it('is long enough: the token works again once it has passed', async () => {
    const user = await signIn(server, '200000000000000001');
    // A one-second window could roll over between two requests on a slow machine, so keep going
    // until the limit bites rather than assuming which request does it.
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 20 && !limited; i++) {
      const response = await user.call('GET', SYSTEM);
      if (response.status === 429) limited = response;
      else expect(response.status).toBe(200);
    }
    if (!limited) throw new Error('a limit of 2 per second was never reached in 20 requests');
    expectRateLimitedProblem(limited);
    const wait = retryAfter(limited, 1);

    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    const again = await user.call('GET', SYSTEM);
    expect(again.status).toBe(200);
    expectRateLimitHeaders(again, 2, 1, 1);
  });
});

/** `count` different values from `make`. */
function distinct(count: number, make: () => string): string[] {
  const values = new Set<string>();
  while (values.size < count) values.add(make());
  return [...values];
}

describe.runIf(REDIS_AVAILABLE)('kept in Redis', () => {
  // The count is keyed by client IP. Sending from random loopback addresses of our own keeps this
  // run's keys apart from any other run sharing the Redis server, and from other clients' keys.
  const randomLoopback = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
  const [ours, theirs, probe] = distinct(3, randomLoopback) as [string, string, string];
  const agents = new Map([ours, theirs, probe].map((ip) => [ip, new Agent({ localAddress: ip })]));
  const env = { REDIS_URL, RATE_LIMIT_PER_IP: '4', RATE_LIMIT_PER_TOKEN: '1000', RATE_LIMIT_WINDOW: '60' };
  let redis: Redis;
  let serverA: TestServer;
  let serverB: TestServer;

  async function keysOf(ip: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${KEY_PREFIX}*ip:${ip}`, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
    return keys;
  }
  async function deleteOurKeys(): Promise<void> {
    const keys = (await Promise.all([ours, theirs, probe].map(keysOf))).flat();
    if (keys.length > 0) await redis.del(...keys);
  }

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await deleteOurKeys();
    serverA = await startTestServer('sqlite', env);
    serverB = await startTestServer('sqlite', env);
    // A server answers before its Redis connection is ready, and until then counts nothing (the
    // store fails open). Wait until each one's store answers, so the test is about sharing.
    for (const server of [serverA, serverB]) await untilCounted(server);
  });
  afterAll(async () => {
    await serverA?.stop();
    await serverB?.stop();
    if (redis) {
      await deleteOurKeys();
      await redis.quit();
    }
    await Promise.all([...agents.values()].map((agent) => agent.close()));
  });

  function agentFor(ip: string): Agent {
    const agent = agents.get(ip);
    if (!agent) throw new Error(`no agent for ${ip}`);
    return agent;
  }

  async function get(server: TestServer, from: string) {
    const response = await undiciFetch(`${server.url}${SYSTEM}`, { dispatcher: agentFor(from) });
    return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
  }

  /** Probes from an address of its own until the response shows a count kept in Redis. */
  async function untilCounted(server: TestServer): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const response = await undiciFetch(`${server.url}/healthz`, { dispatcher: agentFor(probe) });
      await response.arrayBuffer();
      if (Number(response.headers.get('x-ratelimit-reset')) > 0) {
        await deleteOurKeys();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${server.url} never counted a request in Redis`);
  }

  it('shares one count per address between processes', async () => {
    for (const [index, server] of [serverA, serverA, serverB, serverB].entries()) {
      const response = await get(server, ours);
      expect(response.status, `request ${index + 1}`).toBe(401);
      expectRateLimitHeaders(response, 4, 3 - index, 60);
    }
    expect(await keysOf(ours)).not.toEqual([]);

    for (const server of [serverA, serverB]) {
      const limited = await get(server, ours);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ errors: [{ type: 'rate-limited', friendly: expect.any(String) }] });
      retryAfter(limited, 60);
    }

    // Another address has a count of its own.
    const other = await get(serverB, theirs);
    expect(other.status).toBe(401);
    expectRateLimitHeaders(other, 4, 3, 60);
  });
});
