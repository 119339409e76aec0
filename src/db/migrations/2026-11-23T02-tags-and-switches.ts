// Frozen. What tags and co-fronting need:
// - tags get the fields of a PluralKit group (display name, description, colour, icon), a privacy
//   bitmask (`public`, 0 = all private) and `name_key` = usernameKey(name), unique per system, so
//   tag names collide the way usernames do (case, width and compatibility forms ignored).
// - the front becomes a list of switches: `switches` (who made it and when) and `switch_members`
//   (the alters fronting from then on, in order: position 0 is the primary fronter; no rows = a
//   switch-out). Each old front record becomes a switch of one alter. A deleted alter leaves the
//   switches it was part of (its rows cascade), as in PluralKit.
//
// In one transaction on both dialects (Kysely runs only PostgreSQL's migrations in one).
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { usernameKey } from '../../domain/username-key.js';

const BATCH = 500;

export async function up(db: Kysely<any>): Promise<void> {
  if (db.isTransaction) await migrateUp(db);
  else await db.transaction().execute((trx) => migrateUp(trx));
}

async function migrateUp(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const idType = postgres ? 'bigint' : 'integer';
  const id = postgres
    ? (c: any) => c.primaryKey().generatedByDefaultAsIdentity()
    : (c: any) => c.primaryKey().autoIncrement();

  await db.schema.alterTable('tags').addColumn('name_key', 'text').execute();
  await db.schema.alterTable('tags').addColumn('display_name', 'text').execute();
  await db.schema.alterTable('tags').addColumn('description', 'text').execute();
  await db.schema.alterTable('tags').addColumn('color', 'text').execute();
  await db.schema.alterTable('tags').addColumn('icon', 'text').execute();
  await db.schema.alterTable('tags').addColumn('public', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  // No endpoint created tags before this migration, but a database may hold some (seeded or
  // written by hand): key them, renaming later duplicates within a system as `name-2`, `name-3`…
  const seen = new Set<string>();
  let after: unknown = 0;
  for (;;) {
    const rows = await db.selectFrom('tags').select(['id', 'system_id', 'name']).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      let name = row.name as string;
      let key = usernameKey(name);
      for (let n = 2; seen.has(`${row.system_id}:${key}`); n++) {
        name = `${(row.name as string).slice(0, 90)}-${n}`;
        key = usernameKey(name);
      }
      seen.add(`${row.system_id}:${key}`);
      await db.updateTable('tags').set({ name, name_key: key }).where('id', '=', row.id).execute();
    }
    after = rows[rows.length - 1]?.id;
  }
  await db.schema.createIndex('tags_system_name_key').unique().on('tags').columns(['system_id', 'name_key']).execute();
  if (postgres) {
    await sql`alter table tags alter column name_key set not null`.execute(db);
  } else {
    await sql`create trigger tags_name_key_insert before insert on tags when new.name_key is null
      begin select raise(abort, 'NOT NULL constraint failed: tags.name_key'); end`.execute(db);
    await sql`create trigger tags_name_key_update before update of name_key on tags when new.name_key is null
      begin select raise(abort, 'NOT NULL constraint failed: tags.name_key'); end`.execute(db);
  }

  await db.schema
    .createTable('switches')
    .addColumn('id', idType, id)
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('switched_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('switches_history').on('switches').columns(['system_id', 'switched_at desc', 'id desc']).execute();
  await db.schema.createIndex('switches_by_client').on('switches').columns(['system_id', 'client_id', 'switched_at desc']).execute();

  await db.schema
    .createTable('switch_members')
    .addColumn('switch_id', idType, (c) => c.notNull().references('switches.id').onDelete('cascade'))
    .addColumn('alter_id', idType, (c) => c.notNull().references('alters.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('switch_members_pk', ['switch_id', 'position'])
    .execute();
  await db.schema.createIndex('switch_members_alter').on('switch_members').column('alter_id').execute();

  // Each front record becomes a switch of one alter, keeping its id (so order by id is kept).
  await sql`insert into switches (id, system_id, client_id, switched_at)
    select id, system_id, client_id, pushed_at from front_records`.execute(db);
  await sql`insert into switch_members (switch_id, alter_id, position)
    select id, alter_id, 0 from front_records`.execute(db);
  if (postgres) {
    await sql`select setval(pg_get_serial_sequence('switches', 'id'), coalesce((select max(id) from switches), 0) + 1, false)`.execute(db);
  }
  await db.schema.dropTable('front_records').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const idType = postgres ? 'bigint' : 'integer';
  await db.schema
    .createTable('front_records')
    .addColumn('id', idType, postgres ? (c: any) => c.primaryKey().generatedByDefaultAsIdentity() : (c: any) => c.primaryKey().autoIncrement())
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('alter_id', idType, (c) => c.notNull().references('alters.id').onDelete('cascade'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('pushed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('front_records_history').on('front_records').columns(['system_id', 'pushed_at desc', 'id desc']).execute();
  await db.schema.createIndex('front_records_by_client').on('front_records').columns(['system_id', 'client_id', 'pushed_at desc']).execute();
  await db.schema.createIndex('front_records_alter').on('front_records').column('alter_id').execute();
  // Only the primary fronter of each switch survives the way back; switch-outs are lost.
  await sql`insert into front_records (system_id, alter_id, client_id, pushed_at)
    select s.system_id, m.alter_id, s.client_id, s.switched_at from switches s
    join switch_members m on m.switch_id = s.id and m.position = 0 order by s.id`.execute(db);
  await db.schema.dropTable('switch_members').execute();
  await db.schema.dropTable('switches').execute();
  if (!postgres) {
    await sql`drop trigger if exists tags_name_key_insert`.execute(db);
    await sql`drop trigger if exists tags_name_key_update`.execute(db);
  }
  await db.schema.dropIndex('tags_system_name_key').execute();
  for (const column of ['public', 'icon', 'color', 'description', 'display_name', 'name_key']) {
    await db.schema.alterTable('tags').dropColumn(column).execute();
  }
}
