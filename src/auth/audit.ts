// Writes the audit log (src/domain/audit.ts): each event becomes a row of `audit_log` and a log
// line marked `audit: true` (info, or warn for replays and failed client authentication). The
// authorization server's own events (replays, revocations, failed client authentication) are
// taken from oidc-provider's event emitter; sign-ins, consents and the account page's revocations
// are recorded by their routes.
import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { insertAuditEntry } from '../db/repositories/audit-log.js';
import type { Schema } from '../db/tables.js';
import { auditLevel, claimedClientId, type AuditEvent } from '../domain/audit.js';
import { REPLAY_DETECTED } from './adapter.js';

export interface AuditLog {
  /** Records the event; a failure to write is logged, never thrown at the request. */
  record(event: AuditEvent): Promise<void>;
}

export function createAuditLog(db: Kysely<Schema>, log: FastifyBaseLogger): AuditLog {
  return {
    async record(event) {
      const { kind, ...fields } = event;
      log[auditLevel(kind)]({ audit: true, kind, ...fields }, `audit: ${kind}`);
      try {
        await insertAuditEntry(db, event, Date.now());
      } catch (error) {
        log.error({ err: error, audit: true, kind }, 'writing the audit log failed');
      }
    },
  };
}

/**
 * The client's address as Fastify computed it from TRUST_PROXY, for requests handed to the
 * provider (whose Koa `ctx.ip` would believe the left-most X-Forwarded-For entry, which the
 * client writes itself).
 */
const clientAddresses = new WeakMap<IncomingMessage, string>();

export function rememberClientAddress(raw: IncomingMessage, ip: string): void {
  clientAddresses.set(raw, ip);
}

const CLIENT_AUTH_EVENTS = ['grant.error', 'introspection.error', 'revocation.error', 'device_authorization.error'] as const;

type OidcError = Error & { error?: string; error_detail?: string };

export function auditProviderEvents(provider: Provider, audit: AuditLog): void {
  const ipOf = (ctx: KoaContextWithOIDC) => clientAddresses.get(ctx.req);

  // oidc-provider revokes a grant in a token request only on a replay (a code or refresh token
  // redeemed a second time), and at the revocation endpoint when a client revokes its refresh
  // token.
  provider.on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => {
    const route = ctx.oidc?.route;
    if (route === 'revocation') {
      void audit.record({ kind: 'revocation', userId: accountOf(ctx), clientId: ctx.oidc.client?.clientId, ip: ipOf(ctx), details: { by: 'client', grant: grantId } });
    } else if (route === 'token') {
      void audit.record({ kind: replayKind(ctx), userId: accountOf(ctx), clientId: ctx.oidc.client?.clientId, ip: ipOf(ctx), details: { grant: grantId } });
    }
  });

  for (const event of CLIENT_AUTH_EVENTS) {
    provider.on(event as 'grant.error', (ctx: KoaContextWithOIDC, error: OidcError) => {
      if (error.error === 'invalid_client') {
        void audit.record({
          kind: 'client-auth-failed',
          clientId: ctx.oidc?.client?.clientId ?? claimedClientId(claimedId(ctx)),
          ip: ipOf(ctx),
          details: { endpoint: ctx.oidc?.route ?? event.split('.')[0] ?? 'unknown', reason: error.error_detail ?? error.message },
        });
      } else if (event === 'grant.error' && error.error_detail === REPLAY_DETECTED) {
        // Two redemptions at once: the adapter let one through and revoked the grant itself.
        void audit.record({
          kind: replayKind(ctx),
          userId: accountOf(ctx),
          clientId: ctx.oidc?.client?.clientId,
          ip: ipOf(ctx),
          details: { concurrent: true },
        });
      }
    });
  }
}

/**
 * Whose grant a replayed code belonged to. oidc-provider announces the revocation (grant.revoked)
 * after deleting the grant and the code, and a replayed code never became a request entity, so
 * the owner is read while the code still exists: in revokeGrantPolicy (provider.ts), which the
 * library calls just before revoking, and only then.
 */
const revokedGrantOwners = new WeakMap<KoaContextWithOIDC, string>();

export async function noteRevokedGrantOwner(ctx: KoaContextWithOIDC): Promise<void> {
  if (ctx.oidc.route !== 'token' || accountOf(ctx) !== undefined) return;
  const { params, provider } = ctx.oidc;
  const source =
    typeof params?.code === 'string'
      ? await provider.AuthorizationCode.find(params.code, { ignoreExpiration: true })
      : typeof params?.device_code === 'string'
        ? await provider.DeviceCode.find(params.device_code, { ignoreExpiration: true })
        : undefined;
  if (source?.accountId) revokedGrantOwners.set(ctx, source.accountId);
}

function replayKind(ctx: KoaContextWithOIDC): 'code-replay' | 'refresh-token-replay' {
  return ctx.oidc.params?.grant_type === 'refresh_token' ? 'refresh-token-replay' : 'code-replay';
}

function accountOf(ctx: KoaContextWithOIDC): string | undefined {
  const { entities } = ctx.oidc;
  return (
    entities.Grant?.accountId ??
    entities.RefreshToken?.accountId ??
    entities.AuthorizationCode?.accountId ??
    entities.DeviceCode?.accountId ??
    entities.AccessToken?.accountId ??
    revokedGrantOwners.get(ctx)
  );
}

/** The client id a caller that failed to authenticate claimed: from HTTP Basic or the form. */
function claimedId(ctx: KoaContextWithOIDC): unknown {
  const header = ctx.headers.authorization;
  if (typeof header === 'string' && /^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      try {
        return decodeURIComponent(decoded.slice(0, colon));
      } catch {
        return decoded.slice(0, colon);
      }
    }
  }
  return ctx.oidc?.params?.client_id;
}
