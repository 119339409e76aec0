// What every sign-in method ends with, whichever proved who the user is (Discord, a one-time
// login link, the development login): the user and their system are recorded, and the browser
// session is started.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { recordSignIn } from '../db/repositories/users.js';
import type { Schema } from '../db/tables.js';
import type { BrowserSession } from './browser-session.js';

export async function signInUser(
  db: Kysely<Schema>,
  session: BrowserSession,
  request: FastifyRequest,
  reply: FastifyReply,
  user: { id: string; username: string | null },
): Promise<void> {
  await recordSignIn(db, user, Date.now());
  await session.signIn(request, reply, user.id);
}

/** The Discord user id typed into the development login, or undefined when it is not one. */
export function devLoginUserId(raw: unknown): string | undefined {
  const userId = typeof raw === 'string' ? raw.trim() : '';
  return /^\d{17,20}$/.test(userId) ? userId : undefined;
}
