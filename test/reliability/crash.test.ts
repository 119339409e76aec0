// Crash durability: the real service (src/main.ts as a child process) takes a storm of concurrent
// writes, is SIGKILLed while many are in flight, and is restarted on the same database and data
// dir. Every write it acknowledged must still be there with the value it wrote; writes whose
// answer never arrived may or may not have happened, but never by halves (an alter created or
// edited together with its integration field has both or neither); and the database must pass
// its integrity checks with nothing orphaned.
//
// The storm goes over raw sockets, all connected before the first byte is written, so the
// requests reach the service within milliseconds and the kill finds hundreds of them in its
// hands. On PostgreSQL those run on a pool of connections and the kill cuts transactions
// mid-way. On SQLite the service does one request's database work at a time without yielding
// (better-sqlite3 is synchronous), so a kill lands between requests or within one: there, a
// write split in two is exposed when something awaited (I/O, a timer) separates the halves, and
// an answer sent before its write is exposed when the write waits for a later turn of the loop.
// A process kill never loses what reached the OS, so `synchronous` itself is beyond this test;
// the file being in WAL mode is checked instead.
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import type { Schema } from '../../src/db/tables.js';
import { ALL_API_SCOPES } from '../support/api.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/dialects.js';
import { createTestClient, obtainTokens, type TestClient } from '../support/oauth.js';
import { freePort, type TestServer } from '../support/server.js';
import { startService, stopService, waitReady, type Service } from '../support/service-process.js';


const USERS = ['300000000000000001', '300000000000000002', '300000000000000003', '300000000000000004'];
/** Alters created before the storm, per user: each gets exactly one edit and one front push in it. */
const PRE_CREATED_PER_USER = 75;
/** Creates in the storm, per user; every other one also sets the caller's integration field. */
const CREATES_PER_USER = 100;
// The storm: 4 users × (75 edits + 75 front pushes + 100 creates) = 1000 writes.
/** SIGKILL once this many answers have arrived: some 700 writes are then still in flight. */
const KILL_AFTER_RESPONSES = 300;

// ---------------------------------------------------------------------------------------------
// The service process

// ---------------------------------------------------------------------------------------------
// Requests

interface Reply {
  status: number;
  body: unknown;
}

/** A JSON POST through `agent` (a pool of its own, so no socket outlives the process it was sent to). */
async function post(agent: Agent, url: string, token: string, body: unknown): Promise<Reply> {
  const response = await undiciFetch(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

async function get(agent: Agent, url: string, token: string): Promise<Reply> {
  const response = await undiciFetch(url, { dispatcher: agent, headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as unknown };
}

function connect(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setNoDelay(true);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** One complete HTTP/1.1 request, ready to be written in one go. */
function rawPost(port: number, path: string, token: string, body: unknown): string {
  const json = JSON.stringify(body);
  return (
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`
  );
}

/**
 * Writes `request` and resolves with the status of the answer as soon as its status line has
 * arrived (that line is the acknowledgement); rejects when the connection ends before it.
 */
function exchange(socket: Socket, request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let received = '';
    let settled = false;
    socket.on('data', (chunk: Buffer) => {
      if (settled) return;
      received += chunk.toString('latin1');
      const line = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (line) {
        settled = true;
        resolve(Number(line[1]));
      } else if (received.includes('\r\n')) {
        settled = true;
        reject(new Error(`not an HTTP answer: ${received.slice(0, 80)}`));
      }
    });
    socket.on('error', (error) => {
      if (!settled) reject(error);
      settled = true;
    });
    socket.on('close', () => {
      if (!settled) reject(new Error('the connection closed without an answer'));
      settled = true;
    });
    socket.write(request);
  });
}

type Operation =
  | { kind: 'create'; user: number; username: string; displayName: string; field: string | undefined }
  | { kind: 'edit'; user: number; alterId: number; description: string; field: string }
  | { kind: 'front'; user: number; alterId: number };

interface Outcome {
  /** The HTTP status, when an answer arrived (before or after the kill signal). */
  status?: number;
  /** Why no answer arrived: the connection was reset or refused. */
  error?: string;
  /** Whether the answer's status line arrived before the kill signal was sent. */
  beforeKill?: boolean;
}

/** A small seeded PRNG (mulberry32): the storm's order is the same on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], next: () => number): T[] {
  const result = [...items];
  for (let i = result.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [result[i], result[j]] = [result[j] as T, result[i] as T];
  }
  return result;
}

function describeError(error: unknown): string {
  return (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
}

// ---------------------------------------------------------------------------------------------
// Checks on the database

interface Orphans {
  alters_without_system: number;
  switch_members_without_alter: number;
  switches_without_system: number;
  alter_fields_without_alter: number;
  alter_fields_without_system: number;
  alter_tags_without_alter: number;
  systems_without_user: number;
}

async function countOrphans(db: Kysely<Schema>): Promise<Orphans> {
  const count = async (query: ReturnType<typeof sql<{ n: number }>>) => Number((await query.execute(db)).rows[0]?.n ?? -1);
  return {
    alters_without_system: await count(sql`select count(*) as n from alters a where not exists (select 1 from systems s where s.id = a.system_id)`),
    switch_members_without_alter: await count(sql`select count(*) as n from switch_members m where not exists (select 1 from alters a where a.id = m.alter_id)`),
    switches_without_system: await count(sql`select count(*) as n from switches w where not exists (select 1 from systems s where s.id = w.system_id)`),
    alter_fields_without_alter: await count(sql`select count(*) as n from alter_fields f where not exists (select 1 from alters a where a.id = f.alter_id)`),
    alter_fields_without_system: await count(sql`select count(*) as n from alter_fields f where not exists (select 1 from systems s where s.id = f.system_id)`),
    alter_tags_without_alter: await count(sql`select count(*) as n from alter_tags t where not exists (select 1 from alters a where a.id = t.alter_id)`),
    systems_without_user: await count(sql`select count(*) as n from systems s where not exists (select 1 from users u where u.id = s.user_id)`),
  };
}

// ---------------------------------------------------------------------------------------------

describe.each(DIALECTS)('crash durability (%s)', (dialect) => {
  let testDatabase: TestDatabase | undefined;
  let dataDir: string | undefined;
  let service: Service | undefined;
  let database: Database | undefined;

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect);
    dataDir = mkdtempSync(join(tmpdir(), 'switchboard-crash-'));
  });

  afterAll(async () => {
    await database?.close();
    await stopService(service);
    await testDatabase?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write, half-applies none, and stays consistent after SIGKILL', { timeout: 120_000 }, async () => {
    if (!testDatabase || !dataDir) throw new Error('setup failed');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      DATABASE_URL: testDatabase.url,
      AUTH_DEV_LOGIN: 'true',
      RATE_LIMIT_ENABLED: 'false',
      LOG_LEVEL: 'silent',
    };

    // 1. The service, as `npm start` runs it.
    service = startService(env);
    await waitReady(service, url);

    // 2. One OAuth client (registered straight into the database, as the CLI does) and a token per
    //    user through the real authorization code flow: dev login, consent, code exchange.
    const registration = openDatabase(testDatabase.url);
    let client: TestClient;
    try {
      client = await createTestClient({ url, database: registration } as Pick<TestServer, 'url' | 'database'> as TestServer);
    } finally {
      await registration.close();
    }
    const tokens: string[] = [];
    for (const userId of USERS) {
      const { tokens: granted } = await obtainTokens(client, { userId, scope: `openid offline_access ${ALL_API_SCOPES}` });
      tokens.push(granted.access_token);
    }
    const tokenOf = (user: number) => tokens[user] as string;

    // The alters that the storm edits and pushes to the front.
    const setupAgent = new Agent();
    const preCreated: Array<{ user: number; alterId: number; username: string }> = [];
    try {
      const created = await Promise.all(
        USERS.flatMap((_, user) =>
          Array.from({ length: PRE_CREATED_PER_USER }, async (_unused, k) => {
            const username = `pre-${user}-${k}`;
            const reply = await post(setupAgent, `${url}/v1/users/@me/system/create-alter`, tokenOf(user), { username, displayName: `Pre ${user} ${k}` });
            expect(reply.status, JSON.stringify(reply.body)).toBe(201);
            return { user, alterId: (reply.body as { alterId: number }).alterId, username };
          }),
        ),
      );
      preCreated.push(...created);
    } finally {
      await setupAgent.destroy();
    }

    // 3. The storm: 1000 writes at once, in a fixed shuffled order.
    const operations: Operation[] = [];
    for (const [index, alter] of preCreated.entries()) {
      operations.push({ kind: 'edit', user: alter.user, alterId: alter.alterId, description: `edited description ${index}`, field: `edit-field-${index}` });
      operations.push({ kind: 'front', user: alter.user, alterId: alter.alterId });
    }
    for (const [user] of USERS.entries()) {
      for (let k = 0; k < CREATES_PER_USER; k++) {
        operations.push({ kind: 'create', user, username: `storm-${user}-${k}`, displayName: `Storm ${user} ${k}`, field: k % 2 === 0 ? `create-field-${user}-${k}` : undefined });
      }
    }
    expect(operations).toHaveLength(1000);
    const storm = shuffle(operations, random(20261121));

    const killed = service;
    const outcomes: Outcome[] = storm.map(() => ({}));
    let answered = 0;
    let killSent = false;
    let inFlightAtKill = 0;
    const path = (operation: Operation) =>
      operation.kind === 'create' ? '/v1/users/@me/system/create-alter' : operation.kind === 'edit' ? `/v1/users/@me/alters/${operation.alterId}/edit` : '/v1/users/@me/front';
    const body = (operation: Operation) => {
      switch (operation.kind) {
        case 'create':
          return {
            username: operation.username,
            displayName: operation.displayName,
            ...(operation.field === undefined ? {} : { fields: { [client.id]: operation.field } }),
          };
        case 'edit':
          return { description: operation.description, fields: { [client.id]: operation.field } };
        case 'front':
          return { alter: String(operation.alterId) };
      }
    };
    const requests = storm.map((operation) => rawPost(port, path(operation), tokenOf(operation.user), body(operation)));
    // Every connection is open before the first request is written, so the whole storm reaches
    // the service within milliseconds and is in its hands, not the test's, when the kill lands.
    const sockets: Socket[] = [];
    let started = 0;
    try {
      for (let i = 0; i < requests.length; i += 100) sockets.push(...(await Promise.all(requests.slice(i, i + 100).map(() => connect(port)))));
      started = Date.now();
      await Promise.all(
        requests.map(async (raw, index) => {
          const outcome = outcomes[index] as Outcome;
          try {
            outcome.status = await exchange(sockets[index] as Socket, raw);
            outcome.beforeKill = !killSent;
            answered += 1;
            if (!killSent && answered >= KILL_AFTER_RESPONSES) {
              killSent = true;
              inFlightAtKill = outcomes.filter((o) => o.status === undefined && o.error === undefined).length;
              killed.child.kill('SIGKILL');
            }
          } catch (error) {
            outcome.error = describeError(error);
          }
        }),
      );
    } finally {
      for (const socket of sockets) socket.destroy();
    }
    const stormMs = Date.now() - started;
    expect(killSent, 'the service answered too few requests to be killed part-way').toBe(true);
    expect(await killed.exited).toBeNull();
    expect(killed.child.signalCode).toBe('SIGKILL');

    const acknowledged = outcomes.filter((o) => o.status !== undefined && o.status >= 200 && o.status < 300).length;
    const failed = outcomes.filter((o) => o.error !== undefined);
    const errorKinds = [...new Set(failed.map((o) => o.error))];
    console.log(
      `crash (${dialect}): ${acknowledged} acknowledged (${outcomes.filter((o) => o.beforeKill === false).length} read after the kill signal), ` +
        `${failed.length} failed (${errorKinds.join(', ')}), ${inFlightAtKill} in flight at the kill, storm ${stormMs} ms`,
    );
    // The kill must land in the middle of the storm, or the test proves nothing.
    expect(inFlightAtKill).toBeGreaterThanOrEqual(200);
    expect(failed.length).toBeGreaterThan(0);
    // Before the kill, the service answered every write with success (no 5xx under load).
    const unexpected = outcomes.flatMap((o, index) =>
      o.status !== undefined && (o.status < 200 || o.status >= 300) ? [{ operation: storm[index], status: o.status }] : [],
    );
    expect(unexpected).toEqual([]);

    // 4. Restart on the same database and data dir.
    service = startService(env);
    await waitReady(service, url);

    // 5. Verify, straight from the database.
    database = openDatabase(testDatabase.url);
    const db = database.db;

    if (database.dialect === 'sqlite') {
      // WAL is a property of the file, so a connection of our own can see it (openDatabase would
      // set it, so look first through a plain read-only connection).
      const file = new SqliteDatabase(testDatabase.url.slice('sqlite:'.length), { readonly: true });
      try {
        expect(file.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        file.close();
      }
      const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(db);
      expect(integrity.rows).toEqual([{ integrity_check: 'ok' }]);
      const foreignKeys = await sql`pragma foreign_key_check`.execute(db);
      expect(foreignKeys.rows).toEqual([]);
    }
    expect(await countOrphans(db)).toEqual({
      alters_without_system: 0,
      switch_members_without_alter: 0,
      switches_without_system: 0,
      alter_fields_without_alter: 0,
      alter_fields_without_system: 0,
      alter_tags_without_alter: 0,
      systems_without_user: 0,
    });

    const systems = await db.selectFrom('systems').select(['id', 'user_id']).where('user_id', 'in', USERS).execute();
    const systemOf = new Map(systems.map((row) => [row.user_id, Number(row.id)]));
    const systemIds = USERS.map((userId) => systemOf.get(userId));
    expect(systemIds.every((id) => id !== undefined)).toBe(true);

    const alterRows = await db
      .selectFrom('alters')
      .select(['id', 'system_id', 'username', 'display_name', 'description'])
      .where('system_id', 'in', systemIds as number[])
      .execute();
    const alterByName = new Map(alterRows.map((row) => [`${Number(row.system_id)}/${row.username}`, row]));
    const alterById = new Map(alterRows.map((row) => [Number(row.id), row]));
    const fieldRows = await db.selectFrom('alter_fields').select(['alter_id', 'client_id', 'system_id', 'value']).execute();
    const fieldOf = new Map(fieldRows.filter((row) => row.client_id === client.id).map((row) => [Number(row.alter_id), row.value]));
    const frontRows = await db
      .selectFrom('switches')
      .innerJoin('switch_members', 'switch_members.switch_id', 'switches.id')
      .select(['switch_members.alter_id', 'switches.client_id', 'switches.system_id'])
      .execute();
    const pushesOf = new Map<number, number>();
    for (const row of frontRows) {
      expect(row.client_id).toBe(client.id);
      pushesOf.set(Number(row.alter_id), (pushesOf.get(Number(row.alter_id)) ?? 0) + 1);
    }

    const problems: string[] = [];
    /** Writes that never got an answer but were committed (allowed, and a sign the kill cut in). */
    let appliedUnanswered = 0;
    const expectedAlterIds = new Set(preCreated.map((alter) => alter.alterId));
    for (const [index, operation] of storm.entries()) {
      const outcome = outcomes[index] as Outcome;
      const acked = outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;
      const label = `${operation.kind} #${index} (${acked ? `answered ${outcome.status}` : `no answer: ${outcome.error}`})`;
      const systemId = systemOf.get(USERS[operation.user] as string);
      switch (operation.kind) {
        case 'create': {
          const row = alterByName.get(`${systemId}/${operation.username}`);
          if (!row) {
            if (acked) problems.push(`${label}: alter ${operation.username} is missing`);
            break;
          }
          expectedAlterIds.add(Number(row.id));
          if (!acked) appliedUnanswered += 1;
          if (row.display_name !== operation.displayName) problems.push(`${label}: ${operation.username} has display name ${row.display_name}`);
          const field = fieldOf.get(Number(row.id));
          if (field !== operation.field) problems.push(`${label}: ${operation.username} has integration field ${field}, wrote ${operation.field}`);
          break;
        }
        case 'edit': {
          const row = alterById.get(operation.alterId);
          if (!row) {
            problems.push(`${label}: alter ${operation.alterId} vanished`);
            break;
          }
          const description = row.description;
          const field = fieldOf.get(operation.alterId);
          const descriptionApplied = description === operation.description;
          const fieldApplied = field === operation.field;
          if (!descriptionApplied && description !== null) problems.push(`${label}: alter ${operation.alterId} has description ${description}`);
          if (!fieldApplied && field !== undefined) problems.push(`${label}: alter ${operation.alterId} has integration field ${field}`);
          if (descriptionApplied !== fieldApplied) problems.push(`${label}: half applied (description ${description}, field ${field})`);
          if (acked && !(descriptionApplied && fieldApplied)) problems.push(`${label}: lost (description ${description}, field ${field})`);
          if (!acked && descriptionApplied) appliedUnanswered += 1;
          break;
        }
        case 'front': {
          const pushes = pushesOf.get(operation.alterId) ?? 0;
          if (pushes > 1) problems.push(`${label}: ${pushes} front records for alter ${operation.alterId}`);
          if (acked && pushes === 0) problems.push(`${label}: no front record for alter ${operation.alterId}`);
          if (!acked && pushes > 0) appliedUnanswered += 1;
          break;
        }
      }
    }
    // Nothing appeared that no request wrote.
    for (const row of alterRows) if (!expectedAlterIds.has(Number(row.id))) problems.push(`unexpected alter ${row.username}`);
    const frontTargets = new Set(storm.flatMap((operation) => (operation.kind === 'front' ? [operation.alterId] : [])));
    for (const alterId of pushesOf.keys()) if (!frontTargets.has(alterId)) problems.push(`unexpected front record for alter ${alterId}`);
    for (const row of fieldRows) {
      if (row.client_id !== client.id || !alterById.has(Number(row.alter_id))) problems.push(`unexpected integration field ${row.value}`);
    }
    console.log(`crash (${dialect}): ${appliedUnanswered} of the unanswered writes had been committed`);
    expect(problems).toEqual([]);

    // The restarted service serves what the database holds, with the tokens issued before the crash.
    const afterAgent = new Agent();
    try {
      const firstSystem = systemOf.get(USERS[0] as string);
      const listed = await get(afterAgent, `${url}/v1/users/@me/system/list-alters?max=250`, tokenOf(0));
      expect(listed.status).toBe(200);
      expect((listed.body as unknown[]).length).toBe(alterRows.filter((row) => Number(row.system_id) === firstSystem).length);
      const again = await post(afterAgent, `${url}/v1/users/@me/system/create-alter`, tokenOf(0), { username: 'after-restart', displayName: 'After', fields: { [client.id]: 'after-restart' } });
      expect(again.status, JSON.stringify(again.body)).toBe(201);
    } finally {
      await afterAgent.destroy();
    }
  });
});
