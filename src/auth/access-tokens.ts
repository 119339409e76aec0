// Finds a live token by its value, with the same checks oidc-provider applies at introspection:
// not expired or consumed, and its grant still exists for the same client and account (revoking
// an app deletes its grant, which must end every token of that grant at once).
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import { payloadIsLive } from '../db/repositories/oidc-payloads.js';
import type { Schema } from '../db/tables.js';
import type { StorageCrypto } from '../security/crypto.js';
import { payloadKey } from './adapter.js';

export interface LiveToken {
  kind: 'AccessToken' | 'RefreshToken' | 'ClientCredentials';
  jti: string;
  clientId?: string | undefined;
  accountId?: string | undefined;
  grantId?: string | undefined;
  scope?: string | undefined;
  iat?: number | undefined;
  exp?: number | undefined;
  isValid: boolean;
}

type Finder = (provider: Provider, value: string) => Promise<unknown>;

const FINDERS: Record<LiveToken['kind'], Finder> = {
  AccessToken: (provider, value) => provider.AccessToken.find(value),
  RefreshToken: (provider, value) => provider.RefreshToken.find(value),
  ClientCredentials: (provider, value) => provider.ClientCredentials.find(value),
};

export async function findLiveToken(
  provider: Provider,
  value: string,
  kinds: ReadonlyArray<LiveToken['kind']> = ['AccessToken', 'RefreshToken', 'ClientCredentials'],
): Promise<LiveToken | undefined> {
  for (const kind of kinds) {
    const token = (await FINDERS[kind](provider, value)) as LiveToken | undefined;
    if (!token) continue;
    if (!token.isValid) return undefined;
    if (token.grantId) {
      const grant = await provider.Grant.find(token.grantId);
      if (!grant || grant.clientId !== token.clientId || grant.accountId !== token.accountId) return undefined;
    }
    return token;
  }
  return undefined;
}

/** What an API request may do, from its bearer token. */
export interface BearerGrant {
  /** The Discord user the token acts for; null for a client-credentials token. */
  userId: string | null;
  clientId: string;
  scopes: ReadonlySet<string>;
}

export type BearerVerifier = (value: string) => Promise<BearerGrant | undefined>;

const VERIFIED_CACHE_SIZE = 10_000;

/**
 * Resolves an access token (never a refresh token) presented as a bearer credential, remembering
 * tokens already verified. A remembered token still costs one
 * indexed lookup of its row, because every revocation (the revocation endpoint, a revoked app, a
 * replayed refresh token, a deleted client, from any process) deletes that row; what is saved is
 * unsealing the token and its grant. Entries end with the token's own expiry.
 */
export function createBearerVerifier(provider: Provider, db: Kysely<Schema>, crypto: StorageCrypto): BearerVerifier {
  const verified = new Map<string, { grant: BearerGrant; idHash: string; expiresAt: number }>();
  return async (value) => {
    const now = Date.now();
    const known = verified.get(value);
    if (known && known.expiresAt > now) {
      if (await payloadIsLive(db, known.idHash, now)) return known.grant;
      verified.delete(value);
      return undefined;
    }
    const token = await findLiveToken(provider, value, ['AccessToken', 'ClientCredentials']);
    if (!token?.clientId) return undefined;
    const grant: BearerGrant = {
      userId: token.kind === 'AccessToken' ? (token.accountId ?? null) : null,
      clientId: token.clientId,
      scopes: new Set((token.scope ?? '').split(' ').filter(Boolean)),
    };
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
    verified.set(value, { grant, idHash: payloadKey(crypto, token.kind, 'id', value), expiresAt: (token.exp ?? 0) * 1000 });
    return grant;
  };
}
