// Frozen. The dashboard's sessions (src/dashboard/sessions.ts): its backend for the frontend keeps
// the member's tokens here, sealed, and the browser holds only a cookie naming the row by a random
// id (stored as its keyed hash). A row is first a sign-in under way (state, PKCE verifier, the page
// asked for; user_id null), then, once the code is exchanged, a session in a new row with a new id.
// Signing out deletes the row, so a copy of the cookie stops working. Purged once expired.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dashboard_sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text')
    .addColumn('sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dashboard_sessions_expires').on('dashboard_sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('dashboard_sessions').execute();
}
