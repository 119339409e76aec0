// The apps a user has authorized (their grants), and revoking one: every grant of that user for
// that client goes, with every code and token issued under it, in one transaction.
import type { Kysely } from 'kysely';
import { findClient } from '../db/repositories/oauth-clients.js';
import { SCOPES } from '../domain/scopes.js';
import { listAccountPayloads, revokeGrantPayloads } from '../db/repositories/oidc-payloads.js';
import type { Schema } from '../db/tables.js';
import type { StorageCrypto } from '../security/crypto.js';

export interface AuthorizedApp {
  clientId: string;
  clientName: string;
  scopes: string[];
  grantIds: string[];
}

interface GrantPayload {
  jti: string;
  clientId: string;
  openid?: { scope?: string };
}

export async function listAuthorizedApps(db: Kysely<Schema>, crypto: StorageCrypto, accountId: string): Promise<AuthorizedApp[]> {
  const rows = await listAccountPayloads(db, accountId, 'Grant', Date.now());
  const byClient = new Map<string, AuthorizedApp>();
  for (const row of rows) {
    const grant = crypto.unseal<GrantPayload>(row.payload, row.id_hash);
    if (!grant) continue;
    let app = byClient.get(grant.clientId);
    if (!app) {
      const client = await findClient(db, grant.clientId);
      if (!client) continue;
      app = { clientId: client.id, clientName: client.name, scopes: [], grantIds: [] };
      byClient.set(client.id, app);
    }
    app.grantIds.push(grant.jti);
    app.scopes = [...new Set([...app.scopes, ...(grant.openid?.scope?.split(' ').filter(Boolean) ?? [])])];
  }
  // A client's grants come back in no set order; its scopes are listed in the catalogue's.
  for (const app of byClient.values()) app.scopes.sort((a, b) => scopeRank(a) - scopeRank(b) || a.localeCompare(b));
  return [...byClient.values()].sort((a, b) => a.clientName.localeCompare(b.clientName));
}

function scopeRank(scope: string): number {
  const index = (SCOPES as readonly string[]).indexOf(scope);
  return index === -1 ? SCOPES.length : index;
}

/** Revokes the user's access for one client; false when the user had not authorized it. */
export async function revokeAuthorizedApp(db: Kysely<Schema>, crypto: StorageCrypto, accountId: string, clientId: string): Promise<boolean> {
  const app = (await listAuthorizedApps(db, crypto, accountId)).find((a) => a.clientId === clientId);
  if (!app) return false;
  await db.transaction().execute(async (trx) => {
    for (const grantId of app.grantIds) await revokeGrantPayloads(trx, grantId);
  });
  return true;
}
