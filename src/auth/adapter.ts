// oidc-provider's storage adapter over Kysely. Every id the provider hands us (token values,
// codes, session and interaction ids, user codes) is a bearer credential, so rows are addressed
// by a keyed hash and payloads are sealed with AES-256-GCM: a copy of the database alone yields
// nothing usable. Clients come from the oauth_clients table.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { Kysely } from 'kysely';
import { findClient } from '../db/repositories/oauth-clients.js';
import {
  consumePayload,
  destroyPayload,
  findPayload,
  revokeGrantPayloads,
  upsertPayload,
} from '../db/repositories/oidc-payloads.js';
import { recordGrantSaved, recordGrantsBoundToSession, recordGrantsEnded } from '../db/repositories/events/grant-periods.js';
import type { OidcPayloadRow, Schema } from '../db/tables.js';
import type { StorageCrypto } from '../security/crypto.js';
import { toProviderMetadata } from './clients.js';

/** The key an oidc-provider model's row is stored under: a keyed hash, never the value itself. */
export function payloadKey(crypto: StorageCrypto, model: string, kind: 'id' | 'uid' | 'userCode', value: string): string {
  return crypto.lookupHash(`${model}:${kind}`, value);
}

/** The error detail of a redemption that lost a race to another (the audit log tells them apart). */
export const REPLAY_DETECTED = 'grant already used';

export function createAdapterFactory(db: Kysely<Schema>, crypto: StorageCrypto) {
  return (model: string): Adapter => (model === 'Client' ? new ClientAdapter(db) : new PayloadAdapter(model, db, crypto));
}

/** The scopes a grant holds (oidc-provider keeps the OpenID scopes of a grant under `openid.scope`). */
function grantScopes(payload: AdapterPayload): string[] {
  const openid = (payload as { openid?: { scope?: string } }).openid;
  return openid?.scope?.split(' ').filter(Boolean) ?? [];
}

class PayloadAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly db: Kysely<Schema>,
    private readonly crypto: StorageCrypto,
  ) {}

  private hash(kind: 'id' | 'uid' | 'userCode', value: string) {
    return payloadKey(this.crypto, this.model, kind, value);
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const idHash = this.hash('id', id);
    const now = Date.now();
    const expiresAt = expiresIn ? now + expiresIn * 1000 : null;
    const record = {
      idHash,
      model: this.model,
      payload: this.crypto.seal(payload, idHash),
      grantId: this.model === 'Grant' ? id : (payload.grantId ?? null),
      uidHash: payload.uid ? this.hash('uid', payload.uid) : null,
      userCodeHash: payload.userCode ? this.hash('userCode', payload.userCode) : null,
      accountId: payload.accountId ?? null,
      clientId: payload.clientId ?? null,
      expiresAt,
    };
    if (this.model === 'Grant' && payload.accountId && payload.clientId) {
      // The grant and when it let its app see events change together (events/grants.ts).
      const grant = {
        grantId: id,
        accountId: payload.accountId,
        clientId: payload.clientId,
        scopes: grantScopes(payload),
        expiresAt,
        issuedAt: (payload.iat ?? Math.floor(now / 1000)) * 1000,
        now,
      };
      await this.db.transaction().execute(async (trx) => {
        await upsertPayload(trx, record);
        await recordGrantSaved(trx, grant);
      });
      return;
    }
    await upsertPayload(this.db, record);
    if (this.model === 'Session' && expiresAt !== null) {
      // Grants without offline_access (the provider's `persistsLogout` unset) end with the session.
      const bound = Object.values(payload.authorizations ?? {}).flatMap((authorization) =>
        authorization.grantId && !authorization.persistsLogout ? [authorization.grantId] : [],
      );
      await recordGrantsBoundToSession(this.db, bound, expiresAt);
    }
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.open(await findPayload(this.db, this.model, { idHash: this.hash('id', id) }, Date.now()));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.open(await findPayload(this.db, this.model, { uidHash: this.hash('uid', uid) }, Date.now()));
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.open(await findPayload(this.db, this.model, { userCodeHash: this.hash('userCode', userCode) }, Date.now()));
  }

  /**
   * Atomic: of two concurrent redemptions of one code or refresh token, exactly one consumes it.
   * The loser is treated as a replay, as the provider treats a sequential one: the whole grant
   * is revoked (RFC 9700 §4.14.2), and the request fails with invalid_grant.
   */
  async consume(id: string): Promise<void> {
    const idHash = this.hash('id', id);
    if (await consumePayload(this.db, idHash, Date.now())) return;
    const row = await findPayload(this.db, this.model, { idHash }, Date.now());
    if (row?.grant_id) await revokeGrantPayloads(this.db, row.grant_id);
    throw new errors.InvalidGrant(REPLAY_DETECTED);
  }

  async destroy(id: string): Promise<void> {
    if (this.model === 'Grant') {
      await this.db.transaction().execute(async (trx) => {
        await destroyPayload(trx, this.hash('id', id));
        await recordGrantsEnded(trx, { grantIds: [id] }, Date.now());
      });
      return;
    }
    await destroyPayload(this.db, this.hash('id', id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await revokeGrantPayloads(this.db, grantId, this.model);
  }

  private open(row: OidcPayloadRow | undefined): AdapterPayload | undefined {
    if (!row) return undefined;
    const payload = this.crypto.unseal<AdapterPayload>(row.payload, row.id_hash);
    if (!payload) return undefined;
    return row.consumed_at === null ? payload : { ...payload, consumed: Math.floor(row.consumed_at / 1000) };
  }
}

class ClientAdapter implements Adapter {
  constructor(private readonly db: Kysely<Schema>) {}

  async find(id: string): Promise<AdapterPayload | undefined> {
    const client = await findClient(this.db, id);
    return client && (toProviderMetadata(client) as AdapterPayload);
  }

  // Clients are managed with the CLI, never through the provider (no dynamic registration).
  async upsert(): Promise<void> {
    throw new Error('clients are registered with `switchboard clients create`');
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}
