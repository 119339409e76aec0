// Finds a live token by its value, with the same checks oidc-provider applies at introspection:
// not expired or consumed, its grant still exists, has not expired and is for the same client and
// account (revoking an app deletes its grant, which must end every token of that grant at once),
// and a token bound to a browser session (issued without offline_access) still has that session.
// It also says when the token stops working: the earliest of those three ends.
import { sql, type Kysely } from 'kysely';
import type Provider from 'oidc-provider';
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
  /** Set for a token that dies with the browser session that approved it (no offline_access). */
  expiresWithSession?: boolean | undefined;
  sessionUid?: string | undefined;
  isValid: boolean;
}

/** A live token, and when it stops working (epoch seconds): the earliest of its own, its grant's and its session's end. */
export type VerifiedToken = LiveToken & { stopsAt: number };

const epochSeconds = (ms = Date.now()) => Math.floor(ms / 1000);

/** What a session-bound token needs of its session (a Session model, or its stored payload). */
interface SessionState {
  accountId?: string | undefined;
  authorizations?: Record<string, { grantId?: string | undefined } | undefined> | undefined;
  exp?: number | undefined;
}

/** oidc-provider's session binding (same account, same grant for the client), and the session not expired. */
function sessionHolds(session: SessionState | undefined, token: LiveToken, now: number): session is SessionState & { exp: number } {
  return (
    session !== undefined &&
    session.accountId === token.accountId &&
    token.clientId !== undefined &&
    session.authorizations?.[token.clientId]?.grantId === token.grantId &&
    typeof session.exp === 'number' &&
    session.exp > now
  );
}

/**
 * When a token found by the provider stops working (epoch seconds), or undefined when it already
 * has: it is expired or consumed, its grant is gone, expired or another's, or its session is.
 * Tokens are issued to end no later than their grant (provider.ts), but tokens issued before that
 * rule, and session-bound tokens, can end earlier than their own `exp` says.
 */
export async function tokenEnd(provider: Provider, token: LiveToken): Promise<number | undefined> {
  const now = epochSeconds();
  if (!token.isValid || token.exp === undefined) return undefined;
  let end = token.exp;
  if (token.grantId) {
    const grant = await provider.Grant.find(token.grantId, { ignoreExpiration: true });
    if (!grant || grant.isExpired || grant.exp === undefined || grant.clientId !== token.clientId || grant.accountId !== token.accountId) return undefined;
    end = Math.min(end, grant.exp);
  }
  if (token.expiresWithSession) {
    const session = token.sessionUid ? await provider.Session.findByUid(token.sessionUid) : undefined;
    if (!sessionHolds(session, token, now)) return undefined;
    end = Math.min(end, session.exp);
  }
  return end > now ? end : undefined;
}

type Finder = (provider: Provider, value: string) => Promise<unknown>;

// The session binding is checked by tokenEnd, which needs the session anyway.
const UNBOUND = { ignoreExpiration: false, ignoreSessionBinding: true };
const FINDERS: Record<LiveToken['kind'], Finder> = {
  AccessToken: (provider, value) => provider.AccessToken.find(value, UNBOUND),
  RefreshToken: (provider, value) => provider.RefreshToken.find(value, UNBOUND),
  ClientCredentials: (provider, value) => provider.ClientCredentials.find(value),
};

export async function findLiveToken(
  provider: Provider,
  value: string,
  kinds: ReadonlyArray<LiveToken['kind']> = ['AccessToken', 'RefreshToken', 'ClientCredentials'],
): Promise<VerifiedToken | undefined> {
  for (const kind of kinds) {
    const token = (await FINDERS[kind](provider, value)) as LiveToken | undefined;
    if (!token) continue;
    const stopsAt = await tokenEnd(provider, token);
    if (stopsAt === undefined) return undefined;
    const { jti, clientId, accountId, grantId, scope, iat, exp, expiresWithSession, sessionUid } = token;
    return { kind: token.kind, jti, clientId, accountId, grantId, scope, iat, exp, expiresWithSession, sessionUid, isValid: true, stopsAt };
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

type StoredRow = { id_hash: string; expires_at: number | null; payload: string | null };

/** What a remembered token's check reads: its row, its grant's row and, when bound, its session. */
interface Remembered {
  grant: BearerGrant;
  token: LiveToken;
  tokenKey: string;
  grantKey: string | undefined;
  sessionKey: string | undefined;
  /** The session's stored (sealed) form last found to hold, and its end: unchanged, it need not be unsealed again. */
  sessionSeen?: { sealed: string; exp: number } | undefined;
  /** Milliseconds: when the token stopped working as of its last full check (see tokenEnd). */
  expiresAt: number;
}

/**
 * Resolves an access token (never a refresh token) presented as a bearer credential, remembering
 * tokens already verified. A remembered token answers exactly what a full check would:
 * - until `expiresAt`, the earliest of the token's, its grant's and its session's end as of the
 *   last full check (grants and sessions only ever get longer, so after it a full check runs
 *   again and finds out);
 * - with one indexed query for the rows a revocation deletes (the revocation endpoint, a revoked
 *   app, a replayed refresh token, a deleted client, from any process): the token's, its grant's
 *   and, for a session-bound token, its session's, whose binding and expiry are checked again.
 * What is saved is finding and unsealing the token and its grant. Anything that does not hold
 * falls back to the full check.
 */
export function createBearerVerifier(provider: Provider, db: Kysely<Schema>, crypto: StorageCrypto): BearerVerifier {
  const verified = new Map<string, Remembered>();

  async function stillHolds(entry: Remembered, now: number): Promise<boolean> {
    const ids = entry.grantKey ? [entry.tokenKey, entry.grantKey] : [entry.tokenKey];
    const { sessionKey } = entry;
    // One query, written as SQL (building it with Kysely costs more than running it); rows with a
    // payload are the session's (a UNION ALL: SQLite's plan for an OR of two indexes is slower).
    const tokenAndGrant = sql`select id_hash, expires_at, null as payload from oidc_payloads where id_hash in (${sql.join(ids)})`;
    const { rows } = await (
      sessionKey
        ? sql<StoredRow>`${tokenAndGrant} union all select id_hash, expires_at, payload from oidc_payloads where uid_hash = ${sessionKey} and model = 'Session'`
        : sql<StoredRow>`${tokenAndGrant}`
    ).execute(db);
    const live = (row: { expires_at: number | null }) => row.expires_at === null || row.expires_at > now;
    const has = (key: string) => rows.some((row) => row.id_hash === key && row.payload === null && live(row));
    if (!has(entry.tokenKey) || (entry.grantKey && !has(entry.grantKey))) return false;
    if (!sessionKey) return true;
    const session = rows.find((row) => row.payload !== null && live(row));
    if (!session?.payload) return false;
    // Every save seals afresh (a new nonce): the same sealed text is the same session.
    const seen = entry.sessionSeen;
    if (seen?.sealed === session.payload) return seen.exp > epochSeconds(now);
    const state = crypto.unseal<SessionState>(session.payload, session.id_hash);
    if (!sessionHolds(state, entry.token, epochSeconds(now))) return false;
    entry.sessionSeen = { sealed: session.payload, exp: state.exp };
    return true;
  }

  return async (value) => {
    const now = Date.now();
    const known = verified.get(value);
    if (known) {
      if (known.expiresAt > now && (await stillHolds(known, now))) return known.grant;
      verified.delete(value);
    }
    const token = await findLiveToken(provider, value, ['AccessToken', 'ClientCredentials']);
    if (!token?.clientId) return undefined;
    const grant: BearerGrant = {
      userId: token.kind === 'AccessToken' ? (token.accountId ?? null) : null,
      clientId: token.clientId,
      scopes: new Set((token.scope ?? '').split(' ').filter(Boolean)),
    };
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
    verified.set(value, {
      grant,
      token,
      tokenKey: payloadKey(crypto, token.kind, 'id', value),
      grantKey: token.grantId ? payloadKey(crypto, 'Grant', 'id', token.grantId) : undefined,
      sessionKey: token.expiresWithSession && token.sessionUid ? payloadKey(crypto, 'Session', 'uid', token.sessionUid) : undefined,
      expiresAt: token.stopsAt * 1000,
    });
    return grant;
  };
}
