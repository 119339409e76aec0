// Finds a live token by its value, with the same checks oidc-provider applies at introspection:
// not expired or consumed, its grant still exists, has not expired and is for the same client and
// account (revoking an app deletes its grant, which must end every token of that grant at once),
// and a token bound to a browser session (issued without offline_access) still has that session.
// It also says when the token stops working: the earliest of those three ends.
import type Provider from 'oidc-provider';
import { ExactCache } from '../db/changes/exact-cache.js';
import type { ChangeWatch } from '../db/changes/remote.js';
import { clientTopic, grantTopic, oidcRowTopic } from '../db/changes/topics.js';
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

export interface BearerVerifier {
  (value: string): Promise<BearerGrant | undefined>;
  /** The answer from memory alone, when the token was verified before and nothing has ended it since; else undefined (then call the verifier). */
  known(value: string): BearerGrant | undefined;
}

const VERIFIED_CACHE_SIZE = 10_000;

/** A verified token as remembered: what it grants, and until when (milliseconds). */
interface Remembered {
  grant: BearerGrant;
  /** When the token stopped working as of its full check: the earliest of its own, its grant's and its session's end. */
  expiresAt: number;
  /** The change notes that end it early (db/changes/topics.ts). */
  topics: string[];
}

/**
 * Resolves an access token (never a refresh token) presented as a bearer credential, remembering
 * tokens already verified. A remembered token answers exactly what a full check would:
 * - until `expiresAt`, the earliest of the token's, its grant's and its session's end as of the
 *   full check (grants and sessions only ever get longer, so after it a full check runs again);
 * - until a change note names one of the rows the full check read: the token's, its grant's, its
 *   session's (by uid), the grant as a whole or the client. Every revocation writes one (the
 *   revocation endpoint, a revoked app, a replayed code or refresh token, a deleted client, a
 *   signed-out or changed session), in this process or any other (db/changes/).
 */
export function createBearerVerifier(provider: Provider, crypto: StorageCrypto, changes: ChangeWatch): BearerVerifier {
  const verified = new ExactCache<string, Remembered>(changes, { maxEntries: VERIFIED_CACHE_SIZE, topicsOf: (_value, entry) => entry.topics });

  function known(value: string): BearerGrant | undefined {
    const entry = verified.get(value);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.grant;
    verified.remove(value);
    return undefined;
  }

  const verify = async (value: string): Promise<BearerGrant | undefined> => {
    const remembered = known(value);
    if (remembered) return remembered;
    const ticket = verified.ticket();
    const token = await findLiveToken(provider, value, ['AccessToken', 'ClientCredentials']);
    if (!token?.clientId) return undefined;
    const grant: BearerGrant = {
      userId: token.kind === 'AccessToken' ? (token.accountId ?? null) : null,
      clientId: token.clientId,
      scopes: new Set((token.scope ?? '').split(' ').filter(Boolean)),
    };
    const topics = [oidcRowTopic(payloadKey(crypto, token.kind, 'id', value)), clientTopic(token.clientId)];
    if (token.grantId) topics.push(oidcRowTopic(payloadKey(crypto, 'Grant', 'id', token.grantId)), grantTopic(token.grantId));
    if (token.expiresWithSession && token.sessionUid) topics.push(oidcRowTopic(payloadKey(crypto, 'Session', 'uid', token.sessionUid)));
    verified.fill(value, { grant, expiresAt: token.stopsAt * 1000, topics }, ticket);
    return grant;
  };
  return Object.assign(verify, { known });
}
