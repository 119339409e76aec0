// OAuth clients as the rest of the service sees them: registration rules (which grants, scopes
// and redirect URIs a client may have), secret generation and the mapping to oidc-provider's
// client metadata. The database keeps only a hash of each secret. Every change to a client is
// written to the audit log in the same transaction.
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { insertAuditEntry } from '../db/repositories/audit-log.js';
import { deleteClient as deleteClientRows, findClient, insertClient, listClients, replaceClientSecret, updateClientPermissions, updateClientRedirectUris, type OauthClientRecord } from '../db/repositories/oauth-clients.js';
import type { Schema } from '../db/tables.js';
import { API_SCOPES, FIRST_PARTY_SCOPES, SCOPES } from '../domain/scopes.js';
import { randomSecret, sha256 } from '../security/crypto.js';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT] as const;
export type GrantType = (typeof GRANT_TYPES)[number];

const GRANT_ALIASES: Record<string, GrantType> = { device_code: DEVICE_CODE_GRANT };

// RFC 9700 §2.1: redirect URIs are matched exactly; plain http only for loopback (RFC 8252).
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const redirectUri = z
  .string()
  .url({ message: 'must be an absolute URL', abort: true })
  .refine((uri) => !uri.includes('#'), 'must not contain a fragment')
  .refine((uri) => {
    const url = new URL(uri);
    if (url.protocol === 'https:') return true;
    if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(url.hostname);
    // Native apps: a reverse-domain private-use scheme (RFC 8252 §7.1), never javascript: or data:.
    return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol);
  }, 'must use https (http only for localhost), or a private-use scheme for native apps');

export const ClientRegistrationSchema = z
  .object({
    name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
    redirectUris: z.array(redirectUri).max(20, 'at most 20 redirect URIs'),
    scopes: z.array(z.enum(SCOPES, { message: `unknown scope; known scopes: ${SCOPES.join(' ')}` })).min(1, 'at least one scope'),
    grantTypes: z
      .array(z.string().transform((grant) => GRANT_ALIASES[grant] ?? grant).pipe(z.enum(GRANT_TYPES, { message: `unknown grant; known grants: authorization_code refresh_token client_credentials device_code` })))
      .min(1, 'at least one grant type'),
    public: z.boolean(),
    firstParty: z.boolean(),
  })
  .superRefine((client, ctx) => {
    if (client.grantTypes.includes('authorization_code') && client.redirectUris.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['redirectUris'], message: 'the authorization_code grant needs at least one redirect URI' });
    }
    const firstPartyOnly = client.scopes.filter((scope) => FIRST_PARTY_SCOPES.includes(scope));
    if (!client.firstParty && firstPartyOnly.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['scopes'], message: `${firstPartyOnly.join(' ')} can only be granted to a first-party client (the bot's own)` });
    }
    if (client.public && client.grantTypes.includes('client_credentials')) {
      ctx.addIssue({ code: 'custom', path: ['grantTypes'], message: 'a public client cannot use client_credentials (it has no secret)' });
    }
    if (client.grantTypes.includes('refresh_token') && !client.grantTypes.some((g) => g === 'authorization_code' || g === DEVICE_CODE_GRANT)) {
      ctx.addIssue({ code: 'custom', path: ['grantTypes'], message: 'refresh_token needs authorization_code or device_code' });
    }
  });

export type ClientRegistration = z.input<typeof ClientRegistrationSchema>;

export interface RegisteredClient {
  client: OauthClientRecord;
  /** The plain secret, shown once; undefined for public clients. */
  secret: string | undefined;
}

/**
 * A client id: 16 random bytes in base64url, never starting with "-", which a command line reads as
 * an option (`switchboard clients rotate-secret <id>` failed for one client in 64).
 */
export function newClientId(): string {
  let id: string;
  do id = randomSecret(16);
  while (id.startsWith('-'));
  return id;
}

export async function registerClient(db: Kysely<Schema>, input: ClientRegistration, now = Date.now()): Promise<RegisteredClient> {
  const registration = ClientRegistrationSchema.parse(input);
  const secret = registration.public ? undefined : newClientSecret();
  const client: OauthClientRecord = {
    id: newClientId(),
    name: registration.name,
    secretHash: secret === undefined ? null : sha256(secret),
    redirectUris: registration.redirectUris,
    grantTypes: [...new Set(registration.grantTypes)],
    scopes: [...new Set(registration.scopes)],
    firstParty: registration.firstParty,
    createdAt: now,
  };
  await db.transaction().execute(async (trx) => {
    await insertClient(trx, client);
    await insertAuditEntry(trx, { kind: 'client-created', clientId: client.id, details: clientDetails(client) }, now);
  });
  return { client, secret };
}

export async function rotateClientSecret(db: Kysely<Schema>, id: string, now = Date.now()): Promise<string | undefined> {
  const secret = newClientSecret();
  const replaced = await db.transaction().execute(async (trx) => {
    if (!(await replaceClientSecret(trx, id, sha256(secret), now))) return false;
    await insertAuditEntry(trx, { kind: 'client-secret-rotated', clientId: id }, now);
    return true;
  });
  return replaced ? secret : undefined;
}

/** Deletes the client with every grant, code and token issued to it; false when there is none. */
export async function deleteClient(db: Kysely<Schema>, id: string, now = Date.now()): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const client = await findClient(trx, id);
    if (!client || !(await deleteClientRows(trx, id))) return false;
    await insertAuditEntry(trx, { kind: 'client-deleted', clientId: id, details: { name: client.name } }, now);
    return true;
  });
}

export { findClient, listClients };

function clientDetails(client: OauthClientRecord) {
  return { name: client.name, type: client.secretHash === null ? 'public' : 'confidential', firstParty: client.firstParty, grants: client.grantTypes, scopes: client.scopes, redirectUris: client.redirectUris };
}

function newClientSecret(): string {
  return `sbs_${randomSecret(32)}`;
}

/** Client metadata in oidc-provider's terms. `client_secret` holds the hash; see provider.ts. */
export function toProviderMetadata(client: OauthClientRecord): Record<string, unknown> {
  return {
    client_id: client.id,
    client_name: client.name,
    ...(client.secretHash === null ? { token_endpoint_auth_method: 'none' } : { client_secret: client.secretHash, token_endpoint_auth_method: 'client_secret_basic' }),
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
    // A first-party scope stored for another client (a row edited by hand) is never granted.
    scope: client.scopes.filter((scope) => client.firstParty || !(FIRST_PARTY_SCOPES as readonly string[]).includes(scope)).join(' '),
  };
}

export const BOT_CLIENT_ID = 'switchboard-bot';
/** Linking (device flow), staying linked, and message info for moderators who never linked. */
const BOT_GRANT_TYPES = [DEVICE_CODE_GRANT, 'refresh_token', 'client_credentials'];
const BOT_SCOPES = ['openid', 'offline_access', 'alters:read', 'alters:write', 'system:read', 'system:write', 'system:ai-ap', 'messages:read', 'messages:write', 'events:manage', 'guilds:manage'];

/**
 * The bot's own client when bot and service share a process: a first-party confidential client
 * for the device flow (linking), refresh tokens and login links. Created on first start and kept
 * in step with the secret in DATA_DIR/keys.
 */
export async function ensureBotClient(db: Kysely<Schema>, secret: string, now = Date.now()): Promise<{ id: string; secret: string }> {
  await db.transaction().execute(async (trx) => {
    const existing = await findClient(trx, BOT_CLIENT_ID);
    if (!existing) {
      const client: OauthClientRecord = {
        id: BOT_CLIENT_ID,
        name: 'switchboard bot',
        secretHash: sha256(secret),
        redirectUris: [],
        grantTypes: BOT_GRANT_TYPES,
        scopes: BOT_SCOPES,
        firstParty: true,
        createdAt: now,
      };
      await insertClient(trx, client);
      await insertAuditEntry(trx, { kind: 'client-created', clientId: BOT_CLIENT_ID, details: clientDetails(client) }, now);
      return;
    }
    if (existing.secretHash !== sha256(secret)) {
      await replaceClientSecret(trx, BOT_CLIENT_ID, sha256(secret), now);
      await insertAuditEntry(trx, { kind: 'client-secret-rotated', clientId: BOT_CLIENT_ID }, now);
    }
    // A newer version of the bot may need more than the registration an older one made.
    const same = (a: string[], b: string[]) => a.length === b.length && a.every((value) => b.includes(value));
    if (!same(existing.grantTypes, BOT_GRANT_TYPES) || !same(existing.scopes, BOT_SCOPES)) {
      await updateClientPermissions(trx, BOT_CLIENT_ID, BOT_GRANT_TYPES, BOT_SCOPES);
      await insertAuditEntry(trx, { kind: 'client-updated', clientId: BOT_CLIENT_ID, details: { grants: BOT_GRANT_TYPES, scopes: BOT_SCOPES } }, now);
    }
  });
  return { id: BOT_CLIENT_ID, secret };
}

export const DOCS_CLIENT_ID = 'switchboard-docs';
/** Where Swagger UI at /docs receives the authorization code (a static page of @fastify/swagger-ui). */
export const DOCS_REDIRECT_PATH = '/docs/static/oauth2-redirect.html';

/**
 * The client of the interactive reference at /docs: public (a page cannot keep a secret), the
 * authorization code with PKCE only, no refresh tokens, redirecting only to /docs on PUBLIC_URL.
 * It acts for the person using the page, so they are asked for consent like for any other app.
 * Created on start and kept in step with PUBLIC_URL and the scopes.
 */
export async function ensureDocsClient(db: Kysely<Schema>, publicUrl: string, now = Date.now()): Promise<OauthClientRecord> {
  const redirectUris = [`${publicUrl}${DOCS_REDIRECT_PATH}`];
  const grantTypes = ['authorization_code'];
  // The reference page calls the API and nothing else: no id_token, no refresh token.
  const scopes = API_SCOPES.filter((scope) => !FIRST_PARTY_SCOPES.includes(scope));
  const existing = await findClient(db, DOCS_CLIENT_ID);
  if (!existing) {
    const client: OauthClientRecord = { id: DOCS_CLIENT_ID, name: 'API reference (/docs)', secretHash: null, redirectUris, grantTypes, scopes, firstParty: false, createdAt: now };
    await insertClient(db, client);
    return client;
  }
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((value) => b.includes(value));
  if (!same(existing.redirectUris, redirectUris)) await updateClientRedirectUris(db, DOCS_CLIENT_ID, redirectUris);
  if (!same(existing.grantTypes, grantTypes) || !same(existing.scopes, scopes)) await updateClientPermissions(db, DOCS_CLIENT_ID, grantTypes, scopes);
  return { ...existing, redirectUris, grantTypes, scopes };
}

export const DASHBOARD_CLIENT_ID = 'switchboard-dashboard';
/** Where the dashboard's backend receives the authorization code (src/dashboard/). */
export const DASHBOARD_REDIRECT_PATH = '/dashboard/callback';
/** What the dashboard does: everything a member does with their own system, and staying signed in. */
export const DASHBOARD_SCOPES = ['openid', 'offline_access', 'alters:read', 'alters:write', 'system:read', 'system:write', 'system:ai-ap', 'apps:manage'];

/**
 * The dashboard's own client: first-party (the member is not asked to approve it: it is this
 * service), confidential (its backend keeps the secret and the tokens; the browser never sees
 * either), the authorization code with PKCE and refresh tokens, redirecting only to
 * /dashboard/callback on PUBLIC_URL. Its secret is derived from the data encryption key, so every
 * process of an installation agrees on it without storing it. Created on start and kept in step.
 */
export async function ensureDashboardClient(db: Kysely<Schema>, publicUrl: string, secret: string, now = Date.now()): Promise<OauthClientRecord> {
  const redirectUris = [`${publicUrl}${DASHBOARD_REDIRECT_PATH}`];
  const grantTypes = ['authorization_code', 'refresh_token'];
  const scopes = DASHBOARD_SCOPES;
  return db.transaction().execute(async (trx) => {
    const existing = await findClient(trx, DASHBOARD_CLIENT_ID);
    if (!existing) {
      const client: OauthClientRecord = { id: DASHBOARD_CLIENT_ID, name: 'Dashboard', secretHash: sha256(secret), redirectUris, grantTypes, scopes, firstParty: true, createdAt: now };
      await insertClient(trx, client);
      await insertAuditEntry(trx, { kind: 'client-created', clientId: DASHBOARD_CLIENT_ID, details: clientDetails(client) }, now);
      return client;
    }
    const same = (a: string[], b: string[]) => a.length === b.length && a.every((value) => b.includes(value));
    if (existing.secretHash !== sha256(secret)) await replaceClientSecret(trx, DASHBOARD_CLIENT_ID, sha256(secret), now);
    if (!same(existing.redirectUris, redirectUris)) await updateClientRedirectUris(trx, DASHBOARD_CLIENT_ID, redirectUris);
    if (!same(existing.grantTypes, grantTypes) || !same(existing.scopes, scopes)) await updateClientPermissions(trx, DASHBOARD_CLIENT_ID, grantTypes, scopes);
    return { ...existing, secretHash: sha256(secret), redirectUris, grantTypes, scopes };
  });
}
