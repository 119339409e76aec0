// Browser sign-ins (src/auth/browser-session.ts), keyed by the hash of the cookie's random id.
import type { Kysely } from 'kysely';
import type { Schema } from '../tables.js';

type Db = Kysely<Schema>;

export async function insertBrowserSession(db: Db, session: { idHash: string; userId: string; signedInAt: number; expiresAt: number }): Promise<void> {
  await db.insertInto('browser_sessions').values({ id_hash: session.idHash, user_id: session.userId, signed_in_at: session.signedInAt, expires_at: session.expiresAt }).execute();
}

/** The live session with this id hash; undefined once it was ended or expired. */
export async function findBrowserSession(db: Db, idHash: string, now: number): Promise<{ userId: string; signedInAt: number } | undefined> {
  const row = await db.selectFrom('browser_sessions').select(['user_id', 'signed_in_at']).where('id_hash', '=', idHash).where('expires_at', '>', now).executeTakeFirst();
  return row && { userId: row.user_id, signedInAt: Number(row.signed_in_at) };
}

export async function deleteBrowserSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('browser_sessions').where('id_hash', '=', idHash).execute();
}

export async function purgeExpiredBrowserSessions(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('browser_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
