// A system's revision: the version of everything its proxy profile shows (the ETag of
// GET …/proxy-profile). Its own module so that every repository whose writes move it can import it
// without importing the systems repository (which reads autoproxy entries).
import { sql, type Transaction } from 'kysely';
import { noteChange } from '../changes/notes.js';
import { revisionTopic } from '../changes/topics.js';
import { prepareQuery } from '../prepared.js';
import type { Schema } from '../tables.js';

const bumpRevision = prepareQuery((db, p: { systemId: number }) => db.updateTable('systems').set({ revision: sql`revision + 1` }).where('id', '=', p.systemId));

/**
 * Marks the system's proxy profile as changed (its revision moves on) and takes the system's row
 * lock for the rest of the transaction (PostgreSQL; SQLite has a single writer anyway). Every
 * write that changes what the proxy profile shows calls this in its transaction, or moves the
 * revision with its event's number (appendEvent's and numberEvent's `touchSystem`), which takes the
 * same lock: a create checks the alter cap under it.
 */
export async function touchSystem(trx: Transaction<Schema>, systemId: number): Promise<void> {
  await bumpRevision(trx, { systemId });
  // The cached revision (and with it the profile's ETag) must move too; the cached record stays.
  await noteChange(trx, [revisionTopic(systemId)]);
}

/**
 * Takes the system's row lock for the rest of the transaction without changing the row
 * (PostgreSQL; SQLite has one writer). The one lock order of every write to a system's alters,
 * tags and memberships: this row first, then theirs. A write that locked an alter or a tag (or
 * referenced one from `alter_tags`, which locks it too) before the system deadlocked with one that
 * did the reverse, and answered 500. No change note: the row's content stays as it was.
 */
export async function lockSystem(trx: Transaction<Schema>, systemId: number): Promise<void> {
  await trx.updateTable('systems').set({ revision: sql`revision` }).where('id', '=', systemId).execute();
}
