// The dashboard's sessions and sign-ins under way (src/dashboard/sessions.ts), keyed by the hash
// of the cookie's random id; `sealed` is opaque here (sealed by the caller, bound to the row's key).
import type { Kysely } from 'kysely';
import type { Schema } from '../tables.js';

type Db = Kysely<Schema>;

export interface DashboardSessionRow {
  idHash: string;
  userId: string | null;
  sealed: string;
  createdAt: number;
  expiresAt: number;
}

export async function insertDashboardSession(db: Db, row: DashboardSessionRow): Promise<void> {
  await db
    .insertInto('dashboard_sessions')
    .values({ id_hash: row.idHash, user_id: row.userId, sealed: row.sealed, created_at: row.createdAt, expires_at: row.expiresAt })
    .execute();
}

/** The live row with this id hash; undefined once it was deleted or expired. */
export async function findDashboardSession(db: Db, idHash: string, now: number): Promise<DashboardSessionRow | undefined> {
  const row = await db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).where('expires_at', '>', now).executeTakeFirst();
  return row && { idHash: row.id_hash, userId: row.user_id, sealed: row.sealed, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) };
}

/** Replaces the sealed content of a live row and ends any refresh lease; false when the row is gone (signed out meanwhile). */
export async function updateDashboardSession(db: Db, idHash: string, sealed: string): Promise<boolean> {
  const result = await db.updateTable('dashboard_sessions').set({ sealed, refresh_lease_until: null }).where('id_hash', '=', idHash).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Takes the lease to refresh the row's tokens until `until`: only when the row still holds
 * `sealed` (nobody stored new tokens since the caller read it) and no live lease is held.
 */
export async function takeDashboardRefreshLease(db: Db, idHash: string, sealed: string, now: number, until: number): Promise<boolean> {
  const result = await db
    .updateTable('dashboard_sessions')
    .set({ refresh_lease_until: until })
    .where('id_hash', '=', idHash)
    .where('sealed', '=', sealed)
    .where((eb) => eb.or([eb('refresh_lease_until', 'is', null), eb('refresh_lease_until', '<=', now)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function releaseDashboardRefreshLease(db: Db, idHash: string): Promise<void> {
  await db.updateTable('dashboard_sessions').set({ refresh_lease_until: null }).where('id_hash', '=', idHash).execute();
}

export async function deleteDashboardSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
}

export async function purgeExpiredDashboardSessions(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
