// Events pushed to webhooks, measured against a bare HTTP POST loop to the same receiver in the
// same run:
// - latency: one alter edit at a time through the API, from the start of the write request to the
//   webhook's arrival at a loopback receiver (p50/p99), next to the write alone and to a bare
//   POST round trip to the receiver;
// - throughput: a backlog of events (written straight to the outbox while the dispatcher is
//   stopped) drained to one endpoint with the shipped settings, deliveries per second next to a
//   bare POST loop with the same concurrency as the dispatcher's per-endpoint limit;
// - a dead endpoint (it accepts connections and never answers) does not slow the write path: alter
//   edits per second (autocannon, separate process) with no endpoint, with a healthy endpoint
//   (the receiver) receiving every event, and with a dead one receiving every event. The dead
//   endpoint's own effect is dead against healthy; against none is what queuing deliveries costs.
// The service, the receiver and the bare loop share this process (autocannon has its own).
//
// Run alone: node --import tsx bench/events.ts [--quick]. bench/run.ts runs it too.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as oidc from 'openid-client';
import { loadConfig } from '../src/config/config.js';
import { appendEvent } from '../src/db/repositories/events/outbox.js';
import { findSystemByUser, loadSystemDetails } from '../src/db/repositories/systems.js';
import { OWNER_SYSTEM_LOAD } from '../src/domain/privacy.js';
import type { SystemDetails, SystemRecord } from '../src/domain/system.js';
import { startServer, type RunningServer } from '../src/http/server.js';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { freePort, type TestServer } from '../test/support/server.js';
import { runLoad, type LoadResult } from './load.js';

export interface EventsBenchResult {
  latency: { events: number; p50Ms: number; p99Ms: number; writeP50Ms: number; writeP99Ms: number; bareP50Ms: number; bareP99Ms: number };
  throughput: { events: number; systems: number; concurrency: number; perSecond: number; barePerSecond: number };
  deadEndpoint: { none: LoadResult; healthy: LoadResult; dead: LoadResult; rounds: number; pendingAfter: number; connections: number };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** The receiver: answers 204 at once and reports each arrival (its body parsed) to `onEvent`. */
async function startReceiver(onEvent: (body: { type: string; data: Record<string, unknown> }) => void) {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(204).end();
      const text = Buffer.concat(chunks).toString('utf8');
      if (request.url === '/hook') onEvent(JSON.parse(text) as { type: string; data: Record<string, unknown> });
    });
  });
  server.keepAliveTimeout = 60_000;
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** A dead endpoint: takes the connection and the request, never answers. */
async function startDeadEndpoint() {
  const server = http.createServer(() => undefined);
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}/dead`, close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

/** One bare POST of `body` to `url` over a keep-alive agent; resolves when the answer ends. */
function barePost(agent: http.Agent, url: URL, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export async function benchEvents(options: { quick: boolean }): Promise<EventsBenchResult> {
  const { quick } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-events-'));
  const port = await freePort();
  const config = loadConfig({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AUTH_DEV_LOGIN: 'true',
    RATE_LIMIT_ENABLED: 'false',
    EVENTS_ALLOW_PRIVATE_ADDRESSES: 'true',
  });
  const running: RunningServer = await startServer(config);
  const url = config.publicUrl;
  const server = { ...running, url } as unknown as TestServer;

  let arrivals = 0;
  const waiting = new Map<string, (at: number) => void>();
  const receiver = await startReceiver((event) => {
    arrivals++;
    const marker = (event.data.alter as { pronouns?: string } | undefined)?.pronouns;
    const resolve = marker === undefined ? undefined : waiting.get(marker);
    if (resolve) {
      waiting.delete(marker ?? '');
      resolve(performance.now());
    }
  });
  const dead = await startDeadEndpoint();
  try {
    const app = await createTestClient(server, {
      name: 'Bench events',
      grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
      scopes: ['openid', 'alters:read', 'alters:write', 'system:read', 'system:write', 'events:manage'],
    });
    const appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    const systems = quick ? 4 : 20;
    const users: Array<{ userId: string; token: string; alterId: number }> = [];
    for (let i = 0; i < systems; i++) {
      const userId = String(530000000000000000n + BigInt(i));
      const { tokens } = await obtainTokens(app, { userId, scope: 'openid alters:read alters:write system:read system:write' });
      const created = await fetch(`${url}/v1/users/@me/system/create-alter`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', displayName: 'Bench' }) });
      users.push({ userId, token: tokens.access_token, alterId: ((await created.json()) as { alterId: number }).alterId });
    }
    const events = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}/v1/events${path}`, { method, headers: { authorization: `Bearer ${appToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      if (!response.ok) throw new Error(`${method} /v1/events${path}: ${response.status} ${await response.text()}`);
      return response.json() as Promise<{ data: { id: string } }>;
    };
    const live = await events('POST', '/endpoints', { url: `${receiver.url}/hook`, eventTypes: ['alter.updated', 'system.updated'] });
    // Let the creates' events drain first.
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Latency, one event at a time.
    const latencyEvents = quick ? 50 : 500;
    const endToEnd: number[] = [];
    const writes: number[] = [];
    const first = users[0];
    if (!first) throw new Error('no users');
    for (let i = 0; i < latencyEvents; i++) {
      const marker = `lat-${i}`;
      const arrived = new Promise<number>((resolve) => waiting.set(marker, resolve));
      const started = performance.now();
      const response = await fetch(`${url}/v1/users/@me/alters/${first.alterId}/edit`, { method: 'POST', headers: { authorization: `Bearer ${first.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ pronouns: marker }) });
      await response.arrayBuffer();
      writes.push(performance.now() - started);
      endToEnd.push((await arrived) - started);
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const sampleBody = JSON.stringify({ type: 'alter.updated', timestamp: new Date().toISOString(), data: { pronouns: 'bare', padding: 'x'.repeat(900) } });
    const bareTarget = new URL(`${receiver.url}/bare`);
    const bare: number[] = [];
    for (let i = 0; i < latencyEvents; i++) {
      const started = performance.now();
      await barePost(agent, bareTarget, sampleBody);
      bare.push(performance.now() - started);
    }
    for (const list of [endToEnd, writes, bare]) list.sort((a, b) => a - b);

    // Throughput: a backlog drained with the shipped settings.
    const backlog = quick ? 500 : 5000;
    await running.app.events.stop();
    const snapshots: Array<{ system: SystemRecord; details: SystemDetails }> = [];
    for (const user of users) {
      const system = await findSystemByUser(running.database.db, user.userId);
      if (!system) throw new Error('no system');
      snapshots.push({ system, details: await loadSystemDetails(running.database.db, system.id, OWNER_SYSTEM_LOAD) });
    }
    for (let i = 0; i < backlog; i += 100) {
      await running.database.db.transaction().execute(async (trx) => {
        for (let j = i; j < Math.min(backlog, i + 100); j++) {
          const snapshot = snapshots[j % snapshots.length];
          if (snapshot) await appendEvent(trx, snapshot.system.id, { clientId: app.id, accountId: null }, { type: 'system.updated', system: snapshot.system, details: snapshot.details });
        }
      });
    }
    const before = arrivals;
    const drained = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (arrivals - before >= backlog) {
          clearInterval(poll);
          resolve();
        }
      }, 1);
    });
    const drainStarted = performance.now();
    running.app.events.start();
    await drained;
    const perSecond = backlog / ((performance.now() - drainStarted) / 1000);
    const concurrency = config.events.perEndpointConcurrency;
    const bareBodyTarget = new URL(`${receiver.url}/bare`);
    let sent = 0;
    const bareStarted = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < backlog) {
          sent++;
          await barePost(agent, bareBodyTarget, sampleBody);
        }
      }),
    );
    const barePerSecond = backlog / ((performance.now() - bareStarted) / 1000);
    agent.destroy();

    // The write path with no endpoint, then with a dead one receiving every edit (disabled between rounds).
    await events('POST', `/endpoints/${live.data.id}/delete`);
    const duration = quick ? 1 : 10;
    const connections = 50;
    const editLoad = () =>
      runLoad({
        url: `${url}/v1/users/@me/alters/${first.alterId}/edit`,
        method: 'POST',
        connections,
        duration,
        headers: { 'content-type': 'application/json' },
        body: '{"pronouns":"p$N"}',
        variants: users.map((user) => ({ path: `/v1/users/@me/alters/${user.alterId}/edit`, headers: { authorization: `Bearer ${user.token}` } })),
      });
    // Alternating (none, healthy, dead, none, …) so drift on a shared machine hits all alike; the
    // median run of each is reported. One endpoint of each kind, enabled only for its own runs.
    const rounds = quick ? 1 : 3;
    const noneRuns: LoadResult[] = [];
    const healthyRuns: LoadResult[] = [];
    const deadRuns: LoadResult[] = [];
    const healthyEndpoint = (await events('POST', '/endpoints', { url: `${receiver.url}/healthy`, eventTypes: ['alter.updated'] })).data.id;
    const deadEndpoint = (await events('POST', '/endpoints', { url: dead.url, eventTypes: ['alter.updated'] })).data.id;
    const enable = async (endpoint: string, enabled: boolean) => void (await events('POST', `/endpoints/${endpoint}/edit`, { enabled }));
    await enable(healthyEndpoint, false);
    await enable(deadEndpoint, false);
    for (let round = 0; round < rounds; round++) {
      noneRuns.push(await editLoad());
      await enable(healthyEndpoint, true);
      healthyRuns.push(await editLoad());
      await enable(healthyEndpoint, false);
      // What the healthy endpoint was sent is delivered before the dead one's runs start.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await enable(deadEndpoint, true);
      deadRuns.push(await editLoad());
      await enable(deadEndpoint, false);
    }
    const median = (runs: LoadResult[]) => [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(runs.length / 2)] as LoadResult;
    const none = median(noneRuns);
    const healthy = median(healthyRuns);
    const withDead = median(deadRuns);
    const pending = await running.database.db.selectFrom('event_deliveries').select((eb) => eb.fn.countAll<number>().as('count')).where('status', '=', 'pending').executeTakeFirstOrThrow();
    for (const [result, what] of [
      ...noneRuns.map((r) => [r, 'edits without endpoints'] as const),
      ...healthyRuns.map((r) => [r, 'edits with a healthy endpoint'] as const),
      ...deadRuns.map((r) => [r, 'edits with a dead endpoint'] as const),
    ]) {
      if (result.errors > 0 || result.non2xx > 0) throw new Error(`${what}: ${result.errors} errors and ${result.non2xx} non-2xx of ${result.total}`);
    }
    return {
      latency: {
        events: latencyEvents,
        p50Ms: percentile(endToEnd, 50),
        p99Ms: percentile(endToEnd, 99),
        writeP50Ms: percentile(writes, 50),
        writeP99Ms: percentile(writes, 99),
        bareP50Ms: percentile(bare, 50),
        bareP99Ms: percentile(bare, 99),
      },
      throughput: { events: backlog, systems, concurrency, perSecond, barePerSecond },
      deadEndpoint: { none, healthy, dead: withDead, rounds, pendingAfter: Number(pending.count), connections },
    };
  } finally {
    await dead.close();
    await running.close();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchEvents({ quick: process.argv.includes('--quick') }).then(
    (result) => {
      console.log(JSON.stringify(result, null, 2));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
