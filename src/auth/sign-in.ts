// What every sign-in method ends with, whichever proved who the user is (Discord, a one-time
// login link, the development login): the user and their system are recorded, and the browser
// session is started, and the sign-in goes into the audit log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import { recordSignIn } from '../db/repositories/users.js';
import type { Schema } from '../db/tables.js';
import type { BrowserSession } from './browser-session.js';

export async function signInUser(
  db: Kysely<Schema>,
  session: BrowserSession,
  request: FastifyRequest,
  reply: FastifyReply,
  user: { id: string; username: string | null },
  method: 'discord' | 'login-link' | 'dev-login',
): Promise<void> {
  await recordSignIn(db, user, Date.now());
  await session.signIn(request, reply, user.id);
  await request.server.audit.record({ kind: 'sign-in', userId: user.id, ip: request.ip, details: { method } });
}

/** The Discord user id typed into the development login, or undefined when it is not one. */
export function devLoginUserId(raw: unknown): string | undefined {
  const userId = typeof raw === 'string' ? raw.trim() : '';
  return /^\d{17,20}$/.test(userId) ? userId : undefined;
}

/** A way a person can sign in on this installation, as start-up reports it. */
export interface SignInMethod {
  name: string;
  /** What enables it, for the operator. */
  enabledBy: string;
}

/**
 * The sign-in methods this configuration makes usable: "Sign in with Discord" when its OAuth
 * application is configured, one-time login links when a first-party client (the bot, in this
 * process or apart) can mint them, and the development login when enabled.
 */
export function signInMethods(config: Pick<Config, 'discord' | 'devLogin' | 'bot'>, hasFirstPartyClient: boolean): SignInMethod[] {
  const methods: SignInMethod[] = [];
  if (config.discord.oauth) methods.push({ name: 'Sign in with Discord', enabledBy: 'DISCORD_CLIENT_ID' });
  if (config.bot.token || hasFirstPartyClient) methods.push({ name: 'login links from the bot (/link)', enabledBy: config.bot.token ? 'DISCORD_TOKEN' : 'a first-party client' });
  if (config.devLogin) methods.push({ name: 'development login (any Discord user id, no password)', enabledBy: 'AUTH_DEV_LOGIN' });
  return methods;
}

/** What to tell an operator whose installation nobody can sign in to. */
export const NO_SIGN_IN_METHOD =
  'no sign-in method is usable: nobody can sign in to approve an app. Set DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET (Sign in with Discord), ' +
  'run the bot (DISCORD_TOKEN) for login links, or for development only set AUTH_DEV_LOGIN=true';
