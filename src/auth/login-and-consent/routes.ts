// The authorization step's pages: oidc-provider sends the browser to /interaction/:uid when it
// needs the user to sign in (prompt "login") or to approve a client (prompt "consent").
// - login: a browser already signed in (switchboard_user cookie, set by any sign-in method)
//   continues at once unless the client forced a fresh login; otherwise the sign-in page.
// - consent: the client's name and each missing scope in plain words; approve or deny. Only for
//   the user this browser is signed in as: if the cookie names someone else (or nobody) by the
//   time the page is shown or answered, nothing is approved and the user starts again.
// Forms carry CSRF tokens bound to the interaction.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import { errors, type InteractionResults } from 'oidc-provider';
import type { Config } from '../../config/config.js';
import { findUser } from '../../db/repositories/users.js';
import { devLoginUserId, signInUser } from '../sign-in.js';
import type { Schema } from '../../db/tables.js';
import type { BrowserSession } from '../browser-session.js';
import { DASHBOARD_CLIENT_ID } from '../clients.js';
import { OAUTH_ROUTES } from '../provider.js';
import { frameFor } from '../pages/frame.js';
import { USER_ID_HINT, accountLabel, consentPage, errorPage, loginPage } from '../pages/pages.js';
import { boundUserOf } from '../bound-user.js';

export interface LoginAndConsentDependencies {
  config: Config;
  db: Kysely<Schema>;
  provider: Provider;
  session: BrowserSession;
}


export async function loginAndConsentRoutes(app: FastifyInstance, { config, db, provider, session }: LoginAndConsentDependencies) {
  await app.register(formbody, { bodyLimit: 4096 });
  const frame = { instanceName: config.instanceName };
  const frameOf = (request: FastifyRequest) => frameFor(config.instanceName, session.signedInUser(request));

  const details = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      return await provider.interactionDetails(request.raw, reply.raw);
    } catch (error) {
      // The provider refuses an interaction whose session ended or changed hands (sign-out, a
      // sign-in as someone else, SESSION_TTL); say so in words.
      if (error instanceof errors.SessionNotFound) {
        error.error_description = 'This request has expired, or this browser signed out or signed in as someone else since it started. Nothing was approved; start again from the app.';
      }
      throw error;
    }
  };

  async function finish(request: FastifyRequest, reply: FastifyReply, result: InteractionResults, merge = false) {
    const redirectTo = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: merge });
    return reply.redirect(redirectTo, 303);
  }

  async function clientName(clientId: unknown): Promise<string> {
    const client = typeof clientId === 'string' ? await provider.Client.find(clientId) : undefined;
    return client?.clientName ?? (typeof clientId === 'string' ? clientId : 'An app');
  }

  /** Refuses a consent step whose account is not the one this browser is signed in as now. */
  function signedInAsSomeoneElse(request: FastifyRequest, reply: FastifyReply, accountId: string | undefined) {
    if (accountId !== undefined && session.signedInUser(request) === accountId) return undefined;
    return reply
      .code(409)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(errorPage('Signed in as someone else', 'This browser is no longer signed in as the account this request was started for. Nothing was approved; start again from the app.', undefined, frameOf(request)));
  }

  /** Refuses a request bound to one user (login_hint) when the browser's account is someone else. */
  function boundToSomeoneElse(request: FastifyRequest, reply: FastifyReply, params: Record<string, unknown>, accountId: string | undefined) {
    const bound = boundUserOf(params);
    if (bound === undefined || accountId === undefined || accountId === bound) return undefined;
    return reply
      .code(409)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(errorPage('This request is for another account', `This request was started for the Discord account ${bound}, and this browser is signed in as ${accountId}. Nothing was approved. If you did not start it, someone may be trying to link your account to theirs; if you did, sign in as that account and start again.`, undefined, frameOf(request)));
  }

  function renderLogin(request: FastifyRequest, reply: FastifyReply, uid: string, name: string, error?: string, typedUserId?: string) {
    const page = loginPage({
      frame,
      typedUserId,
      clientName: name,
      discordUrl: config.discord.oauth ? `/auth/discord/start?interaction=${encodeURIComponent(uid)}` : undefined,
      devLoginAction: config.devLogin ? `/interaction/${encodeURIComponent(uid)}/dev-login` : undefined,
      csrf: session.csrfToken(request, reply, `interaction:${uid}`),
      error,
    });
    return reply.code(error ? 400 : 200).type('text/html; charset=utf-8').send(page);
  }

  app.get<{ Params: { uid: string } }>('/interaction/:uid', async (request, reply) => {
    const interaction = await details(request, reply);
    const { uid, prompt, params } = interaction;
    const name = await clientName(params.client_id);

    if (prompt.name === 'login') {
      const signedIn = session.signedInUser(request);
      const refusedForBinding = boundToSomeoneElse(request, reply, params, signedIn ?? interaction.session?.accountId);
      if (refusedForBinding) return refusedForBinding;
      const forced = prompt.reasons.includes('login_prompt') || prompt.reasons.includes('max_age');
      if (signedIn && !forced && (await findUser(db, signedIn))) {
        // The sign-in's own time, so the provider's session (and auth_time) count from it.
        const signedInAt = session.signedInAt(request);
        return finish(request, reply, { login: { accountId: signedIn, ...(signedInAt ? { ts: Math.floor(signedInAt / 1000) } : {}) } });
      }
      return renderLogin(request, reply, uid, name);
    }

    if (prompt.name === 'consent') {
      const accountId = interaction.session?.accountId;
      const refused = signedInAsSomeoneElse(request, reply, accountId) ?? boundToSomeoneElse(request, reply, params, accountId);
      if (refused) return refused;
      // The dashboard is this service itself: nothing to ask the member (its scopes are fixed at
      // registration, src/auth/clients.ts), so it is approved as the consent form would.
      if (params.client_id === DASHBOARD_CLIENT_ID && accountId !== undefined) return approve(request, reply, interaction);
      const user = accountId ? await findUser(db, accountId) : undefined;
      const missing = (prompt.details.missingOIDCScope as string[] | undefined) ?? [];
      const requested = typeof params.scope === 'string' ? params.scope.split(' ') : missing;
      return reply.type('text/html; charset=utf-8').send(
        consentPage({
          frame,
          clientName: name,
          scopes: requested.filter(Boolean),
          userLabel: accountId ? accountLabel(accountId, user?.username) : 'unknown',
          action: `/interaction/${encodeURIComponent(uid)}/consent`,
          switchAccountAction: `/interaction/${encodeURIComponent(uid)}/switch-account`,
          csrf: session.csrfToken(request, reply, `interaction:${uid}`),
        }),
      );
    }

    return reply.code(400).type('text/html; charset=utf-8').send(errorPage('Unsupported step', `The authorization step "${prompt.name}" is not supported.`, undefined, frameOf(request)));
  });

  app.post<{ Params: { uid: string }; Body: Record<string, unknown> }>('/interaction/:uid/dev-login', async (request, reply) => {
    if (!config.devLogin) return reply.code(404).type('text/html; charset=utf-8').send(errorPage('Not found', 'The development login is disabled.', undefined, frameOf(request)));
    const interaction = await details(request, reply);
    if (interaction.prompt.name !== 'login') return reply.code(400).type('text/html; charset=utf-8').send(errorPage('Wrong step', 'This request is not waiting for a sign-in.', undefined, frameOf(request)));
    if (!session.verifyCsrf(request, `interaction:${interaction.uid}`, request.body?.csrf)) {
      return reply.code(403).type('text/html; charset=utf-8').send(errorPage('Request refused', 'The form expired or came from another site. Go back and try again.', undefined, frameOf(request)));
    }
    const userId = devLoginUserId(request.body?.user_id);
    if (!userId) {
      const typed = typeof request.body?.user_id === 'string' ? request.body.user_id.slice(0, 40) : '';
      return renderLogin(request, reply, interaction.uid, await clientName(interaction.params.client_id), `“${typed}” is not a Discord user id. ${USER_ID_HINT}`, typed);
    }
    const refusedForBinding = boundToSomeoneElse(request, reply, interaction.params, userId);
    if (refusedForBinding) return refusedForBinding;
    await signInUser(db, session, request, reply, { id: userId, username: null }, 'dev-login');
    if (interaction.session?.uid && interaction.session.accountId !== userId) {
      // Signing in as someone else (prompt=login) ended the previous user's provider session;
      // the request goes on in a new one, as oidc-provider itself does when switching accounts.
      delete (interaction.session as { uid?: string }).uid;
      await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
    }
    return finish(request, reply, { login: { accountId: userId } });
  });

  app.post<{ Params: { uid: string }; Body: Record<string, unknown> }>('/interaction/:uid/consent', async (request, reply) => {
    const interaction = await details(request, reply);
    const { prompt, params, session: opSession } = interaction;
    if (prompt.name !== 'consent' || !opSession) return reply.code(400).type('text/html; charset=utf-8').send(errorPage('Wrong step', 'This request is not waiting for your approval.', undefined, frameOf(request)));
    if (!session.verifyCsrf(request, `interaction:${interaction.uid}`, request.body?.csrf)) {
      return reply.code(403).type('text/html; charset=utf-8').send(errorPage('Request refused', 'The form expired or came from another site. Go back and try again.', undefined, frameOf(request)));
    }
    const refused = signedInAsSomeoneElse(request, reply, opSession.accountId) ?? boundToSomeoneElse(request, reply, params, opSession.accountId);
    if (refused) return refused;
    const decision = request.body?.decision;
    if (decision === 'deny') {
      await request.server.audit.record({ kind: 'consent-denied', userId: opSession.accountId, clientId: params.client_id as string, ip: request.ip });
      return finish(request, reply, { error: 'access_denied', error_description: 'The user denied the request.' });
    }
    if (decision !== 'approve') {
      return reply.code(400).type('text/html; charset=utf-8').send(errorPage('Choose an answer', 'Allow or deny the request.', undefined, frameOf(request)));
    }
    return approve(request, reply, interaction);
  });

  /** Grants what the consent step asks for (the member approved, or the client is the dashboard). */
  async function approve(request: FastifyRequest, reply: FastifyReply, interaction: Awaited<ReturnType<typeof details>>) {
    const { prompt, params, session: opSession, grantId } = interaction;
    const accountId = opSession?.accountId as string;
    const grant = grantId ? await provider.Grant.find(grantId) : new provider.Grant({ accountId, clientId: params.client_id as string });
    if (!grant) return reply.code(400).type('text/html; charset=utf-8').send(errorPage('Request expired', 'Start again from the app.', undefined, frameOf(request)));
    const missing = prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims?.length) grant.addOIDCClaims(missing.missingOIDCClaims);
    const savedGrantId = await grant.save();
    await request.server.audit.record({ kind: 'consent', userId: accountId, clientId: params.client_id as string, ip: request.ip, details: { scopes: missing.missingOIDCScope ?? [] } });
    return finish(request, reply, { consent: { grantId: savedGrantId } }, true);
  }

  // "Not you?" on the consent page: sign this browser out and start the same authorization again,
  // so the person signs in as themselves and the app still gets its answer (its state and PKCE
  // challenge are in the request). A device flow starts again at the code page instead.
  app.post<{ Params: { uid: string }; Body: Record<string, unknown> }>('/interaction/:uid/switch-account', async (request, reply) => {
    const interaction = await details(request, reply);
    if (!session.verifyCsrf(request, `interaction:${interaction.uid}`, request.body?.csrf)) {
      return reply.code(403).type('text/html; charset=utf-8').send(errorPage('Request refused', 'The form expired or came from another site. Go back and try again.', undefined, frameOf(request)));
    }
    const again = typeof interaction.params.redirect_uri === 'string' ? restartUrl(interaction.params) : OAUTH_ROUTES.code_verification;
    await session.signOut(request, reply);
    return reply.redirect(again, 303);
  });
}

/** The authorization request this interaction came from, to be made again. */
function restartUrl(params: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (typeof value === 'string') query.set(name, value);
  return `${OAUTH_ROUTES.authorization}?${query.toString()}`;
}
