// What one process holds, for the capacity model in the README: each part in a process of its own,
// as a deployment runs them (the tests' bundle of the current sources: `main.js` for the service,
// `cli.js bot` for a bot process), on PostgreSQL, with the CPU each process (and PostgreSQL's
// backends serving them) spent per unit of work read from /proc:
//   1. proxied messages per second through one bot process with Discord's global budget lifted
//      (DISCORD_GLOBAL_RATE_LIMIT), against the fake Discord in this process: a burst from 10
//      systems (1,000 alters in all) over several channels, until every message is sent through its webhook, its original deleted and its
//      record stored by the service; the bot's store on the same PostgreSQL;
//   2. events per second through one service process: alter edits of many systems (autocannon,
//      its own process) with an endpoint receiving every event, created per second and delivered
//      per second (until the last arrives at a loopback receiver), against the same edits with no
//      endpoint.
// PostgreSQL's share is the CPU of the backends whose application_name is this run's (the service's
// pool and the bot's store), sampled every 200 ms so that a backend the pool closes meanwhile is
// counted up to its last sample. Without PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL) both
// run on SQLite with the bot's store in an SQLite file, and PostgreSQL's share is not measured.
//
// Alone: node --import tsx bench/capacity.ts [--quick]. bench/run.ts runs it as the group `capacity`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import * as oidc from 'openid-client';
import pg from 'pg';
import { ensureBotClient } from '../src/auth/clients.js';
import { createApiClient } from '../src/bot/api-client.js';
import { openLinkStore } from '../src/bot/links/link-store.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { findSystemByUser } from '../src/db/repositories/systems.js';
import { usernameKey } from '../src/domain/username-key.js';
import { linkThroughDeviceFlow } from '../test/support/bot.js';
import { createTestDatabase, type TestDatabase } from '../test/support/dialects.js';
import { startFakeDiscord, user } from '../test/support/fake-discord.js';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { freePort, type TestServer } from '../test/support/server.js';
import { testBundle } from '../test/support/test-bundle.js';
import { runLoad, type LoadResult } from './load.js';

export interface CapacityBench {
  dialect: 'postgres' | 'sqlite';
  bot: {
    messages: number;
    channels: number;
    alters: number;
    systems: number;
    /** Sent through the webhook and the original deleted, per second (send of the first → the last done). */
    perSecond: number;
    /** Records stored by the service, per second over the same burst (send of the first → the last stored). */
    recordedPerSecond: number;
    /** CPU µs per message, from the first send until every record was stored. */
    botCpuMicros: number;
    serviceCpuMicros: number;
    postgresCpuMicros: number | undefined;
    /** Rows inserted, updated or deleted in the schema per message (service and store). */
    rowsPerMessage: number | undefined;
  };
  events: {
    systems: number;
    connections: number;
    seconds: number;
    /** Edits per second with no endpoint (the baseline). */
    bare: LoadResult;
    /** The same edits with an endpoint receiving every event: events created per second. */
    withEndpoint: LoadResult;
    events: number;
    /** Delivered per second: events / (load start → the last arrival). */
    deliveredPerSecond: number;
    /** Seconds after the load ended until the last event arrived. */
    drainSeconds: number;
    /** CPU µs per event (edit and its delivery), load start → last arrival. */
    serviceCpuMicros: number;
    postgresCpuMicros: number | undefined;
    /** The same edits without an endpoint, per edit. */
    bareServiceCpuMicros: number;
    barePostgresCpuMicros: number | undefined;
  };
}

const CLOCK_TICKS = 100;
/**
 * Members who are systems, each with ALTERS / SPEAKERS alters: a server's messages come from many
 * systems, and each system's records are written one at a time (its row lock orders them).
 */
const SPEAKERS = Array.from({ length: 10 }, (_, i) => user(String(720000000000000001n + BigInt(i)), `capacity-${i}`));
const ALTERS = 1000;

/** CPU seconds a process has used (user + system), from /proc; undefined once it is gone. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL's CPU on behalf of this run: the backends whose application_name starts with
 * `prefix`, sampled until stopped; each backend counts from its first sample to its last.
 */
function postgresCpu(url: string, prefix: string) {
  const client = new pg.Client({ connectionString: url });
  const seen = new Map<number, { first: number; last: number }>();
  let timer: NodeJS.Timeout | undefined;
  let connected: Promise<void> | undefined;
  const sample = async () => {
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where application_name like $1', [`${prefix}%`]);
    for (const { pid } of rows) {
      const now = cpuSeconds(pid);
      if (now === undefined) continue;
      const known = seen.get(pid);
      if (known) known.last = now;
      else seen.set(pid, { first: now, last: now });
    }
  };
  const total = () => [...seen.values()].reduce((sum, backend) => sum + (backend.last - backend.first), 0);
  return {
    async start() {
      connected ??= client.connect();
      await connected;
      await sample();
      timer = setInterval(() => void sample().catch(() => undefined), 200);
    },
    /** CPU seconds since start(). */
    async stop(): Promise<number> {
      clearInterval(timer);
      await sample();
      const spent = total();
      seen.clear();
      return spent;
    },
    close: () => client.end(),
  };
}

/** Rows written in `schema` so far (inserted, updated, deleted), from PostgreSQL's statistics. */
async function rowsWritten(url: string, schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The statistics reach the view when a backend reports them (at most a second after a commit).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { rows } = await client.query<{ n: string }>('select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) as n from pg_stat_user_tables where schemaname = $1', [schema]);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

function withApplicationName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('application_name', name);
  return parsed.toString();
}

export interface Child {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

export function spawnBundle(script: string, args: string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, ['--max-semi-space-size=4', join(testBundle(), script), ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  if (child.stderr) createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
  return { child, lines, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

export async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 120_000, child?: Child): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (child && (child.child.exitCode !== null || child.child.signalCode !== null)) throw new Error(`${what}: the process exited:\n${child.lines.slice(-30).join('\n')}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${child ? `:\n${child.lines.slice(-30).join('\n')}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The service from the tests' bundle on a free port, once ready (stopped again if it does not get there). */
export async function startServiceProcess(dataDir: string, databaseUrl: string, env: Record<string, string> = {}): Promise<{ child: Child; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnBundle('main.js', [], { NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...env });
  try {
    await until('the service to be ready', async () => (await fetch(`${url}/readyz`).catch(() => undefined))?.ok === true, 60_000, child);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { child, url };
}

export async function stopChild(running: Child | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 10_000);
  await running.exited;
  clearTimeout(timer);
}

/** `count` alters, each speaking with `a<n>:`, written straight into the database. */
async function seedAlters(database: Database, userId: string, count: number): Promise<void> {
  const db = database.db;
  const system = await findSystemByUser(db, userId);
  if (!system) throw new Error('the benchmark user has no system');
  const now = Date.now();
  for (let start = 1; start <= count; start += 200) {
    const rows = [];
    for (let n = start; n < Math.min(count + 1, start + 200); n++) {
      rows.push({ system_id: system.id, username: `a${n}`, username_key: usernameKey(`a${n}`), display_name: `Alter ${n}`, proxy_tags: JSON.stringify([{ id: 'a', prefix: `a${n}:`, suffix: null }]), created_at: now });
    }
    await db.insertInto('alters').values(rows).execute();
  }
  await db.updateTable('systems').set({ revision: sql`revision + 1` }).where('id', '=', system.id).execute();
}

export async function benchCapacity(options: { quick: boolean; postgresUrl?: string }): Promise<CapacityBench> {
  const { quick, postgresUrl } = options;
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-capacity-'));
  const run = `switchboard-capacity-${randomBytes(3).toString('hex')}`;
  let testDatabase: TestDatabase | undefined;
  let service: Child | undefined;
  let bot: Child | undefined;
  let database: Database | undefined;
  const closers: Array<() => Promise<unknown>> = [];
  try {
    testDatabase = await createTestDatabase(postgresUrl ? 'postgres' : 'sqlite', postgresUrl);
    const schema = postgresUrl ? /search_path=(\w+)/.exec(decodeURIComponent(testDatabase.url))?.[1] : undefined;
    const databaseUrl = postgresUrl ? withApplicationName(testDatabase.url, `${run}-service`) : testDatabase.url;
    const started = await startServiceProcess(join(dir, 'service'), databaseUrl, { AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false', EVENTS_ALLOW_PRIVATE_ADDRESSES: 'true' });
    service = started.child;
    const { url } = started;
    const serviceProcess = service;
    database = openDatabase(testDatabase.url);
    const opened = database;
    const server = { url, database: opened } as Pick<TestServer, 'url' | 'database'> as TestServer;
    const postgres = postgresUrl ? postgresCpu(postgresUrl, run) : undefined;
    if (postgres) closers.push(() => postgres.close());
    const servicePid = serviceProcess.child.pid ?? 0;

    // ── 2. Events (first: the bot's store and records are not in the schema yet) ──
    const systems = quick ? 4 : 40;
    const connections = quick ? 8 : 40;
    const seconds = quick ? 1 : 10;
    const app = await createTestClient(server, {
      name: 'Capacity',
      grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
      scopes: ['openid', 'alters:read', 'alters:write', 'system:read', 'system:write', 'events:manage'],
    });
    const users: Array<{ token: string; alterId: number }> = [];
    for (let i = 0; i < systems; i++) {
      const { tokens } = await obtainTokens(app, { userId: String(730000000000000000n + BigInt(i)), scope: 'openid alters:read alters:write system:read system:write' });
      const created = await fetch(`${url}/v1/users/@me/system/create-alter`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', displayName: 'Bench' }) });
      users.push({ token: tokens.access_token, alterId: ((await created.json()) as { alterId: number }).alterId });
    }
    let arrivals = 0;
    let lastArrival = 0;
    const receiver = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        arrivals++;
        lastArrival = performance.now();
        response.writeHead(204).end();
      });
    });
    receiver.keepAliveTimeout = 60_000;
    const receiverPort = await freePort();
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => (receiver.closeAllConnections(), receiver.close(() => resolve()))));
    const edits = () =>
      runLoad({
        url: `${url}/v1/users/@me/alters/${users[0]?.alterId ?? 0}/edit`,
        method: 'POST',
        connections,
        duration: seconds,
        headers: { 'content-type': 'application/json' },
        body: '{"pronouns":"p$N"}',
        variants: users.map((u) => ({ path: `/v1/users/@me/alters/${u.alterId}/edit`, headers: { authorization: `Bearer ${u.token}` } })),
      });
    const measured = async <T>(work: () => Promise<T>) => {
      await postgres?.start();
      const serviceBefore = cpuSeconds(servicePid) ?? 0;
      const result = await work();
      const serviceSeconds = (cpuSeconds(servicePid) ?? 0) - serviceBefore;
      const postgresSeconds = postgres ? await postgres.stop() : undefined;
      return { result, serviceSeconds, postgresSeconds };
    };
    // Warm-up, then the baseline without an endpoint.
    await edits();
    const bare = await measured(edits);
    const appToken = (await oidc.clientCredentialsGrant(app.config, { scope: 'events:manage' })).access_token;
    const registered = await fetch(`${url}/v1/events/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${appToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hook`, eventTypes: ['alter.updated'] }),
    });
    if (registered.status !== 201) throw new Error(`endpoint: ${registered.status} ${await registered.text()}`);
    const endpointId = ((await registered.json()) as { data: { id: string } }).data.id;
    const pending = async () => Number((await opened.db.selectFrom('event_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('endpoint_id', '=', endpointId).where('status', '=', 'pending').executeTakeFirstOrThrow()).n);
    let loadEnded = 0;
    let loadStarted = 0;
    const withEndpoint = await measured(async () => {
      loadStarted = performance.now();
      const result = await edits();
      loadEnded = performance.now();
      await until('every event to be delivered', async () => (await pending()) === 0, 300_000);
      return result;
    });
    const events = Number((await opened.db.selectFrom('event_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).where('endpoint_id', '=', endpointId).executeTakeFirstOrThrow()).n);
    if (arrivals !== events) throw new Error(`${arrivals} arrivals for ${events} deliveries`);
    for (const [result, what] of [
      [bare.result, 'edits without an endpoint'],
      [withEndpoint.result, 'edits with an endpoint'],
    ] as const) {
      if (result.errors > 0 || result.non2xx > 0) throw new Error(`${what}: ${result.errors} errors and ${result.non2xx} non-2xx of ${result.total}`);
    }
    const eventsResult: CapacityBench['events'] = {
      systems,
      connections,
      seconds,
      bare: bare.result,
      withEndpoint: withEndpoint.result,
      events,
      deliveredPerSecond: events / ((lastArrival - loadStarted) / 1000),
      drainSeconds: Math.max(0, (lastArrival - loadEnded) / 1000),
      serviceCpuMicros: (withEndpoint.serviceSeconds * 1e6) / events,
      postgresCpuMicros: withEndpoint.postgresSeconds === undefined ? undefined : (withEndpoint.postgresSeconds * 1e6) / events,
      bareServiceCpuMicros: (bare.serviceSeconds * 1e6) / bare.result.total,
      barePostgresCpuMicros: bare.postgresSeconds === undefined ? undefined : (bare.postgresSeconds * 1e6) / bare.result.total,
    };
    // The endpoint goes, so the bot's phase measures proxying alone.
    await fetch(`${url}/v1/events/endpoints/${endpointId}/delete`, { method: 'POST', headers: { authorization: `Bearer ${appToken}` } });

    // ── 1. One bot process ──
    const messages = quick ? 100 : 2000;
    const channelCount = 10;
    const secret = randomBytes(32).toString('base64url');
    const storeKey = randomBytes(32).toString('hex');
    const storeUrl = postgresUrl && schema ? `${withApplicationName(testDatabase.url, `${run}-store`)}&schema=${schema}` : `sqlite://${join(dir, 'links.sqlite')}`;
    const clientId = (await ensureBotClient(opened.db, secret)).id;
    const fake = await startFakeDiscord();
    closers.push(() => fake.close());
    const channels = [fake.channelId];
    for (let c = 1; c < channelCount; c++) channels.push(fake.addChannel({ name: `capacity-${c}` }).id);
    const api = createApiClient({ baseUrl: url, clientId, clientSecret: secret, timeoutMs: 10_000 });
    const links = await openLinkStore(storeUrl, Buffer.from(storeKey, 'hex'));
    const altersEach = ALTERS / SPEAKERS.length;
    for (const speaker of SPEAKERS) {
      fake.addMember({ user: speaker });
      const tokens = await linkThroughDeviceFlow(api, speaker.id);
      await links.set(speaker.id, { ...tokens, linkedAt: Date.now() });
      await seedAlters(opened, speaker.id, altersEach);
    }
    await links.close();
    bot = spawnBundle('cli.js', ['bot'], {
      NODE_ENV: 'test',
      DATA_DIR: join(dir, 'bot'),
      DISCORD_TOKEN: fake.botToken,
      DISCORD_API_BASE: fake.apiBase,
      DISCORD_GUILD_ID: fake.guild.id,
      SWITCHBOARD_API_URL: url,
      BOT_CLIENT_ID: clientId,
      BOT_CLIENT_SECRET: secret,
      BOT_STORE_URL: storeUrl,
      BOT_STORE_KEY: storeKey,
      // Discord's global budget lifted: what the process itself holds.
      DISCORD_GLOBAL_RATE_LIMIT: '1000000',
      // "bot is ready" is an info line.
      LOG_LEVEL: 'info',
    });
    const botProcess = bot;
    await until('the bot to be ready', () => botProcess.lines.some((line) => line.includes('bot is ready')), 120_000, botProcess);
    await fake.waitForReady(60_000);
    const executions = () => fake.webhookExecutions().filter((execution) => execution.kind === 'execute').length;
    const records = async () => Number((await opened.db.selectFrom('proxied_messages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    let sentSoFar = 0;
    const burst = async (count: number) => {
      const executedBefore = executions();
      const deletedBefore = fake.deletedMessages().length;
      const recordsBefore = await records();
      const started = performance.now();
      for (let i = 0; i < count; i++) {
        const n = 1 + ((sentSoFar * 7919) % altersEach);
        const author = SPEAKERS[sentSoFar % SPEAKERS.length] ?? SPEAKERS[0];
        if (!author) throw new Error('no speakers');
        fake.sendUserMessage({ author, channelId: channels[sentSoFar % channels.length] ?? fake.channelId, content: `a${n}: capacity ${sentSoFar}` });
        sentSoFar++;
      }
      await until(`${count} messages proxied`, () => executions() - executedBefore >= count && fake.deletedMessages().length - deletedBefore >= count, 300_000, botProcess);
      const proxied = performance.now();
      await until(`${count} records stored`, async () => (await records()) - recordsBefore >= count, 300_000, botProcess);
      const recorded = performance.now();
      if (executions() - executedBefore !== count || (await records()) - recordsBefore !== count) throw new Error('a message was proxied or recorded twice');
      return { perSecond: count / ((proxied - started) / 1000), recordedPerSecond: count / ((recorded - started) / 1000) };
    };
    // Warm-up: each channel's webhook is created, the profile fetched.
    await burst(channelCount);
    await burst(Math.min(100, messages));
    const botPid = botProcess.child.pid ?? 0;
    const rowsBefore = schema && postgresUrl ? await rowsWritten(postgresUrl, schema) : undefined;
    const botBefore = cpuSeconds(botPid) ?? 0;
    const proxying = await measured(() => burst(messages));
    const botSeconds = (cpuSeconds(botPid) ?? 0) - botBefore;
    const rowsAfter = schema && postgresUrl ? await rowsWritten(postgresUrl, schema) : undefined;
    return {
      dialect: postgresUrl ? 'postgres' : 'sqlite',
      bot: {
        messages,
        channels: channelCount,
        alters: ALTERS,
        systems: SPEAKERS.length,
        perSecond: proxying.result.perSecond,
        recordedPerSecond: proxying.result.recordedPerSecond,
        botCpuMicros: (botSeconds * 1e6) / messages,
        serviceCpuMicros: (proxying.serviceSeconds * 1e6) / messages,
        postgresCpuMicros: proxying.postgresSeconds === undefined ? undefined : (proxying.postgresSeconds * 1e6) / messages,
        rowsPerMessage: rowsBefore === undefined || rowsAfter === undefined ? undefined : (rowsAfter - rowsBefore) / messages,
      },
      events: eventsResult,
    };
  } finally {
    await stopChild(bot);
    await stopChild(service);
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await database?.close();
    await testDatabase?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  benchCapacity({ quick: process.argv.includes('--quick'), ...(postgresUrl ? { postgresUrl } : {}) }).then(
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
