// Pending import previews, kept in the shared bot store (each store the bot runs on: in memory,
// SQLite, PostgreSQL, Redis): one press runs, in whichever process it lands (two sessions over two
// connections stand for two processes), the owner only, sealed at rest, expiry drops the file, a
// bounded total; and the report's text within Discord's limits.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type ImportReport } from '../../../src/bot/api-client.js';
import { createImportSessions, type ImportSessions } from '../../../src/bot/imports/import-session.js';
import { altersInFile, groupWarnings, importReportEmbed, listWithin } from '../../../src/bot/imports/import-report.js';
import { openSharedStore, type SharedStore } from '../../../src/bot/processes/shared-store.js';
import { createRedis } from '../../../src/config/redis.js';
import { createStorageCrypto } from '../../../src/security/crypto.js';
import { createTestDatabase, type TestDatabase } from '../../support/dialects.js';
import { REDIS_AVAILABLE, TEST_REDIS_URL } from '../../support/environment.js';

const ALICE = '400000000000000001';
const BOB = '400000000000000002';
const file = (text = '{"switches":[]}') => Buffer.from(text);
const choice = { mode: 'merge' as const, history: false };

const report = (overrides: Partial<ImportReport> = {}): ImportReport => ({
  format: 'pluralkit',
  mode: 'merge',
  dryRun: false,
  history: false,
  counts: {
    alters: { created: 3, updated: 1, unchanged: 0, deleted: 0 },
    tags: { created: 2, updated: 0, unchanged: 0, deleted: 0 },
    switches: { created: 0, unchanged: 0, deleted: 0 },
    profileFields: { created: 0, matched: 0, deleted: 0 },
  },
  renames: [],
  skipped: [],
  warnings: [],
  notImported: {},
  ...overrides,
});

const dir = mkdtempSync(join(tmpdir(), 'switchboard-imports-'));
const postgres: TestDatabase | undefined = process.env.TEST_DATABASE_URL ? await createTestDatabase('postgres') : undefined;
// Redis: a database of its own, emptied of the bot's keys first.
const REDIS_STORE = `${TEST_REDIS_URL.replace(/\/\d*$/, '')}/10`;
const STORES: Array<[string, string]> = [
  ['memory', 'sqlite://'],
  ['SQLite', `sqlite://${join(dir, 'links.sqlite')}`],
  ...(postgres ? [['PostgreSQL', `${postgres.url}&schema=${/search_path=(\w+)/.exec(decodeURIComponent(postgres.url))?.[1] ?? ''}`] as [string, string]] : []),
  ...(REDIS_AVAILABLE ? [['Redis', REDIS_STORE] as [string, string]] : []),
];
const sealer = createStorageCrypto(randomBytes(32));

afterAll(async () => {
  await postgres?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(STORES)('import sessions (%s)', (name, url) => {
  let now = 1_000_000;
  let store: SharedStore;
  /** Another process's connection (the memory store is one process's: the same one). */
  let other: SharedStore;
  let sessions: ImportSessions;
  let elsewhere: ImportSessions;
  const open = (options: Omit<Parameters<typeof createImportSessions>[0], 'store' | 'sealer'> = {}) => {
    sessions = createImportSessions({ store, sealer, ttlMs: 60_000, now: () => now, ...options });
    elsewhere = createImportSessions({ store: other, sealer, ttlMs: 60_000, now: () => now, ...options });
    return sessions;
  };

  beforeAll(async () => {
    if (url.startsWith('redis')) {
      const redis = await createRedis(url, {});
      const keys = await redis.keys('switchboard-bot*');
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
    store = await openSharedStore(url);
    other = name === 'memory' ? store : await openSharedStore(url);
  });
  afterAll(async () => {
    await store?.close();
    if (other !== store) await other?.close();
  });
  afterEach(() => {
    sessions.stop();
    elsewhere.stop();
  });

  it('lets the owner claim once, in either process; a second press sees it running, then done with the report', async () => {
    open();
    const { id } = await sessions.open(ALICE, file(), choice);
    const first = await elsewhere.claim(id, ALICE);
    expect(first).toMatchObject({ status: 'claimed', choice, file: file() });
    expect(await sessions.claim(id, ALICE)).toEqual({ status: 'running' });
    if (first.status !== 'claimed') throw new Error('not claimed');
    await elsewhere.complete(id, first.attempt, report());
    expect(await sessions.claim(id, ALICE)).toEqual({ status: 'done', report: report() });
    expect(await elsewhere.cancel(id, ALICE)).toEqual({ status: 'done', report: report() });
  });

  it('lets one of many presses at once, in two processes, run the import', async () => {
    open();
    const { id } = await sessions.open(ALICE, file(), choice);
    const claims = await Promise.all(Array.from({ length: 8 }, (_, n) => (n % 2 === 0 ? sessions : elsewhere).claim(id, ALICE)));
    expect(claims.filter((claim) => claim.status === 'claimed')).toHaveLength(1);
    expect(claims.filter((claim) => claim.status === 'running')).toHaveLength(7);
  });

  it('keeps the file sealed and gzipped: the store holds neither the file nor who sent it', async () => {
    open();
    const text = `{"members":[{"name":"secret-name-${'x'.repeat(4000)}"}],"switches":[]}`;
    const { id } = await sessions.open(ALICE, file(text), choice);
    const stored = await store.get(`import-preview:${id}`);
    expect(stored).toBeDefined();
    expect(stored).not.toContain('secret-name');
    expect(stored).not.toContain(ALICE);
    expect(String(stored).length).toBeLessThan(text.length / 2);
    // Another key cannot read it: the preview is expired to a bot with another BOT_STORE_KEY.
    const stranger = createImportSessions({ store: other, sealer: createStorageCrypto(randomBytes(32)), now: () => now });
    expect(await stranger.claim(id, ALICE)).toEqual({ status: 'expired' });
    const claimed = await elsewhere.claim(id, ALICE);
    expect(claimed).toMatchObject({ status: 'claimed', file: file(text) });
  });

  it('gives each preview its own random key, kept across a retry in another process', async () => {
    open();
    const a = await sessions.open(ALICE, file(), choice);
    const b = await sessions.open(BOB, file(), choice);
    const first = await sessions.claim(a.id, ALICE);
    const second = await sessions.claim(b.id, BOB);
    if (first.status !== 'claimed' || second.status !== 'claimed') throw new Error('not claimed');
    expect(first.idempotencyKey).not.toBe(second.idempotencyKey);
    expect(first.idempotencyKey.length).toBeGreaterThanOrEqual(32);
    await sessions.fail(a.id, first.attempt, true);
    const again = await elsewhere.claim(a.id, ALICE);
    expect(again).toMatchObject({ status: 'claimed', idempotencyKey: first.idempotencyKey });
  });

  it('refuses another user, for Confirm and Cancel', async () => {
    open();
    const { id } = await sessions.open(ALICE, file(), choice);
    expect(await elsewhere.claim(id, BOB)).toEqual({ status: 'not-yours' });
    expect(await elsewhere.cancel(id, BOB)).toEqual({ status: 'not-yours' });
    expect((await elsewhere.claim(id, ALICE)).status).toBe('claimed');
  });

  it('drops a cancelled preview and a refused import; a running import cannot be cancelled', async () => {
    open();
    const { id } = await sessions.open(ALICE, file(), choice);
    expect(await elsewhere.cancel(id, ALICE)).toEqual({ status: 'cancelled' });
    expect(await sessions.claim(id, ALICE)).toEqual({ status: 'expired' });
    const second = await sessions.open(ALICE, file(), choice);
    const claimed = await sessions.claim(second.id, ALICE);
    if (claimed.status !== 'claimed') throw new Error('not claimed');
    expect(await elsewhere.cancel(second.id, ALICE)).toEqual({ status: 'running' });
    await sessions.fail(second.id, claimed.attempt, false);
    expect(await elsewhere.claim(second.id, ALICE)).toEqual({ status: 'expired' });
  });

  it('expires a preview and its file, but not an import still running', async () => {
    open();
    const waiting = await sessions.open(ALICE, file(), choice);
    const running = await sessions.open(BOB, file(), choice);
    const claimed = await sessions.claim(running.id, BOB);
    if (claimed.status !== 'claimed') throw new Error('not claimed');
    now += 60_001;
    expect(await elsewhere.claim(waiting.id, ALICE)).toEqual({ status: 'expired' });
    expect(await elsewhere.claim(running.id, BOB)).toEqual({ status: 'running' });
    await sessions.complete(running.id, claimed.attempt, report());
    expect(await elsewhere.claim(running.id, BOB)).toEqual({ status: 'done', report: report() });
    // Not forever: a press long after shows the preview expired, and nothing is kept.
    now += 10 * 60_000;
    expect(await elsewhere.claim(running.id, BOB)).toEqual({ status: 'expired' });
    expect(sessions.waitingBytes()).toBe(0);
  });

  it('lets go of an import whose process died while it ran: the next press retries with the same key', async () => {
    open({ runningMs: 300 });
    const { id } = await sessions.open(ALICE, file(), choice);
    const first = await sessions.claim(id, ALICE);
    if (first.status !== 'claimed') throw new Error('not claimed');
    // (The process dies: it neither completes nor fails.)
    expect(await elsewhere.claim(id, ALICE)).toEqual({ status: 'running' });
    await sleep(400);
    expect(await elsewhere.claim(id, ALICE)).toMatchObject({ status: 'claimed', idempotencyKey: first.idempotencyKey });
  });

  it('keeps one waiting preview per user: a new /import, in any process, replaces the old one', async () => {
    open();
    const old = await sessions.open(ALICE, file(), choice);
    await elsewhere.open(ALICE, file(), choice);
    expect(await sessions.claim(old.id, ALICE)).toEqual({ status: 'expired' });
  });

  it("bounds the bytes this process's previews hold in the store, until they are confirmed (anywhere) or expire", async () => {
    open({ maxWaitingBytes: 2000 });
    const noise = () => randomBytes(900);
    const first = await sessions.open(ALICE, noise(), choice);
    await expect(sessions.open(BOB, noise(), choice)).rejects.toThrow(ApiError);
    const claimed = await elsewhere.claim(first.id, ALICE);
    if (claimed.status !== 'claimed') throw new Error('not claimed');
    await elsewhere.complete(first.id, claimed.attempt, report());
    await expect(sessions.open(BOB, noise(), choice)).resolves.toMatchObject({ id: expect.any(String) });
    await expect(sessions.open(ALICE, noise(), choice)).rejects.toThrow(ApiError);
    now += 60_001;
    await expect(sessions.open(ALICE, noise(), choice)).resolves.toMatchObject({ id: expect.any(String) });
  });
});

describe('the import report in Discord', () => {
  it('lists within the limit and says how many more', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line number ${i} ${'x'.repeat(20)}`);
    const text = listWithin(lines, String, 200);
    expect(text.length).toBeLessThanOrEqual(200);
    const shown = text.split('\n');
    const more = Number(/…and (\d+) more$/.exec(text)?.[1]);
    expect(shown.length - 1 + more).toBe(100);
    expect(listWithin(['a', 'b'], String, 200)).toBe('a\nb');
  });

  it('cuts a single long line rather than losing it', () => {
    const text = listWithin(['y'.repeat(5000)], String);
    expect(text.length).toBeLessThanOrEqual(200);
    expect(text.endsWith('…')).toBe(true);
  });

  it('groups identical warnings', () => {
    expect(groupWarnings(['a', 'b', 'a', 'a'])).toEqual(['a (×3)', 'b']);
  });

  it('stays within 6000 characters with thousands of renames, skips and warnings, and escapes names', () => {
    const many = Array.from({ length: 3000 }, (_, i) => i);
    const embed = importReportEmbed(
      report({
        renames: many.map((i) => ({ source: 'pluralkit', id: `abc${i}`, name: `*bold* ${'n'.repeat(90)}`, to: `name-${i}` })),
        skipped: many.map((i) => ({ source: 'tupperbox', id: String(i), name: 'Nameless', reason: 'no usable name' })),
        warnings: many.map((i) => `warning ${i % 700}: ${'w'.repeat(150)}`),
        history: true,
      }),
      'preview',
    ).toJSON();
    const total = (embed.title ?? '').length + (embed.description ?? '').length + (embed.fields ?? []).reduce((sum, f) => sum + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
    for (const field of embed.fields ?? []) expect(field.value.length).toBeLessThanOrEqual(1024);
    expect(embed.fields?.map((f) => f.name)).toEqual(['Alters', 'Tags', 'Front history', 'Renamed (3,000)', 'Skipped (3,000)', 'Warnings (3,000)']);
    expect(embed.fields?.[3]?.value).toContain('\\*bold\\*');
    expect(embed.fields?.[5]?.value).toContain('(×');
  });

  it('titles a preview and a result, and counts what each kind gets', () => {
    const preview = importReportEmbed(report({ dryRun: true }), 'preview').toJSON();
    expect(preview.title).toBe('Import preview: PluralKit');
    expect(preview.fields?.[0]).toMatchObject({ name: 'Alters', value: '3 new · 1 updated · 0 unchanged' });
    expect(preview.description).toMatch(/Front history: not included/);
    const replaced = importReportEmbed(report({ format: 'tupperbox', mode: 'replace', counts: { ...report().counts, alters: { created: 0, updated: 0, unchanged: 1, deleted: 4 } } }), 'result').toJSON();
    expect(replaced.title).toBe('Imported from Tupperbox');
    expect(replaced.fields?.[0]?.value).toContain('**4 deleted**');
    // Profile fields only when the file had any to count.
    expect(preview.fields?.map((field) => field.name)).not.toContain('Profile fields');
    const withFields = importReportEmbed(report({ mode: 'replace', counts: { ...report().counts, profileFields: { created: 2, matched: 3, deleted: 1 } } }), 'preview').toJSON();
    expect(withFields.fields?.find((field) => field.name === 'Profile fields')?.value).toBe('2 new · 3 already there · **1 deleted**');
  });

  it('counts the alters in a file when it can', () => {
    expect(altersInFile(Buffer.from('\uFEFF{"members":[{},{}],"switches":[]}'))).toBe(2);
    expect(altersInFile(Buffer.from('{"tuppers":[{}],"groups":[]}'))).toBe(1);
    expect(altersInFile(Buffer.from('not json'))).toBeUndefined();
    expect(altersInFile(Buffer.from('[1,2]'))).toBeUndefined();
  });
});
