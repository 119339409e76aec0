// Linked accounts: each Discord user's OAuth tokens, in keyv (SQLite by default, PostgreSQL or
// Redis by URL). Values are sealed with AES-256-GCM and bound to the user they belong to; keys are
// keyed hashes of the Discord user id, so a copy of the store reveals neither tokens nor who linked.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Keyv from 'keyv';
import { databaseFailure, redisFailure, StartupError, withConnectTimeout } from '../../config/startup-errors.js';
import { createStorageCrypto } from '../../security/crypto.js';
import type { TokenSet } from '../api-client.js';
import { openLinkLock, type LinkLockOptions } from './link-lock.js';

export interface StoredLink extends TokenSet {
  linkedAt: number;
}

export interface LinkStore {
  get(userId: string): Promise<StoredLink | undefined>;
  set(userId: string, link: StoredLink): Promise<void>;
  delete(userId: string): Promise<void>;
  /**
   * Runs `work` holding the user's lock in every process sharing this store (link-lock.ts):
   * reads, refreshes and writes of one user's link happen one at a time. Not reentrant.
   */
  lock<T>(userId: string, work: () => Promise<T>): Promise<T>;
  /** The user's key in the store (a keyed hash): what the link change feed names. */
  keyOf(userId: string): string;
  close(): Promise<void>;
}

/** Only the backend in use is loaded (the Redis and PostgreSQL clients are slow to import). */
async function openKeyv(url: string): Promise<Keyv> {
  if (url.startsWith('sqlite://')) {
    const path = url.slice('sqlite://'.length);
    mkdirSync(dirname(path), { recursive: true });
    // Our own store over better-sqlite3, on the table @keyv/sqlite made (sqlite-keyv-store.ts).
    const { SqliteKeyvStore } = await import('./sqlite-keyv-store.js');
    return new Keyv({ store: new SqliteKeyvStore({ path, table: 'switchboard_bot_links' }), namespace: 'links' });
  }
  if (url.startsWith('redis')) {
    const { default: KeyvRedis } = await import('@keyv/redis');
    return new Keyv({ store: new KeyvRedis(url), namespace: 'switchboard-bot-links' });
  }
  const { default: KeyvPostgres } = await import('@keyv/postgres');
  // `?schema=name` picks the PostgreSQL schema of the table (keyv qualifies its table names, so
  // the connection's search_path would not).
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema');
  parsed.searchParams.delete('schema');
  return new Keyv({
    store: new KeyvPostgres({ uri: parsed.toString(), table: 'switchboard_bot_links', ...(schema ? { schema } : {}) }),
    namespace: 'links',
  });
}

export async function openLinkStore(url: string, key: Buffer, lockOptions?: LinkLockOptions): Promise<LinkStore> {
  const keyv = await openKeyv(url);
  keyv.on('error', () => undefined); // surfaced per call instead
  await checkReachable(keyv, url);
  const links = await openLinkLock(url, lockOptions);
  const crypto = createStorageCrypto(key);
  const storageKey = (userId: string) => crypto.lookupHash('bot link', userId);
  return {
    async get(userId) {
      const sealed = (await keyv.get(storageKey(userId))) as string | undefined;
      return sealed === undefined ? undefined : crypto.unseal<StoredLink>(sealed, `bot link ${userId}`);
    },
    async set(userId, link) {
      await keyv.set(storageKey(userId), crypto.seal(link, `bot link ${userId}`));
    },
    async delete(userId) {
      await keyv.delete(storageKey(userId));
    },
    lock(userId, work) {
      return links.hold(storageKey(userId), work);
    },
    keyOf: storageKey,
    async close() {
      // @keyv/postgres shares one pool per URL between stores, and ending it twice throws; at
      // shutdown there is nothing left to do about either, so closing is best effort.
      await keyv.disconnect().catch(() => undefined);
      await links.close().catch(() => undefined);
    },
  };
}

/**
 * One read before the bot starts, bounded in time: an unreachable store is reported at start-up
 * as one line naming BOT_STORE_URL, not as a hang (Redis) or as every member looking unlinked.
 */
async function checkReachable(keyv: Keyv, url: string): Promise<void> {
  const throwing = keyv.throwOnErrors;
  keyv.throwOnErrors = true;
  try {
    await withConnectTimeout(keyv.get('reachability-check'));
  } catch (error) {
    void keyv.disconnect().catch(() => undefined);
    if (url.startsWith('redis')) throw redisFailure(error, 'BOT_STORE_URL', url, "the bot's linked accounts");
    const translated = databaseFailure(error, url.replace(/^sqlite:\/\//, 'sqlite:'), 'BOT_STORE_URL');
    throw translated instanceof StartupError ? translated : new StartupError('BOT_STORE_URL', `the bot's link store cannot be opened (${translated.message}); fix BOT_STORE_URL`);
  } finally {
    keyv.throwOnErrors = throwing;
  }
}
