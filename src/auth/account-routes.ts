// The account pages: sign in outside an authorization request, see the apps you authorized and
// revoke them.
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import { findUser } from '../db/repositories/users.js';
import { devLoginUserId, signInUser } from './sign-in.js';
import type { Schema } from '../db/tables.js';
import type { StorageCrypto } from '../security/crypto.js';
import { listAuthorizedApps, revokeAuthorizedApp } from './authorized-apps.js';
import type { BrowserSession } from './browser-session.js';
import { appsPage, errorPage, loginPage } from './pages/pages.js';

export interface AccountDependencies {
  config: Config;
  db: Kysely<Schema>;
  crypto: StorageCrypto;
  session: BrowserSession;
}

const NOTICES: Record<string, string> = { revoked: 'Access revoked. The app can no longer use your account.' };

export async function accountRoutes(app: FastifyInstance, { config, db, crypto, session }: AccountDependencies) {
  await app.register(formbody, { bodyLimit: 4096 });
  const html = 'text/html; charset=utf-8';

  app.get('/account/login', async (request, reply) => {
    return reply.type(html).send(
      loginPage({
        clientName: undefined,
        discordUrl: config.discord.oauth ? '/auth/discord/start' : undefined,
        devLoginAction: config.devLogin ? '/account/dev-login' : undefined,
        csrf: session.csrfToken(request, reply, 'account'),
      }),
    );
  });

  app.post<{ Body: Record<string, unknown> }>('/account/dev-login', async (request, reply) => {
    if (!config.devLogin) return reply.code(404).type(html).send(errorPage('Not found', 'The development login is disabled.'));
    if (!session.verifyCsrf(request, 'account', request.body?.csrf)) return reply.code(403).type(html).send(errorPage('Request refused', 'The form expired or came from another site.'));
    const userId = devLoginUserId(request.body?.user_id);
    if (!userId) return reply.code(400).type(html).send(errorPage('Sign-in failed', 'Enter a Discord user id: 17 to 20 digits.'));
    await signInUser(db, session, request, reply, { id: userId, username: null }, 'dev-login');
    return reply.redirect('/account/apps', 303);
  });

  app.get<{ Querystring: { notice?: string } }>('/account/apps', async (request, reply) => {
    const userId = session.signedInUser(request);
    if (!userId) return reply.redirect('/account/login', 303);
    const user = await findUser(db, userId);
    const apps = await listAuthorizedApps(db, crypto, userId);
    return reply.header('cache-control', 'no-store').type(html).send(
      appsPage({
        userLabel: user?.username ? `${user.username} (${userId})` : userId,
        apps,
        csrf: session.csrfToken(request, reply, 'account'),
        notice: request.query.notice ? NOTICES[request.query.notice] : undefined,
      }),
    );
  });

  app.post<{ Params: { clientId: string }; Body: Record<string, unknown> }>('/account/apps/:clientId/revoke', async (request, reply) => {
    const userId = session.signedInUser(request);
    if (!userId) return reply.redirect('/account/login', 303);
    if (!session.verifyCsrf(request, 'account', request.body?.csrf)) return reply.code(403).type(html).send(errorPage('Request refused', 'The form expired or came from another site.'));
    const revoked = await revokeAuthorizedApp(db, crypto, userId, request.params.clientId);
    if (!revoked) return reply.code(404).type(html).send(errorPage('Not found', 'That app has no access to your account.'));
    await request.server.audit.record({ kind: 'revocation', userId, clientId: request.params.clientId, ip: request.ip, details: { by: 'user' } });
    return reply.redirect('/account/apps?notice=revoked', 303);
  });

  app.post<{ Body: Record<string, unknown> }>('/account/sign-out', async (request, reply) => {
    if (!session.verifyCsrf(request, 'account', request.body?.csrf)) return reply.code(403).type(html).send(errorPage('Request refused', 'The form expired or came from another site.'));
    // Both sessions end: this service's cookie and the authorization server's session, so a
    // silent authorization (prompt=none) asks to sign in again.
    await session.signOut(request, reply);
    return reply.redirect('/account/login', 303);
  });
}
