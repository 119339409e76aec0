// A keyv store over better-sqlite3: the bot's linked accounts when BOT_STORE_URL is sqlite://
// (link-store.ts). It keeps the table @keyv/sqlite 4 made and wrote, which earlier versions of the
// bot used, so a store written by them reads back as it is (and the other way round):
//
//   CREATE TABLE IF NOT EXISTS <table>(key VARCHAR(255) PRIMARY KEY, value TEXT )
//
// one row per key. keyv 5 does the rest before a call reaches a store: the key arrives prefixed
// with keyv's namespace (`links:<key>`), the value serialized by keyv (the JSON text
// `{"value":…,"expires":…}`, `expires` only with a TTL), and keyv checks `expires` on read. The store
// keeps both strings as they come.
//
// Why not @keyv/sqlite: it runs on the sqlite3 addon, a second SQLite engine beside the
// better-sqlite3 the service already loads, about 4.5 MB more resident in a process with the bot.
//
// Several bot processes may share the file (each user's reads and writes are serialised across
// them by link-lock.ts): WAL, so that reads never wait for a write, and a busy timeout for a write
// that meets another process's. Every statement is a single row in its own transaction, so the
// file's write lock is held for the time of one commit. Statements run synchronously (better-sqlite3),
// which for single rows costs less than handing them to a thread.
import { EventEmitter } from 'node:events';
import Database from 'better-sqlite3';
import type { KeyvStoreAdapter, StoredData } from 'keyv';

export interface SqliteKeyvStoreOptions {
  /** The database file (`:memory:` or '' for a private in-memory or temporary one). */
  path: string;
  /** The table's name: letters, digits and underscores. */
  table: string;
  /** How long a write waits for another process's write lock (default 5 s). */
  busyTimeoutMs?: number;
}

interface Statements {
  get: Database.Statement<[string], string>;
  getMany: Database.Statement<[string], { key: string; value: string }>;
  set: Database.Statement<[string, string]>;
  delete: Database.Statement<[string]>;
  deleteMany: Database.Statement<[string]>;
  clear: Database.Statement<{ prefix: string }>;
  clearAll: Database.Statement<[]>;
}

export class SqliteKeyvStore extends EventEmitter implements KeyvStoreAdapter {
  readonly opts: Readonly<SqliteKeyvStoreOptions>;
  /** Set by keyv: the namespace its keys are prefixed with (`clear` removes only those). */
  namespace: string | undefined;
  #db: Database.Database | undefined;
  #statements: Statements | undefined;
  #closed = false;

  constructor(options: SqliteKeyvStoreOptions) {
    super();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.table)) throw new Error(`invalid table name ${JSON.stringify(options.table)}`);
    this.opts = { ...options };
  }

  /** The string keyv serialized for `key`, or undefined. (keyv's type says the value; keyv deserializes it.) */
  async get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.#prepared().get.get(key) as Value | undefined;
  }

  async getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    const found = new Map(this.#prepared().getMany.all(JSON.stringify(keys)).map((row) => [row.key, row.value]));
    return keys.map((key) => found.get(key) as Value | undefined);
  }

  /**
   * `ttl` is not kept apart: keyv has already written the expiry into `value` (`expires`), reads
   * it back and deletes an expired entry, as it did with @keyv/sqlite, which ignored `ttl` too.
   */
  async set(key: string, value: string, _ttl?: number): Promise<void> {
    this.#prepared().set.run(key, value);
  }

  async delete(key: string): Promise<boolean> {
    return this.#prepared().delete.run(key).changes > 0;
  }

  async deleteMany(keys: string[]): Promise<boolean> {
    return this.#prepared().deleteMany.run(JSON.stringify(keys)).changes > 0;
  }

  // No `has`: without it, keyv answers has() from get() and checks the expiry itself.

  /** Removes the entries of keyv's namespace (all of the table's rows without a namespace). */
  async clear(): Promise<void> {
    const statements = this.#prepared();
    if (this.namespace) statements.clear.run({ prefix: `${this.namespace}:` });
    else statements.clearAll.run();
  }

  async disconnect(): Promise<void> {
    this.#closed = true;
    this.#db?.close();
    this.#db = undefined;
    this.#statements = undefined;
  }

  /**
   * The file is opened on first use, so that a file that cannot be opened fails that call (keyv
   * passes the error on) rather than the construction; a later call tries again.
   */
  #prepared(): Statements {
    if (this.#statements) return this.#statements;
    if (this.#closed) throw new Error('the link store is closed');
    const { path, table, busyTimeoutMs = 5000 } = this.opts;
    let db: Database.Database | undefined;
    try {
      db = new Database(path, { timeout: busyTimeoutMs });
      db.pragma('journal_mode = WAL');
      // A commit that was acknowledged survives power loss: a lost token refresh would have the
      // bot redeem a refresh token already used, and the service end the link for it.
      db.pragma('synchronous = FULL');
      db.exec(`CREATE TABLE IF NOT EXISTS ${table}(key VARCHAR(255) PRIMARY KEY, value TEXT )`);
      const statements: Statements = {
        get: db.prepare<[string], string>(`SELECT value FROM ${table} WHERE key = ?`).pluck(),
        getMany: db.prepare<[string], { key: string; value: string }>(`SELECT key, value FROM ${table} WHERE key IN (SELECT value FROM json_each(?))`),
        set: db.prepare<[string, string]>(`INSERT INTO ${table} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
        delete: db.prepare<[string]>(`DELETE FROM ${table} WHERE key = ?`),
        deleteMany: db.prepare<[string]>(`DELETE FROM ${table} WHERE key IN (SELECT value FROM json_each(?))`),
        // Not LIKE: `_` and `%` in a namespace would be wildcards there.
        clear: db.prepare<{ prefix: string }>(`DELETE FROM ${table} WHERE substr(key, 1, length(@prefix)) = @prefix`),
        clearAll: db.prepare<[]>(`DELETE FROM ${table}`),
      };
      this.#db = db;
      this.#statements = statements;
      return statements;
    } catch (error) {
      db?.close();
      if (this.listenerCount('error') > 0) this.emit('error', error);
      throw error;
    }
  }
}
