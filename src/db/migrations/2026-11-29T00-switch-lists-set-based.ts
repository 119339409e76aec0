// Frozen. PostgreSQL's switch-list triggers (2026-11-27T20l) sum each changed switch's list in one
// grouped statement and rewrite only the switches whose list differs. Before, every switch named by
// a member write was rewritten, even when its list was already right: a second version of each new
// switch row (all four of its indexes, the list being in one of them), a second check of its
// system's foreign key, the front-days marking again, and a plan estimated so far off (one
// correlated subquery per switch) that the JIT compiler ran on each batch. An import writes its
// switches with their lists already made (db/repositories/imports.ts), so its members' triggers
// now read and write nothing more than the lists. SQLite's row-level triggers are unchanged.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

/** The list of each switch named in the transition table `changed` ('' for one left with no members), set where it differs. */
const setBasedUpdate = (changed: string) =>
  sql.raw(`update switches s set alter_list = l.list
    from (select c.switch_id, coalesce(string_agg(cast(m.alter_id as text), ',' order by m.position), '') as list
          from (select distinct switch_id from ${changed}) c left join switch_members m on m.switch_id = c.switch_id
          group by c.switch_id) l
    where s.id = l.switch_id and s.alter_list <> l.list`);

/** 2026-11-27T20l's statement, for going back. */
const perSwitchUpdate = (changed: string) =>
  sql.raw(`update switches s set alter_list = coalesce((select string_agg(cast(m.alter_id as text), ',' order by m.position) from switch_members m where m.switch_id = s.id), '')
    where s.id in (select switch_id from ${changed})`);

async function replaceFunctions(db: Kysely<any>, update: (changed: string) => ReturnType<typeof sql.raw>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [name, table] of [
    ['switch_lists_inserted', 'new_members'],
    ['switch_lists_deleted', 'old_members'],
  ] as const) {
    await sql`create or replace function ${sql.id(name)}() returns trigger language plpgsql set search_path from current as $$
      begin
        ${update(table)};
        return null;
      end $$`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await replaceFunctions(db, setBasedUpdate);
}

export async function down(db: Kysely<any>): Promise<void> {
  await replaceFunctions(db, perSwitchUpdate);
}
