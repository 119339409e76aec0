// Frozen. Several Discord accounts for one system (issue 29): the one-time codes an owner makes for
// another account to join (stored as a keyed hash of the code, never the code: a code is short
// enough to type, so a copy of the table must not give it away), and which account acted on each
// event (tokens stay per account, so the client alone no longer says who). The accounts themselves
// are the existing system_sub_accounts rows.
/* eslint-disable @typescript-eslint/no-explicit-any */
import { PostgresAdapter, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('system_account_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('system_id', postgres ? 'bigint' : 'integer', (c) => c.notNull().references('systems.id').onDelete('cascade'))
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('system_account_codes_expires').on('system_account_codes').column('expires_at').execute();
  await db.schema.createIndex('system_account_codes_system').on('system_account_codes').column('system_id').execute();
  await db.schema.alterTable('events').addColumn('actor_account_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('actor_account_id').execute();
  await db.schema.dropTable('system_account_codes').execute();
}
