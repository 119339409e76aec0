// The service as a deployment runs it behind a load balancer: three processes of one installation
// (one DATA_DIR, one issuer) on one fresh PostgreSQL schema and one Redis, all started at the same
// moment. Each must come up with the schema migrated once (migrate's advisory lock, and the keys
// generated into DATA_DIR once); then, with requests sent to every process in turn:
// - every event reaches the webhook once and in order per system, though all three run a
//   dispatcher (claims with SKIP LOCKED and a lease, src/db/repositories/events/queue.ts);
// - a token's rate limit is one count in Redis: round robin over the three is limited at the
//   configured limit in total, not three times it;
// - a write through one process is read exactly through the others (their caches are dropped by
//   the change notes; test/http/cross-process-caches.test.ts covers each cache).
// PostgreSQL and Redis only: several processes on one SQLite file are not a load-balanced deployment.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { Receiver, verifySignature, type Received } from '../events/receiver.js';
import { createTestDatabase, type TestDatabase } from '../support/dialects.js';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from '../support/environment.js';
import { createTestClient, obtainTokens, type TestClient } from '../support/oauth.js';
import { freePort, type TestServer } from '../support/server.js';
import { startService, stopService, waitReady, type Service } from '../support/service-process.js';

const PROCESSES = 3;
/** Per access token, in Redis; every token of this file but the limited one stays well under it. */
const TOKEN_LIMIT = 40;
const USER_SCOPES = 'openid alters:read alters:write system:read system:write';

interface Reply<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

async function call<T = Record<string, unknown>>(base: string, token: string, method: string, path: string, body?: unknown): Promise<Reply<T>> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as T };
}

/** The object a read answers (inside `data`) or a write answers (bare). */
function objectOf(reply: Reply): unknown {
  return 'data' in reply.body ? reply.body.data : reply.body;
}

/** The JSON log lines a process wrote (LOG_FORMAT=json). */
function logLines(service: Service): Array<Record<string, unknown>> {
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.runIf(process.env.TEST_DATABASE_URL && REDIS_AVAILABLE)('three service processes on one PostgreSQL database and one Redis', () => {
  let testDatabase: TestDatabase | undefined;
  let dataDir: string | undefined;
  let services: Service[] = [];
  let bases: string[] = [];
  let app: TestClient;
  let receiver: Receiver;

  async function signIn(userId: string): Promise<string> {
    const { tokens } = await obtainTokens(app, { userId, scope: USER_SCOPES });
    return tokens.access_token;
  }

  beforeAll(async () => {
    testDatabase = await createTestDatabase('postgres');
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-three-processes-'));
    const ports = await Promise.all(Array.from({ length: PROCESSES }, () => freePort()));
    bases = ports.map((port) => `http://127.0.0.1:${port}`);
    const envs = ports.map((port) => ({
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      // One issuer: three processes of one deployment behind one address.
      PUBLIC_URL: bases[0] ?? '',
      // One installation: the keys are generated into it by whichever process gets there first.
      DATA_DIR: dataDir ?? '',
      DATABASE_URL: testDatabase?.url ?? '',
      REDIS_URL: TEST_REDIS_URL,
      AUTH_DEV_LOGIN: 'true',
      RATE_LIMIT_PER_TOKEN: String(TOKEN_LIMIT),
      // Sign-ins and the event writes share one loopback address; the per-IP count is not this file's subject.
      RATE_LIMIT_PER_IP: '1000000',
      RATE_LIMIT_WINDOW: '600',
      EVENTS_ALLOW_PRIVATE_ADDRESSES: 'true',
      // Each process looks for the others' deliveries often, so that all three compete for them.
      EVENTS_POLL_INTERVAL_MS: '50',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    }));
    // All at once, on an empty schema.
    services = envs.map((env) => startService(env));
    await Promise.all(services.map((service, i) => waitReady(service, bases[i] ?? '', 120_000)));

    const registration = openDatabase(testDatabase.url);
    try {
      const server = { url: bases[0], database: registration } as Pick<TestServer, 'url' | 'database'> as TestServer;
      app = await createTestClient(server, {
        name: 'Three processes',
        grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
        scopes: ['openid', 'alters:read', 'alters:write', 'system:read', 'system:write', 'events:manage'],
      });
    } finally {
      await registration.close();
    }
    receiver = new Receiver();
    await receiver.start();
  }, 240_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => stopService(service)));
    await receiver?.stop();
    await testDatabase?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('came up together on an empty schema, which one of them migrated', { timeout: 30_000 }, async () => {
    const applied = services.map((service) => {
      const ready = logLines(service).find((line) => line.msg === 'switchboard is ready');
      expect(ready, service.output()).toBeDefined();
      return ready?.migrationsApplied;
    });
    const all = Object.keys(migrations).length;
    expect([...applied].sort()).toEqual([0, 0, all]);

    const client = new pg.Client({ connectionString: testDatabase?.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>('select name from kysely_migration order by name');
      expect(rows.map((row) => row.name)).toEqual(Object.keys(migrations).sort());
    } finally {
      await client.end();
    }
  });

  it('reads through each process exactly what was written through another', { timeout: 60_000 }, async () => {
    const token = await signIn('340000000000000001');
    const [first, second, third] = bases as [string, string, string];
    // Every process has read (and may hold) the system before it changes.
    for (const base of bases) expect((await call(base, token, 'GET', '/v1/users/@me/system')).status).toBe(200);

    const created = await call<{ alterId: number }>(first, token, 'POST', '/v1/users/@me/system/create-alter', { username: 'ash', displayName: 'Ash', pronouns: 'she/her' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(objectOf(created)).toMatchObject({ username: 'ash', pronouns: 'she/her' });
    const path = `/v1/users/@me/alters/${created.body.alterId}`;
    for (const base of [second, third]) expect(objectOf(await call(base, token, 'GET', path))).toEqual(objectOf(created));

    const edited = await call(second, token, 'POST', `${path}/edit`, { pronouns: 'they/them', description: 'edited through the second' });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(objectOf(edited)).toMatchObject({ pronouns: 'they/them', description: 'edited through the second' });
    for (const base of [first, third]) expect(objectOf(await call(base, token, 'GET', path))).toEqual(objectOf(edited));

    const system = await call(third, token, 'POST', '/v1/users/@me/system/edit', { systemName: 'Written through the third', systemDescription: 'the third' });
    expect(system.status, JSON.stringify(system.body)).toBe(200);
    expect(objectOf(system)).toMatchObject({ systemName: 'Written through the third', systemDescription: 'the third' });
    for (const base of [first, second]) expect(objectOf(await call(base, token, 'GET', '/v1/users/@me/system'))).toEqual(objectOf(system));

    const deleted = await call(first, token, 'POST', `${path}/delete`, {});
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    for (const base of [second, third]) expect((await call(base, token, 'GET', path)).status).toBe(404);
  });

  it('delivers every event once, in order per system, though all three processes run a dispatcher', { timeout: 180_000 }, async () => {
    const appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    const registered = await call<{ data: { id: string }; secret: string }>(bases[1] ?? '', appToken, 'POST', '/v1/events/endpoints', {
      url: receiver.url('/hook'),
      eventTypes: ['alter.created', 'alter.updated', 'system.updated'],
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const users = ['340000000000000011', '340000000000000012', '340000000000000013', '340000000000000014'];
    const tokens = await Promise.all(users.map((userId) => signIn(userId)));
    const EDITS = 14;

    // Each system's writes one after the other, each through the next process; the systems at once.
    await Promise.all(
      tokens.map(async (token, u) => {
        const created = await call<{ alterId: number }>(bases[u % PROCESSES] ?? '', token, 'POST', '/v1/users/@me/system/create-alter', { username: 'speaker', displayName: 'Speaker' });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        for (let edit = 1; edit <= EDITS; edit++) {
          const base = bases[(u + edit) % PROCESSES] ?? '';
          const body = edit % 2 === 0 ? { pronouns: `edit ${edit}` } : { description: `edit ${edit}` };
          const path = edit % 7 === 0 ? '/v1/users/@me/system/edit' : `/v1/users/@me/alters/${created.body.alterId}/edit`;
          const answer = await call(base, token, 'POST', path, edit % 7 === 0 ? { systemName: `edit ${edit}` } : body);
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        }
      }),
    );
    const expected = users.length * (1 + EDITS);
    await receiver.waitFor('/hook', (list) => list.length >= expected, 120_000);

    // Then nothing is left to send, and nothing more arrives.
    const database = new pg.Client({ connectionString: testDatabase?.url });
    await database.connect();
    try {
      const endpoint = registered.body.data.id;
      const until = Date.now() + 60_000;
      for (;;) {
        const { rows } = await database.query<{ count: string }>(`select count(*) from event_deliveries where endpoint_id = $1 and status = 'pending'`, [endpoint]);
        if (Number(rows[0]?.count) === 0) break;
        if (Date.now() > until) throw new Error(`${rows[0]?.count} deliveries still pending`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const { rows: deliveries } = await database.query<{ status: string; attempts: number }>('select status, attempts from event_deliveries where endpoint_id = $1', [endpoint]);
      expect(deliveries).toHaveLength(expected);
      expect(deliveries.filter((delivery) => delivery.status !== 'delivered' || delivery.attempts !== 1)).toEqual([]);
    } finally {
      await database.end();
    }

    const received = receiver.at('/hook');
    expect(received).toHaveLength(expected);
    expect(new Set(received.map((request) => request.headers['webhook-id'])).size).toBe(expected);
    expect(new Set(received.map((request) => request.json.data.eventId)).size).toBe(expected);
    for (const request of received) expect(verifySignature(registered.body.secret, request)).toBe(true);
    for (const userId of users) {
      const ofUser = received.filter((request: Received) => request.json.data.userId === userId);
      expect(ofUser).toHaveLength(1 + EDITS);
      expect(ofUser[0]?.json.type).toBe('alter.created');
      // In the order they happened, whichever process sent each.
      const sequences = ofUser.map((request) => request.json.data.sequence);
      const start = sequences[0] ?? 0;
      expect(sequences).toEqual(Array.from({ length: 1 + EDITS }, (_, i) => start + i));
    }
  });

  it('limits a client going round robin over the processes at the configured limit in total', { timeout: 60_000 }, async () => {
    const token = await signIn('340000000000000021');
    const statuses: number[] = [];
    const remaining: Array<string | null> = [];
    // Three times the limit would pass if each process counted on its own.
    for (let i = 0; i < 3 * TOKEN_LIMIT + PROCESSES; i++) {
      const answer = await call(bases[i % PROCESSES] ?? '', token, 'GET', '/v1/users/@me/system');
      statuses.push(answer.status);
      remaining.push(answer.headers.get('x-ratelimit-remaining'));
      if (answer.status === 429 && statuses.filter((status) => status === 429).length === PROCESSES) break;
    }
    expect(statuses.slice(0, TOKEN_LIMIT)).toEqual(Array.from({ length: TOKEN_LIMIT }, () => 200));
    expect(remaining.slice(0, TOKEN_LIMIT)).toEqual(Array.from({ length: TOKEN_LIMIT }, (_, i) => String(TOKEN_LIMIT - 1 - i)));
    // The next request to each process is refused.
    expect(statuses.slice(TOKEN_LIMIT)).toEqual(Array.from({ length: PROCESSES }, () => 429));
  });

  it('logged no error in any process', () => {
    for (const service of services) {
      const errors = logLines(service).filter((line) => Number(line.level) >= 50);
      expect(errors, service.output().slice(-4000)).toEqual([]);
    }
  });
});
