// Import's worst shapes (issue 26): files within the 8 MiB cap built to make reading and planning
// slow, previewed (`dryRun=true`, which any linked member can send) through the service as
// `npm start` runs it (the bundle, in a process of its own). For each: the answer's time (median
// of 3), against a baseline measured on the same bytes in the same run, `JSON.parse` of the file
// (the least any reader does); and how long the service kept others waiting meanwhile: the
// slowest of `/healthz` requests sent one after another throughout, against the slowest while
// idle. A file of 2,000 members sharing one 100-character name took 84 s before, and `/healthz`
// waited as long.
//
// Run alone (after `npm run build`): node --import tsx bench/import-worst.ts [--quick].
// bench/run.ts runs it too.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { openDatabase } from '../src/db/database.js';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { freePort, type TestServer } from '../test/support/server.js';
import { startService, stopService, waitReady } from '../test/support/service-process.js';

export interface WorstShapeResult {
  name: string;
  fileBytes: number;
  /** Median seconds of the preview's answer. */
  seconds: number;
  /** Median seconds of JSON.parse of the same bytes. */
  parseSeconds: number;
  /** The slowest `/healthz` answer during the previews, in ms. */
  stallMs: number;
}

export interface WorstShapesResult {
  shapes: WorstShapeResult[];
  /** The slowest `/healthz` answer over an idle two seconds, in ms. */
  idleStallMs: number;
}

const id = (i: number) => `m${String(i).padStart(5, '0')}`;
const file = (members: unknown[], extra: Record<string, unknown> = {}) => JSON.stringify({ version: 2, id: 'worst', name: 'Worst', members, groups: [], switches: [], ...extra });
const members = (count: number, name: (i: number) => string) => Array.from({ length: count }, (_, i) => ({ id: id(i), name: name(i) }));
const family = '👨‍👩‍👧‍👦';

/** The shapes, at full size (2,000 members: a system's cap) or quick. */
export function worstShapes(quick: boolean): Array<{ name: string; text: () => string }> {
  const n = quick ? 200 : 2000;
  const ids = Array.from({ length: n }, (_, i) => id(i));
  return [
    { name: `${n} members, one 100-character name (the reported file)`, text: () => file(members(n, () => 'N'.repeat(100))) },
    { name: `${n} members, one name in ${n} spellings of case`, text: () => file(members(n, (i) => [...'n'.repeat(100)].map((c, bit) => ((i >> (bit % 11)) & 1 ? c.toUpperCase() : c)).join(''))) },
    { name: `${n} members, one name of 9 emoji families (99 UTF-16 units)`, text: () => file(members(n, () => family.repeat(9))) },
    { name: `${n} members in ${quick ? 40 : 400} groups that each list every member`, text: () => file(members(n, (i) => `Member ${i}`), { groups: Array.from({ length: quick ? 40 : 400 }, (_, g) => ({ id: `g${g}`, name: `Group ${g}`, members: ids })) }) },
    { name: `${n} members, ${quick ? 500 : 5_000} switches of 150 members each`, text: () => file(members(n, (i) => `Member ${i}`), { switches: Array.from({ length: quick ? 500 : 5_000 }, (_, s) => ({ timestamp: new Date(Date.UTC(2022, 0, 1) + s * 60_000).toISOString(), members: ids.slice(s % (n - 150), (s % (n - 150)) + 150) })) }) },
    { name: `${quick ? 10_000 : 100_000} switches of one member (the switch cap)`, text: () => file(members(10, (i) => `Member ${i}`), { switches: Array.from({ length: quick ? 10_000 : 100_000 }, (_, s) => ({ timestamp: new Date(Date.UTC(2020, 0, 1) + s * 60_000).toISOString(), members: [id(s % 10)] })) }) },
  ];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Sends `/healthz` requests one after another until stopped; the slowest answer, in ms. */
function pollHealth(url: string): { stop(): Promise<number> } {
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(`${url}/healthz`)).arrayBuffer();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return slowest;
    },
  };
}

export async function benchImportWorstShapes(opts: { quick: boolean }): Promise<WorstShapesResult> {
  const rounds = opts.quick ? 1 : 3;
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-import-worst-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const databaseUrl = `sqlite:${join(dataDir, 'switchboard.db')}`;
  const bundle = fileURLToPath(new URL('../dist/bundle/main.js', import.meta.url));
  const service = startService(
    { NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: url, LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false' },
    existsSync(bundle) ? bundle : undefined,
  );
  try {
    await waitReady(service, url);
    const registration = openDatabase(databaseUrl);
    let token: string;
    try {
      const client = await createTestClient({ url, database: registration } as Pick<TestServer, 'url' | 'database'> as TestServer);
      token = (await obtainTokens(client, { userId: '500000000000000091', scope: 'alters:read alters:write system:read system:write' })).tokens.access_token;
    } finally {
      await registration.close();
    }
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // The first import of a process compiles its route's schemas and starts the worker: a one-off,
    // measured by the start-up rows, not here.
    const warmUp = await fetch(`${url}/v1/users/@me/system/import?dryRun=true`, { method: 'POST', headers, body: JSON.stringify({ version: 2, id: 'warm', members: [{ id: 'w', name: 'W' }], switches: [] }) });
    if (warmUp.status !== 200) throw new Error(`warm-up import: ${warmUp.status} ${await warmUp.text()}`);

    const idle = pollHealth(url);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idleStallMs = await idle.stop();

    const shapes: WorstShapeResult[] = [];
    for (const shape of worstShapes(opts.quick)) {
      const text = shape.text();
      const bytes = Buffer.from(text);
      const parses: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const started = performance.now();
        JSON.parse(text);
        parses.push((performance.now() - started) / 1000);
      }
      const times: number[] = [];
      const health = pollHealth(url);
      for (let round = 0; round < rounds; round++) {
        const started = performance.now();
        const response = await fetch(`${url}/v1/users/@me/system/import?dryRun=true&history=true`, { method: 'POST', headers, body: bytes });
        const answer = await response.text();
        times.push((performance.now() - started) / 1000);
        if (response.status !== 200) throw new Error(`${shape.name}: ${response.status} ${answer.slice(0, 300)}`);
      }
      shapes.push({ name: shape.name, fileBytes: bytes.length, seconds: median(times), parseSeconds: median(parses), stallMs: await health.stop() });
    }
    return { shapes, idleStallMs };
  } finally {
    await stopService(service);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await benchImportWorstShapes({ quick: process.argv.includes('--quick') });
  console.log(`slowest /healthz while idle ${result.idleStallMs.toFixed(1)} ms`);
  for (const shape of result.shapes) {
    console.log(`${shape.name} (${(shape.fileBytes / 2 ** 20).toFixed(2)} MiB): ${shape.seconds.toFixed(3)} s (JSON.parse ${shape.parseSeconds.toFixed(3)} s), slowest /healthz ${shape.stallMs.toFixed(1)} ms`);
  }
  process.exit(0);
}
