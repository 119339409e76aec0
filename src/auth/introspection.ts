// Token introspection in the shape of the spec, for both request forms:
// - RFC 7662: form body, client authentication; oidc-provider authenticates the client, finds
//   the token and applies the policy, and `describe` rewrites its answer into our fields;
// - the spec's form: JSON body `{token}` with `Authorization: Bearer <access token>`; the
//   bearer token identifies the calling client, then the same policy applies.
// A client only ever sees its own tokens; anything else is `{active: false}`.
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import { findUser } from '../db/repositories/users.js';
import type { Schema } from '../db/tables.js';
import { sha256 } from '../security/crypto.js';
import { findLiveToken, tokenEnd, type LiveToken } from './access-tokens.js';

/** A token as oidc-provider found it, or as findLiveToken did (which says when it stops working). */
export type IntrospectedToken = LiveToken & { stopsAt?: number | undefined };

export interface IntrospectionResponse {
  active: boolean;
  scope?: string;
  client_id?: string;
  username?: string;
  token_type?: string;
  exp?: number;
  iat?: number;
  nbf?: number;
  sub?: string;
  aud?: string;
  iss?: string;
  jti?: string;
}

const INACTIVE: IntrospectionResponse = { active: false };

export function introspectedEntity(entities: Record<string, unknown>): IntrospectedToken | undefined {
  return (entities.AccessToken ?? entities.RefreshToken ?? entities.ClientCredentials) as IntrospectedToken | undefined;
}

export function createIntrospection(provider: Provider, db: Kysely<Schema>) {
  async function describe(token: IntrospectedToken): Promise<IntrospectionResponse> {
    // `exp` is when the token stops working: its own expiry, or its grant's or session's if earlier.
    const exp = token.stopsAt ?? (await tokenEnd(provider, token));
    if (exp === undefined) return INACTIVE;
    const user = token.accountId ? await findUser(db, token.accountId) : undefined;
    const isRefresh = token.kind === 'RefreshToken';
    return {
      active: true,
      scope: token.scope ?? '',
      client_id: token.clientId ?? '',
      ...(token.accountId ? { username: user?.username ?? token.accountId, sub: token.accountId } : { sub: token.clientId ?? '' }),
      // RFC 7662 names access tokens by their RFC 6749 type; refresh tokens by their hint name.
      token_type: isRefresh ? 'refresh_token' : 'Bearer',
      exp,
      ...(token.iat === undefined ? {} : { iat: token.iat, nbf: token.iat }),
      // Access tokens are accepted only by this service's API; refresh tokens only by its token endpoint.
      aud: isRefresh ? `${provider.issuer}${'/auth/oauth2/token'}` : `${provider.issuer}/v1`,
      iss: provider.issuer,
      // A stable, non-secret identifier: the token value itself is the storage key, never echoed.
      jti: sha256(token.jti).slice(0, 22),
    };
  }

  /** The spec's form. `bearer` is the caller's access token; undefined result means 401. */
  async function introspectWithBearer(bearer: string, value: string): Promise<IntrospectionResponse | undefined> {
    const caller = await findLiveToken(provider, bearer, ['AccessToken', 'ClientCredentials']);
    if (!caller) return undefined;
    const token = await findLiveToken(provider, value);
    if (!token || token.clientId !== caller.clientId) return INACTIVE;
    return describe(token);
  }

  return { describe, introspectWithBearer };
}

export type Introspection = ReturnType<typeof createIntrospection>;
