// Deleting a system (POST /v1/users/{user}/system/delete): everything the system owns goes in one
// transaction, every grant of its accounts is revoked in it, and one last event says so.
//
// What stays, and why:
// - The systems row, emptied, as a tombstone owned by a placeholder user (`deleted-system:<id>`):
//   the outbox, its deliveries and their rule (grant-periods.ts) hang on it, and the final
//   `system.deleted` event must outlive the data to reach the apps that held it. The owner's
//   Discord id is free again, so signing in later makes a new, empty system with a new id.
// - Proxied-message records: moderators still need "who sent this". Each keeps the Discord ids
//   (sender, server, channel, both messages), its time and the name it was sent under (which the
//   whole channel saw); its system is the tombstone and its alter id names nothing, so message info
//   answers `systemDeleted: true` and no profile. MESSAGE_RETENTION_DAYS purges them as any other.
// - The audit log's entry: who deleted which system id when, through which app; nothing of what
//   was in it.
import { sql, type Kysely, type Transaction } from 'kysely';
import { noteChange } from '../changes/notes.js';
import { oidcRowTopic, profileValuesTopic, systemTopic, userSystemTopic } from '../changes/topics.js';
import type { Schema } from '../tables.js';
import { insertAuditEntry } from './audit-log.js';
import { appendEvent } from './events/outbox.js';
import { WAITING } from './events/queue.js';
import { revokeGrantPayloads } from './oidc-payloads.js';
import { lockSystem } from './system-revision.js';

const PLACEHOLDER_PREFIX = 'deleted-system:';

/** The users row that owns a deleted system's tombstone (never a Discord id: those are digits). */
export const deletedSystemOwner = (systemId: number) => `${PLACEHOLDER_PREFIX}${systemId}`;

/** Whether a system's owner is a tombstone's placeholder: the system was deleted. */
export const isDeletedSystemOwner = (userId: string) => userId.startsWith(PLACEHOLDER_PREFIX);

export interface SystemDeletion {
  systemId: number;
  /** The owning account (only it may delete the system). */
  ownerId: string;
  actorClientId: string | null;
  /** The account whose token asked (the owner, or one discarding its own system to join another). */
  actorAccountId: string | null;
  ip: string | null;
  now: number;
}

/** Deletes the system and everything it owns; false when it was gone already (a concurrent delete won). */
export async function deleteSystem(db: Kysely<Schema>, deletion: SystemDeletion): Promise<boolean> {
  const { systemId, ownerId } = deletion;
  return db.transaction().execute(async (trx) => {
    // The system's row first, as every write of its rows (lockSystem): a concurrent write waits.
    await lockSystem(trx, systemId);
    const row = await trx.selectFrom('systems').select('user_id').where('id', '=', systemId).executeTakeFirst();
    if (!row || row.user_id !== ownerId) return false;
    const subAccounts = (await trx.selectFrom('system_sub_accounts').select('user_id').where('system_id', '=', systemId).execute()).map((r) => r.user_id);
    await deleteSystemIn(trx, deletion, { revoke: [ownerId, ...subAccounts] });
    return true;
  });
}

/**
 * The deletion itself, in the caller's transaction, which holds the system's row lock and has
 * checked that `ownerId` owns it. `revoke` lists the accounts whose grants and sign-ins end with it:
 * every account of the system when its owner deletes it, none when an account discards its own
 * system to join another (its tokens go on, for the system it joins: accounts.ts). Such accounts
 * are `goingOn`: the grants they hold now count, for this system's final event, as ending with it.
 */
export async function deleteSystemIn(trx: Transaction<Schema>, deletion: SystemDeletion, options: { revoke: string[]; goingOn?: string[] }): Promise<void> {
  const { systemId, ownerId, now } = deletion;
  const accounts = options.revoke;

  // The final event, numbered and queued while the grants are still live (appendEvent queues it
  // to the endpoints of the apps the accounts authorized).
  const finalEventId = await appendEvent(trx, systemId, { clientId: deletion.actorClientId, accountId: deletion.actorAccountId }, { type: 'system.deleted', userId: ownerId }, now);

  // Everything the system owns. Foreign keys take the rest: memberships, integration fields,
  // switch members and import links go with their alters, tags and switches.
  await trx.deleteFrom('autoproxy').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('switches').where('system_id', '=', systemId).execute();
  // The front statistics' summary of those switches (front-days.ts), and the mark their deletion left.
  await trx.deleteFrom('front_days').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('front_day_entries').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('front_days_stale').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('alters').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('tags').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('profile_field_values').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('profile_fields').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('import_alter_links').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('import_tag_links').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('applied_imports').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('system_sub_accounts').where('system_id', '=', systemId).execute();
  await trx.deleteFrom('system_account_codes').where('system_id', '=', systemId).execute();
  // Its hosted images: no one may be served a picture of a system that asked to be forgotten.
  await trx.deleteFrom('images').where('system_id', '=', systemId).execute();
  // Earlier events hold snapshots of what was deleted (names, descriptions…): they go too, with
  // their deliveries and log. Values no event refers to any more are purged apart (payloads.ts).
  const earlierDeliveries = trx.selectFrom('event_deliveries').select('id').where('system_id', '=', systemId).where('event_id', '<>', finalEventId);
  await trx.deleteFrom('event_attempts').where('delivery_id', 'in', earlierDeliveries).execute();
  await trx.deleteFrom('event_deliveries').where('system_id', '=', systemId).where('event_id', '<>', finalEventId).execute();
  await trx.deleteFrom('events').where('system_id', '=', systemId).where('id', '<>', finalEventId).execute();
  // The final event's deliveries waited behind those (queue.ts, WAITING): nothing is ahead now.
  await trx.updateTable('event_deliveries').set({ next_attempt_at: now }).where('event_id', '=', finalEventId).where('next_attempt_at', '=', WAITING).execute();

  // Every grant of every account of the system, with its codes and tokens (the revocation of
  // /account/apps, oidc-payloads.ts: it ends their event periods and notes each grant's topic,
  // so no cached token answers again, in this process or another).
  if (accounts.length > 0) await revokeAccess(trx, accounts);

  // The tombstone: emptied, owned by a placeholder, so the owner's id is free for a new system.
  const placeholder = deletedSystemOwner(systemId);
  await trx.insertInto('users').values({ id: placeholder, username: null, created_at: now, last_sign_in_at: null }).execute();
  await trx
    .updateTable('systems')
    .set({
      user_id: placeholder,
      name: '',
      display_tag: null,
      display_tag_map: '{}',
      description: null,
      avatar: null,
      banner: null,
      pronouns: null,
      public: 0,
      disabled: 1,
      disabled_guilds: '[]',
      revision: sql`revision + 1`,
    })
    .where('id', '=', systemId)
    .execute();
  // The accounts' grant periods (all ended now) describe access to this system's events: they
  // follow it to the placeholder, so the final event reaches the apps authorized until now and
  // nothing the same people authorize later is judged by them.
  if (accounts.length > 0) await trx.updateTable('event_grant_periods').set({ account_id: placeholder }).where('account_id', 'in', accounts).execute();
  // The grants that go on (an account joining another system) stay the account's, for the system
  // it joins; the placeholder gets a copy of each period live now, ended now, so the final event
  // reaches the apps those grants let see this system, as it does when a system is deleted.
  const goingOn = options.goingOn ?? [];
  if (goingOn.length > 0) {
    const live = await trx
      .selectFrom('event_grant_periods')
      .select(['grant_id', 'client_id', 'scopes', 'started_at', 'expires_at', 'session_expires_at'])
      .where('account_id', 'in', goingOn)
      .where('started_at', '<=', now)
      .where((eb) => eb.or([eb('ended_at', 'is', null), eb('ended_at', '>', now)]))
      .execute();
    if (live.length > 0) await trx.insertInto('event_grant_periods').values(live.map((period) => ({ ...period, account_id: placeholder, ended_at: now }))).execute();
  }

  await insertAuditEntry(trx, { kind: 'system-deleted', userId: ownerId, clientId: deletion.actorClientId ?? undefined, ip: deletion.ip ?? undefined, details: { systemId } }, now);
  await noteChange(trx, [systemTopic(systemId), profileValuesTopic(systemId), ...[ownerId, ...accounts].map(userSystemTopic)]);
}

/**
 * Ends every grant of these accounts, with its codes and tokens, and their sign-ins (a system's
 * deletion; an account removed from a system, accounts.ts).
 */
export async function revokeAccess(trx: Transaction<Schema>, accounts: string[]): Promise<void> {
  // Every grant of every account of the system, with its codes and tokens (the revocation of
  // /account/apps, oidc-payloads.ts: it ends their event periods and notes each grant's topic,
  // so no cached token answers again, in this process or another).
  const grants = await trx.selectFrom('oidc_payloads').select('grant_id').distinct().where('account_id', 'in', accounts).where('grant_id', 'is not', null).execute();
  for (const { grant_id } of grants) if (grant_id !== null) await revokeGrantPayloads(trx, grant_id);
  // And their sign-ins: a browser still signed in would approve apps for an account with no
  // system; the next sign-in makes the new one.
  const sessions = await trx.deleteFrom('oidc_payloads').where('model', '=', 'Session').where('account_id', 'in', accounts).returning(['id_hash', 'uid_hash']).execute();
  if (sessions.length > 0) await noteChange(trx, sessions.flatMap((s) => [s.id_hash, ...(s.uid_hash ? [s.uid_hash] : [])]).map(oidcRowTopic));
  await trx.deleteFrom('browser_sessions').where('user_id', 'in', accounts).execute();
}

