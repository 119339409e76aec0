// Frozen. Each Discord server's settings for the bot (src/domain/guild.ts): one row per server that
// ever changed one, the settings as one JSON document (small and capped, always read and written
// whole), and a revision that every change moves inside its own transaction (the ETag and the
// bot's cache follow it). A server without a row has the defaults at revision 0.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('guild_settings')
    .addColumn('guild_id', 'text', (c) => c.primaryKey())
    .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('guild_settings').execute();
}
