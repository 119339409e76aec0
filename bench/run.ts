// `npm run bench`: measures the real service against baselines measured in the same run and
// prints each figure with its ratio, so results hold on a noisy machine. `--quick` runs every
// benchmark briefly, only to prove the suite works (CI). A full run rewrites bench/RESULTS.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { loadConfig } from '../src/config/config.js';
import { startServer, type RunningServer } from '../src/http/server.js';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { seedAlters } from '../test/support/seed.js';
import { freePort, type TestServer } from '../test/support/server.js';
import { runLoad, type LoadResult } from './load.js';

const quick = process.argv.includes('--quick');
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

async function startService(dataDir: string): Promise<{ running: RunningServer; url: string }> {
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
  });
  return { running: await startServer(config), url: config.publicUrl };
}

/** A bare Fastify app answering the same rows straight from SQLite: the physical limit. */
async function startBaseline(databaseFile: string) {
  const sqlite = new SqliteDatabase(databaseFile, { readonly: true });
  const one = sqlite.prepare('select * from alters where id = ?');
  const page = sqlite.prepare('select * from alters where system_id = ? order by id limit 250');
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/alters/:id', async (request) => one.get(Number(request.params.id)));
  app.get<{ Params: { system: string } }>('/systems/:system/alters', async (request) => page.all(Number(request.params.system)));
  const port = await freePort();
  await app.listen({ port, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${port}`, close: async () => (await app.close(), sqlite.close()) };
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
  const baseline = await startBaseline(join(dataDir, 'switchboard.db'));
  try {
    // 1. Authenticated point read vs the bare route.
    const bare = await runLoad({ url: `${baseline.url}/alters/${alter.alterId}`, connections: CONNECTIONS, duration: DURATION });
    const ours = await runLoad({ url: `${url}/v1/users/@me/alters/${alter.alterId}`, connections: CONNECTIONS, duration: DURATION, headers });
    check(bare, 'baseline point read');
    check(ours, 'point read');
    const ratio = ours.requestsPerSecond / bare.requestsPerSecond;
    rows.push({ id: '1', name: 'Point read `GET /v1/users/@me/alters/{id}` (50 connections)', measured: load(ours), baseline: load(bare), ratio: fmt(ratio, 2), target: 'ratio >= 0.75', met: ratio >= 0.75 });
    const rssAfter = process.memoryUsage().rss;

    // 2. list-alters?max=250 on a system with 2000 alters vs the bare route.
    const bareList = await runLoad({ url: `${baseline.url}/systems/${alter.systemId}/alters`, connections: CONNECTIONS, duration: DURATION });
    const list = await runLoad({ url: `${url}/v1/users/@me/system/list-alters?max=250`, connections: CONNECTIONS, duration: DURATION, headers });
    check(bareList, 'baseline list');
    check(list, 'list');
    rows.push({ id: '2', name: '`list-alters?max=250`, 2000 alters (50 connections)', measured: load(list), baseline: load(bareList), ratio: fmt(list.requestsPerSecond / bareList.requestsPerSecond, 2), target: 'p99 <= 15 ms', met: list.p99 <= 15 });
    return { rssAfter };
  } finally {
    await baseline.close();
    await running.close();
  }
}

/** Milliseconds from spawn to the first 200 from `readyUrl`, and the RSS once idle. */
async function coldStart(args: string[], env: Record<string, string>, readyUrl: string): Promise<{ ms: number; rss: number }> {
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
    const ms = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const status = await import('node:fs/promises').then((fs) => fs.readFile(`/proc/${child.pid}/status`, 'utf8'));
    const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
    return { ms, rss };
  } finally {
    child.kill('SIGKILL');
  }
}

async function startupBenchmarks(dataDir: string, rssAfterReads: number) {
  const port = await freePort();
  const env = { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'silent', NODE_ENV: 'production', DATABASE_URL: '' };
  // The first start generates keys and creates the database; "cold start" is a later start.
  await coldStart(['dist/src/main.js'], env, `http://127.0.0.1:${port}/readyz`);
  const service = await coldStart(['dist/src/main.js'], env, `http://127.0.0.1:${port}/readyz`);
  const barePort = await freePort();
  const bare = await coldStart(['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(${barePort}, '127.0.0.1')`], {}, `http://127.0.0.1:${barePort}/`);
  rows.push({ id: '7a', name: 'Cold start to ready (`node dist/src/main.js`, SQLite)', measured: `${fmt(service.ms)} ms`, baseline: `${fmt(bare.ms)} ms (bare node:http)`, ratio: fmt(service.ms / bare.ms, 1), target: '<= 1000 ms', met: service.ms <= 1000 });
  rows.push({ id: '7b', name: 'Idle RSS of the service', measured: `${fmt(service.rss / 2 ** 20)} MB`, baseline: `${fmt(bare.rss / 2 ** 20)} MB (bare node:http)`, ratio: fmt(service.rss / bare.rss, 1), target: '<= 120 MB (service + bot)', met: service.rss <= 120 * 2 ** 20 });
  rows.push({ id: '7c', name: 'RSS of the benchmark process after benchmark 1 (service + baseline)', measured: `${fmt(rssAfterReads / 2 ** 20)} MB`, baseline: '–', ratio: '–', target: 'reported', met: undefined });
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
    const { rssAfter } = await readBenchmarks(dataDir);
    await startupBenchmarks(startDir, rssAfter);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(startDir, { recursive: true, force: true });
  }
  const output = table();
  console.log(output);
  if (!quick) {
    const cpu = cpus();
    const machine = `${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}`;
    writeFileSync(
      join(root, 'bench', 'RESULTS.md'),
      `# Benchmark results\n\nCommand: \`npm run bench\` · date: ${new Date().toISOString()} · machine: ${machine}\n\n` +
        `Each figure is measured with autocannon in a separate process, ${DURATION} s per run, next to a baseline measured in the same run.\n\n${output}\n`,
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
