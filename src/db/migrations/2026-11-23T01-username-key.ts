// Frozen. Usernames were unique per system by `lower(username)`: only ASCII letters on SQLite (so
// `É`/`é` and `Ａ`/`ａ` were both accepted there) and the collation's rules on PostgreSQL, so a
// database moved from one to the other could fail to build the index. Now each alter stores
// `username_key` = usernameKey(username) (NFKC_Casefold, src/domain/username-key.ts), computed in
// TypeScript and so the same on both, and the unique index is (system_id, username_key).
//
// Backfill, in one transaction:
// 1. every row's key, in batches of BATCH rows in id order;
// 2. names that now collide are renamed, never refused: in each system the oldest alter of a
//    colliding group (lowest id) keeps its name and each later one, in id order, gets `-2`, `-3`…
//    appended (the first suffix whose key is free in the system; the name is shortened first when
//    it would pass the 100-character limit). The revision of each system with a renamed alter
//    moves on (the bot's cached proxy profiles show usernames). The renames are not undone by
//    `down`;
// 3. the old index is replaced and the column made NOT NULL (on SQLite, where a column cannot be
//    altered, triggers refuse a NULL key: the unique index alone would let NULLs through).
// The keys come from the live usernameKey: a change to it needs a migration of its own that
// re-keys the stored rows (and settles the collisions it creates).
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { usernameKey } from '../../domain/username-key.js';

const BATCH = 500;
const MAX_USERNAME_LENGTH = 100;

export async function up(db: Kysely<any>): Promise<void> {
  // Kysely runs PostgreSQL migrations in a transaction but not SQLite's: make this one atomic there
  // too, so a failure halfway leaves the old schema and names, and the migration can run again.
  if (db.isTransaction) await migrateUp(db);
  else await db.transaction().execute((trx) => migrateUp(trx));
}

async function migrateUp(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.alterTable('alters').addColumn('username_key', 'text').execute();
  await db.schema.dropIndex('alters_system_username').execute();

  let after: unknown = 0;
  for (;;) {
    const rows = await db.selectFrom('alters').select(['id', 'username']).where('id', '>', after).orderBy('id').limit(BATCH).execute();
    if (rows.length === 0) break;
    const values = sql.join(rows.map((row) => sql`(cast(${row.id} as bigint), ${usernameKey(row.username as string)})`));
    await sql`with keyed (id, username_key) as (values ${values})
      update alters set username_key = keyed.username_key from keyed where alters.id = keyed.id`.execute(db);
    after = rows[rows.length - 1]?.id;
  }

  await renameCollisions(db);

  await db.schema.createIndex('alters_system_username_key').unique().on('alters').columns(['system_id', 'username_key']).execute();
  if (postgres) {
    await sql`alter table alters alter column username_key set not null`.execute(db);
  } else {
    await sql`create trigger alters_username_key_insert before insert on alters when new.username_key is null
      begin select raise(abort, 'NOT NULL constraint failed: alters.username_key'); end`.execute(db);
    await sql`create trigger alters_username_key_update before update of username_key on alters when new.username_key is null
      begin select raise(abort, 'NOT NULL constraint failed: alters.username_key'); end`.execute(db);
  }
}

/** The later alters of each group sharing a key get `-2`, `-3`… (see the top of the file). */
async function renameCollisions(db: Kysely<any>): Promise<void> {
  const groups = await db
    .selectFrom('alters')
    .select(['system_id', 'username_key', (eb) => eb.fn.min('id').as('first_id')])
    .groupBy(['system_id', 'username_key'])
    .having((eb) => eb.fn.countAll(), '>', 1)
    .orderBy('system_id')
    .orderBy('first_id')
    .execute();
  const touched = new Set<unknown>();
  for (const group of groups) {
    const rows = await db
      .selectFrom('alters')
      .select(['id', 'username'])
      .where('system_id', '=', group.system_id)
      .where('username_key', '=', group.username_key)
      .orderBy('id')
      .execute();
    for (const row of rows.slice(1)) {
      for (let n = 2; ; n++) {
        const username = withSuffix(row.username as string, `-${n}`);
        const key = usernameKey(username);
        const taken = await db
          .selectFrom('alters')
          .select('id')
          .where('system_id', '=', group.system_id)
          .where('username_key', '=', key)
          .executeTakeFirst();
        if (taken) continue;
        await db.updateTable('alters').set({ username, username_key: key }).where('id', '=', row.id).execute();
        touched.add(group.system_id);
        break;
      }
    }
  }
  for (const systemId of touched) await db.updateTable('systems').set({ revision: sql`revision + 1` }).where('id', '=', systemId).execute();
}

/** `name` + `suffix`, the name cut (at a code point, not inside a surrogate pair) to stay within the limit. */
function withSuffix(name: string, suffix: string): string {
  let base = name;
  while (base.length + suffix.length > MAX_USERNAME_LENGTH && base.length > 0) {
    const last = base.codePointAt(base.length - 2) ?? 0;
    base = base.slice(0, last > 0xffff ? -2 : -1);
  }
  return base + suffix;
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    await sql`drop trigger if exists alters_username_key_insert`.execute(db);
    await sql`drop trigger if exists alters_username_key_update`.execute(db);
  }
  await db.schema.dropIndex('alters_system_username_key').execute();
  await db.schema.alterTable('alters').dropColumn('username_key').execute();
  await sql`create unique index alters_system_username on alters (system_id, lower(username))`.execute(db);
}
