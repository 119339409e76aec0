// The bot's own keyv store over better-sqlite3 (src/bot/links/sqlite-keyv-store.ts): through the link
// store, on a file that earlier versions wrote with @keyv/sqlite 4.0.8, and as a keyv store.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Keyv from 'keyv';
import { afterAll, describe, expect, it } from 'vitest';
import { openLinkStore, type StoredLink } from '../../../src/bot/links/link-store.js';
import { SqliteKeyvStore } from '../../../src/bot/links/sqlite-keyv-store.js';
import { StartupError } from '../../../src/config/startup-errors.js';
import { createStorageCrypto } from '../../../src/security/crypto.js';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-keyv-sqlite-'));
let files = 0;
const newFile = () => join(dir, `links-${++files}.sqlite`);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const link = (): StoredLink => ({
  accessToken: `at-${randomBytes(24).toString('base64url')}`,
  refreshToken: `rt-${randomBytes(24).toString('base64url')}`,
  expiresAt: Date.now() + 3_600_000,
  scope: 'openid alters:read',
  linkedAt: Date.now(),
});

/** The statement @keyv/sqlite 4.0.8 creates its table with (table 'switchboard_bot_links', default keySize 255). */
const KEYV_SQLITE_TABLE = 'CREATE TABLE IF NOT EXISTS switchboard_bot_links(key VARCHAR(255) PRIMARY KEY, value TEXT )';

// Rows as @keyv/sqlite 4.0.8 wrote them (through the previous link store, keyv 5.6.0 serializing),
// copied from such a file: one user's link sealed with FIXTURE_KEY, and a keyv entry whose TTL ran out.
const FIXTURE_KEY = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex');
const FIXTURE_USER = '400000000000000001';
const FIXTURE_LINK: StoredLink = {
  accessToken: 'at-written-by-keyv-sqlite',
  refreshToken: 'rt-written-by-keyv-sqlite',
  expiresAt: 1767225600000,
  scope: 'openid alters:read',
  linkedAt: 1767222000000,
};
const FIXTURE_ROWS: Array<{ key: string; value: string }> = [
  {
    key: 'links:am9KbQNv-9umfSy54_3aOB2WrnrOq3NeuCtQPW_lp0A',
    value:
      '{"value":"F5-nS9FxyGviPZNn5IjmAPKV9cBy74XxG56FLuWT1kcA-xeU1GiesAaqtK3uNpmXJMD960HgM8duHgrABQVxeVc4D2bcszHUTZaP-5K4D9lNaJmZTNGm-zu15uKaM4Qhn7ww3W0ZtegH1Q-GJn8CKa0o-mqOpDglZmxBzMN18bpPjxJJtCsIUrQdOIoT_ysuF8_MvEempNZGcNQcwBaPB14BkXj4JWRRASb2ZFnl7v1ayRlHNAtKGDFEVFNuvLInI3k"}',
  },
  { key: 'links:expired', value: '{"value":"old","expires":1795746014222}' },
];

/** A store file as @keyv/sqlite 4.0.8 leaves it: its table, its rows, the default (rollback) journal. */
function keyvSqliteFile(rows: Array<{ key: string; value: string }>): string {
  const path = newFile();
  const db = new Database(path);
  db.exec(KEYV_SQLITE_TABLE);
  const insert = db.prepare('INSERT INTO switchboard_bot_links (key, value) VALUES (?, ?)');
  for (const row of rows) insert.run(row.key, row.value);
  db.close();
  return path;
}

function readRows(path: string): Array<{ key: string; value: string }> {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], { key: string; value: string }>('SELECT key, value FROM switchboard_bot_links ORDER BY key').all();
  } finally {
    db.close();
  }
}

describe('the link store on sqlite://', () => {
  it('stores, reads back, replaces and deletes links, kept across reopening', async () => {
    const path = newFile();
    const url = `sqlite://${path}`;
    const key = randomBytes(32);
    const first = link();
    const store = await openLinkStore(url, key);
    try {
      expect(await store.get('400000000000000011')).toBeUndefined();
      await store.set('400000000000000011', first);
      await store.set('400000000000000012', link());
      expect(await store.get('400000000000000011')).toEqual(first);
      const replaced = { ...first, accessToken: 'at-refreshed' };
      await store.set('400000000000000011', replaced);
      expect(await store.get('400000000000000011')).toEqual(replaced);
    } finally {
      await store.close();
    }
    const reopened = await openLinkStore(url, key);
    try {
      expect((await reopened.get('400000000000000011'))?.accessToken).toBe('at-refreshed');
      await reopened.delete('400000000000000011');
      expect(await reopened.get('400000000000000011')).toBeUndefined();
      expect(await reopened.get('400000000000000012')).toBeDefined();
    } finally {
      await reopened.close();
    }
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('reads the links in a file @keyv/sqlite 4.0.8 wrote, and writes rows of the same form', async () => {
    const path = keyvSqliteFile(FIXTURE_ROWS);
    const schemaBefore = new Database(path, { readonly: true }).prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
    const store = await openLinkStore(`sqlite://${path}`, FIXTURE_KEY);
    const added = link();
    try {
      expect(await store.get(FIXTURE_USER)).toEqual(FIXTURE_LINK);
      await store.set('400000000000000002', added);
      expect(await store.get('400000000000000002')).toEqual(added);
    } finally {
      await store.close();
    }

    // The table is the same (no column or table added), and the new row has the form
    // @keyv/sqlite's rows have, so the version before this one still reads it.
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all()).toEqual(schemaBefore);
    db.close();
    const crypto = createStorageCrypto(FIXTURE_KEY);
    const row = readRows(path).find((r) => r.key === `links:${crypto.lookupHash('bot link', '400000000000000002')}`);
    expect(row).toBeDefined();
    const parsed = JSON.parse(row?.value ?? '') as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['value']);
    expect(crypto.unseal(String(parsed.value), 'bot link 400000000000000002')).toEqual(added);
    // The fixture's own rows are untouched.
    expect(readRows(path).filter((r) => FIXTURE_ROWS.some((f) => f.key === r.key))).toEqual(
      [...FIXTURE_ROWS].sort((a, b) => (a.key < b.key ? -1 : 1)),
    );
  });

  it('reports a file that is not an SQLite database as one line naming BOT_STORE_URL', async () => {
    const path = newFile();
    writeFileSync(path, 'not a database, just text long enough to fill a header. '.repeat(4));
    const opening = openLinkStore(`sqlite://${path}`, randomBytes(32));
    await expect(opening).rejects.toBeInstanceOf(StartupError);
    await expect(opening).rejects.toThrow(/BOT_STORE_URL: .* is not an SQLite database/);
  });

  it('reports a store path it cannot open (a folder) naming BOT_STORE_URL', async () => {
    const path = join(dir, 'a-folder');
    mkdirSync(path);
    await expect(openLinkStore(`sqlite://${path}`, randomBytes(32))).rejects.toThrow(/BOT_STORE_URL: ".*a-folder" is not a regular file/);
  });
});

describe('SqliteKeyvStore under keyv', () => {
  const open = (path: string, namespace = 'links') => new Keyv({ store: new SqliteKeyvStore({ path, table: 'switchboard_bot_links' }), namespace });

  it('reads an entry @keyv/sqlite wrote with a TTL that ran out as missing, and removes it, as keyv did', async () => {
    const path = keyvSqliteFile([{ key: 'links:expired', value: '{"value":"old","expires":1000}' }, { key: 'links:later', value: `{"value":"new","expires":${Date.now() + 60_000}}` }]);
    const keyv = open(path);
    try {
      expect(await keyv.get('expired')).toBeUndefined();
      expect(await keyv.get('later')).toBe('new');
      expect(await keyv.has('expired')).toBe(false);
      expect(await keyv.has('later')).toBe(true);
    } finally {
      await keyv.disconnect();
    }
    expect(readRows(path).map((r) => r.key)).toEqual(['links:later']);
  });

  it('keeps values of every kind keyv serializes, and a TTL', async () => {
    const keyv = open(newFile());
    try {
      await keyv.set('text', ':starts with a colon');
      await keyv.set('object', { a: 1, b: [true, null], c: 'x' });
      await keyv.set('number', 42);
      await keyv.set('brief', 'gone soon', 30);
      expect(await keyv.get('text')).toBe(':starts with a colon');
      expect(await keyv.get('object')).toEqual({ a: 1, b: [true, null], c: 'x' });
      expect(await keyv.get('number')).toBe(42);
      expect(await keyv.get('brief')).toBe('gone soon');
      expect(await keyv.get(['number', 'missing', 'text'])).toEqual([42, undefined, ':starts with a colon']);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await keyv.get('brief')).toBeUndefined();
      expect(await keyv.delete('number')).toBe(true);
      expect(await keyv.delete('number')).toBe(false);
      expect(await keyv.delete(['text', 'object'])).toBe(true);
      expect(await keyv.get(['text', 'object'])).toEqual([undefined, undefined]);
    } finally {
      await keyv.disconnect();
    }
  });

  it("clears only its own namespace (a namespace's '_' is no wildcard)", async () => {
    const path = newFile();
    const [ours, similar, other] = [open(path, 'a_b'), open(path, 'aXb'), open(path, 'links')];
    try {
      await ours.set('k', 1);
      await similar.set('k', 2);
      await other.set('k', 3);
      await ours.clear();
      expect([await ours.get('k'), await similar.get('k'), await other.get('k')]).toEqual([undefined, 2, 3]);
    } finally {
      await Promise.all([ours.disconnect(), similar.disconnect(), other.disconnect()]);
    }
  });

  it('shares one file between stores (processes): each sees the others’ writes at once', async () => {
    const path = newFile();
    const [a, b] = [open(path), open(path)];
    try {
      await a.set('shared', 'from a');
      expect(await b.get('shared')).toBe('from a');
      await b.set('shared', 'from b');
      expect(await a.get('shared')).toBe('from b');
      await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).set(`key-${i}`, i)));
      expect(await a.get(Array.from({ length: 50 }, (_, i) => `key-${i}`))).toEqual(Array.from({ length: 50 }, (_, i) => i));
    } finally {
      await Promise.all([a.disconnect(), b.disconnect()]);
    }
  });

  it('fails the call, and reports an error event, when the file cannot be opened; later calls try again', async () => {
    const path = join(dir, 'later', 'links.sqlite');
    const store = new SqliteKeyvStore({ path, table: 'switchboard_bot_links' });
    const errors: unknown[] = [];
    store.on('error', (error) => errors.push(error));
    await expect(store.get('links:x')).rejects.toThrow(/directory does not exist/); // better-sqlite3's words
    expect(errors).toHaveLength(1);
    mkdirSync(join(dir, 'later'));
    await store.set('links:x', '{"value":1}');
    expect(await store.get('links:x')).toBe('{"value":1}');
    await store.disconnect();
    await store.disconnect();
    await expect(store.get('links:x')).rejects.toThrow(/closed/);
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() => new SqliteKeyvStore({ path: ':memory:', table: 'links; drop table x' })).toThrow(/invalid table name/);
  });
});
