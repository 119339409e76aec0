// How long the reports of applied imports are kept: they exist only to answer a repeated
// Idempotency-Key, so they go after the usual day (the bot's Confirm comes within 15 minutes of
// its preview). Its own module: the periodic purge (src/http/server.ts) runs at start-up, and
// should not load the import code for it.
import type { Kysely } from 'kysely';
import type { Schema } from '../tables.js';

/** How long an applied import's report answers a repeated Idempotency-Key. */
export const IMPORT_REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Deletes the reports of imports applied at or before `before` (the replay window's start). */
export async function purgeAppliedImports(db: Kysely<Schema>, before: number): Promise<number> {
  const result = await db.deleteFrom('applied_imports').where('created_at', '<=', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
