// `npm run bench`: measures the real service against baselines measured in the same run and
// prints each figure with its ratio, so results hold on a noisy machine. `--quick` runs every
// benchmark briefly, only to prove the suite works (CI). A full run rewrites bench/RESULTS.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { loadConfig } from '../src/config/config.js';
import { startServer, type RunningServer } from '../src/http/server.js';
import pg from 'pg';
import { startBotHarness } from '../test/support/bot.js';
import { createTestDatabase } from '../test/support/dialects.js';
import { startFakeDiscord, user as discordUser } from '../test/support/fake-discord.js';
import { TestBrowser } from '../test/support/browser.js';
import { authorize, createTestClient, obtainTokens, REDIRECT_URI, type TestClient } from '../test/support/oauth.js';
import { seedAlters } from '../test/support/seed.js';
import { usernameKey } from '../src/domain/username-key.js';
import { freePort, type TestServer } from '../test/support/server.js';
import { startBareReadRoutes } from './bare-read-routes.js';
import { startInsertBaseline } from './insert-baseline.js';
import { runLoad, type LoadResult } from './load.js';
import { benchBotProxy } from './bot-proxy.js';
import { benchFront } from './front.js';
import { benchFrontStats } from './front-stats.js';
import { benchImport } from './import.js';
import { benchImportWorstShapes } from './import-worst.js';
import { benchMessageRecords } from './message-records.js';
import { benchEvents } from './events.js';
import { benchProxyEngine } from './proxy-engine.js';
import { benchReadAmplification } from './read-amplification.js';
import { benchImages } from './images.js';
import { benchBotMemory, CHANNELS_PER_SERVER, ROLES_PER_SERVER } from './bot-memory.js';
import { benchCapacity } from './capacity.js';
import { FIELDS as PROFILE_FIELDS, PAGE as PROFILE_PAGE, benchProfileFields } from './profile-fields.js';
import { FIRST_LOAD_BUDGET, benchDashboard } from './dashboard.js';

const quick = process.argv.includes('--quick');
/** `--only=reads,writes,startup`: run just these groups (no RESULTS.md is written then). */
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length).split(',');
const GROUPS = ['reads', 'writes', 'tokens', 'bot', 'scale', 'startup', 'records', 'engine', 'bot-proxy', 'front', 'front-stats', 'import', 'events', 'amplification', 'images', 'capacity', 'profile-fields', 'dashboard'] as const;
type Group = (typeof GROUPS)[number];
for (const name of only ?? []) if (!(GROUPS as readonly string[]).includes(name)) throw new Error(`--only: no group ${name} (groups: ${GROUPS.join(', ')})`);
const runs = (group: Group) => !only || only.includes(group);
const DURATION = quick ? 1 : 10;
const CONNECTIONS = 50;
const root = fileURLToPath(new URL('..', import.meta.url));

interface Row {
  id: string;
  name: string;
  measured: string;
  baseline: string;
  ratio: string;
  target: string;
  met: boolean | undefined;
}
const rows: Row[] = [];

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const load = (r: LoadResult) => `${fmt(r.requestsPerSecond)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms`;

function check(result: LoadResult, what: string): void {
  if (result.errors > 0 || result.non2xx > 0) throw new Error(`${what}: ${result.errors} errors and ${result.non2xx} non-2xx answers out of ${result.total}`);
}

async function startService(dataDir: string, env: Record<string, string> = {}): Promise<{ running: RunningServer; url: string }> {
  const port = await freePort();
  const config = loadConfig({
    ...env,
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    AUTH_DEV_LOGIN: 'true',
    RATE_LIMIT_ENABLED: 'false',
  });
  return { running: await startServer(config), url: config.publicUrl };
}

async function readBenchmarks(dataDir: string) {
  const { running, url } = await startService(dataDir);
  const server = { ...running, url } as unknown as TestServer;
  const client = await createTestClient(server);
  const { tokens } = await obtainTokens(client, { userId: '500000000000000001', scope: 'alters:read alters:write system:read' });
  const headers = { authorization: `Bearer ${tokens.access_token}` };
  await seedAlters(running.database.db, '500000000000000001', 2000);
  const first = await (await fetch(`${url}/v1/users/@me/system/list-alters?max=1`, { headers })).json() as Array<{ alterId: number; systemId: string }>;
  const alter = first[0];
  if (!alter) throw new Error('seeding failed');
  const baseline = await startBareReadRoutes(join(dataDir, 'switchboard.db'));
  try {
    // 1. Authenticated point read vs the bare route.
    const bare = await withCpu(() => runLoad({ url: `${baseline.url}/alters/${alter.alterId}`, connections: CONNECTIONS, duration: DURATION }));
    const ours = await withCpu(() => runLoad({ url: `${url}/v1/users/@me/alters/${alter.alterId}`, connections: CONNECTIONS, duration: DURATION, headers }));
    check(bare, 'baseline point read');
    check(ours, 'point read');
    rows.push(pointReadRow('1', 'Point read `GET /v1/users/@me/alters/{id}`, SQLite (50 connections)', ours, bare));
    const bareByTurn = await withCpu(() => runLoad({ url: `${baseline.url}/turn/alters/${alter.alterId}`, connections: CONNECTIONS, duration: DURATION }));
    check(bareByTurn, 'baseline point read, held for the turn');
    rows.push({ id: '1c', name: 'Point read, SQLite, against the bare route with its requests held for the turn as the service holds them', measured: `${load(ours)}, ${cpuPerRequest(ours)} (row 1)`, baseline: `${load(bareByTurn)}, ${cpuPerRequest(bareByTurn)}`, ratio: fmt(ours.requestsPerSecond / bareByTurn.requestsPerSecond, 2), target: 'reported', met: undefined });
    const rssAfter = process.memoryUsage().rss;

    // 2. list-alters?max=250 on a system with 2000 alters vs the bare route.
    const bareList = await withCpu(() => runLoad({ url: `${baseline.url}/systems/${alter.systemId}/alters`, connections: CONNECTIONS, duration: DURATION }));
    const list = await withCpu(() => runLoad({ url: `${url}/v1/users/@me/system/list-alters?max=250`, connections: CONNECTIONS, duration: DURATION, headers }));
    check(bareList, 'baseline list');
    check(list, 'list');
    const listRatio = list.requestsPerSecond / bareList.requestsPerSecond;
    rows.push({ id: '2', name: '`list-alters?max=250`, 2000 alters (50 connections)', measured: `${load(list)}, ${cpuPerRequest(list)}`, baseline: `${load(bareList)}, ${cpuPerRequest(bareList)}`, ratio: fmt(listRatio, 2), target: 'ratio >= 0.7', met: listRatio >= 0.7 });
    return { rssAfter };
  } finally {
    await baseline.close();
    await running.close();
  }
}

/** Issue 14's point-read target: half the bare route's throughput, and p99 within twice its p99. */
function pointReadRow(id: string, name: string, ours: Measured, bare: Measured): Row {
  const ratio = ours.requestsPerSecond / bare.requestsPerSecond;
  return { id, name, measured: `${load(ours)}, ${cpuPerRequest(ours)}`, baseline: `${load(bare)}, ${cpuPerRequest(bare)}`, ratio: fmt(ratio, 2), target: 'ratio >= 0.5, p99 <= 2x', met: ratio >= 0.5 && ours.p99 <= 2 * Math.max(bare.p99, 1) };
}

/** A fresh PostgreSQL schema for `run`, dropped afterwards. */
async function withSchema<T>(postgresUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const schema = await createTestDatabase('postgres', postgresUrl);
  try {
    return await run(schema.url);
  } finally {
    await schema.drop();
  }
}

/** 1b. The point read on PostgreSQL against a bare Fastify + `pg` route reading the same row. */
async function postgresReadBenchmark(databaseUrl: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-pg-'));
  const { running, url } = await startService(dataDir, { DATABASE_URL: databaseUrl });
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const app = Fastify({ logger: false });
  try {
    const client = await createTestClient({ ...running, url } as unknown as TestServer);
    const { tokens } = await obtainTokens(client, { userId: '500000000000000002', scope: 'alters:read' });
    const headers = { authorization: `Bearer ${tokens.access_token}` };
    await seedAlters(running.database.db, '500000000000000002', 2000);
    const [alter] = (await (await fetch(`${url}/v1/users/@me/system/list-alters?max=1`, { headers })).json()) as Array<{ alterId: number }>;
    if (!alter) throw new Error('seeding failed');
    app.get<{ Params: { id: string } }>('/alters/:id', async (request) => (await pool.query('select * from alters where id = $1', [Number(request.params.id)])).rows[0]);
    const port = await freePort();
    await app.listen({ port, host: '127.0.0.1' });
    const bare = await withCpu(() => runLoad({ url: `http://127.0.0.1:${port}/alters/${alter.alterId}`, connections: CONNECTIONS, duration: DURATION }));
    const ours = await withCpu(() => runLoad({ url: `${url}/v1/users/@me/alters/${alter.alterId}`, connections: CONNECTIONS, duration: DURATION, headers }));
    check(bare, 'baseline point read (PostgreSQL)');
    check(ours, 'point read (PostgreSQL)');
    rows.push(pointReadRow('1b', 'Point read `GET /v1/users/@me/alters/{id}`, PostgreSQL (50 connections)', ours, bare));
  } finally {
    await app.close();
    await pool.end();
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Milliseconds from spawn to the first 200 from `readyUrl`, and the RSS once idle. */
async function coldStart(args: string[], env: Record<string, string>, readyUrl: string, alsoWait?: () => Promise<void>): Promise<{ ms: number; rss: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' });
  try {
    for (;;) {
      try {
        const response = await fetch(readyUrl);
        if (response.ok) break;
      } catch {
        // not listening yet
      }
      if (performance.now() - started > 20_000) throw new Error(`${args.join(' ')} did not become ready`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await alsoWait?.();
    const ms = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const status = await import('node:fs/promises').then((fs) => fs.readFile(`/proc/${child.pid}/status`, 'utf8'));
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    return { ms, rss };
  } finally {
    child.kill('SIGKILL');
  }
}

const STARTS = 3;

/** The median time and the median RSS of STARTS starts, one after the other. */
async function medianStart(start: () => Promise<{ ms: number; rss: number }>): Promise<{ ms: number; rss: number }> {
  const results: Array<{ ms: number; rss: number }> = [];
  for (let i = 0; i < STARTS; i++) results.push(await start());
  const middle = <T>(values: T[], by: (value: T) => number) => [...values].sort((a, b) => by(a) - by(b))[Math.floor(values.length / 2)] as T;
  return { ms: middle(results, (r) => r.ms).ms, rss: middle(results, (r) => r.rss).rss };
}

/** What `npm start` runs (package.json): the bundle (scripts/bundle.mjs); a small young generation keeps idle memory down. */
const START_ARGS = ['--max-semi-space-size=4', 'dist/bundle/main.js'];

async function startupBenchmarks(dataDir: string, rssAfterReads: number | undefined) {
  const port = await freePort();
  const env = { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'production', DATABASE_URL: '' };
  // The first start generates keys and creates the database; "cold start" is a later start.
  await coldStart(START_ARGS, env, `http://127.0.0.1:${port}/readyz`);
  // Each figure is the median of STARTS starts: one start is at the mercy of whatever else the
  // machine does for that half second (the earlier groups' files still being written back, say).
  const service = await medianStart(() => coldStart(START_ARGS, env, `http://127.0.0.1:${port}/readyz`));
  // The same with the bot connected to a fake Discord: ready once the bot has answered.
  const withBot = await medianStart(async () => {
    const fake = await startFakeDiscord();
    try {
      const botPort = await freePort();
      return await coldStart(START_ARGS, { ...env, PORT: String(botPort), DISCORD_TOKEN: fake.botToken, DISCORD_API_BASE: fake.apiBase, DISCORD_GUILD_ID: fake.guild.id }, `http://127.0.0.1:${botPort}/readyz`, () => fake.waitForReady(20_000));
    } finally {
      await fake.close();
    }
  });
  const barePort = await freePort();
  const bare = await medianStart(() => coldStart(['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${barePort}, '127.0.0.1')`], {}, `http://127.0.0.1:${barePort}/`));
  rows.push({ id: '7a', name: 'Cold start to ready (`node dist/bundle/main.js`, SQLite; median of 3 starts, as 7b and 7d)', measured: `${fmt(service.ms)} ms`, baseline: `${fmt(bare.ms)} ms (bare node:http)`, ratio: fmt(service.ms / bare.ms, 1), target: '<= 700 ms', met: service.ms <= 700 });
  rows.push({ id: '7b', name: 'Idle RSS of the service alone', measured: `${fmt(service.rss / 2 ** 20)} MB`, baseline: `${fmt(bare.rss / 2 ** 20)} MB (bare node:http)`, ratio: fmt(service.rss / bare.rss, 1), target: 'reported', met: undefined });
  rows.push({ id: '7d', name: 'Idle RSS of service + bot (one process, bot connected)', measured: `${fmt(withBot.rss / 2 ** 20)} MB`, baseline: `${fmt(bare.rss / 2 ** 20)} MB (bare node:http)`, ratio: fmt(withBot.rss / bare.rss, 1), target: '<= 110 MB', met: withBot.rss <= 110 * 2 ** 20 });
  if (rssAfterReads !== undefined) rows.push({ id: '7c', name: 'RSS of the benchmark process after benchmark 1 (service + baseline)', measured: `${fmt(rssAfterReads / 2 ** 20)} MB`, baseline: '–', ratio: '–', target: 'reported', met: undefined });
}

/** Tokens for `count` users of one client (each user signs in, so each has a system). */
async function signInUsers(server: TestServer, client: TestClient, count: number, firstId: bigint, scope: string) {
  const tokens: Array<{ userId: string; access: string; refresh: string | undefined }> = [];
  for (let i = 0n; i < BigInt(count); i++) {
    const userId = String(firstId + i);
    const { tokens: set } = await obtainTokens(client, { userId, scope });
    tokens.push({ userId, access: set.access_token, refresh: set.refresh_token });
  }
  return tokens;
}

/**
 * The load with the CPU this process spent meanwhile: the service (or the bare route) runs here and
 * the load generator in a process of its own, so it is the CPU the route spent per request.
 */
type Measured = LoadResult & { cpuMicros: number };

async function withCpu(run: () => Promise<LoadResult>): Promise<Measured> {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  return { ...result, cpuMicros: used.user + used.system };
}

const cpuPerRequest = (r: Measured) => `${fmt(r.cpuMicros / Math.max(1, r.requestsPerSecond * r.durationSeconds))} µs CPU/request`;

/** 3. create-alter and edit, sustained, with durable commits, on one dialect. */
async function writeBenchmarks(dialect: 'sqlite' | 'postgres', dataDir: string, databaseUrl: string | undefined) {
  const { running, url } = await startService(dataDir, databaseUrl ? { DATABASE_URL: databaseUrl } : {});
  const server = { ...running, url } as unknown as TestServer;
  try {
    const client = await createTestClient(server);
    // Enough systems that the 2000-alter cap is never reached during the run.
    const users = await signInUsers(server, client, quick ? 4 : 40, 510000000000000000n, 'alters:write alters:read');
    const baseline = await startInsertBaseline(dialect, dialect === 'sqlite' ? join(dataDir, 'baseline.db') : (databaseUrl ?? ''));
    try {
      const bare = await withCpu(() => runLoad({ url: baseline.url, method: 'POST', connections: CONNECTIONS, duration: DURATION }));
      check(bare, `${dialect} baseline insert`);
      const commitsBefore = { ...(running.database.commits ?? { commits: 0, transactions: 0 }) };
      const creates = await withCpu(() => runLoad({
        url: `${url}/v1/users/@me/system/create-alter`,
        method: 'POST',
        connections: CONNECTIONS,
        duration: DURATION,
        headers: { 'content-type': 'application/json' },
        body: '{"username":"w$N","displayName":"Writer"}',
        variants: users.map((u) => ({ path: '/v1/users/@me/system/create-alter', headers: { authorization: `Bearer ${u.access}` } })),
      }));
      check(creates, `${dialect} create-alter`);
      const targets: Array<{ path: string; headers: Record<string, string> }> = [];
      for (const u of users) {
        const [first] = (await (await fetch(`${url}/v1/users/@me/system/list-alters?max=1`, { headers: { authorization: `Bearer ${u.access}` } })).json()) as Array<{ alterId: number }>;
        targets.push({ path: `/v1/users/@me/alters/${first?.alterId}/edit`, headers: { authorization: `Bearer ${u.access}` } });
      }
      const edits = await withCpu(() => runLoad({ url: `${url}${targets[0]?.path}`, method: 'POST', connections: CONNECTIONS, duration: DURATION, headers: { 'content-type': 'application/json' }, body: '{"pronouns":"p$N"}', variants: targets }));
      check(edits, `${dialect} edit`);
      const commits = running.database.commits;
      const perCommit = commits ? ` (group commit over the creates and edits: ${fmt((commits.transactions - commitsBefore.transactions) / Math.max(1, commits.commits - commitsBefore.commits), 1)} writes per fsync)` : '';
      const label = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
      rows.push({ id: `3${dialect === 'sqlite' ? 'a' : 'b'}`, name: `create-alter, ${label} (durable commits, 50 connections)${perCommit}`, measured: `${load(creates)}, ${cpuPerRequest(creates)}`, baseline: `${load(bare)}, ${cpuPerRequest(bare)} (bare insert)`, ratio: fmt(creates.requestsPerSecond / bare.requestsPerSecond, 2), target: 'ratio >= 0.7', met: creates.requestsPerSecond >= 0.7 * bare.requestsPerSecond });
      rows.push({ id: `3${dialect === 'sqlite' ? 'c' : 'd'}`, name: `alter edit, ${label}`, measured: `${load(edits)}, ${cpuPerRequest(edits)}`, baseline: `${load(bare)}, ${cpuPerRequest(bare)} (bare insert)`, ratio: fmt(edits.requestsPerSecond / bare.requestsPerSecond, 2), target: 'ratio >= 0.7', met: edits.requestsPerSecond >= 0.7 * bare.requestsPerSecond });
      return bare;
    } finally {
      await baseline.close();
    }
  } finally {
    await running.close();
  }
}

/** The bare durable insert alone (for the token rows when the write group did not run). */
async function measureSqliteInsert(dataDir: string): Promise<LoadResult> {
  const baseline = await startInsertBaseline('sqlite', join(dataDir, 'baseline.db'));
  try {
    const bare = await runLoad({ url: baseline.url, method: 'POST', connections: CONNECTIONS, duration: DURATION });
    check(bare, 'sqlite baseline insert');
    return bare;
  } finally {
    await baseline.close();
  }
}

/** 4. The token endpoint: refresh grants and authorization-code exchanges per second. */
async function tokenBenchmarks(dataDir: string, measuredInsert: LoadResult | undefined) {
  const insertBaseline = measuredInsert ?? (await measureSqliteInsert(dataDir));
  const { running, url } = await startService(dataDir);
  const server = { ...running, url } as unknown as TestServer;
  try {
    const client = await createTestClient(server);
    const basic = `Basic ${Buffer.from(`${client.id}:${client.secret ?? ''}`).toString('base64')}`;
    const headers = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
    const connections = quick ? 10 : CONNECTIONS;
    const chains = await signInUsers(server, client, connections, 520000000000000000n, 'openid offline_access alters:read');
    const refresh = await runLoad({ url: `${url}/auth/oauth2/token`, method: 'POST', connections, duration: DURATION, headers, refreshChain: { tokens: chains.map((c) => c.refresh ?? '') } });
    check(refresh, 'refresh grants');

    const count = quick ? 40 : 400;
    const browser = new TestBrowser();
    const codes: Array<{ code: string; verifier: string }> = [];
    for (let i = 0; i < count; i++) {
      const result = await authorize(client, { userId: '530000000000000001', scope: 'openid alters:read', browser });
      codes.push({ code: result.callbackUrl.searchParams.get('code') ?? '', verifier: result.verifier });
    }
    const exchanges = await runLoad({ url: `${url}/auth/oauth2/token`, method: 'POST', connections, amount: count, headers, codes, redirectUri: REDIRECT_URI });
    check(exchanges, 'code exchanges');
    const exchangeRate = exchanges.total / Math.max(exchanges.durationSeconds, 0.001);
    rows.push({ id: '4a', name: 'Token endpoint: refresh-token grants (rotation, reuse detection)', measured: load(refresh), baseline: `${fmt(insertBaseline.requestsPerSecond)} req/s (bare insert)`, ratio: fmt(refresh.requestsPerSecond / insertBaseline.requestsPerSecond, 2), target: 'reported', met: undefined });
    rows.push({ id: '4b', name: `Token endpoint: authorization-code exchanges (${count} codes)`, measured: `${fmt(exchangeRate)} req/s, p50 ${exchanges.p50} ms, p99 ${exchanges.p99} ms`, baseline: `${fmt(insertBaseline.requestsPerSecond)} req/s (bare insert)`, ratio: fmt(exchangeRate / insertBaseline.requestsPerSecond, 2), target: 'reported', met: undefined });
  } finally {
    await running.close();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** 5. Slash commands through the fake gateway and the real bot, each calling the API. */
async function botBenchmark() {
  const h = await startBotHarness({ env: { RATE_LIMIT_ENABLED: 'false' } });
  try {
    const member = discordUser('540000000000000001', 'bench');
    await h.link(member.id);
    const count = quick ? 100 : 500;
    const measure = async (name: string, subcommand?: string) => {
      const latencies: number[] = [];
      // One interaction at a time: this measures latency, not how deep a queue can grow.
      const inFlight = 1;
      for (let i = 0; i < count; i += inFlight) {
        await Promise.all(
          Array.from({ length: Math.min(inFlight, count - i) }, async () => {
            const handle = h.fake.dispatchInteraction(h.fake.slashCommand({ name, user: member, ...(subcommand ? { subcommand } : {}) }));
            const response = await handle.waitForResponse((r) => r.kind === 'callback', 10_000);
            latencies.push(Number(response.receivedAt - handle.sentAt) / 1e6);
          }),
        );
      }
      return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
    };
    const bare = await measure('help');
    const ours = await measure('system', 'show');
    rows.push({ id: '5', name: `Bot: ${count} \`/system show\` (2 API calls each), INTERACTION_CREATE → callback`, measured: `p50 ${fmt(ours.p50, 1)} ms, p99 ${fmt(ours.p99, 1)} ms`, baseline: `p50 ${fmt(bare.p50, 1)} ms, p99 ${fmt(bare.p99, 1)} ms (\`/help\`, no API call)`, ratio: fmt(ours.p99 / Math.max(bare.p99, 0.001), 1), target: 'p99 <= 25 ms', met: ours.p99 <= 25 });
  } finally {
    await h.stop();
  }
}

/** Writes `systems` users with a system of `altersEach` alters straight into SQLite; returns the time taken. */
function seedScale(file: string, systems: number, altersEach: number): number {
  const started = performance.now();
  const sqlite = new SqliteDatabase(file);
  const now = Date.now();
  const user = sqlite.prepare('insert into users (id, username, created_at) values (?, ?, ?)');
  const system = sqlite.prepare("insert into systems (user_id, name, created_at) values (?, 'Seeded', ?)");
  const alter = sqlite.prepare("insert into alters (system_id, username, username_key, display_name, created_at) values (?, ?, ?, 'Seeded', ?)");
  const batch = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = String(600000000000000000n + BigInt(i));
      user.run(id, `user${i}`, now);
      const systemId = Number(system.run(id, now).lastInsertRowid);
      for (let j = 0; j < altersEach; j++) alter.run(systemId, `a${j}`, usernameKey(`a${j}`), now);
    }
  });
  for (let from = 0; from < systems; from += 10_000) batch(from, Math.min(systems, from + 10_000));
  sqlite.close();
  return performance.now() - started;
}

/** 6. Point read and list at scale vs the same on a small database. */
async function scaleBenchmark(root: string) {
  const measure = async (systems: number) => {
    const dataDir = mkdtempSync(join(root, `scale-${systems}-`));
    // Start once to create the schema, then seed with the service stopped.
    const first = await startService(dataDir);
    await first.running.close();
    const seedMs = seedScale(join(dataDir, 'switchboard.db'), systems, 10);
    const { running, url } = await startService(dataDir);
    try {
      const client = await createTestClient({ ...running, url } as unknown as TestServer);
      const userId = String(600000000000000000n + BigInt(Math.floor(systems / 2)));
      const { tokens } = await obtainTokens(client, { userId, scope: 'alters:read' });
      const headers = { authorization: `Bearer ${tokens.access_token}` };
      const [alter] = (await (await fetch(`${url}/v1/users/@me/system/list-alters?max=1`, { headers })).json()) as Array<{ alterId: number }>;
      const point = await runLoad({ url: `${url}/v1/users/@me/alters/${alter?.alterId}`, connections: CONNECTIONS, duration: DURATION, headers });
      const list = await runLoad({ url: `${url}/v1/users/@me/system/list-alters?max=250`, connections: CONNECTIONS, duration: DURATION, headers });
      check(point, 'scale point read');
      check(list, 'scale list');
      return { seedMs, point, list };
    } finally {
      await running.close();
    }
  };
  const big = quick ? 10_000 : 100_000;
  const small = await measure(1_000);
  const large = await measure(big);
  const pointRatio = large.point.p99 / Math.max(small.point.p99, 1);
  const listRatio = large.list.p99 / Math.max(small.list.p99, 1);
  rows.push({ id: '6a', name: `Point read with ${fmt(big)} systems / ${fmt(big * 10)} alters`, measured: load(large.point), baseline: `${load(small.point)} (10,000 alters)`, ratio: fmt(pointRatio, 2), target: 'p99 within 1.2x', met: pointRatio <= 1.2 });
  rows.push({ id: '6b', name: `List with ${fmt(big * 10)} alters`, measured: load(large.list), baseline: `${load(small.list)} (10,000 alters)`, ratio: fmt(listRatio, 2), target: 'p99 within 1.2x', met: listRatio <= 1.2 });
  rows.push({ id: '6c', name: `Seeding ${fmt(big)} systems / ${fmt(big * 10)} alters`, measured: `${fmt(large.seedMs / 1000, 1)} s`, baseline: `${fmt(small.seedMs / 1000, 1)} s (10,000 alters)`, ratio: '–', target: '< 60 s', met: large.seedMs < 60_000 });
}

/** 8. Proxied-message records with 10,000,000 stored (100,000 with --quick), per dialect (bench/message-records.ts). */
async function messageRecordBenchmarks(dialect: 'sqlite' | 'postgres', postgresUrl?: string) {
  const label = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const [recordsId, lookupId] = dialect === 'sqlite' ? ['8a', '8b'] : ['8c', '8d'];
  const r = await benchMessageRecords({ quick, dialect, ...(postgresUrl ? { postgresUrl } : {}) });
  const stored = r.rows >= 1_000_000 ? `${fmt(r.rows / 1_000_000)}M` : `${fmt(r.rows / 1000)}k`;
  rows.push({ id: recordsId, name: `Proxy message records (${label}): \`recordProxiedMessage\`, durable commits, 16 callers, ${fmt(r.rows)} stored`, measured: `${fmt(r.recordsPerSecond)} records/s`, baseline: `${fmt(r.bareInsertsPerSecond)} rows/s (bare one-row insert per transaction)`, ratio: fmt(r.recordsPerSecond / r.bareInsertsPerSecond, 2), target: 'reported', met: undefined });
  rows.push({ id: lookupId, name: `Message lookup at ${stored} (${label}): \`findProxiedMessage\`, either id, ${fmt(r.lookups)} lookups`, measured: `p50 ${fmt(r.lookupP50Ms, 3)} ms, p99 ${fmt(r.lookupP99Ms, 3)} ms`, baseline: `– (seeded in ${fmt(r.seedSeconds, 1)} s)`, ratio: '–', target: 'p99 <= 5 ms', met: r.lookupP99Ms <= 5 });
}

/** 12. A large import (2,000 alters, 10,000 switches) next to a bare bulk insert of its rows, per dialect (bench/import.ts). */
async function importBenchmark(dialect: 'sqlite' | 'postgres', postgresUrl?: string) {
  const label = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const r = await benchImport({ quick, dialect, ...(postgresUrl ? { postgresUrl } : {}) });
  rows.push({
    id: dialect === 'sqlite' ? '12a' : '12b',
    name: `Import (${label}): PluralKit file of ${fmt(r.alters)} alters and ${fmt(r.switches)} switches (${fmt(r.fileBytes / 2 ** 20, 1)} MiB), history included, one transaction; median of ${r.rounds}`,
    measured: `${fmt(r.importSeconds, 2)} s (reading the file ${fmt(r.readSeconds, 2)} s); again, nothing changing: ${fmt(r.reimportSeconds, 2)} s`,
    baseline: `${fmt(r.bareSeconds, 2)} s (bare bulk insert of the same rows)`,
    ratio: fmt(r.importSeconds / r.bareSeconds, 1),
    target: '< 5 s',
    met: r.importSeconds < 5,
  });
}

/**
 * 12d/12e. A Simply Plural export (2,000 members, 100 custom fields, 50,000 front-history
 * intervals, about 12.8 MiB) imported with its history next to a bare bulk insert of its rows, per
 * dialect, and (SQLite) reading plus planning it against a file near the 32 MiB cap (bench/import.ts).
 */
async function simplyPluralImportBenchmark(dialect: 'sqlite' | 'postgres', postgresUrl?: string) {
  const label = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const r = await benchImport({ quick, dialect, format: 'simplyplural', ...(postgresUrl ? { postgresUrl } : {}) });
  rows.push({
    id: dialect === 'sqlite' ? '12d' : '12e',
    name: `Import (${label}): Simply Plural file of ${fmt(r.alters)} alters, ${fmt(r.fields ?? 0)} custom fields, ${fmt(r.intervals ?? 0)} front-history intervals → ${fmt(r.switches)} switches (${fmt(r.fileBytes / 2 ** 20, 1)} MiB), history included, one transaction; median of ${r.rounds}`,
    measured: `${fmt(r.importSeconds, 2)} s (reading the file ${fmt(r.readSeconds, 2)} s); again, nothing changing: ${fmt(r.reimportSeconds, 2)} s`,
    baseline: `${fmt(r.bareSeconds, 2)} s (bare bulk insert of the same rows)`,
    ratio: fmt(r.importSeconds / r.bareSeconds, 1),
    target: '< 5 s',
    met: r.importSeconds < 5,
  });
  if (r.linearity) {
    const l = r.linearity;
    const timeRatio = l.largeSeconds / l.smallSeconds;
    const byteRatio = l.largeBytes / l.smallBytes;
    rows.push({
      id: '12f',
      name: `Import read + plan (a preview), Simply Plural: ${fmt(l.largeBytes / 2 ** 20, 1)} MiB against ${fmt(l.smallBytes / 2 ** 20, 1)} MiB (${fmt(byteRatio, 2)}x the bytes); median of 3`,
      measured: `${fmt(l.largeSeconds, 2)} s`,
      baseline: `${fmt(l.smallSeconds, 2)} s`,
      ratio: fmt(timeRatio, 2),
      target: 'time ratio ≤ 1.25 × byte ratio (linear)',
      met: timeRatio <= 1.25 * byteRatio,
    });
  }
}

/** 12c. Import's worst shapes, previewed, against JSON.parse of the same bytes (bench/import-worst.ts). */
async function importWorstShapesBenchmark() {
  const r = await benchImportWorstShapes({ quick });
  r.shapes.forEach((shape, i) => {
    rows.push({
      id: `12c${i + 1}`,
      name: `Import preview, worst shape: ${shape.name} (${fmt(shape.fileBytes / 2 ** 20, 2)} MiB), SQLite; median of ${quick ? 1 : 3}`,
      measured: `${fmt(shape.seconds, 2)} s; slowest /healthz meanwhile ${fmt(shape.stallMs)} ms (idle: ${fmt(r.idleStallMs)} ms)`,
      baseline: `${fmt(shape.parseSeconds, 3)} s (JSON.parse of the file)`,
      ratio: fmt(shape.seconds / Math.max(shape.parseSeconds, 0.001), 0),
      target: '< 1 s, /healthz ≤ 50 ms',
      met: shape.seconds < 1 && shape.stallMs <= 50,
    });
  });
}

/** 9. The proxy engine's decisions per second on a large system (bench/proxy-engine.ts). */
async function proxyEngineBenchmark() {
  const r = await benchProxyEngine({ quick });
  rows.push({ id: '9', name: 'Proxy engine: decisions/s, 1,000 alters × 3 tags', measured: `${fmt(r.compiledPerSecond)} decisions/s (${fmt(r.microsPerDecision, 1)} µs each)`, baseline: `${fmt(r.naivePerSecond)} decisions/s (naive: every tag in order)`, ratio: fmt(r.compiledPerSecond / r.naivePerSecond, 1), target: '< 20 µs per decision', met: r.microsPerDecision < 20 });
}

/** 10. Proxying through the real bot against the fake Discord, 1,000 alters × 3 tags (bench/bot-proxy.ts). */
async function botProxyBenchmark() {
  const r = await benchBotProxy({ quick });
  const { latency: l, throughput: t, ignored: g } = r;
  rows.push({
    id: '10a',
    name: `Bot proxying: ${fmt(l.messages)} tagged messages one at a time, MESSAGE_CREATE → webhook execute, ${fmt(r.alters)} alters × ${r.tagsPerAlter} tags`,
    measured: `p50 ${fmt(l.p50Ms, 1)} ms, p99 ${fmt(l.p99Ms, 1)} ms (the bot's share p50 ${fmt(l.botP50Ms, 1)} ms, p99 ${fmt(l.botP99Ms, 1)} ms, its profile revalidation p50 ${fmt(l.profileP50Ms, 1)} ms); with a log channel, 100 blacklisted channels and 20 blocked roles set, ${l.settingsCalls} settings calls`,
    baseline: `p50 ${fmt(l.gatewayP50Ms, 1)} ms, p99 ${fmt(l.gatewayP99Ms, 1)} ms (fake gateway: sent → messageCreate)`,
    ratio: fmt(l.p99Ms / Math.max(l.gatewayP99Ms, 0.001), 1),
    target: 'p99 <= 15 ms',
    met: l.p99Ms <= 15 && l.rateLimitWaits === 0 && l.settingsCalls === 0,
  });
  rows.push({
    id: '10b',
    name: `Bot proxying throughput: ${fmt(t.messages)} tagged messages at once over ${t.channels} channels (sent, original deleted)`,
    measured: `${fmt(t.perSecond)} proxied/s (${fmt(t.oneChannelPerSecond)}/s in one channel) with discord.js's global budget lifted; as shipped ${fmt(t.shippedPerSecond, 1)}/s (50 requests/s, 2 per message)`,
    baseline: `${fmt(t.gatewayPerSecond)} messages/s (non-system members' messages, same gateway, ignored)`,
    ratio: fmt(t.perSecond / t.gatewayPerSecond, 3),
    target: 'reported',
    met: undefined,
  });
  rows.push({
    id: '10c',
    name: `Bot: messages of members who are not systems, in-process, ${fmt(g.calls)} calls, ${fmt(g.authors)} authors`,
    measured: `${fmt(g.oursPerSecond)}/s (${fmt(1e6 / g.oursPerSecond, 2)} µs each; ${g.storeReads} store reads, ${g.profileCalls} service calls); ${fmt(g.bothPerSecond)}/s with the dispatch`,
    baseline: `${fmt(g.dispatchPerSecond)}/s (discord.js MESSAGE_CREATE dispatch alone)`,
    ratio: fmt(g.oursPerSecond / g.dispatchPerSecond, 1),
    target: '>= 20,000/s, no store read or call',
    met: g.oursPerSecond >= 20_000 && g.storeReads === 0 && g.profileCalls === 0,
  });
}

/** 11. The front with a long switch history, per dialect (bench/front.ts). */
async function frontBenchmark(dialect: 'sqlite' | 'postgres', postgresUrl?: string) {
  const r = await benchFront({ quick, dialect, ...(postgresUrl ? { postgresUrl } : {}) });
  const label = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const worst = Math.max(...r.reads.map((read) => read.long.p50 / Math.max(read.short.p50, 0.001)));
  const each = (pick: (read: (typeof r.reads)[number]) => { p50: number; p99: number }) => r.reads.map((read) => `${read.name}: p50 ${fmt(pick(read).p50, 3)} ms, p99 ${fmt(pick(read).p99, 3)} ms`).join('; ');
  rows.push({ id: dialect === 'sqlite' ? '11a' : '11b', name: `Front reads with ${fmt(r.switches)} switches (${label}): ${r.reads.map((read) => read.name).join(', ')}`, measured: each((read) => read.long), baseline: `${each((read) => read.short)} (100 switches)`, ratio: `${fmt(worst, 2)} (worst p50)`, target: 'reported', met: undefined });
}

/** 11c, 11d. Front statistics over 100,000 switches in a year, any period, per dialect (bench/front-stats.ts). */
async function frontStatsBenchmark(dialect: 'sqlite' | 'postgres', postgresUrl?: string) {
  const r = await benchFrontStats({ quick, dialect, ...(postgresUrl ? { postgresUrl } : {}) });
  const label = dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const worst = Math.max(r.random.p99, r.year.p99);
  rows.push({
    id: dialect === 'sqlite' ? '11c' : '11d',
    name: `Front statistics (${label}): ${fmt(r.switches)} switches over a year, random periods within it and the whole year (\`frontStatsOf\`, as GET /front/stats: whole days from the per-day summary, built in ${fmt(r.summarySeconds, 2)} s, edge days from the switches)`,
    measured: `random periods (${r.random.runs}): p50 ${fmt(r.random.p50, 1)} ms, p99 ${fmt(r.random.p99, 1)} ms; the whole year (${r.year.runs}): p50 ${fmt(r.year.p50, 1)} ms, p99 ${fmt(r.year.p99, 1)} ms; a switch recorded at the end: p50 ${fmt(r.write.p50, 1)} ms (settling the summary p50 ${fmt(r.settle.p50, 1)} ms); the last 365 days day by day in one request (\`boundaries\`): UTC days p50 ${fmt(r.daily.utc.parts.p50, 1)} ms against ${fmt(r.daily.utc.calls.p50, 1)} ms for a call per day, days 3.5 h behind UTC p50 ${fmt(r.daily.offset.parts.p50, 1)} ms against ${fmt(r.daily.offset.calls.p50, 1)} ms`,
    baseline: `the year's rows read plainly: p50 ${fmt(r.plainYear.p50, 1)} ms, p99 ${fmt(r.plainYear.p99, 1)} ms; every switch folded (before the summary): random p50 ${fmt(r.foldRandom.p50, 1)} ms, p99 ${fmt(r.foldRandom.p99, 1)} ms, the year p50 ${fmt(r.foldYear.p50, 1)} ms, p99 ${fmt(r.foldYear.p99, 1)} ms`,
    ratio: fmt(r.year.p50 / Math.max(r.plainYear.p50, 0.001), 2),
    target: 'p99 < 50 ms',
    met: worst < 50,
  });
}

/** 13. Events pushed to webhooks: latency, deliveries/s and the write path with a dead endpoint (bench/events.ts). */
async function eventsBenchmark() {
  const r = await benchEvents({ quick });
  const { latency: l, throughput: t, deadEndpoint: d } = r;
  rows.push({
    id: '13a',
    name: `Event delivery latency: ${fmt(l.events)} alter edits one at a time, write request start → signed webhook at a loopback receiver`,
    measured: `p50 ${fmt(l.p50Ms, 1)} ms, p99 ${fmt(l.p99Ms, 1)} ms (the write alone p50 ${fmt(l.writeP50Ms, 1)} ms, p99 ${fmt(l.writeP99Ms, 1)} ms)`,
    baseline: `p50 ${fmt(l.bareP50Ms, 2)} ms, p99 ${fmt(l.bareP99Ms, 2)} ms (bare HTTP POST round trip to the receiver)`,
    ratio: fmt(l.p99Ms / Math.max(l.writeP99Ms, 0.001), 2),
    target: 'reported',
    met: undefined,
  });
  rows.push({
    id: '13b',
    name: `Event deliveries/s: a backlog of ${fmt(t.events)} events of ${t.systems} systems drained to one endpoint (${t.concurrency} in flight per endpoint, the default)`,
    measured: `${fmt(t.perSecond)} deliveries/s`,
    baseline: `${fmt(t.barePerSecond)} POST/s (bare loop, ${t.concurrency} concurrent, same receiver and body size)`,
    ratio: fmt(t.perSecond / t.barePerSecond, 2),
    target: 'reported',
    met: undefined,
  });
  // The dead endpoint's own effect: against a healthy endpoint sent the same events (both queue a
  // delivery per edit); against no endpoint at all is what queuing costs, reported beside it.
  const ratio = d.dead.requestsPerSecond / d.healthy.requestsPerSecond;
  rows.push({
    id: '13c',
    name: `Alter edits with a dead endpoint receiving every event (SQLite, ${d.connections} connections, median of ${d.rounds} alternating runs; ${fmt(d.pendingAfter)} deliveries pending after)`,
    measured: load(d.dead),
    baseline: `${load(d.healthy)} (a healthy endpoint receiving every event); ${load(d.none)} (no endpoint: ${fmt(d.dead.requestsPerSecond / d.none.requestsPerSecond, 2)})`,
    ratio: fmt(ratio, 2),
    target: 'ratio >= 0.9',
    met: ratio >= 0.9,
  });
}

/** 15. Hosted images: serving a stored avatar and uploading a photo, against bare routes (bench/images.ts). */
async function imagesBenchmark() {
  const r = await benchImages({ quick });
  const KiB = (bytes: number) => fmt(bytes / 1024);
  rows.push({
    id: '15a',
    name: `Serving a hosted avatar (${KiB(r.servedBytes)} KiB WebP, from the database) vs the same bytes from memory on a bare route, ${CONNECTIONS} connections`,
    measured: load(r.served),
    baseline: load(r.bare),
    ratio: fmt(r.served.requestsPerSecond / Math.max(r.bare.requestsPerSecond, 1), 2),
    target: 'reported',
    met: undefined,
  });
  rows.push({
    id: '15b',
    name: `Upload to URL, a ${fmt(r.photoBytes / 2 ** 20, 1)} MiB photo (checked, scaled to 1024 px, WebP, stored) vs posting the same bytes to a bare route`,
    measured: `median ${fmt(r.upload.median)} ms, worst ${fmt(r.upload.worst)} ms`,
    baseline: `median ${fmt(r.bareUpload.median)} ms`,
    ratio: fmt(r.upload.median / Math.max(r.bareUpload.median, 0.001), 1),
    target: 'reported',
    met: undefined,
  });
}

/** 14. The largest reads of a system at every limit, against the same reads of plain alters (bench/read-amplification.ts). */
async function readAmplificationBenchmark() {
  const r = await benchReadAmplification({ quick });
  const MiB = (bytes: number) => fmt(bytes / 2 ** 20, 1);
  // A stranger's page is at most 250 alters of what others may see (about 5 MiB at the cap); the
  // export streams; a page of 250 tags of 2,000 members answers 500,000 ids, so its time is reported.
  const targets = ['< 1 s', '< 10 s, heap < 512 MiB', 'reported'];
  r.full.forEach((read, i) => {
    const plain = r.plain[i];
    if (!plain) return;
    const bound = i === 0 ? read.seconds < 1 : i === 1 ? read.seconds < 10 && read.heapMiB < 512 : undefined;
    rows.push({
      id: `14${'abc'[i]}`,
      name: `${read.name}: ${fmt(r.alters)} alters (${fmt(r.fullAlters)} with every field others see at its limit, up to the ${MiB(r.storedChars)} Mi characters stored), ${fmt(r.tags)} tags of every alter; median of ${quick ? 1 : 3}`,
      measured: read.status === 200 ? `${fmt(read.seconds, 3)} s, ${MiB(read.bytes)} MiB answer, heap +${fmt(read.heapMiB)} MiB` : `answered ${read.status}`,
      baseline: `${fmt(plain.seconds, 3)} s, ${MiB(plain.bytes)} MiB (${fmt(r.alters)} plain alters${i === 2 ? ', no tags' : ''})`,
      ratio: fmt(read.seconds / Math.max(plain.seconds, 0.001), 1),
      target: targets[i] ?? 'reported',
      met: read.status !== 200 ? false : bound,
    });
  });
}

/** 16. What one bot process and one service process hold, each in a process of its own, with CPU per unit of work (bench/capacity.ts). */
async function capacityBenchmark(postgresUrl: string | undefined) {
  const r = await benchCapacity({ quick, ...(postgresUrl ? { postgresUrl } : {}) });
  const label = r.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite';
  const micros = (value: number | undefined) => (value === undefined ? 'not measured' : `${fmt(value)} µs`);
  const { bot: b, events: e } = r;
  rows.push({
    id: '16a',
    name: `One bot process (\`switchboard bot\`, its own process; service and store on ${label}): ${fmt(b.messages)} tagged messages at once over ${b.channels} channels from ${b.systems} systems (${fmt(b.alters)} alters), Discord's global budget lifted (\`DISCORD_GLOBAL_RATE_LIMIT\`)`,
    measured: `${fmt(b.perSecond)} proxied/s (sent, original deleted; records stored ${fmt(b.recordedPerSecond)}/s); CPU per message: bot ${micros(b.botCpuMicros)}, service ${micros(b.serviceCpuMicros)}, PostgreSQL ${micros(b.postgresCpuMicros)}${b.rowsPerMessage === undefined ? '' : `; ${fmt(b.rowsPerMessage, 1)} rows written per message`}`,
    baseline: `one core's worth of the bot's CPU per message: ${fmt(1e6 / b.botCpuMicros)} messages/s`,
    ratio: fmt(b.perSecond / (1e6 / b.botCpuMicros), 2),
    target: 'reported',
    met: undefined,
  });
  rows.push({
    id: '16b',
    name: `Events through one service process (${label}): alter edits of ${e.systems} systems (${e.connections} connections, ${e.seconds} s), an endpoint receiving every event`,
    measured: `${fmt(e.withEndpoint.requestsPerSecond)} events/s created, ${fmt(e.deliveredPerSecond)}/s delivered (${fmt(e.events)} events, the last ${fmt(e.drainSeconds, 1)} s after the load); CPU per event (edit and delivery): service ${micros(e.serviceCpuMicros)}, PostgreSQL ${micros(e.postgresCpuMicros)}`,
    baseline: `${load(e.bare)} (the same edits, no endpoint); CPU per edit: service ${micros(e.bareServiceCpuMicros)}, PostgreSQL ${micros(e.barePostgresCpuMicros)}`,
    ratio: fmt(e.withEndpoint.requestsPerSecond / Math.max(e.bare.requestsPerSecond, 1), 2),
    target: 'reported',
    met: undefined,
  });
}

/** 16c. What a server costs a bot process in memory (bench/bot-memory.ts). */
async function botMemoryBenchmark() {
  const r = await benchBotMemory({ quick });
  rows.push({
    id: '16c',
    name: `One bot process's resident memory with ${fmt(r.servers)} more servers (${CHANNELS_PER_SERVER} text channels and ${ROLES_PER_SERVER} roles each, the bot's own member only), idle after ready`,
    measured: `${fmt(r.withServersMb)} MB: ${fmt(r.perServerKib, 1)} KiB per server`,
    baseline: `${fmt(r.baseMb)} MB (its own test server only)`,
    ratio: fmt(r.withServersMb / Math.max(r.baseMb, 1), 2),
    target: 'reported',
    met: undefined,
  });
}

/** 17. A page of alters with custom profile fields, against the same page without (bench/profile-fields.ts): a/b on SQLite, c/d on PostgreSQL. */
async function profileFieldsBenchmark(dialect: 'sqlite' | 'postgres', postgresUrl?: string) {
  const r = await benchProfileFields({ quick, dialect, ...(postgresUrl ? { postgresUrl } : {}) });
  const ids = dialect === 'sqlite' ? (['17a', '17b'] as const) : (['17c', '17d'] as const);
  for (const [id, who, cost] of [[ids[0], 'the owner’s', r.owner], [ids[1], 'a stranger’s', r.stranger]] as const) {
    const ratio = cost.withFields / Math.max(cost.without, 0.001);
    rows.push({
      id,
      name: `${who} \`list-alters?max=${PROFILE_PAGE}\`, ${PROFILE_FIELDS} profile field values per alter, ${dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (median of ${r.requests}, interleaved)`,
      measured: `${fmt(cost.withFields, 1)} ms, ${fmt(cost.bytesWith / 1024)} KiB`,
      baseline: `${fmt(cost.without, 1)} ms, ${fmt(cost.bytesWithout / 1024)} KiB (no fields)`,
      ratio: fmt(ratio, 2),
      target: 'within 1.2x',
      met: ratio <= 1.2,
    });
  }
}

/** 18. The dashboard's first load in Chromium: JavaScript as served against the issue's budget, and time to interactive (bench/dashboard.ts). */
async function dashboardBenchmark() {
  const r = await benchDashboard({ quick });
  rows.push({
    id: '18',
    name: `Dashboard: first load of the Overview in Chromium, signed in, cold cache, ${r.alters} alters; JavaScript transferred (${r.scripts} files, ${r.encodings.join(', ')}) and navigation start → first "Switch to" button enabled (median of ${r.runs})`,
    measured: `${fmt(r.transferredBytes)} bytes of JavaScript (${fmt(r.decodedBytes)} decoded); interactive in ${fmt(r.interactive.median)} ms (worst ${fmt(r.interactive.worst)} ms; DOMContentLoaded ${fmt(r.contentLoaded)} ms)`,
    baseline: `the issue's budget: ${fmt(FIRST_LOAD_BUDGET)} bytes`,
    ratio: fmt(r.transferredBytes / FIRST_LOAD_BUDGET, 2),
    target: `< ${fmt(FIRST_LOAD_BUDGET)} bytes of JS`,
    met: r.transferredBytes < FIRST_LOAD_BUDGET,
  });
}

function table(): string {
  const lines = ['| # | Benchmark | switchboard | baseline (same run) | ratio | target | met |', '|---|---|---|---|---|---|---|'];
  for (const row of rows) lines.push(`| ${row.id} | ${row.name} | ${row.measured} | ${row.baseline} | ${row.ratio} | ${row.target} | ${row.met === undefined ? '–' : row.met ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  const startDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-start-'));
  try {
    const rssAfter = runs('reads') ? (await readBenchmarks(dataDir)).rssAfter : undefined;
    const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
    if (runs('reads') && postgresUrl) await withSchema(postgresUrl, (url) => postgresReadBenchmark(url));
    let sqliteInsert: LoadResult | undefined;
    if (runs('writes')) {
      sqliteInsert = await writeBenchmarks('sqlite', mkdtempSync(join(dataDir, 'writes-')), undefined);
      if (postgresUrl) {
        await withSchema(postgresUrl, (url) => writeBenchmarks('postgres', mkdtempSync(join(dataDir, 'writes-pg-')), url));
      } else {
        rows.push({ id: '3b', name: 'create-alter and edit, PostgreSQL', measured: 'skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL', baseline: '–', ratio: '–', target: 'ratio >= 0.7', met: undefined });
      }
    }
    if (runs('tokens')) await tokenBenchmarks(mkdtempSync(join(dataDir, 'tokens-')), sqliteInsert);
    if (runs('bot')) await botBenchmark();
    if (runs('scale')) await scaleBenchmark(dataDir);
    if (runs('startup')) await startupBenchmarks(startDir, rssAfter);
    // In-process benchmarks last, so their disk and CPU load (a 10M-row seed) disturbs none of the above.
    if (runs('records')) {
      await messageRecordBenchmarks('sqlite');
      if (postgresUrl) {
        await messageRecordBenchmarks('postgres', postgresUrl);
      } else {
        rows.push({ id: '8c', name: 'Proxy message records and message lookup, PostgreSQL', measured: 'skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL', baseline: '–', ratio: '–', target: 'p99 <= 5 ms', met: undefined });
      }
    }
    if (runs('engine')) await proxyEngineBenchmark();
    if (runs('bot-proxy')) await botProxyBenchmark();
    if (runs('front')) {
      await frontBenchmark('sqlite');
      if (postgresUrl) await frontBenchmark('postgres', postgresUrl);
    }
    if (runs('front-stats')) {
      await frontStatsBenchmark('sqlite');
      if (postgresUrl) await frontStatsBenchmark('postgres', postgresUrl);
    }
    if (runs('import')) {
      await importBenchmark('sqlite');
      if (postgresUrl) await importBenchmark('postgres', postgresUrl);
      else rows.push({ id: '12b', name: 'Import, PostgreSQL', measured: 'skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL', baseline: '–', ratio: '–', target: '< 5 s', met: undefined });
      await importWorstShapesBenchmark();
      await simplyPluralImportBenchmark('sqlite');
      if (postgresUrl) await simplyPluralImportBenchmark('postgres', postgresUrl);
    }
    if (runs('events')) await eventsBenchmark();
    if (runs('amplification')) await readAmplificationBenchmark();
    if (runs('images')) await imagesBenchmark();
    if (runs('capacity')) {
      await capacityBenchmark(postgresUrl);
      await botMemoryBenchmark();
    }
    if (runs('profile-fields')) {
      await profileFieldsBenchmark('sqlite');
      if (postgresUrl) await profileFieldsBenchmark('postgres', postgresUrl);
    }
    if (runs('dashboard')) await dashboardBenchmark();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(startDir, { recursive: true, force: true });
  }
  const output = table();
  console.log(output);
  if (!quick && !only) {
    const cpu = cpus();
    const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;
    writeFileSync(
      join(root, 'bench', 'RESULTS.md'),
      `# Benchmark results\n\nCommand: \`npm run bench\` · date: ${new Date().toISOString()} · machine: ${machine}\n\n` +
        `Each HTTP figure is measured with autocannon in a separate process, ${DURATION} s per run, next to a baseline measured in the same run; 8 to 12 run in-process (bench/message-records.ts, bench/proxy-engine.ts, bench/bot-proxy.ts, bench/front.ts, bench/import.ts).\n\n${output}\n\n` +
        readFileSync(join(root, 'bench', 'ANALYSIS.md'), 'utf8'),
    );
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
