// The largest reads (issue 26, 6): a system at every limit, read three ways through the real service in-process: a stranger's page of list-alters (250), the
// owner's export, a page of list-tags (250). The system has 2,000 alters in 500 tags (every alter in
// every tag); as many alters as the system's size cap (MAX_SYSTEM_ALTER_CHARS) lets hold every field
// others may see at its limit (three 2,048-character links, 50 proxy tags of 200 characters, a full
// description), the rest are plain. Before the cap each of the 2,000 could also hold 200 per-server
// names and avatars (about 240 KiB an alter); those are the owner's alone, so a stranger's read no
// longer loads them, and the cap leaves room for few. Each is timed (median of 3) with its answer's size and
// the heap it took, against a baseline measured in the same run: the same read of a system of
// 2,000 plain alters (a name each).
//
// Run alone: node --expose-gc --import tsx bench/read-amplification.ts [--quick]. bench/run.ts runs it too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config/config.js';
import { alterColumns } from '../src/db/alter-columns.js';
import { isSystemTooLarge } from '../src/db/errors.js';
import { findSystemByUser } from '../src/db/repositories/systems.js';
import type { Database } from '../src/db/database.js';
import { ALTER_DEFAULTS } from '../src/domain/alter.js';
import { startServer } from '../src/http/server.js';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { freePort, type TestServer } from '../test/support/server.js';

export interface ReadCost {
  name: string;
  seconds: number;
  bytes: number;
  /** Growth of the service's heap while the read ran (sampled), MiB. */
  heapMiB: number;
  /** The answer's status: anything but 200 is a failure the row reports. */
  status: number;
}

export interface ReadAmplificationResult {
  alters: number;
  /** Of them, those with every field others may see at its limit. */
  fullAlters: number;
  /** The full system's stored size (systems.alter_chars), characters. */
  storedChars: number;
  tags: number;
  full: ReadCost[];
  plain: ReadCost[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** One alter with every field others may see at its limit, as columns. */
function fullAlter(systemId: number, n: number) {
  const proxyTags = Array.from({ length: 50 }, (_, i) => ({ id: `t${i}`, prefix: `${'p'.repeat(96)}${String(i).padStart(4, '0')}`, suffix: 's'.repeat(100) }));
  return {
    ...alterColumns({
      ...ALTER_DEFAULTS,
      username: `full-${n}`,
      displayName: `${'D'.repeat(95)}${String(n).padStart(5, '0')}`,
      description: 'd'.repeat(1000),
      pronouns: 'p'.repeat(100),
      avatarUrl: `https://cdn.example.com/${'a'.repeat(2000)}.png`,
      webhookAvatarUrl: `https://cdn.example.com/${'w'.repeat(2000)}.png`,
      banner: `https://cdn.example.com/${'b'.repeat(2000)}.png`,
      proxyTags,
      public: 0x3ff,
      messageCount: 0,
      lastMessageAt: null,
      createdAt: Date.now(),
    }),
    system_id: systemId,
  };
}

function plainAlter(systemId: number, n: number) {
  return { ...alterColumns({ ...ALTER_DEFAULTS, username: `plain-${n}`, displayName: `Plain ${n}`, public: 0x3ff, messageCount: 0, lastMessageAt: null, createdAt: Date.now() }), system_id: systemId };
}

async function seed(database: Database, userId: string, alters: number, tags: number, full: boolean): Promise<void> {
  const system = await findSystemByUser(database.db, userId);
  if (!system) throw new Error('no system');
  const db = database.db;
  // The system shows its alters and tags (64 | 128 and the rest), so a stranger may list them.
  await db.updateTable('systems').set({ public: 0xfff }).where('id', '=', system.id).execute();
  const ids: number[] = [];
  // Full alters until the size cap refuses a batch, plain ones after.
  let filling = full;
  for (let start = 0; start < alters; start += 10) {
    const batch = (make: typeof fullAlter) => Array.from({ length: Math.min(10, alters - start) }, (_, i) => make(system.id, start + i));
    if (filling) {
      try {
        ids.push(...(await db.insertInto('alters').values(batch(fullAlter)).returning('id').execute()).map((row) => Number(row.id)));
        continue;
      } catch (error) {
        if (!isSystemTooLarge(error)) throw error;
        filling = false;
      }
    }
    ids.push(...(await db.insertInto('alters').values(batch(plainAlter)).returning('id').execute()).map((row) => Number(row.id)));
  }
  if (!full) return;
  const tagIds: number[] = [];
  for (let t = 0; t < tags; t++) {
    const row = await db.insertInto('tags').values({ system_id: system.id, name: `tag-${t}`, name_key: `tag-${t}`, description: 'd'.repeat(1000), public: 63, created_at: Date.now() } as never).returning('id').executeTakeFirstOrThrow();
    tagIds.push(Number(row.id));
  }
  for (const tagId of tagIds) {
    for (let start = 0; start < ids.length; start += 2000) {
      await db.insertInto('alter_tags').values(ids.slice(start, start + 2000).map((alterId) => ({ alter_id: alterId, tag_id: tagId }))).execute();
    }
  }
}

export async function benchReadAmplification(opts: { quick: boolean }): Promise<ReadAmplificationResult> {
  const alters = opts.quick ? 100 : 2000;
  const tags = opts.quick ? 20 : 500;
  const rounds = opts.quick ? 1 : 3;
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-reads-'));
  const port = await freePort();
  const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent', DATA_DIR: dataDir, AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false' });
  const running = await startServer(config);
  try {
    const server = { ...running, url: config.publicUrl } as unknown as TestServer;
    const client = await createTestClient(server);
    const scope = 'alters:read system:read';
    const [fullOwner, plainOwner, stranger] = await Promise.all(['500000000000000071', '500000000000000072', '500000000000000073'].map((userId) => obtainTokens(client, { userId, scope })));
    if (!fullOwner || !plainOwner || !stranger) throw new Error('sign-in failed');
    await seed(running.database, '500000000000000071', alters, tags, true);
    const fullSystem = await findSystemByUser(running.database.db, '500000000000000071');
    const stored = await running.database.db.selectFrom('systems').select('alter_chars').where('id', '=', fullSystem?.id ?? 0).executeTakeFirstOrThrow();
    const fullAlters = await running.database.db.selectFrom('alters').select((eb) => eb.fn.countAll<number>().as('n')).where('system_id', '=', fullSystem?.id ?? 0).where('username', 'like', 'full-%').executeTakeFirstOrThrow();
    await seed(running.database, '500000000000000072', alters, tags, false);

    const measure = async (name: string, path: string, token: string): Promise<ReadCost> => {
      const times: number[] = [];
      let bytes = 0;
      let heap = 0;
      let status = 200;
      // Untimed: the route's first answer compiles its serializer and prepares its queries.
      await fetch(`${config.publicUrl}${path}`, { headers: { authorization: `Bearer ${token}` } }).then((response) => response.arrayBuffer());
      for (let round = 0; round < rounds; round++) {
        (globalThis as { gc?: () => void }).gc?.();
        const before = process.memoryUsage().heapUsed;
        let peak = before;
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
        const started = performance.now();
        const response = await fetch(`${config.publicUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
        const body = await response.arrayBuffer();
        times.push((performance.now() - started) / 1000);
        clearInterval(sampler);
        if (response.status !== 200) {
          status = response.status;
          break;
        }
        bytes = body.byteLength;
        heap = Math.max(heap, (peak - before) / 2 ** 20);
      }
      return { name, seconds: median(times), bytes, heapMiB: heap, status };
    };
    const reads = (owner: { tokens: { access_token: string } }, userId: string) => [
      () => measure('a stranger’s list-alters page (250)', `/v1/users/${userId}/system/list-alters?max=250`, stranger.tokens.access_token),
      () => measure('the owner’s export', '/v1/users/@me/system/export', owner.tokens.access_token),
      () => measure('a stranger’s list-tags page (250)', `/v1/users/${userId}/system/list-tags?max=250`, stranger.tokens.access_token),
    ];
    const full: ReadCost[] = [];
    const plain: ReadCost[] = [];
    for (const read of reads(fullOwner, '500000000000000071')) full.push(await read());
    for (const read of reads(plainOwner, '500000000000000072')) plain.push(await read());
    return { alters, fullAlters: Number(fullAlters.n), storedChars: Number(stored.alter_chars), tags, full, plain };
  } finally {
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await benchReadAmplification({ quick: process.argv.includes('--quick') });
  console.log(`${result.alters} alters (${result.fullAlters} full), ${result.tags} tags, ${(result.storedChars / 2 ** 20).toFixed(1)} Mi characters stored`);
  result.full.forEach((read, i) => {
    const plain = result.plain[i];
    console.log(`${read.name}: ${read.status === 200 ? '' : `answered ${read.status}! `}${read.seconds.toFixed(3)} s, ${(read.bytes / 2 ** 20).toFixed(1)} MiB answer, heap +${read.heapMiB.toFixed(0)} MiB; plain: ${plain?.seconds.toFixed(3)} s, ${((plain?.bytes ?? 0) / 2 ** 20).toFixed(2)} MiB`);
  });
  process.exit(0);
}
