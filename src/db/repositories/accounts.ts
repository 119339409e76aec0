// The accounts of a system (domain/accounts.ts): one-time codes, joining with one, and removing an
// account. A system's other accounts are its system_sub_accounts rows; the owning account is its
// systems.user_id. Each write notes `user:<account>` (which system the account resolves to) and
// `system:<id>`, so every process's `{user}` cache (system-lookup.ts) and the bot's (through the
// system's revision, which moves) follow at once.
import { sql, type Kysely, type Transaction } from 'kysely';
import { decideJoin, JOIN_REFUSALS, type SystemContents } from '../../domain/accounts.js';
import { OWNER_SYSTEM_LOAD } from '../../domain/privacy.js';
import { Problem } from '../../domain/problems.js';
import { noteChange } from '../changes/notes.js';
import { systemTopic, userSystemTopic } from '../changes/topics.js';
import { newSystemColumns } from '../system-columns.js';
import type { Schema } from '../tables.js';
import { insertAuditEntry } from './audit-log.js';
import { appendEvent } from './events/outbox.js';
import { deleteSystemIn, isDeletedSystemOwner, revokeAccess } from './system-deletion.js';
import { findSystemById, loadSystemDetails } from './systems.js';
import { lockSystem } from './system-revision.js';

type Db = Kysely<Schema>;

/** Who acted, for the event and the audit log. */
export interface AccountActor {
  accountId: string;
  clientId: string | null;
  ip: string | null;
}

/** Stores a new code (by its keyed hash) for the system; codes of the system past their time go. */
export async function insertAccountCode(
  db: Db,
  code: { codeHash: string; systemId: number; createdBy: string; now: number; expiresAt: number },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('system_account_codes').where('system_id', '=', code.systemId).where('expires_at', '<=', code.now).execute();
    await trx
      .insertInto('system_account_codes')
      .values({ code_hash: code.codeHash, system_id: code.systemId, created_by: code.createdBy, created_at: code.now, expires_at: code.expiresAt })
      .execute();
  });
}

/** Codes past their time, wherever they are (the periodic purge). */
export async function purgeExpiredAccountCodes(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('system_account_codes').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

async function contentsOf(trx: Transaction<Schema>, systemId: number): Promise<SystemContents> {
  const count = (table: 'alters' | 'tags' | 'switches' | 'system_sub_accounts') =>
    trx
      .selectFrom(table)
      .select(sql<number>`count(*)`.as('n'))
      .where('system_id', '=', systemId)
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.n));
  return { alters: await count('alters'), tags: await count('tags'), switches: await count('switches'), subAccounts: await count('system_sub_accounts') };
}

/** The system's event for a change of its accounts (the owner's view, as every system.updated). */
async function accountsChanged(trx: Transaction<Schema>, systemId: number, actor: AccountActor, now: number): Promise<void> {
  const system = await findSystemById(trx, systemId);
  if (!system) throw new Error(`no system ${systemId}`);
  const details = await loadSystemDetails(trx, systemId, OWNER_SYSTEM_LOAD);
  await appendEvent(trx, systemId, actor, { type: 'system.updated', system, details }, now, { touchSystem: true });
}

/**
 * Redeems a code for `actor.accountId`: single use (the row goes in the transaction that adds the
 * account), refused when unknown or past its time. The account's own system is deleted in the same
 * transaction when it is empty, or when it is not and `discardOwnSystem` says so; anything the
 * domain refuses is a Problem, which rolls the transaction back (the code stays usable). Returns
 * the system joined and its owning account.
 */
export async function redeemAccountCode(
  db: Db,
  redeem: { codeHash: string; discardOwnSystem: boolean; actor: AccountActor; now: number },
): Promise<{ systemId: number; ownerId: string }> {
  const { actor, now } = redeem;
  return db.transaction().execute(async (trx) => {
    const code = await trx
      .deleteFrom('system_account_codes')
      .where('code_hash', '=', redeem.codeHash)
      .returning(['system_id', 'expires_at'])
      .executeTakeFirst();
    if (!code || Number(code.expires_at) <= now) {
      throw new Problem('invalid-account-code', 'this code is unknown, used or past its 10 minutes; ask the system’s owner for a new one', 'code');
    }
    const target = Number(code.system_id);
    // Both systems' rows in id order: two accounts joining each other's systems cannot deadlock.
    const own = await trx.selectFrom('systems').select('id').where('user_id', '=', actor.accountId).executeTakeFirst();
    const ownId = own ? Number(own.id) : null;
    for (const id of [target, ...(ownId === null ? [] : [ownId])].sort((a, b) => a - b)) await lockSystem(trx, id);
    const targetRow = await trx.selectFrom('systems').select('user_id').where('id', '=', target).executeTakeFirst();
    if (!targetRow || isDeletedSystemOwner(targetRow.user_id)) throw new Problem('invalid-account-code', 'the system this code was made for no longer exists', 'code');
    const member = await trx.selectFrom('system_sub_accounts').select('system_id').where('user_id', '=', actor.accountId).executeTakeFirst();
    const decision = decideJoin(
      { own: ownId === null ? null : await contentsOf(trx, ownId), ownId, memberOf: member ? Number(member.system_id) : null },
      target,
      redeem.discardOwnSystem,
    );
    if (!decision.join) throw new Problem('account-has-system', JOIN_REFUSALS[decision.reason]);
    if (ownId !== null && decision.discard !== 'none') {
      // The account's grants go on (they are its own, and now reach the system it joins); the apps
      // it authorized are still told that its own system is gone.
      const deletion = { systemId: ownId, ownerId: actor.accountId, actorClientId: actor.clientId, actorAccountId: actor.accountId, ip: actor.ip, now };
      await deleteSystemIn(trx, deletion, { revoke: [], goingOn: [actor.accountId] });
    }
    await trx.insertInto('system_sub_accounts').values({ user_id: actor.accountId, system_id: target }).execute();
    await accountsChanged(trx, target, actor, now);
    await insertAuditEntry(
      trx,
      { kind: 'account-added', userId: actor.accountId, clientId: actor.clientId ?? undefined, ip: actor.ip ?? undefined, details: { systemId: target, ownSystemDeleted: ownId !== null && decision.discard !== 'none' } },
      now,
    );
    await noteChange(trx, [userSystemTopic(actor.accountId), systemTopic(target)]);
    return { systemId: target, ownerId: targetRow.user_id };
  });
}

/**
 * Removes `accountId` from the system (the route has checked who may: domain mayRemoveAccount).
 * The account's grants and sign-ins end, and it gets a new, empty system of its own at once, so
 * `{user}` as its id never resolves to the system it left.
 */
export async function removeAccount(db: Db, removal: { systemId: number; accountId: string; actor: AccountActor; now: number }): Promise<void> {
  const { systemId, accountId, actor, now } = removal;
  await db.transaction().execute(async (trx) => {
    await lockSystem(trx, systemId);
    const removed = await trx.deleteFrom('system_sub_accounts').where('system_id', '=', systemId).where('user_id', '=', accountId).executeTakeFirst();
    if (removed.numDeletedRows === 0n) throw new Problem('unknown-account', 'this account is not an account of this system');
    await revokeAccess(trx, [accountId]);
    // Its own autoproxy entries were for it as an account of this system.
    await trx.deleteFrom('autoproxy').where('system_id', '=', systemId).where('account_id', '=', accountId).execute();
    await trx.insertInto('systems').values(newSystemColumns(accountId, now)).execute();
    await accountsChanged(trx, systemId, actor, now);
    await insertAuditEntry(trx, { kind: 'account-removed', userId: actor.accountId, clientId: actor.clientId ?? undefined, ip: actor.ip ?? undefined, details: { systemId, account: accountId } }, now);
    await noteChange(trx, [userSystemTopic(accountId), systemTopic(systemId)]);
  });
}

/** Whether `accountId` is an account of the system: its owner or another that joined it. */
export async function isAccountOf(db: Db, system: { id: number; userId: string }, accountId: string): Promise<boolean> {
  if (accountId === system.userId) return true;
  const row = await db.selectFrom('system_sub_accounts').select('user_id').where('system_id', '=', system.id).where('user_id', '=', accountId).executeTakeFirst();
  return row !== undefined;
}

/** The system's other accounts (not the owning one), in id order. */
export async function listAccounts(db: Db, systemId: number): Promise<string[]> {
  const rows = await db.selectFrom('system_sub_accounts').select('user_id').where('system_id', '=', systemId).orderBy('user_id').execute();
  return rows.map((row) => row.user_id);
}
