// Autoproxy entries: the owner's edits (set, remove) and the engine's conditional state changes.
// Every write also bumps the system's revision, in the same transaction, so a cached proxy
// profile is never served after it changed.
import { sql, type Kysely, type Transaction } from 'kysely';
import { MAX_AUTOPROXY_ENTRIES, type AutoproxyRecord, type AutoproxyStateChange } from '../../domain/autoproxy.js';
import { Problem } from '../../domain/problems.js';
import type { Schema } from '../tables.js';
import { lockSystem, touchSystem } from './system-revision.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

interface AutoproxyRow {
  scope: string;
  account_id: string;
  mode: string;
  alter_id: number | null;
  last_latch_at: number | null;
  revision: number;
}

export function toAutoproxyRecord(row: AutoproxyRow): AutoproxyRecord {
  return { scope: row.scope, accountId: row.account_id === '' ? null : row.account_id, mode: row.mode, alterId: row.alter_id, lastLatchAt: row.last_latch_at, revision: Number(row.revision) };
}

export async function listAutoproxy(db: Executor, systemId: number, scopes?: string[]): Promise<AutoproxyRecord[]> {
  const rows = await db
    .selectFrom('autoproxy')
    .select(['scope', 'account_id', 'mode', 'alter_id', 'last_latch_at', 'revision'])
    .where('system_id', '=', systemId)
    .$if(scopes !== undefined, (q) => q.where('scope', 'in', scopes ?? []))
    .orderBy('scope')
    .orderBy('account_id')
    .execute();
  return rows.map(toAutoproxyRecord);
}

export interface AutoproxySetting {
  scope: string;
  /** null: every account of the system; else the one account (it must be one of the system's: the route checks). */
  accountId: string | null;
  mode: string;
  alterId: number | null;
  lastLatchAt: number | null;
}

async function alterBelongs(trx: Executor, systemId: number, alterId: number): Promise<boolean> {
  const row = await trx.selectFrom('alters').select('id').where('system_id', '=', systemId).where('id', '=', alterId).executeTakeFirst();
  return row !== undefined;
}

/** Creates or replaces the entry of one scope; the entry's revision moves on. */
export async function setAutoproxy(db: Db, systemId: number, setting: AutoproxySetting): Promise<AutoproxyRecord> {
  return db.transaction().execute(async (trx) => {
    await touchSystem(trx, systemId);
    if (setting.alterId !== null && !(await alterBelongs(trx, systemId, setting.alterId))) {
      throw new Problem('unknown-alter', 'autoproxyAlter: your system has no such alter', 'autoproxyAlter');
    }
    const existing = await trx
      .selectFrom('autoproxy')
      .select('revision')
      .where('system_id', '=', systemId)
      .where('scope', '=', setting.scope)
      .where('account_id', '=', setting.accountId ?? '')
      .executeTakeFirst();
    const values = { mode: setting.mode, alter_id: setting.alterId, last_latch_at: setting.lastLatchAt };
    if (existing) {
      const row = await trx
        .updateTable('autoproxy')
        .set({ ...values, revision: sql`revision + 1` })
        .where('system_id', '=', systemId)
        .where('scope', '=', setting.scope)
        .where('account_id', '=', setting.accountId ?? '')
        .returning(['scope', 'account_id', 'mode', 'alter_id', 'last_latch_at', 'revision'])
        .executeTakeFirstOrThrow();
      return toAutoproxyRecord(row);
    }
    const { count } = await trx
      .selectFrom('autoproxy')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('system_id', '=', systemId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= MAX_AUTOPROXY_ENTRIES) {
      throw new Problem('too-many-entries', `a system can have at most ${MAX_AUTOPROXY_ENTRIES} autoproxy entries; remove one first`, 'serverId');
    }
    const row = await trx
      .insertInto('autoproxy')
      .values({ system_id: systemId, scope: setting.scope, account_id: setting.accountId ?? '', ...values, revision: 1 })
      .returning(['scope', 'account_id', 'mode', 'alter_id', 'last_latch_at', 'revision'])
      .executeTakeFirstOrThrow();
    return toAutoproxyRecord(row);
  });
}

/** Removes the entry of one scope (of every account, or of one: `accountId`); false when there was none. */
export async function removeAutoproxy(db: Db, systemId: number, scope: string, accountId: string | null = null): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    // The system's row before the entry's (lockSystem), as an alter's delete takes them.
    await lockSystem(trx, systemId);
    const result = await trx.deleteFrom('autoproxy').where('system_id', '=', systemId).where('scope', '=', scope).where('account_id', '=', accountId ?? '').executeTakeFirst();
    const removed = Number(result.numDeletedRows) > 0;
    if (removed) await touchSystem(trx, systemId);
    return removed;
  });
}

/**
 * Applies one engine state change inside the caller's transaction. Conditional, so nothing the
 * owner did meanwhile is undone: the entry must still have the revision the engine saw and be in
 * the mode the change belongs to, and a latch only moves forward in time. False when it did not
 * apply (which is not an error: the owner's newer setting wins).
 */
export async function applyAutoproxyState(trx: Transaction<Schema>, systemId: number, change: AutoproxyStateChange): Promise<boolean> {
  // The system's row before the entry's and the alter it names (lockSystem).
  await lockSystem(trx, systemId);
  const entry = trx
    .updateTable('autoproxy')
    .where('system_id', '=', systemId)
    .where('scope', '=', change.serverId)
    .where('account_id', '=', change.account ?? '')
    .where('revision', '=', change.revision);
  const at = Date.parse(change.at);
  let result;
  if (change.mode === 'off') {
    result = await entry.set({ mode: 'off', alter_id: null, last_latch_at: null }).where('mode', '<>', 'off').executeTakeFirst();
  } else if (change.latch) {
    if (!(await alterBelongs(trx, systemId, change.latch.alterId))) {
      throw new Problem('unknown-alter', 'latch.alterId: your system has no such alter', 'latch.alterId');
    }
    result = await entry
      .set({ alter_id: change.latch.alterId, last_latch_at: at })
      .where('mode', '=', 'latch')
      .where((eb) => eb.or([eb('last_latch_at', 'is', null), eb('last_latch_at', '<=', at)]))
      .executeTakeFirst();
  } else {
    result = await entry
      .set({ alter_id: null, last_latch_at: null })
      .where('mode', '=', 'latch')
      .where('alter_id', 'is not', null)
      .where((eb) => eb.or([eb('last_latch_at', 'is', null), eb('last_latch_at', '<=', at)]))
      .executeTakeFirst();
  }
  const applied = Number(result.numUpdatedRows) > 0;
  if (applied) await touchSystem(trx, systemId);
  return applied;
}

/**
 * Before an alter is deleted, in the caller's transaction: an entry in `alter` mode for it turns
 * `off` (the scope keeps shadowing broader entries, so deleting an alter never makes the bot start
 * speaking as someone else there), and a latch on it is cleared. Both are owner changes: the
 * entry's revision moves on, so an engine decision taken before the delete no longer applies.
 */
export async function releaseAlter(trx: Transaction<Schema>, systemId: number, alterId: number): Promise<void> {
  await trx
    .updateTable('autoproxy')
    .set({ mode: sql`case when mode = 'alter' then 'off' else mode end`, alter_id: null, last_latch_at: null, revision: sql`revision + 1` })
    .where('system_id', '=', systemId)
    .where('alter_id', '=', alterId)
    .execute();
}
