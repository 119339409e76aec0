// The account pages: sign in outside an authorization request, see the apps you authorized and
// revoke them (after a confirmation page), sign out.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import { findUser } from '../db/repositories/users.js';
import { devLoginUserId, signInUser } from './sign-in.js';
import type { Schema } from '../db/tables.js';
import type { StorageCrypto } from '../security/crypto.js';
import { frameFor } from './pages/frame.js';
import { listAuthorizedApps, revokeAuthorizedApp } from './authorized-apps.js';
import type { BrowserSession } from './browser-session.js';
import { USER_ID_HINT, accountLabel, appsPage, errorPage, loginPage, revokeConfirmPage, signOutPage, type PageFrame } from './pages/pages.js';

export interface AccountDependencies {
  config: Config;
  db: Kysely<Schema>;
  crypto: StorageCrypto;
  session: BrowserSession;
}

const NOTICES: Record<string, string> = {
  revoked: 'Access revoked. The app can no longer use your account.',
  'signed-out': 'You are signed out.',
};

export async function accountRoutes(app: FastifyInstance, { config, db, crypto, session }: AccountDependencies) {
  await app.register(formbody, { bodyLimit: 4096 });
  const html = 'text/html; charset=utf-8';
  const bare: PageFrame = { instanceName: config.instanceName };
  const frameOf = (request: FastifyRequest) => frameFor(config.instanceName, session.signedInUser(request));

  /** The frame of a signed-in page: the account, with a sign-out button carrying its CSRF token. */
  async function signedInFrame(request: FastifyRequest, reply: FastifyReply, userId: string): Promise<{ frame: PageFrame; csrf: string }> {
    const user = await findUser(db, userId);
    const csrf = session.csrfToken(request, reply, 'account');
    return { frame: { ...bare, account: { label: accountLabel(userId, user?.username), signOutCsrf: csrf } }, csrf };
  }

  const renderLogin = (request: FastifyRequest, reply: FastifyReply, error?: string, typedUserId?: string, notice?: string) =>
    reply.code(error ? 400 : 200).type(html).send(
      loginPage({
        frame: bare,
        clientName: undefined,
        discordUrl: config.discord.oauth ? '/auth/discord/start' : undefined,
        devLoginAction: config.devLogin ? '/account/dev-login' : undefined,
        csrf: session.csrfToken(request, reply, 'account'),
        error,
        typedUserId,
        notice,
      }),
    );

  app.get<{ Querystring: { notice?: string } }>('/account/login', async (request, reply) =>
    renderLogin(request, reply, undefined, undefined, request.query.notice ? NOTICES[request.query.notice] : undefined),
  );

  app.post<{ Body: Record<string, unknown> }>('/account/dev-login', async (request, reply) => {
    if (!config.devLogin) return reply.code(404).type(html).send(errorPage('Not found', 'The development login is disabled.', undefined, frameOf(request)));
    if (!session.verifyCsrf(request, 'account', request.body?.csrf)) return reply.code(403).type(html).send(errorPage('Request refused', 'The form expired or came from another site.', undefined, frameOf(request)));
    const userId = devLoginUserId(request.body?.user_id);
    if (!userId) {
      const typed = typeof request.body?.user_id === 'string' ? request.body.user_id.slice(0, 40) : '';
      return renderLogin(request, reply, `“${typed}” is not a Discord user id. ${USER_ID_HINT}`, typed);
    }
    await signInUser(db, session, request, reply, { id: userId, username: null }, 'dev-login');
    return reply.redirect('/account/apps', 303);
  });

  app.get<{ Querystring: { notice?: string } }>('/account/apps', async (request, reply) => {
    const userId = session.signedInUser(request);
    if (!userId) return reply.redirect('/account/login', 303);
    const apps = await listAuthorizedApps(db, crypto, userId);
    const { frame } = await signedInFrame(request, reply, userId);
    return reply.header('cache-control', 'no-store').type(html).send(appsPage({ frame, apps, notice: request.query.notice ? NOTICES[request.query.notice] : undefined }));
  });

  app.get<{ Params: { clientId: string } }>('/account/apps/:clientId/revoke', async (request, reply) => {
    const userId = session.signedInUser(request);
    if (!userId) return reply.redirect('/account/login', 303);
    const authorized = (await listAuthorizedApps(db, crypto, userId)).find((a) => a.clientId === request.params.clientId);
    const { frame, csrf } = await signedInFrame(request, reply, userId);
    if (!authorized) return reply.code(404).type(html).send(errorPage('Not found', 'That app has no access to your account.', undefined, frame));
    return reply.header('cache-control', 'no-store').type(html).send(revokeConfirmPage({ frame, app: authorized, csrf }));
  });

  app.post<{ Params: { clientId: string }; Body: Record<string, unknown> }>('/account/apps/:clientId/revoke', async (request, reply) => {
    const userId = session.signedInUser(request);
    if (!userId) return reply.redirect('/account/login', 303);
    if (!session.verifyCsrf(request, 'account', request.body?.csrf)) return reply.code(403).type(html).send(errorPage('Request refused', 'The form expired or came from another site.', undefined, frameOf(request)));
    const revoked = await revokeAuthorizedApp(db, crypto, userId, request.params.clientId);
    if (!revoked) return reply.code(404).type(html).send(errorPage('Not found', 'That app has no access to your account.', undefined, frameOf(request)));
    await request.server.audit.record({ kind: 'revocation', userId, clientId: request.params.clientId, ip: request.ip, details: { by: 'user' } });
    return reply.redirect('/account/apps?notice=revoked', 303);
  });

  app.get('/account/sign-out', async (request, reply) => {
    const userId = session.signedInUser(request);
    if (!userId) return reply.redirect('/account/login', 303);
    const { frame, csrf } = await signedInFrame(request, reply, userId);
    return reply.header('cache-control', 'no-store').type(html).send(signOutPage({ frame, csrf }));
  });

  app.post<{ Body: Record<string, unknown> }>('/account/sign-out', async (request, reply) => {
    if (!session.verifyCsrf(request, 'account', request.body?.csrf)) return reply.code(403).type(html).send(errorPage('Request refused', 'The form expired or came from another site.', undefined, frameOf(request)));
    // Both sessions end: this service's cookie and the authorization server's session, so a
    // silent authorization (prompt=none) asks to sign in again.
    await session.signOut(request, reply);
    return reply.redirect('/account/login?notice=signed-out', 303);
  });
}
