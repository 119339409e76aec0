// Registered OAuth clients. Secrets are stored only as hashes; see src/auth/clients.ts.
import type { Kysely } from 'kysely';
import { noteChange } from '../changes/notes.js';
import { clientTopic } from '../changes/topics.js';
import { recordGrantsEnded } from './events/grant-periods.js';
import type { OauthClientRow, Schema } from '../tables.js';

type Db = Kysely<Schema>;

export interface OauthClientRecord {
  id: string;
  name: string;
  secretHash: string | null;
  redirectUris: string[];
  grantTypes: string[];
  scopes: string[];
  firstParty: boolean;
  createdAt: number;
}

function toRecord(row: OauthClientRow): OauthClientRecord {
  return {
    id: row.id,
    name: row.name,
    secretHash: row.secret_hash,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    grantTypes: JSON.parse(row.grant_types) as string[],
    scopes: row.scopes.split(' ').filter(Boolean),
    firstParty: row.first_party === 1,
    createdAt: row.created_at,
  };
}

export async function insertClient(db: Db, client: OauthClientRecord): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values({
      id: client.id,
      name: client.name,
      secret_hash: client.secretHash,
      redirect_uris: JSON.stringify(client.redirectUris),
      grant_types: JSON.stringify(client.grantTypes),
      scopes: client.scopes.join(' '),
      first_party: client.firstParty ? 1 : 0,
      created_at: client.createdAt,
      secret_rotated_at: null,
    })
    .execute();
}

export async function findClient(db: Db, id: string): Promise<OauthClientRecord | undefined> {
  // Client ids arrive from requests; a value PostgreSQL text cannot hold (NUL, a lone surrogate)
  // names no client.
  if (id.includes('\u0000') || !id.isWellFormed()) return undefined;
  const row = await db.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRecord(row);
}

export async function listClients(db: Db): Promise<OauthClientRecord[]> {
  const rows = await db.selectFrom('oauth_clients').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toRecord);
}

/** Deletes the client and, in the same transaction, every grant, code and token issued to it. */
export async function deleteClient(db: Db, id: string): Promise<boolean> {
  const run = async (trx: Db) => {
    const result = await trx.deleteFrom('oauth_clients').where('id', '=', id).executeTakeFirst();
    if (result.numDeletedRows === 0n) return false;
    await trx.deleteFrom('oidc_payloads').where('client_id', '=', id).execute();
    await recordGrantsEnded(trx, { clientId: id }, Date.now());
    await noteChange(trx, [clientTopic(id)]);
    return true;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

export async function replaceClientSecret(db: Db, id: string, secretHash: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('oauth_clients')
    .set({ secret_hash: secretHash, secret_rotated_at: now })
    .where('id', '=', id)
    .where('secret_hash', 'is not', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Replaces what a client may do (its grant types and scopes). */
export async function updateClientPermissions(db: Db, id: string, grantTypes: string[], scopes: string[]): Promise<boolean> {
  const result = await db
    .updateTable('oauth_clients')
    .set({ grant_types: JSON.stringify(grantTypes), scopes: scopes.join(' ') })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Replaces a client's redirect URIs (a first-party client that follows PUBLIC_URL). */
export async function updateClientRedirectUris(db: Db, id: string, redirectUris: string[]): Promise<boolean> {
  const result = await db.updateTable('oauth_clients').set({ redirect_uris: JSON.stringify(redirectUris) }).where('id', '=', id).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
