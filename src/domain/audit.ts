// The audit log's vocabulary: the security events an operator may need to answer "who signed in,
// who approved which app, what was revoked and why, who changed the clients, who is guessing
// secrets". Entries name people by Discord user id and apps by client id, keep the requester's IP
// address, and never hold a secret, a token or a code.

export const AUDIT_KINDS = [
  'sign-in',
  'consent',
  'consent-denied',
  'revocation',
  'code-replay',
  'refresh-token-replay',
  'client-created',
  'client-updated',
  'client-secret-rotated',
  'client-deleted',
  'client-auth-failed',
  'guild-settings-changed',
  'system-deleted',
  'account-added',
  'account-removed',
] as const;

export type AuditKind = (typeof AUDIT_KINDS)[number];

/** What each kind means, for `switchboard audit --help` and the README. */
export const AUDIT_KIND_DESCRIPTIONS: Record<AuditKind, string> = {
  'sign-in': 'a person signed in (details: method = discord, login-link or dev-login)',
  consent: 'a person approved an app (details: scopes)',
  'consent-denied': 'a person refused an app',
  revocation: "an app's access ended (details: by = user from the account page or through POST /v1/users/{user}/apps/{client}/revoke, with via = the app it came through; or client at the revocation endpoint)",
  'code-replay': 'an authorization code was used twice: the grant and its tokens were revoked',
  'refresh-token-replay': 'a refresh token was used twice: the grant and its tokens were revoked',
  'client-created': 'an OAuth client was registered',
  'client-updated': "an OAuth client's grant types or scopes changed",
  'client-secret-rotated': "a client's secret was replaced",
  'client-deleted': 'an OAuth client was deleted, with every grant and token issued to it',
  'client-auth-failed': 'a client failed to authenticate (unknown client or wrong secret)',
  'guild-settings-changed': "a Discord server's settings changed through the bot (user: who; details: guild, permission the bot checked, changes)",
  'system-deleted': 'a person deleted their system with everything in it, and every app they had authorized lost access (user: the owner; client: the app used; details: the system id only)',
  'account-added': 'another Discord account joined a system with a code its owner made (user: the account that joined; details: the system id, whether its own system was deleted)',
  'account-removed': 'an account left a system, or its owner removed it, and the account\'s apps lost access (user: who acted; details: the system id and the account)',
};

/** Replays and failed client authentication may be attacks: they are logged as warnings. */
export function auditLevel(kind: AuditKind): 'info' | 'warn' {
  return kind === 'code-replay' || kind === 'refresh-token-replay' || kind === 'client-auth-failed' ? 'warn' : 'info';
}

export type AuditDetails = Record<string, string | number | boolean | string[]>;

export interface AuditEvent {
  kind: AuditKind;
  /** The person concerned (a Discord user id), when known. */
  userId?: string | undefined;
  /** The client concerned; for a failed authentication, the id the caller claimed. */
  clientId?: string | undefined;
  /** The requester's address (as TRUST_PROXY determines it); absent for the CLI. */
  ip?: string | undefined;
  details?: AuditDetails | undefined;
}

export interface AuditEntry extends AuditEvent {
  id: number;
  /** Epoch milliseconds. */
  at: number;
}

/** Client ids claimed by unauthenticated callers are untrusted text: kept short and printable. */
export function claimedClientId(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw === '') return undefined;
  const printable = raw.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > 100 ? `${printable.slice(0, 100)}…` : printable;
}
