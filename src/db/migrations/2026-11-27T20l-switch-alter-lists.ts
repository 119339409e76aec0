// Frozen. Each switch's alters as one list on its own row (`switches.alter_list`: ids in position
// order, comma-separated; '' for a switch-out), kept by triggers on `switch_members`, so every
// writer (the API, imports, alter deletes cascading) keeps it without knowing of it. The members
// table stays the source of truth; the list exists so that front statistics read a year of
// switches as one range of rows, without one member lookup per switch (bench rows 11c and 11d).
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** The list of one switch, `id` an SQL expression naming it. */
const listOf = (id: string) =>
  sql.raw(`coalesce((select string_agg(cast(m.alter_id as text), ',' order by m.position) from switch_members m where m.switch_id = ${id}), '')`);

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('switches')
    .addColumn('alter_list', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await sql`update switches set alter_list = ${listOf('switches.id')}`.execute(db);
  // A period's switches with their lists from the index alone (SQLite reads no table page).
  await db.schema.createIndex('switches_stats').on('switches').columns(['system_id', 'switched_at', 'id', 'alter_list']).execute();
  if (postgres) {
    // Statement-level with transition tables: an import's thousands of members update each switch once.
    for (const [name, table] of [
      ['switch_lists_inserted', 'new_members'],
      ['switch_lists_deleted', 'old_members'],
    ] as const) {
      await sql`create function ${sql.id(name)}() returns trigger language plpgsql set search_path from current as $$
        begin
          update switches s set alter_list = ${listOf('s.id')} where s.id in (select switch_id from ${sql.raw(table)});
          return null;
        end $$`.execute(db);
    }
    await sql`create trigger switch_lists_insert after insert on switch_members referencing new table as new_members for each statement execute function switch_lists_inserted()`.execute(db);
    await sql`create trigger switch_lists_delete after delete on switch_members referencing old table as old_members for each statement execute function switch_lists_deleted()`.execute(db);
    await sql`create trigger switch_lists_update_old after update on switch_members referencing old table as old_members for each statement execute function switch_lists_deleted()`.execute(db);
    await sql`create trigger switch_lists_update_new after update on switch_members referencing new table as new_members for each statement execute function switch_lists_inserted()`.execute(db);
  } else {
    await sql`create trigger switch_lists_insert after insert on switch_members begin
      update switches set alter_list = ${listOf('new.switch_id')} where id = new.switch_id; end`.execute(db);
    await sql`create trigger switch_lists_delete after delete on switch_members begin
      update switches set alter_list = ${listOf('old.switch_id')} where id = old.switch_id; end`.execute(db);
    await sql`create trigger switch_lists_update after update on switch_members begin
      update switches set alter_list = ${listOf('old.switch_id')} where id = old.switch_id;
      update switches set alter_list = ${listOf('new.switch_id')} where id = new.switch_id; end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const triggers = postgres ? ['switch_lists_insert', 'switch_lists_delete', 'switch_lists_update_old', 'switch_lists_update_new'] : ['switch_lists_insert', 'switch_lists_delete', 'switch_lists_update'];
  for (const name of triggers) {
    await sql`drop trigger ${sql.id(name)}${postgres ? sql` on switch_members` : sql``}`.execute(db);
  }
  if (postgres) await sql`drop function switch_lists_inserted(), switch_lists_deleted()`.execute(db);
  await db.schema.dropIndex('switches_stats').execute();
  await db.schema.alterTable('switches').dropColumn('alter_list').execute();
}
