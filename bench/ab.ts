// `node --import tsx bench/ab.ts [--rounds=N] [--list] <root>...`: the point read (or, with --list,
// the 250-alter list of row 2) of several builds of the service, measured side by side. Each root is `src` (this checkout, through tsx) or a build's
// `dist/src` directory (`npm run build`, copied aside, e.g. one per commit under comparison). All run
// in this process on databases of their own; 5 s load runs (50 connections) of each are interleaved
// with the bare route's and with the bare route held for the turn (row 1c), round after round, so
// the machine's drift hits all alike. Prints each run, then the means and their ratios.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { seedAlters } from '../test/support/seed.js';
import { freePort, type TestServer } from '../test/support/server.js';
import { startBareReadRoutes } from './bare-read-routes.js';
import { runLoad } from './load.js';

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice('--rounds='.length) ?? 3);
const list = process.argv.includes('--list');
const roots = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
if (roots.length === 0) throw new Error('usage: bench/ab.ts [--rounds=N] <src | path to a build’s dist/src>...');

async function startBuild(root: string): Promise<Target & { dataDir: string }> {
  const base = root === 'src' ? '../src' : pathToFileURL(resolve(root)).href;
  const { loadConfig } = (await import(`${base}/config/config.js`)) as typeof import('../src/config/config.js');
  const { startServer } = (await import(`${base}/http/server.js`)) as typeof import('../src/http/server.js');
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-ab-'));
  const publicUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: publicUrl, LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false' });
  const running = await startServer(config);
  const client = await createTestClient({ ...running, url: publicUrl } as unknown as TestServer);
  const { tokens } = await obtainTokens(client, { userId: '500000000000000001', scope: 'alters:read alters:write' });
  const headers = { authorization: `Bearer ${tokens.access_token}` };
  const response = await fetch(`${publicUrl}/v1/users/@me/system/create-alter`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'a', displayName: 'A' }) });
  const { alterId } = (await response.json()) as { alterId: number };
  if (list) await seedAlters(running.database.db, '500000000000000001', 1999);
  const url = list ? `${publicUrl}/v1/users/@me/system/list-alters?max=250` : `${publicUrl}/v1/users/@me/alters/${alterId}`;
  return { name: root, url, headers, dataDir };
}

const builds = [];
for (const root of roots) builds.push(await startBuild(root));
const [first] = builds;
if (!first) throw new Error('no build started');
const bare = await startBareReadRoutes(join(first.dataDir, 'switchboard.db'));
const targets: Target[] = [
  { name: 'bare', url: list ? `${bare.url}/systems/1/alters` : `${bare.url}/alters/1`, headers: {} },
  ...(list ? [] : [{ name: 'bare, held for the turn', url: `${bare.url}/turn/alters/1`, headers: {} }]),
  ...builds,
];
const rates = new Map<string, number[]>();
for (let round = 0; round < rounds; round++) {
  for (const target of targets) {
    const before = process.cpuUsage();
    const result = await runLoad({ url: target.url, connections: 50, duration: 5, headers: target.headers });
    const cpu = process.cpuUsage(before);
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    const perRequest = (cpu.user + cpu.system) / (result.requestsPerSecond * result.durationSeconds);
    console.log(`${target.name.padEnd(32)} ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99} ms, ${perRequest.toFixed(0)} µs CPU/request`);
    rates.set(target.name, [...(rates.get(target.name) ?? []), result.requestsPerSecond]);
  }
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const bareRate = mean(rates.get('bare') ?? []);
const held = mean(rates.get('bare, held for the turn') ?? [NaN]);
for (const [name, values] of rates) console.log(`${name.padEnd(32)} mean ${Math.round(mean(values))} req/s: ${(mean(values) / bareRate).toFixed(3)} of bare, ${(mean(values) / held).toFixed(3)} of bare held for the turn`);
process.exit(0);
