// Custom profile fields on the hot read (issue 30): a page of 250 alters with 20 profile field values
// each, read through the real service in-process, against the same page of a system whose alters
// have none, measured in the same run and interleaved (A, B, A, B…) so the machine's noise falls on
// both. Both systems show their alters and every field is `everyone`'s, so the owner's page and a
// stranger's (whose query filters the values by their privacy, in SQL) both carry every value.
//
// Run alone: node --import tsx bench/profile-fields.ts [--quick] [--postgres] (--postgres uses
// BENCH_DATABASE_URL or TEST_DATABASE_URL). bench/run.ts runs it too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config/config.js';
import { alterColumns } from '../src/db/alter-columns.js';
import { findSystemByUser } from '../src/db/repositories/systems.js';
import type { Database } from '../src/db/database.js';
import { ALTER_DEFAULTS } from '../src/domain/alter.js';
import { startServer } from '../src/http/server.js';
import { createTestDatabase } from '../test/support/dialects.js';
import { createTestClient, obtainTokens } from '../test/support/oauth.js';
import { freePort, type TestServer } from '../test/support/server.js';

export const PAGE = 250;
export const FIELDS = 20;

export interface PageCost {
  /** Median milliseconds per page, with and without the fields. */
  withFields: number;
  without: number;
  bytesWith: number;
  bytesWithout: number;
}

export interface ProfileFieldsBenchResult {
  requests: number;
  owner: PageCost;
  stranger: PageCost;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function seed(database: Database, userId: string, fields: number): Promise<void> {
  const db = database.db;
  const system = await findSystemByUser(db, userId);
  if (!system) throw new Error('no system');
  await db.updateTable('systems').set({ public: 0xfff }).where('id', '=', system.id).execute();
  const alters = Array.from({ length: PAGE }, (_, n) => ({
    ...alterColumns({ ...ALTER_DEFAULTS, username: `alter-${n}`, displayName: `Alter ${n}`, description: `About alter ${n}. `.repeat(10), public: 0x7ff, messageCount: 0, lastMessageAt: null, createdAt: Date.now() }),
    system_id: system.id,
  }));
  const alterIds: number[] = [];
  for (let start = 0; start < alters.length; start += 50) {
    alterIds.push(...(await db.insertInto('alters').values(alters.slice(start, start + 50)).returning('id').execute()).map((row) => Number(row.id)));
  }
  if (fields === 0) return;
  const kinds = ['text', 'markdown', 'date', 'month-day', 'colour', 'link'] as const;
  const values = (kind: (typeof kinds)[number], n: number) =>
    ({ text: `Some words about ${n}`, markdown: `**bold** and _more_ ${n}`, date: '2001-02-03', 'month-day': '--07-21', colour: '#a1b2c3', link: `https://example.com/profile/${n}` })[kind];
  for (let f = 0; f < fields; f++) {
    const kind = kinds[f % kinds.length] ?? 'text';
    const row = await db
      .insertInto('profile_fields')
      .values({ system_id: system.id, name: `Field ${f}`, name_key: `field ${f}`, kind, privacy: 'everyone', position: f, created_at: Date.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('profile_field_values')
      .values(alterIds.map((alterId, n) => ({ alter_id: alterId, field_id: Number(row.id), system_id: system.id, value: values(kind, n) })))
      .execute();
  }
}

export async function benchProfileFields(opts: { quick: boolean; dialect?: 'sqlite' | 'postgres'; postgresUrl?: string }): Promise<ProfileFieldsBenchResult> {
  const requests = opts.quick ? 5 : 200;
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-fields-'));
  const schema = opts.dialect === 'postgres' ? await createTestDatabase('postgres', opts.postgresUrl) : undefined;
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
    ...(schema ? { DATABASE_URL: schema.url } : {}),
  });
  const running = await startServer(config);
  try {
    const server = { ...running, url: config.publicUrl } as unknown as TestServer;
    const client = await createTestClient(server);
    const ids = ['500000000000000081', '500000000000000082', '500000000000000083'] as const;
    const [withOwner, withoutOwner, stranger] = await Promise.all(ids.map((userId) => obtainTokens(client, { userId, scope: 'alters:read system:read' })));
    if (!withOwner || !withoutOwner || !stranger) throw new Error('sign-in failed');
    await seed(running.database, ids[0], FIELDS);
    await seed(running.database, ids[1], 0);

    const read = async (path: string, token: string): Promise<{ ms: number; bytes: number }> => {
      const started = performance.now();
      const response = await fetch(`${config.publicUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
      return { ms: performance.now() - started, bytes: body.byteLength };
    };
    const compare = async (a: [string, string], b: [string, string]): Promise<PageCost> => {
      // Untimed: the first answers compile the serializer and prepare the queries.
      for (let i = 0; i < 3; i++) await Promise.all([read(...a), read(...b)]);
      const timesA: number[] = [];
      const timesB: number[] = [];
      let bytesA = 0;
      let bytesB = 0;
      for (let i = 0; i < requests; i++) {
        const first = await read(...a);
        const second = await read(...b);
        timesA.push(first.ms);
        timesB.push(second.ms);
        bytesA = first.bytes;
        bytesB = second.bytes;
      }
      return { withFields: median(timesA), without: median(timesB), bytesWith: bytesA, bytesWithout: bytesB };
    };
    const page = `/v1/users/@me/system/list-alters?max=${PAGE}`;
    const owner = await compare([page, withOwner.tokens.access_token], [page, withoutOwner.tokens.access_token]);
    const strangerPage = (userId: string) => `/v1/users/${userId}/system/list-alters?max=${PAGE}`;
    const strangers = await compare([strangerPage(ids[0]), stranger.tokens.access_token], [strangerPage(ids[1]), stranger.tokens.access_token]);
    return { requests, owner, stranger: strangers };
  } finally {
    await running.close();
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const dialect = process.argv.includes('--postgres') ? 'postgres' : 'sqlite';
  if (dialect === 'postgres' && !postgresUrl) throw new Error('--postgres needs BENCH_DATABASE_URL or TEST_DATABASE_URL');
  const result = await benchProfileFields({ quick: process.argv.includes('--quick'), dialect, ...(postgresUrl ? { postgresUrl } : {}) });
  console.log(dialect);
  for (const [who, cost] of [['owner', result.owner], ['stranger', result.stranger]] as const) {
    console.log(
      `${who}: ${cost.withFields.toFixed(2)} ms (${(cost.bytesWith / 1024).toFixed(0)} KiB) with ${FIELDS} fields vs ${cost.without.toFixed(2)} ms (${(cost.bytesWithout / 1024).toFixed(0)} KiB) without: ${(cost.withFields / cost.without).toFixed(2)}x (median of ${result.requests})`,
    );
  }
}
