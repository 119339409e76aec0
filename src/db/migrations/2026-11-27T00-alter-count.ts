// Frozen. Each system's number of alters, kept by triggers on `alters`, so the 2000-alter cap is
// read from the system's row (in the statement that takes its lock) instead of counted per create.
// Triggers, not the repositories, keep it: every writer of the table (imports, deletes, cascades
// from a deleted system, seeds and hand edits) keeps it exact without knowing of it.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .alterTable('systems')
    .addColumn('alter_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update systems set alter_count = (select count(*) from alters where alters.system_id = systems.id)`.execute(db);
  if (postgres) {
    // Statement-level with transition tables: an import of 2,000 alters updates the row once.
    // `search_path from current` binds `systems` to this schema whatever the caller's path.
    await sql`create function alters_counted() returns trigger language plpgsql set search_path from current as $$
      begin
        if tg_op = 'DELETE' then
          update systems s set alter_count = s.alter_count - gone.n
            from (select system_id, count(*) as n from old_alters group by system_id) gone where s.id = gone.system_id;
        else
          update systems s set alter_count = s.alter_count + came.n
            from (select system_id, count(*) as n from new_alters group by system_id) came where s.id = came.system_id;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger alters_counted_insert after insert on alters referencing new table as new_alters for each statement execute function alters_counted()`.execute(db);
    await sql`create trigger alters_counted_delete after delete on alters referencing old table as old_alters for each statement execute function alters_counted()`.execute(db);
    // A transition-table trigger cannot name columns, and one on every update would run for every
    // edit: a row trigger whose condition is checked before the function is called instead.
    await sql`create function alter_moved() returns trigger language plpgsql set search_path from current as $$
      begin
        update systems set alter_count = alter_count - 1 where id = old.system_id;
        update systems set alter_count = alter_count + 1 where id = new.system_id;
        return null;
      end $$`.execute(db);
    await sql`create trigger alters_counted_move after update of system_id on alters for each row when (old.system_id is distinct from new.system_id) execute function alter_moved()`.execute(db);
  } else {
    await sql`create trigger alters_counted_insert after insert on alters begin
      update systems set alter_count = alter_count + 1 where id = new.system_id; end`.execute(db);
    await sql`create trigger alters_counted_delete after delete on alters begin
      update systems set alter_count = alter_count - 1 where id = old.system_id; end`.execute(db);
    await sql`create trigger alters_counted_move after update of system_id on alters when old.system_id is not new.system_id begin
      update systems set alter_count = alter_count - 1 where id = old.system_id;
      update systems set alter_count = alter_count + 1 where id = new.system_id; end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const name of ['alters_counted_insert', 'alters_counted_delete', 'alters_counted_move']) {
    await sql`drop trigger ${sql.id(name)}${postgres ? sql` on alters` : sql``}`.execute(db);
  }
  if (postgres) await sql`drop function alters_counted(), alter_moved()`.execute(db);
  await db.schema.alterTable('systems').dropColumn('alter_count').execute();
}
