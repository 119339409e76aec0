// Frozen. Each system's stored size: the characters of its alters' text and JSON columns, kept by
// triggers on `alters` (as the alter count is, 2026-11-27T00), and a cap the triggers enforce, so
// every writer (the API, imports, the command line) is held to it without knowing of it. A write
// that grows a system past the cap fails with the message `system-too-large` (the repositories
// answer a Problem); one that shrinks or keeps its alters' size always passes, so a system already
// over the cap (it could be, from before) can always be trimmed. The statement fails whole, and its
// transaction with it: nothing is half-written.
//
// The cap, 16 Mi characters (domain/alter.ts MAX_SYSTEM_ALTER_CHARS says the same): a large real
// system, 2,000 alters each with a 1,000-character description, three links and a few proxy tags,
// stores about 2 KiB an alter, 4 MiB in all; the cap leaves four times that. Without it, one system
// at every per-field limit stored about 470 MiB (240 KiB an alter) and its export passed V8's
// longest string.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

const CAP = 16 * 1024 * 1024;
const COLUMNS = ['username', 'display_name', 'name_map', 'color', 'description', 'pronouns', 'avatar_url', 'avatar_url_map', 'webhook_avatar_url', 'banner', 'proxy_tags'];

/** The size of one row, its columns named through `row` (new, old, or a table alias). */
function size(row: string): RawBuilder<number> {
  return sql.raw(COLUMNS.map((column) => `coalesce(length(${row}.${column}), 0)`).join(' + '));
}

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const cap = sql.lit(CAP);
  const columns = sql.raw(COLUMNS.join(', '));
  await db.schema
    .alterTable('systems')
    .addColumn('alter_chars', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update systems set alter_chars = coalesce((select sum(${size('alters')}) from alters where alters.system_id = systems.id), 0)`.execute(db);
  if (postgres) {
    // Statement-level with transition tables: an import of 2,000 alters updates the row once.
    await sql`create function alters_sized() returns trigger language plpgsql set search_path from current as $$
      begin
        if tg_op = 'DELETE' then
          update systems s set alter_chars = s.alter_chars - gone.n
            from (select system_id, sum(${size('old_alters')}) as n from old_alters group by system_id) gone where s.id = gone.system_id;
        else
          update systems s set alter_chars = s.alter_chars + came.n
            from (select system_id, sum(${size('new_alters')}) as n from new_alters group by system_id) came where s.id = came.system_id;
          if exists (select 1 from systems s where s.id in (select system_id from new_alters) and s.alter_chars > ${cap}) then
            raise exception 'system-too-large';
          end if;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger alters_sized_insert after insert on alters referencing new table as new_alters for each statement execute function alters_sized()`.execute(db);
    await sql`create trigger alters_sized_delete after delete on alters referencing old table as old_alters for each statement execute function alters_sized()`.execute(db);
    // Only updates of the counted columns (not the message counts proxying writes) run it.
    await sql`create function alter_resized() returns trigger language plpgsql set search_path from current as $$
      declare
        total integer;
      begin
        if old.system_id is distinct from new.system_id then
          update systems set alter_chars = alter_chars - (${size('old')}) where id = old.system_id;
          update systems set alter_chars = alter_chars + (${size('new')}) where id = new.system_id returning alter_chars into total;
          if total > ${cap} then raise exception 'system-too-large'; end if;
        elsif (${size('new')}) <> (${size('old')}) then
          update systems set alter_chars = alter_chars + (${size('new')}) - (${size('old')}) where id = new.system_id returning alter_chars into total;
          if (${size('new')}) > (${size('old')}) and total > ${cap} then raise exception 'system-too-large'; end if;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger alters_sized_update after update of ${columns}, system_id on alters for each row execute function alter_resized()`.execute(db);
  } else {
    await sql`create trigger alters_sized_insert after insert on alters begin
      update systems set alter_chars = alter_chars + (${size('new')}) where id = new.system_id;
      select raise(abort, 'system-too-large') from systems where id = new.system_id and alter_chars > ${cap}; end`.execute(db);
    await sql`create trigger alters_sized_delete after delete on alters begin
      update systems set alter_chars = alter_chars - (${size('old')}) where id = old.system_id; end`.execute(db);
    await sql`create trigger alters_sized_update after update of ${columns}, system_id on alters begin
      update systems set alter_chars = alter_chars - (${size('old')}) where id = old.system_id;
      update systems set alter_chars = alter_chars + (${size('new')}) where id = new.system_id;
      select raise(abort, 'system-too-large') from systems where id = new.system_id and alter_chars > ${cap}
        and (old.system_id is not new.system_id or (${size('new')}) > (${size('old')})); end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const name of ['alters_sized_insert', 'alters_sized_delete', 'alters_sized_update']) {
    await sql`drop trigger ${sql.id(name)}${postgres ? sql` on alters` : sql``}`.execute(db);
  }
  if (postgres) await sql`drop function alters_sized(), alter_resized()`.execute(db);
  await db.schema.alterTable('systems').dropColumn('alter_chars').execute();
}
