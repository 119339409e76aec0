// Frozen. The per-day summary of each system's front (domain/front-days.ts) for front statistics
// (issue 27: a year of 100,000 switches, any period, p99 under 50 ms): `front_days` (per span of
// days and list of alters: closed time and the last instant), `front_day_entries` (per span of days
// and alter: entries into the front, and into the primary place), each for single days and for
// aligned runs of 4, 16, 64, 256 and 1024 of them (`span`), and `front_days_stale`, the span of switch
// times each system's summary is behind, marked by triggers on `switches` and `switch_members` so
// that every writer (the API, imports, alter deletes cascading, anything later) marks it without
// knowing of it. The writers that know bring the summary up to date in their own transaction
// (settleFrontDays); statistics of a system still marked are read from its switches alone, so the
// summary is exact or unused, never wrong. Existing switches are summed here, by the service's own
// settleFrontDays (the summary means what that code sums; a later change of its form comes with a
// migration of its own that rebuilds it).
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { settleFrontDays } from '../repositories/front-days.js';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const idType = postgres ? 'bigint' : 'integer';
  await db.schema
    .createTable('front_days')
    .addColumn('system_id', idType, (c) => c.notNull())
    .addColumn('span', 'integer', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    // Bytewise on PostgreSQL: statistics group by it, and a locale's collation made that sort cost
    // most of the statement (SQLite compares bytes already).
    .addColumn('alter_list', postgres ? sql`text collate "C"` : 'text', (c) => c.notNull())
    .addColumn('ms', 'bigint', (c) => c.notNull())
    .addColumn('last_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('front_days_pk', ['system_id', 'span', 'day', 'alter_list'])
    .execute();
  await db.schema
    .createTable('front_day_entries')
    .addColumn('system_id', idType, (c) => c.notNull())
    .addColumn('span', 'integer', (c) => c.notNull())
    .addColumn('day', 'integer', (c) => c.notNull())
    .addColumn('alter_id', idType, (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('primary_entries', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('front_day_entries_pk', ['system_id', 'span', 'day', 'alter_id'])
    .execute();
  await db.schema
    .createTable('front_days_stale')
    .addColumn('system_id', idType, (c) => c.primaryKey())
    .addColumn('lo', 'bigint', (c) => c.notNull())
    .addColumn('hi', 'bigint', (c) => c.notNull())
    .execute();

  if (postgres) {
    // Statement-level with transition tables, as the alter lists' triggers: an import marks once.
    const upsert = sql.raw(`on conflict (system_id) do update set lo = least(front_days_stale.lo, excluded.lo), hi = greatest(front_days_stale.hi, excluded.hi)`);
    await sql`create function front_days_mark_switches() returns trigger language plpgsql set search_path from current as $$
      begin
        insert into front_days_stale (system_id, lo, hi) select system_id, min(switched_at), max(switched_at) from changed group by system_id ${upsert};
        return null;
      end $$`.execute(db);
    await sql`create function front_days_mark_members() returns trigger language plpgsql set search_path from current as $$
      begin
        insert into front_days_stale (system_id, lo, hi)
          select s.system_id, min(s.switched_at), max(s.switched_at) from switches s where s.id in (select switch_id from changed) group by s.system_id ${upsert};
        return null;
      end $$`.execute(db);
    for (const [table, fn, prefix] of [
      ['switches', 'front_days_mark_switches', 'front_days_switches'],
      ['switch_members', 'front_days_mark_members', 'front_days_members'],
    ] as const) {
      for (const [suffix, event, transition] of [
        ['insert', 'insert', 'new'],
        ['delete', 'delete', 'old'],
        ['update_old', 'update', 'old'],
        ['update_new', 'update', 'new'],
      ] as const) {
        await sql
          .raw(`create trigger ${prefix}_${suffix} after ${event} on ${table} referencing ${transition} table as changed for each statement execute function ${fn}()`)
          .execute(db);
      }
    }
  } else {
    const upsert = `on conflict (system_id) do update set lo = min(lo, excluded.lo), hi = max(hi, excluded.hi)`;
    const markSwitch = (row: 'new' | 'old') => `insert into front_days_stale (system_id, lo, hi) values (${row}.system_id, ${row}.switched_at, ${row}.switched_at) ${upsert};`;
    // A member's switch may be gone already (a switch deleted, its members cascading): its own trigger marked it.
    const markMember = (row: 'new' | 'old') =>
      `insert into front_days_stale (system_id, lo, hi) select system_id, switched_at, switched_at from switches where id = ${row}.switch_id ${upsert};`;
    await sql.raw(`create trigger front_days_switches_insert after insert on switches begin ${markSwitch('new')} end`).execute(db);
    await sql.raw(`create trigger front_days_switches_delete after delete on switches begin ${markSwitch('old')} end`).execute(db);
    // Not on the alter lists' own updates (switched_at and system_id are what move a switch).
    await sql.raw(`create trigger front_days_switches_update after update of switched_at, system_id on switches begin ${markSwitch('old')} ${markSwitch('new')} end`).execute(db);
    await sql.raw(`create trigger front_days_members_insert after insert on switch_members begin ${markMember('new')} end`).execute(db);
    await sql.raw(`create trigger front_days_members_delete after delete on switch_members begin ${markMember('old')} end`).execute(db);
    await sql.raw(`create trigger front_days_members_update after update on switch_members begin ${markMember('old')} ${markMember('new')} end`).execute(db);
  }

  // The existing switches: every system with some is behind, then brought up to date.
  await sql`insert into front_days_stale (system_id, lo, hi) select system_id, min(switched_at), max(switched_at) from switches group by system_id`.execute(db);
  const systems = await sql<{ system_id: number }>`select system_id from front_days_stale`.execute(db);
  for (const { system_id } of systems.rows) await settleFrontDays(db, Number(system_id));
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    for (const [table, prefix] of [
      ['switches', 'front_days_switches'],
      ['switch_members', 'front_days_members'],
    ] as const) {
      for (const suffix of ['insert', 'delete', 'update_old', 'update_new']) await sql.raw(`drop trigger ${prefix}_${suffix} on ${table}`).execute(db);
    }
    await sql`drop function front_days_mark_switches(), front_days_mark_members()`.execute(db);
  } else {
    for (const name of ['front_days_switches_insert', 'front_days_switches_delete', 'front_days_switches_update', 'front_days_members_insert', 'front_days_members_delete', 'front_days_members_update']) {
      await sql.raw(`drop trigger ${name}`).execute(db);
    }
  }
  await db.schema.dropTable('front_days_stale').execute();
  await db.schema.dropTable('front_day_entries').execute();
  await db.schema.dropTable('front_days').execute();
}
