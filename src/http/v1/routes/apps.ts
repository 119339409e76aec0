// The apps an account has authorized, and revoking one: what the account pages
// (/account/apps) offer a signed-in browser, as /v1 operations any app holding `apps:manage` can
// call (the dashboard is one). Apps belong to an account, not to a system: `{user}` is the token's
// own account, as @me or its id. An app cannot revoke itself here (409 `calling-app`): that would
// be a sign-out, which the token revocation endpoint is for.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { listAuthorizedApps, revokeAuthorizedApp, type AuthorizedApp as Authorized } from '../../../auth/authorized-apps.js';
import type { Schema } from '../../../db/tables.js';
import { Problem } from '../../../domain/problems.js';
import type { StorageCrypto } from '../../../security/crypto.js';
import { NoQuery, UserParams, UserRef } from '../params.js';
import { errorResponses, security } from '../route-schema.js';

export interface AppRoutesOptions {
  db: Kysely<Schema>;
  /** Grants are stored sealed. */
  crypto: StorageCrypto;
}

/** Client ids: 22 base64url characters when registered, a readable name for the service's own. */
const ClientId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a client id: 1 to 64 letters, digits, - or _')
  .describe('The app’s OAuth client id (`clientId` in the list).');

const AppParams = z.strictObject({ user: UserRef, client: ClientId });

export const AuthorizedApp = z
  .strictObject({
    clientId: z.string().describe('The app’s OAuth client id.'),
    name: z.string().describe('The app’s name, as its developer registered it.'),
    scopes: z.array(z.string()).describe('What the account allowed it, all its authorizations together (OAuth scopes).'),
    calling: z.boolean().describe('true for the app making this request: it cannot revoke itself here.'),
  })
  .meta({ id: 'AuthorizedApp' });

const AppList = z.strictObject({ data: z.array(AuthorizedApp).describe('By name.') });

/** The account the token was issued to, when `{user}` names it; refused otherwise. */
function accountOf(request: FastifyRequest, user: string): { accountId: string; clientId: string } {
  const grant = request.grant;
  if (!grant) throw new Error('an apps route ran without a grant');
  if (grant.userId === null) throw new Problem('user-token-required', 'apps are authorized by an account: use a token issued to a user');
  if (user !== '@me' && user !== grant.userId) throw new Problem('not-matching-oauth', 'an account’s apps are seen and revoked with its own token, as @me');
  return { accountId: grant.userId, clientId: grant.clientId };
}

function shown(apps: Authorized[], callingClientId: string) {
  return apps.map((app) => ({ clientId: app.clientId, name: app.clientName, scopes: app.scopes, calling: app.clientId === callingClientId }));
}

export const appRoutes: FastifyPluginAsyncZod<AppRoutesOptions> = async (app, { db, crypto }) => {
  app.get(
    '/apps',
    {
      config: { scope: 'apps:manage' },
      schema: {
        tags: ['Apps'],
        summary: 'List the apps you authorized',
        description:
          'Every app (OAuth client) the token’s account has authorized and not revoked, with the scopes it was granted, sorted by name; the app making the request is marked `calling`. Only for the token’s own account (`@me` or its id; another id is 403 `not-matching-oauth`) and a user’s token (403 `user-token-required`). Other accounts of the same system have apps of their own.',
        security: security('apps:manage'),
        params: UserParams,
        querystring: NoQuery,
        response: { 200: AppList, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { accountId, clientId } = accountOf(request, request.params.user);
      return { data: shown(await listAuthorizedApps(db, crypto, accountId), clientId) };
    },
  );

  app.post(
    '/apps/:client/revoke',
    {
      config: { scope: 'apps:manage', writes: true },
      schema: {
        tags: ['Apps'],
        summary: 'Revoke an app’s access',
        description:
          'Ends every authorization the token’s account gave the app, with every code, access token and refresh token issued under them, at once and in every process; the app’s tokens answer 401 from then on and it receives no more events for this account. Answers the apps that remain. An app the account has not authorized (or an unknown client) is 404 `unknown-app`, and nothing changes. The app making the request cannot revoke itself here (409 `calling-app`): it signs out by revoking its own token (`POST /auth/oauth2/revoke`).',
        security: security('apps:manage'),
        params: AppParams,
        querystring: NoQuery,
        body: z.strictObject({}),
        response: { 200: AppList, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { accountId, clientId } = accountOf(request, request.params.user);
      const target = request.params.client;
      if (target === clientId) throw new Problem('calling-app', 'an app cannot revoke itself here; to end its access, sign out of it', 'client');
      if (!(await revokeAuthorizedApp(db, crypto, accountId, target))) throw new Problem('unknown-app', 'you have not authorized this app, or its access has already ended', 'client');
      await request.server.audit.record({ kind: 'revocation', userId: accountId, clientId: target, ip: request.ip, details: { by: 'user', via: clientId } });
      return { data: shown(await listAuthorizedApps(db, crypto, accountId), clientId) };
    },
  );
};
