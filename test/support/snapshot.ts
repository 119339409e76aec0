// Snapshots of the whole database for "nothing changed" assertions: every row of every table of
// the Schema, in a canonical order, with a digest per table so two snapshots compare cheaply and a
// difference can still be shown row by row.
import { createHash } from 'node:crypto';
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { Schema } from '../../src/db/tables.js';

export type TableName = keyof Schema;

/** Every table of the Schema. The type below fails to compile when a table is added to Schema only. */
export const TABLES = [
  'users',
  'systems',
  'system_sub_accounts',
  'system_account_codes',
  'alters',
  'tags',
  'alter_tags',
  'alter_fields',
  'profile_fields',
  'profile_field_values',
  'autoproxy',
  'switches',
  'switch_members',
  'front_days',
  'front_day_entries',
  'front_days_stale',
  'proxied_messages',
  'oauth_clients',
  'oidc_payloads',
  'login_links',
  'browser_sessions',
  'dashboard_sessions',
  'import_alter_links',
  'import_tag_links',
  'applied_imports',
  'audit_log',
  'events',
  'event_endpoints',
  'event_deliveries',
  'event_attempts',
  'guild_settings',
  'event_grant_periods',
  'event_values',
  'event_value_refs',
  'images',
] as const satisfies readonly TableName[];

type MissingTables = Exclude<TableName, (typeof TABLES)[number]>;
const everyTableListed: [MissingTables] extends [never] ? true : MissingTables = true;
void everyTableListed;

export interface DatabaseSnapshot {
  /** One string for the whole database: equal digests mean equal contents. */
  digest: string;
  /** Per table: `rows:<count> <sha256>`. */
  tables: Partial<Record<TableName, string>>;
  /** Per table: each row as canonical JSON, sorted. */
  rows: Partial<Record<TableName, string[]>>;
}

/** Every row of each table as canonical text, unsorted. */
async function readRows(db: Kysely<Schema>, tables: readonly TableName[]): Promise<Map<TableName, string[]>> {
  const rows = new Map<TableName, string[]>(tables.map((table) => [table, []]));
  if (tables.length === 0) return rows;
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // One round trip for the whole database: PostgreSQL renders each row as text itself.
    const union = sql.join(
      tables.map((table) => sql`select ${table}::text as t, x::text as r from ${sql.table(table)} x`),
      sql` union all `,
    );
    const result = await sql<{ t: TableName; r: string }>`${union}`.execute(db);
    for (const { t, r } of result.rows) rows.get(t)?.push(r);
    return rows;
  }
  // One round trip too: SQLite renders each row as JSON, its keys in a fixed order (blobs as hex,
  // which JSON cannot hold). Reading rows as objects and writing them out again in JavaScript, a
  // query per table, cost three times as much, and the fuzzing reads the database hundreds of times.
  const columns = await sql<{ t: string; c: string }>`select m.name as t, p.name as c from sqlite_master m join pragma_table_info(m.name) p where m.type = 'table' order by m.name, p.name`.execute(db);
  const byTable = new Map<string, string[]>();
  for (const { t, c } of columns.rows) byTable.set(t, [...(byTable.get(t) ?? []), c]);
  const union = sql.join(
    tables.map((table) => {
      const pairs = (byTable.get(table) ?? []).map((column) => sql`${column}, case when typeof(x.${sql.ref(column)}) = 'blob' then 'blob:' || lower(hex(x.${sql.ref(column)})) else x.${sql.ref(column)} end`);
      return sql`select ${table} as t, json_object(${sql.join(pairs)}) as r from ${sql.table(table)} x`;
    }),
    sql` union all `,
  );
  const result = await sql<{ t: TableName; r: string }>`${union}`.execute(db);
  for (const { t, r } of result.rows) rows.get(t)?.push(r);
  return rows;
}

/** Reads every row of every table (minus `exclude`), sorted, with digests. */
export async function snapshotDatabase(db: Kysely<Schema>, options: { exclude?: readonly TableName[] } = {}): Promise<DatabaseSnapshot> {
  const tables = TABLES.filter((table) => !options.exclude?.includes(table));
  const contents = await readRows(db, tables);
  const snapshot: DatabaseSnapshot = { digest: '', tables: {}, rows: {} };
  const whole = createHash('sha256');
  for (const table of tables) {
    const rows = (contents.get(table) ?? []).sort();
    const hash = createHash('sha256');
    for (const row of rows) hash.update(row).update('\n');
    const summary = `rows:${rows.length} ${hash.digest('hex')}`;
    snapshot.tables[table] = summary;
    snapshot.rows[table] = rows;
    whole.update(`${table} ${summary}\n`);
  }
  snapshot.digest = whole.digest('hex');
  return snapshot;
}

/**
 * A cheap marker that moves whenever anything is written: SQLite's count of rows changed by the
 * write connection, PostgreSQL's WAL insert position. An unmoved marker proves nothing was
 * written; a moved one (PostgreSQL's also moves for other databases on the server) only means the
 * database has to be read again. SQLite's count is asked inside a transaction, since only
 * transactions run on the write connection (src/db/sqlite-driver.ts): on the read connection it
 * stays 0 whatever is written, and every write went unseen.
 */
async function writeMarker(db: Kysely<Schema>): Promise<string | undefined> {
  try {
    if (db.getExecutor().adapter instanceof PostgresAdapter) {
      const result = await sql<{ marker: string }>`select pg_current_wal_insert_lsn()::text as marker`.execute(db);
      return String(result.rows[0]?.marker);
    }
    const result = await db.transaction().execute((trx) => sql<{ marker: number }>`select total_changes() as marker`.execute(trx));
    return String(result.rows[0]?.marker);
  } catch {
    return undefined; // no marker (e.g. not permitted): every call reads the rows
  }
}

/**
 * PostgreSQL only: the contents as the server digests them, one short row per table. The WAL
 * position also moves for every other schema on the server (each test file has one, and CI runs
 * three files at once), which made the fuzzing read and send every row again after nearly every
 * other request; when this digest is the last read's, the rows are the same and are not read.
 */
async function serverDigest(db: Kysely<Schema>, tables: readonly TableName[]): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter) || tables.length === 0) return undefined;
  const union = sql.join(
    tables.map((table) => sql`select ${table}::text as t, count(*)::text as n, md5(coalesce(string_agg(x::text, E'\n' order by x::text), '')) as h from ${sql.table(table)} x`),
    sql` union all `,
  );
  const result = await sql<{ t: string; n: string; h: string }>`${union}`.execute(db);
  return result.rows
    .map((row) => `${row.t} ${row.n} ${row.h}`)
    .sort()
    .join('\n');
}

/**
 * Snapshots for a sequence of requests: `current()` reads every table only when the write marker
 * moved since the last read (and, on PostgreSQL, the server's digest of the contents changed), and
 * otherwise returns that read, which is then known to be exact.
 */
export class DatabaseWatcher {
  private last: { marker: string; contents: string | undefined; snapshot: DatabaseSnapshot } | undefined;
  /** How many calls had to read the database (the rest were answered by the marker). */
  reads = 0;

  constructor(
    private readonly db: Kysely<Schema>,
    private readonly options: { exclude?: readonly TableName[] } = {},
  ) {}

  async current(): Promise<DatabaseSnapshot> {
    // The marker is taken before the rows: a write in between moves it again, so the next call reads.
    const marker = await writeMarker(this.db);
    if (marker !== undefined && this.last?.marker === marker) return this.last.snapshot;
    // Likewise the digest: a write after it changes the next one, so the next call reads.
    const contents = marker === undefined ? undefined : await serverDigest(this.db, TABLES.filter((table) => !this.options.exclude?.includes(table)));
    if (marker !== undefined && contents !== undefined && this.last?.contents === contents) {
      this.last.marker = marker;
      return this.last.snapshot;
    }
    const snapshot = await snapshotDatabase(this.db, this.options);
    this.reads++;
    this.last = marker === undefined ? undefined : { marker, contents, snapshot };
    return snapshot;
  }
}

/** The tables of the live database (its own schema only), to check that TABLES covers them all. */
export async function databaseTables(db: Kysely<Schema>): Promise<string[]> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // Kysely's introspection lists every schema's tables; test databases share a server.
    const result = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
    return result.rows.map((row) => row.name).filter((name) => !name.startsWith('kysely_migration')).sort();
  }
  return (await db.introspection.getTables()).map((table) => table.name).sort();
}

/** A readable account of what differs between two snapshots: rows added and removed, per table. */
export function describeDifference(before: DatabaseSnapshot, after: DatabaseSnapshot, maxRows = 5): string {
  const lines: string[] = [];
  for (const table of TABLES) {
    if (before.tables[table] === after.tables[table]) continue;
    const old = new Set(before.rows[table] ?? []);
    const now = new Set(after.rows[table] ?? []);
    const removed = [...old].filter((row) => !now.has(row));
    const added = [...now].filter((row) => !old.has(row));
    lines.push(`${table}: ${before.rows[table]?.length ?? 0} → ${after.rows[table]?.length ?? 0} rows`);
    for (const row of removed.slice(0, maxRows)) lines.push(`  - ${row.slice(0, 400)}`);
    for (const row of added.slice(0, maxRows)) lines.push(`  + ${row.slice(0, 400)}`);
    if (removed.length > maxRows || added.length > maxRows) lines.push(`  … ${removed.length} removed, ${added.length} added in all`);
  }
  return lines.join('\n') || '(no difference)';
}
