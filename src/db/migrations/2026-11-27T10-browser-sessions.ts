// Frozen. Browser sign-ins held on the server (src/auth/browser-session.ts): the sign-in cookie
// names a row by a random id (stored as its keyed hash), and signing out deletes the row, so a copy
// of the cookie taken before is worth nothing afterwards. Purged once expired.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('browser_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('signed_in_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('browser_sessions_expires').on('browser_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('browser_sessions').execute();
}
