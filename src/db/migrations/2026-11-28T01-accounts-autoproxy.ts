// Frozen. An autoproxy entry may belong to one account of a system (issue 29): `account_id` is ''
// for an entry of every account (all entries so far) or the Discord id of the one account it is
// for, which then wins over the system's entry of the same scope for that account. The key gains the
// column, which SQLite cannot add to a primary key: the table is rebuilt, on both databases alike.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, sql, type Kysely } from 'kysely';

async function rebuild(db: Kysely<any>, withAccount: boolean): Promise<void> {
  const idType = db.getExecutor().adapter instanceof PostgresAdapter ? 'bigint' : 'integer';
  const table = db.schema
    .createTable('autoproxy_next')
    .addColumn('system_id', idType, (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('alter_id', idType, (c) => c.references('alters.id').onDelete('set null'))
    .addColumn('last_latch_at', 'bigint')
    .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0));
  await (withAccount
    ? table.addPrimaryKeyConstraint('autoproxy_account_pk', ['system_id', 'scope', 'account_id'])
    : table.addPrimaryKeyConstraint('autoproxy_pk', ['system_id', 'scope'])
  ).execute();
  if (!withAccount) {
    await db.schema.alterTable('autoproxy_next').dropColumn('account_id').execute();
  }
  // Going back keeps the entries of every account only.
  await sql`insert into autoproxy_next (system_id, scope, mode, alter_id, last_latch_at, revision)
    select system_id, scope, mode, alter_id, last_latch_at, revision from autoproxy ${withAccount ? sql`` : sql`where account_id = ''`}`.execute(db);
  await db.schema.dropTable('autoproxy').execute();
  await db.schema.alterTable('autoproxy_next').renameTo('autoproxy').execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  await rebuild(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await rebuild(db, false);
}
