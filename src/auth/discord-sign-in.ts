// "Sign in with Discord": this service is a Discord OAuth client with the `identify` scope, and
// the Discord user id becomes the API's user id. The flow leaves from an interaction (or the
// account page) and comes back to a fixed callback URL; the state cookie ties the callback to the
// browser that started it, and where to return to is kept server-side in that signed cookie,
// never taken from the query (no open redirect).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import { signInUser } from './sign-in.js';
import type { Schema } from '../db/tables.js';
import { constantTimeEqual, randomSecret } from '../security/crypto.js';
import type { BrowserSession } from './browser-session.js';
import { frameFor } from './pages/frame.js';
import { errorPage } from './pages/pages.js';

const STATE_COOKIE = 'switchboard_discord_state';
const CALLBACK_PATH = '/auth/discord/callback';
const INTERACTION_UID = /^[A-Za-z0-9_-]{1,64}$/;

export interface DiscordSignInDependencies {
  config: Config;
  db: Kysely<Schema>;
  session: BrowserSession;
}

interface DiscordUser {
  id: string;
  username: string;
}

export async function discordSignInRoutes(app: FastifyInstance, { config, db, session }: DiscordSignInDependencies) {
  const oauth = config.discord.oauth;
  const apiBase = config.discord.apiBase;
  const redirectUri = `${config.publicUrl}${CALLBACK_PATH}`;
  const secure = config.publicUrl.startsWith('https:');

  const fail = (reply: FastifyReply, status: number, message: string) =>
    reply.code(status).type('text/html; charset=utf-8').send(errorPage('Sign-in failed', message, undefined, frameFor(config.instanceName, undefined)));

  app.get<{ Querystring: { interaction?: string } }>('/auth/discord/start', async (request, reply) => {
    if (!oauth) return fail(reply, 404, 'Sign in with Discord is not configured on this server.');
    const uid = request.query.interaction;
    if (uid !== undefined && !INTERACTION_UID.test(uid)) return fail(reply, 400, 'The sign-in link is malformed.');
    const state = randomSecret(24);
    const returnTo = uid ? `/interaction/${uid}` : '/account/apps';
    reply.setCookie(STATE_COOKIE, JSON.stringify({ state, returnTo }), {
      path: CALLBACK_PATH, httpOnly: true, sameSite: 'lax', secure, signed: true, maxAge: 600,
    });
    const url = new URL(`${apiBase}/oauth2/authorize`);
    url.search = new URLSearchParams({ client_id: oauth.clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'identify', state, prompt: 'none' }).toString();
    return reply.redirect(url.toString(), 303);
  });

  app.get<{ Querystring: { code?: string; state?: string; error?: string } }>(CALLBACK_PATH, async (request, reply) => {
    if (!oauth) return fail(reply, 404, 'Sign in with Discord is not configured on this server.');
    const raw = request.cookies[STATE_COOKIE];
    const unsigned = raw ? request.unsignCookie(raw) : undefined;
    reply.clearCookie(STATE_COOKIE, { path: CALLBACK_PATH });
    let saved: { state?: unknown; returnTo?: unknown } = {};
    try {
      saved = unsigned?.valid && unsigned.value ? (JSON.parse(unsigned.value) as typeof saved) : {};
    } catch {
      saved = {};
    }
    const { state, code, error } = request.query;
    if (typeof saved.state !== 'string' || typeof state !== 'string' || !constantTimeEqual(saved.state, state)) {
      return fail(reply, 400, 'The sign-in could not be verified (it expired or was started in another browser). Start again.');
    }
    if (error || typeof code !== 'string') return fail(reply, 400, 'Discord did not confirm the sign-in.');

    const user = await exchangeAndIdentify(apiBase, oauth, redirectUri, code).catch(() => undefined);
    if (!user) return fail(reply, 502, 'Discord could not be reached to confirm the sign-in. Try again in a moment.');

    await signInUser(db, session, request, reply, { id: user.id, username: user.username }, 'discord');
    const returnTo = typeof saved.returnTo === 'string' && saved.returnTo.startsWith('/') && !saved.returnTo.startsWith('//') ? saved.returnTo : '/account/apps';
    return reply.redirect(returnTo, 303);
  });
}

async function exchangeAndIdentify(
  apiBase: string,
  oauth: { clientId: string; clientSecret: string },
  redirectUri: string,
  code: string,
): Promise<DiscordUser | undefined> {
  // undici is loaded at the first sign-in, not at every start (about 110 modules, 30 ms, 2.5 MB).
  const { request: httpRequest } = await import('undici');
  const tokenResponse = await httpRequest(`${apiBase}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(oauth.clientId)}:${encodeURIComponent(oauth.clientSecret)}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }).toString(),
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const token = (await tokenResponse.body.json()) as { access_token?: unknown };
  if (tokenResponse.statusCode !== 200 || typeof token.access_token !== 'string') return undefined;

  const meResponse = await httpRequest(`${apiBase}/users/@me`, {
    headers: { authorization: `Bearer ${token.access_token}` },
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const me = (await meResponse.body.json()) as { id?: unknown; username?: unknown };
  if (meResponse.statusCode !== 200 || typeof me.id !== 'string' || !/^\d{17,20}$/.test(me.id)) return undefined;
  return { id: me.id, username: typeof me.username === 'string' ? me.username : me.id };
}
