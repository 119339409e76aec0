// The per-IP rate limit behind a reverse proxy (TRUST_PROXY). A real proxy sits in front of the
// service and, as nginx with `$proxy_add_x_forwarded_for` does, appends the address it sees to
// whatever X-Forwarded-For the client sent. Clients connect from random loopback addresses of
// their own and write a fresh X-Forwarded-For in every request: the count must follow the address
// the proxy appended (the right-most entry), never what the client wrote. The floods are of bad
// bearer tokens on /v1 and of bad client credentials at the token endpoint.
import { randomInt } from 'node:crypto';
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ipKey } from '../../../src/http/plugins/rate-limits.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const SYSTEM = '/v1/users/@me/system';
const TOKEN_ENDPOINT = '/auth/oauth2/token';
const LIMIT = 5;

const randomLoopback = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const randomPublicAddress = () => `${randomInt(1, 224)}.${randomInt(0, 256)}.${randomInt(0, 256)}.${randomInt(1, 255)}`;
const randomToken = () => `bad-token-${randomInt(2 ** 40)}-0123456789abcdef`;

interface Proxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A one-hop reverse proxy to `target` that appends its client's address (by default its peer's) to
 * X-Forwarded-For.
 */
async function startProxy(target: string, clientAddressOf = (incoming: IncomingMessage) => incoming.socket.remoteAddress): Promise<Proxy> {
  const upstreamAgent = new HttpAgent({ keepAlive: true });
  const server: Server = createServer((incoming, outgoing) => {
    const forwardedFor = [incoming.headers['x-forwarded-for'], clientAddressOf(incoming)].filter(Boolean).join(', ');
    const upstream = httpRequest(
      new URL(incoming.url ?? '/', target),
      { method: incoming.method, headers: { ...incoming.headers, 'x-forwarded-for': forwardedFor }, agent: upstreamAgent, localAddress: '127.0.0.1' },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      upstreamAgent.destroy();
    },
  };
}

/** Clients, each connecting from a loopback address of its own. */
function clients() {
  const agents: Agent[] = [];
  const used = new Set<string>();
  return {
    /** A new client; `send` goes to `base` with a fresh, made-up X-Forwarded-For each time. */
    client(base: string) {
      let address = randomLoopback();
      while (used.has(address)) address = randomLoopback();
      used.add(address);
      const agent = new Agent({ localAddress: address });
      agents.push(agent);
      return {
        address,
        async send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
          const response = await undiciFetch(`${base}${path}`, {
            method: init.method ?? 'GET',
            body: init.body,
            headers: { 'x-forwarded-for': `${randomPublicAddress()}, ${randomPublicAddress()}`, ...init.headers },
            dispatcher: agent,
          });
          return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
        },
      };
    },
    async close() {
      await Promise.all(agents.map((agent) => agent.close()));
    },
  };
}

type Client = ReturnType<ReturnType<typeof clients>['client']>;

const badBearer = (client: Client) => client.send(SYSTEM, { headers: { authorization: `Bearer ${randomToken()}` } });
const badClientCredentials = (client: Client) =>
  client.send(TOKEN_ENDPOINT, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`client-${randomInt(2 ** 40)}:wrong-secret`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  });

/**
 * Sends LIMIT requests (each refused with `status`), then expects the 429. The count shows in
 * X-RateLimit-Remaining on /v1; the OAuth endpoints' answers come from oidc-provider, without it.
 */
async function floodUntilLimited(
  send: () => Promise<{ status: number; headers: Headers; body: unknown }>,
  status: number,
  limited: unknown,
  counted = true,
): Promise<void> {
  for (let index = 0; index < LIMIT; index++) {
    const response = await send();
    expect(response.status, `request ${index + 1}`).toBe(status);
    if (counted) expect(response.headers.get('x-ratelimit-remaining'), `request ${index + 1}`).toBe(String(LIMIT - 1 - index));
  }
  const response = await send();
  expect(response.status).toBe(429);
  expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(response.body).toEqual(limited);
}

const V1_LIMITED = { errors: [{ type: 'rate-limited', friendly: expect.any(String) }] };
const OAUTH_LIMITED = { error: 'rate_limited', error_description: expect.any(String) };

for (const [name, trustProxy] of [
  ['one proxy hop (TRUST_PROXY=1)', '1'],
  ['proxies given by address (TRUST_PROXY=10.0.0.0/8,127.0.0.1)', '10.0.0.0/8, 127.0.0.1'],
] as const) {
  describe(`behind ${name}`, () => {
    let server: TestServer;
    let proxy: Proxy;
    const pool = clients();

    beforeAll(async () => {
      server = await startTestServer('sqlite', { TRUST_PROXY: trustProxy, RATE_LIMIT_PER_IP: String(LIMIT), RATE_LIMIT_PER_TOKEN: '1000', RATE_LIMIT_WINDOW: '60' });
      proxy = await startProxy(server.url);
    });
    afterAll(async () => {
      await proxy?.close();
      await pool.close();
      await server?.stop();
    });

    it('limits a flood of bad bearer tokens on /v1 from one client whatever X-Forwarded-For it writes', async () => {
      const client = pool.client(proxy.url);
      await floodUntilLimited(() => badBearer(client), 401, V1_LIMITED);
      // Every route shares the address's count.
      expect((await badClientCredentials(client)).status).toBe(429);
    });

    it('limits a flood of bad client credentials at the token endpoint the same way', async () => {
      const client = pool.client(proxy.url);
      await floodUntilLimited(() => badClientCredentials(client), 401, OAUTH_LIMITED, false);
      expect((await badBearer(client)).status).toBe(429);
    });

    it('counts each client behind the proxy on its own, not the proxy as one client', async () => {
      const first = pool.client(proxy.url);
      const second = pool.client(proxy.url);
      for (let i = 0; i < LIMIT; i++) expect((await badBearer(first)).status).toBe(401);
      expect((await badBearer(first)).status).toBe(429);
      const other = await badBearer(second);
      expect(other.status).toBe(401);
      expect(other.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
    });

    if (trustProxy !== '1') {
      it('counts a client that bypasses the proxies by its own address, ignoring its X-Forwarded-For', async () => {
        const direct = pool.client(server.url);
        await floodUntilLimited(() => badBearer(direct), 401, V1_LIMITED);
      });
    }
  });
}

describe('IPv6 clients behind one proxy hop', () => {
  let server: TestServer;
  let proxy: Proxy;
  const pool = clients();
  // The proxy reports the IPv6 address a test names (this machine has only ::1 to connect from).
  const CLIENT_HEADER = 'x-test-ipv6-client';

  beforeAll(async () => {
    server = await startTestServer('sqlite', { TRUST_PROXY: '1', RATE_LIMIT_PER_IP: String(LIMIT), RATE_LIMIT_PER_TOKEN: '1000', RATE_LIMIT_WINDOW: '60' });
    proxy = await startProxy(server.url, (incoming) => String(incoming.headers[CLIENT_HEADER]));
  });
  afterAll(async () => {
    await proxy?.close();
    await pool.close();
    await server?.stop();
  });

  it('counts a /64 as one client: moving to another address of the block starts no fresh count', async () => {
    const client = pool.client(proxy.url);
    const group = () => randomInt(0x10000).toString(16);
    const block = `2001:db8:${group()}:${group()}`;
    const neighbourBlock = `2001:db8:${group()}:${group()}`;
    expect(neighbourBlock).not.toBe(block);
    // A different address of the block every time.
    const fromBlock = (prefix: string) => () =>
      client.send(SYSTEM, { headers: { authorization: `Bearer ${randomToken()}`, [CLIENT_HEADER]: `${prefix}:${group()}::${randomInt(1, 0x10000).toString(16)}` } });
    await floodUntilLimited(fromBlock(block), 401, V1_LIMITED);

    const neighbour = await fromBlock(neighbourBlock)();
    expect(neighbour.status).toBe(401);
    expect(neighbour.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
  });
});

describe('ipKey', () => {
  it.each([
    ['203.0.113.7', 'ip:203.0.113.7'],
    ['::ffff:203.0.113.7', 'ip:203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', 'ip:2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002::1', 'ip:2001:db8:1:2::/64'],
    ['2001:db8::1', 'ip:2001:db8:0:0::/64'],
    ['2001:db8:1::2:3:4:5', 'ip:2001:db8:1:0::/64'],
    ['::1', 'ip:0:0:0:0::/64'],
    ['::', 'ip:0:0:0:0::/64'],
    ['fe80::1%eth0', 'ip:fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', 'ip:64:ff9b:0:0::/64'],
    [undefined, 'ip:unknown'],
  ])('keys %s as %s', (address, key) => {
    expect(ipKey(address)).toBe(key);
  });
});
