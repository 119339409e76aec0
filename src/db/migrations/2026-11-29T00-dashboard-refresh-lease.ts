// Frozen. A dashboard session's refresh, serialized across service processes: a refresh token is
// used once (a second use counts as theft and revokes the grant), so the process that refreshes a
// session first takes a short lease on its row (src/dashboard/sessions.ts); the others wait for the
// tokens it stores.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dashboard_sessions').addColumn('refresh_lease_until', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dashboard_sessions').dropColumn('refresh_lease_until').execute();
}
