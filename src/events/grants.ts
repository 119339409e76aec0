// Which app sees which event is decided from event_grant_periods (db/repositories/grant-periods.ts),
// kept in the clear as grants are saved, so deciding needs no key. Grants made before that table
// have rows whose scopes are still sealed in the grant: this is the one place that opens them,
// once, before the rule is applied to their client.
//
// A grant that cannot be opened is a configuration error (a DATA_ENCRYPTION_KEY other than the
// one that sealed it), never a revocation: GrantUnreadable stops the caller, loudly, and nothing is
// skipped or hidden because of it.
import type { Kysely } from 'kysely';
import { fillGrantPeriod, unreadGrantPeriods } from '../db/repositories/events/grant-periods.js';
import type { Schema } from '../db/tables.js';
import type { StorageCrypto } from '../security/crypto.js';

interface GrantPayload {
  clientId?: string;
  iat?: number;
  openid?: { scope?: string };
}

/** Storage sealed with another key: the operator's to fix, never the user's decision. */
export class GrantUnreadable extends Error {
  constructor(clientId: string) {
    super(`a grant to client ${clientId} cannot be unsealed (is DATA_ENCRYPTION_KEY the key that sealed it?)`);
    this.name = 'GrantUnreadable';
  }
}

/** Clients whose rows are all readable: nothing made later is sealed, so each is checked once per process. */
const readClients = new Set<string>();

/** Fills in the scopes of the client's grants made before event_grant_periods. Throws GrantUnreadable. */
export async function readOlderGrants(db: Kysely<Schema>, crypto: StorageCrypto, clientId: string): Promise<void> {
  if (readClients.has(clientId)) return;
  for (const row of await unreadGrantPeriods(db, clientId)) {
    if (row.idHash === null || row.payload === null) {
      // The grant is gone (it expired and was purged): it grants nothing.
      await fillGrantPeriod(db, row.id, [], 0);
      continue;
    }
    const payload = crypto.unseal<GrantPayload>(row.payload, row.idHash);
    if (!payload || payload.clientId !== clientId) throw new GrantUnreadable(clientId);
    await fillGrantPeriod(db, row.id, payload.openid?.scope?.split(' ') ?? [], (payload.iat ?? 0) * 1000);
  }
  readClients.add(clientId);
}
