// What a client may read of a system's events: the scopes of the live grants the system's users
// gave it (a sub-account's grant counts too). Grants are sealed at rest; this is the one place
// that opens them for events, used by the dispatcher before every send and by the event feed.
import type { Kysely } from 'kysely';
import { liveGrantsFor } from '../db/repositories/events.js';
import type { Schema } from '../db/tables.js';
import type { StorageCrypto } from '../security/crypto.js';

interface GrantPayload {
  clientId?: string;
  openid?: { scope?: string };
}

/** The scopes the system's users granted `clientId`, still live; undefined when none did. */
export async function grantedScopes(db: Kysely<Schema>, crypto: StorageCrypto, systemId: number, clientId: string, now: number): Promise<Set<string> | undefined> {
  const grants = await liveGrantsFor(db, systemId, clientId, now);
  let scopes: Set<string> | undefined;
  for (const grant of grants) {
    const payload = crypto.unseal<GrantPayload>(grant.payload, grant.idHash);
    if (!payload || payload.clientId !== clientId) continue;
    scopes ??= new Set();
    for (const scope of payload.openid?.scope?.split(' ') ?? []) if (scope) scopes.add(scope);
  }
  return scopes;
}
