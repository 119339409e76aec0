// Frozen. Custom profile fields (issue 30): a system's own field definitions (`profile_fields`: a
// name unique per system by `name_key` = usernameKey(name), as tag names; a kind; who may see it,
// by its API name; its place in the system's order) and each alter's values
// (`profile_field_values`, one row per alter and field). A deleted field, alter or system takes its
// values with it (cascades; the repositories delete them explicitly too, in the same transaction).
// Values count towards the system's stored size (systems.alter_chars, migration 2026-11-27T10) by
// triggers, as the alters' own text does, so every writer is held to the same cap.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

const CAP = 16 * 1024 * 1024;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const idType = postgres ? 'bigint' : 'integer';
  await db.schema
    .createTable('profile_fields')
    .addColumn('id', idType, (c: any) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()))
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_key', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('privacy', 'text', (c) => c.notNull().defaultTo('owner'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('profile_fields_system_name_key').unique().on('profile_fields').columns(['system_id', 'name_key']).execute();
  await db.schema.createIndex('profile_fields_system_position').on('profile_fields').columns(['system_id', 'position']).execute();
  await db.schema
    .createTable('profile_field_values')
    .addColumn('alter_id', idType, (c) => c.notNull().references('alters.id').onDelete('cascade'))
    .addColumn('field_id', idType, (c) => c.notNull().references('profile_fields.id').onDelete('cascade'))
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('value', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('profile_field_values_pk', ['alter_id', 'field_id'])
    .execute();
  await db.schema.createIndex('profile_field_values_field').on('profile_field_values').columns(['field_id']).execute();

  const cap = sql.lit(CAP);
  if (postgres) {
    // Statement-level with transition tables: an import's thousands of values update the system once.
    await sql`create function profile_values_sized() returns trigger language plpgsql set search_path from current as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then
          update systems s set alter_chars = s.alter_chars - gone.n
            from (select system_id, sum(length(value)) as n from old_values group by system_id) gone where s.id = gone.system_id;
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          update systems s set alter_chars = s.alter_chars + came.n
            from (select system_id, sum(length(value)) as n from new_values group by system_id) came where s.id = came.system_id;
          if exists (select 1 from systems s where s.id in (select system_id from new_values) and s.alter_chars > ${cap}
              and (select coalesce(sum(length(value)), 0) from new_values n where n.system_id = s.id)
                > (select coalesce(sum(length(value)), 0) from old_values o where o.system_id = s.id)) then
            raise exception 'system-too-large';
          end if;
        end if;
        return null;
      end $$`.execute(db);
    // PostgreSQL allows one transition table per trigger for INSERT and DELETE; an UPDATE may name both.
    await sql`create function profile_values_inserted() returns trigger language plpgsql set search_path from current as $$
      begin
        update systems s set alter_chars = s.alter_chars + came.n
          from (select system_id, sum(length(value)) as n from new_values group by system_id) came where s.id = came.system_id;
        if exists (select 1 from systems s where s.id in (select system_id from new_values) and s.alter_chars > ${cap}) then
          raise exception 'system-too-large';
        end if;
        return null;
      end $$`.execute(db);
    await sql`create function profile_values_deleted() returns trigger language plpgsql set search_path from current as $$
      begin
        update systems s set alter_chars = s.alter_chars - gone.n
          from (select system_id, sum(length(value)) as n from old_values group by system_id) gone where s.id = gone.system_id;
        return null;
      end $$`.execute(db);
    await sql`create trigger profile_values_insert after insert on profile_field_values referencing new table as new_values for each statement execute function profile_values_inserted()`.execute(db);
    await sql`create trigger profile_values_delete after delete on profile_field_values referencing old table as old_values for each statement execute function profile_values_deleted()`.execute(db);
    await sql`create trigger profile_values_update after update on profile_field_values referencing old table as old_values new table as new_values for each statement execute function profile_values_sized()`.execute(db);
  } else {
    await sql`create trigger profile_values_insert after insert on profile_field_values begin
      update systems set alter_chars = alter_chars + length(new.value) where id = new.system_id;
      select raise(abort, 'system-too-large') where (select alter_chars from systems where id = new.system_id) > ${cap}; end`.execute(db);
    await sql`create trigger profile_values_delete after delete on profile_field_values begin
      update systems set alter_chars = alter_chars - length(old.value) where id = old.system_id; end`.execute(db);
    await sql`create trigger profile_values_update after update of value on profile_field_values begin
      update systems set alter_chars = alter_chars - length(old.value) + length(new.value) where id = new.system_id;
      select raise(abort, 'system-too-large') where length(new.value) > length(old.value) and (select alter_chars from systems where id = new.system_id) > ${cap}; end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.dropTable('profile_field_values').execute();
  await db.schema.dropTable('profile_fields').execute();
  if (postgres) {
    for (const name of ['profile_values_sized', 'profile_values_inserted', 'profile_values_deleted']) await sql`drop function ${sql.id(name)}()`.execute(db);
  }
}
