// `npm run bench:profile [-- list|create|edit] [postgres]`: a CPU profile of the service under the point-read load
// (or list-alters?max=250 of 2,000 alters, or create-alter or alter edits over 40 systems, then the bare insert route of
// the write rows for comparison), 50 connections, 5 s, written to
// bench/profiles/<name>.cpuprofile (open it in Chrome DevTools), with the functions that took the
// most CPU printed. This is how the hot paths in RESULTS.md were found.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/config.js';
import { startServer } from '../src/http/server.js';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { seedAlters } from '../test/support/seed.js';
import { createTestDatabase } from '../test/support/dialects.js';
import { freePort, type TestServer } from '../test/support/server.js';
import { startInsertBaseline } from './insert-baseline.js';
import { runLoad } from './load.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-profile-'));
  const port = await freePort();
  // `postgres`: on a fresh schema of BENCH_DATABASE_URL (or TEST_DATABASE_URL) instead of SQLite.
  const postgresUrl = process.argv.includes('postgres') ? (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL) : undefined;
  if (process.argv.includes('postgres') && !postgresUrl) throw new Error('postgres: set BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const schema = postgresUrl ? await createTestDatabase('postgres', postgresUrl) : undefined;
  const config = loadConfig({ ...(schema ? { DATABASE_URL: schema.url } : {}), NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false' });
  const running = await startServer(config);
  try {
    const client = await createTestClient({ ...running, url: config.publicUrl } as unknown as TestServer);
    const { tokens } = await obtainTokens(client, { userId: '500000000000000001', scope: 'alters:read alters:write' });
    const authorization = `Bearer ${tokens.access_token}`;
    const created = (await (
      await fetch(`${config.publicUrl}/v1/users/@me/system/create-alter`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'a', displayName: 'A' }) })
    ).json()) as { alterId: number };

    const list = process.argv.includes('list');
    const edit = process.argv.includes('edit');
    const create = process.argv.includes('create') || edit;
    if (list) await seedAlters(running.database.db, '500000000000000001', 1999);
    const name = list ? 'list-alters' : edit ? 'edit-alter' : create ? 'create-alter' : 'point-read';
    const url = list ? `${config.publicUrl}/v1/users/@me/system/list-alters?max=250` : create ? `${config.publicUrl}/v1/users/@me/system/create-alter` : `${config.publicUrl}/v1/users/@me/alters/${created.alterId}`;
    // Creates spread over 40 systems, as in row 3 of the bench: one system would measure its row lock.
    // With alters:read, as there: a token with alters:write alone is answered 500 after the create
    // commits (the owner's view of the new alter needs the read scope), so the profile measured errors.
    const writers = create ? await Promise.all(Array.from({ length: 40 }, (_, i) => obtainTokens(client, { userId: String(510000000000000000n + BigInt(i)), scope: 'alters:write alters:read' }))) : [];
    // `edit`: the edit row's load instead (pronouns of one alter of each of the 40 systems).
    const variants = await Promise.all(
      writers.map(async ({ tokens: set }) => {
        const headers = { authorization: `Bearer ${set.access_token}` };
        if (!edit) return { path: '/v1/users/@me/system/create-alter', headers };
        const response = await fetch(`${config.publicUrl}/v1/users/@me/system/create-alter`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"username":"e","displayName":"E"}' });
        const { alterId } = (await response.json()) as { alterId: number };
        return { path: `/v1/users/@me/alters/${alterId}/edit`, headers };
      }),
    );
    const body = edit ? '{"pronouns":"p$N"}' : '{"username":"w$N","displayName":"Writer"}';
    const write = create ? { method: 'POST', body, duration: 5, variants } : { duration: 5 };
    const target = edit && variants[0] ? `${config.publicUrl}${variants[0].path}` : url;

    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    const cpuBefore = process.cpuUsage();
    const result = await runLoad({ url: target, connections: 50, ...write, headers: { authorization, ...(create ? { 'content-type': 'application/json' } : {}) } });
    const cpu = process.cpuUsage(cpuBefore);
    const { profile } = await session.post('Profiler.stop');
    const perRequest = (micros: number) => (micros / Math.max(1, result.requestsPerSecond * result.durationSeconds)).toFixed(0);
    console.log(`${name} under profile: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99} ms; service CPU per request ${perRequest(cpu.user)} µs user, ${perRequest(cpu.system)} µs system; ${result.total} requests, ${result.non2xx} not 2xx`);

    const out = fileURLToPath(new URL('./profiles/', import.meta.url));
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, `${name}.cpuprofile`), JSON.stringify(profile));

    if (create) {
      // The bare insert route of rows 3a-3d, same dialect and load, without the profiler: its CPU per
      // request is what the write ratio compares the create's with once the machine's CPU is the bound.
      const baseline = await startInsertBaseline(schema ? 'postgres' : 'sqlite', schema ? schema.url : join(dataDir, 'baseline.db'));
      try {
        const bareBefore = process.cpuUsage();
        const bare = await runLoad({ url: baseline.url, method: 'POST', connections: 50, duration: 5 });
        const bareCpu = process.cpuUsage(bareBefore);
        const count = Math.max(1, bare.requestsPerSecond * bare.durationSeconds);
        console.log(`bare insert (no profiler): ${Math.round(bare.requestsPerSecond)} req/s; CPU per request ${(bareCpu.user / count).toFixed(0)} µs user, ${(bareCpu.system / count).toFixed(0)} µs system`);
      } finally {
        await baseline.close();
      }
    }

    const nodes = new Map((profile.nodes as ProfileNode[]).map((node) => [node.id, node]));
    const self = new Map<string, number>();
    profile.samples?.forEach((id, i) => {
      const frame = nodes.get(id)?.callFrame;
      if (!frame) return;
      const key = `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber}`;
      self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
    });
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    for (const [key, time] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${((100 * time) / total).toFixed(1).padStart(5)}%  ${key}`);
  } finally {
    await running.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
