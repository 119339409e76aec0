// Storage of oidc-provider's models (sessions, grants, codes, tokens, interactions...). Rows are
// addressed by hashes; the sealing and hashing themselves belong to the adapter.
import type { Kysely } from 'kysely';
import { noteChange } from '../changes/notes.js';
import { grantTopic, oidcRowTopic } from '../changes/topics.js';
import { recordGrantsEnded } from './events/grant-periods.js';
import type { OidcPayloadRow, Schema } from '../tables.js';

type Db = Kysely<Schema>;

export interface PayloadRecord {
  idHash: string;
  model: string;
  payload: string;
  grantId: string | null;
  uidHash: string | null;
  userCodeHash: string | null;
  accountId: string | null;
  clientId: string | null;
  expiresAt: number | null;
}

export async function upsertPayload(db: Db, record: PayloadRecord): Promise<void> {
  const row = {
    id_hash: record.idHash,
    model: record.model,
    payload: record.payload,
    grant_id: record.grantId,
    uid_hash: record.uidHash,
    user_code_hash: record.userCodeHash,
    account_id: record.accountId,
    client_id: record.clientId,
    expires_at: record.expiresAt,
  };
  await db
    .insertInto('oidc_payloads')
    .values({ ...row, consumed_at: null })
    .onConflict((oc) =>
      oc.column('id_hash').doUpdateSet({
        payload: row.payload,
        grant_id: row.grant_id,
        uid_hash: row.uid_hash,
        user_code_hash: row.user_code_hash,
        account_id: row.account_id,
        client_id: row.client_id,
        expires_at: row.expires_at,
      }),
    )
    .execute();
  // A grant or session saved again may no longer hold what a verified token relied on (the bearer
  // cache, auth/access-tokens.ts); new tokens are in no cache yet.
  if (MODELS_TOKENS_DEPEND_ON.has(record.model)) {
    await noteChange(db, [record.idHash, ...(record.uidHash ? [record.uidHash] : [])].map(oidcRowTopic));
  }
}

const MODELS_TOKENS_DEPEND_ON = new Set(['Grant', 'Session']);

type Lookup = { idHash: string } | { uidHash: string } | { userCodeHash: string };

export async function findPayload(db: Db, model: string, lookup: Lookup, now: number): Promise<OidcPayloadRow | undefined> {
  let query = db.selectFrom('oidc_payloads').selectAll().where('model', '=', model);
  if ('idHash' in lookup) query = query.where('id_hash', '=', lookup.idHash);
  else if ('uidHash' in lookup) query = query.where('uid_hash', '=', lookup.uidHash);
  else query = query.where('user_code_hash', '=', lookup.userCodeHash);
  const row = await query.executeTakeFirst();
  if (!row || (row.expires_at !== null && row.expires_at <= now)) return undefined;
  return row;
}

/**
 * Marks a payload consumed; false when it was consumed already (a concurrent redemption won).
 * Only codes and refresh tokens are consumed, and no cache holds those: no change note.
 */
export async function consumePayload(db: Db, idHash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('oidc_payloads')
    .set({ consumed_at: now })
    .where('id_hash', '=', idHash)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function destroyPayload(db: Db, idHash: string): Promise<void> {
  // A session is known to the tokens bound to it by its uid: note that key too.
  const deleted = await db.deleteFrom('oidc_payloads').where('id_hash', '=', idHash).returning('uid_hash').executeTakeFirst();
  await noteChange(db, [idHash, ...(deleted?.uid_hash ? [deleted.uid_hash] : [])].map(oidcRowTopic));
}

/**
 * Deletes the payloads of a grant: those of one model, or with no model every payload (codes,
 * tokens and the grant itself) so that one revocation leaves no stragglers.
 */
export async function revokeGrantPayloads(db: Db, grantId: string, model?: string): Promise<void> {
  let query = db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId);
  if (model !== undefined) query = query.where('model', '=', model);
  await query.execute();
  // The grant's app sees no event from now on (grant-periods.ts).
  if (model === undefined || model === 'Grant') await recordGrantsEnded(db, { grantIds: [grantId] }, Date.now());
  await noteChange(db, [grantTopic(grantId)]);
}

export async function listAccountPayloads(db: Db, accountId: string, model: string, now: number): Promise<OidcPayloadRow[]> {
  return db
    .selectFrom('oidc_payloads')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('model', '=', model)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

// Rows past their expiry need no change note: no cache answers for anything past its end.
export async function purgeExpiredPayloads(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('oidc_payloads').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Whether a row still exists and has not expired: revocation deletes rows, so this is "not revoked". */
export async function payloadIsLive(db: Db, idHash: string, now: number): Promise<boolean> {
  const row = await db.selectFrom('oidc_payloads').select('expires_at').where('id_hash', '=', idHash).executeTakeFirst();
  return row !== undefined && (row.expires_at === null || row.expires_at > now);
}
