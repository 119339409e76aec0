// The accounts of a system (issue 29, domain/accounts.ts): the owning account makes a one-time
// code, another account redeems it with its own token, and an account is removed by the owner or
// by itself. Each is a write of the caller's own system (target.ts checks `{user}`).
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { insertAccountCode, listAccounts, redeemAccountCode, removeAccount, type AccountActor } from '../../../db/repositories/accounts.js';
import type { Schema } from '../../../db/tables.js';
import {
  ACCOUNT_CODE_HASH_PURPOSE,
  ACCOUNT_CODE_TTL_MS,
  AccountCode,
  mayRemoveAccount,
  newAccountCode,
  normaliseAccountCode,
  RedeemAccountCodeBody,
  SystemAccounts,
} from '../../../domain/accounts.js';
import { Problem } from '../../../domain/problems.js';
import { UserId } from '../../../domain/values.js';
import type { StorageCrypto } from '../../../security/crypto.js';
import { NoQuery, UserParams, UserRef } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { targetOf } from '../target.js';

export interface AccountRoutesOptions {
  db: Kysely<Schema>;
  /** Codes are stored as keyed hashes: short enough to type, so a plain hash could be reversed. */
  crypto: StorageCrypto;
}

const AccountParams = z.strictObject({ user: UserRef, account: UserId.describe('The Discord id of the account to remove.') });

/** The token's account, the one acting (never null: these routes are writes, which need a user token). */
function actorOf(request: { grant: { userId: string | null; clientId: string } | null; ip: string }): AccountActor {
  const grant = request.grant;
  if (!grant?.userId) throw new Error('an accounts route ran without a user token');
  return { accountId: grant.userId, clientId: grant.clientId, ip: request.ip };
}

export const accountRoutes: FastifyPluginAsyncZod<AccountRoutesOptions> = async (app, { db, crypto }) => {
  app.post(
    '/system/accounts/code',
    {
      config: { scope: 'system:write', writes: true },
      schema: {
        tags: ['System'],
        summary: 'Make a code for another account to join',
        description:
          'Only the owning account (`associatedUserId`) makes codes (another account of the system gets 403 `not-matching-oauth`). The code is valid for 10 minutes and once: another Discord account redeems it with `POST /v1/users/@me/system/accounts/redeem` and its own token, and from then on is an account of this system. The service keeps only a keyed hash of the code.',
        security: security('system:write'),
        params: UserParams,
        querystring: NoQuery,
        body: z.strictObject({}),
        response: { 201: z.strictObject({ data: AccountCode }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { system } = targetOf(request);
      const actor = actorOf(request);
      if (system.userId !== actor.accountId) throw new Problem('not-matching-oauth', 'only the account that owns the system makes codes for other accounts');
      const code = newAccountCode((count) => randomBytes(count));
      const now = Date.now();
      const expiresAt = now + ACCOUNT_CODE_TTL_MS;
      const codeHash = crypto.lookupHash(ACCOUNT_CODE_HASH_PURPOSE, code);
      await insertAccountCode(db, { codeHash, systemId: system.id, createdBy: actor.accountId, now, expiresAt });
      reply.code(201);
      return { data: { code, expiresAt: new Date(expiresAt).toISOString() } };
    },
  );

  app.post(
    '/system/accounts/redeem',
    {
      config: { scope: 'system:write', writes: true },
      schema: {
        tags: ['System'],
        summary: 'Join a system with a code',
        description: [
          'With a token of the account joining, as `@me`. The account becomes one of the system’s accounts: `{user}` as its id, and `@me` from its tokens, are that system from now on; its tokens and apps stay its own.',
          '',
          'An account belongs to one system at most. Its own system (the one its first sign-in made) is deleted in the same transaction when it is empty (no alters, tags or switches); when it holds anything the answer is 409 `account-has-system` unless the body says `discardOwnSystem: true`, and then it is deleted with everything in it. An account that already belongs to another system, or owns one other accounts have joined, gets 409 `account-has-system` too. A code that is unknown, used or past its 10 minutes is 422 `invalid-account-code`. A refused redeem leaves the code usable.',
        ].join('\n'),
        security: security('system:write'),
        params: UserParams,
        querystring: NoQuery,
        body: RedeemAccountCodeBody,
        response: { 200: z.strictObject({ data: SystemAccounts }), ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const { user } = request.params;
      const actor = actorOf(request);
      // The account joining is the token's own: naming another account of its system would read as if it joined.
      if (user !== '@me' && user !== actor.accountId) throw new Problem('not-matching-oauth', 'redeem a code with the joining account’s own token, as @me');
      const code = normaliseAccountCode(request.body.code);
      if (code === undefined) throw new Problem('invalid-account-code', 'this is not a code: ask the system’s owner for one (/system accounts add)', 'code');
      const now = Date.now();
      const joined = await redeemAccountCode(db, {
        codeHash: crypto.lookupHash(ACCOUNT_CODE_HASH_PURPOSE, code),
        discardOwnSystem: request.body.discardOwnSystem === true,
        actor,
        now,
      });
      return { data: { associatedUserId: joined.ownerId, subAccounts: await listAccounts(db, joined.systemId) } };
    },
  );

  app.post(
    '/system/accounts/:account/remove',
    {
      config: { scope: 'system:write', writes: true },
      schema: {
        tags: ['System'],
        summary: 'Remove an account from the system',
        description:
          'The owning account removes any other account; any other account may remove itself. The owning account cannot be removed (409 `owner-account`); an id that is not an account of the system is 404 `unknown-account`. The removed account’s grants end at once (its apps lose access, in every process) and it gets a new, empty system of its own.',
        security: security('system:write'),
        params: AccountParams,
        querystring: NoQuery,
        body: z.strictObject({}),
        response: { 200: z.strictObject({ data: SystemAccounts }), ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { system } = targetOf(request);
      const actor = actorOf(request);
      const { account } = request.params;
      const allowed = mayRemoveAccount({ ownerId: system.userId }, actor.accountId, account);
      if (allowed === 'owner') throw new Problem('owner-account', 'the owning account cannot be removed; delete the system instead');
      if (allowed === 'not-allowed') throw new Problem('not-matching-oauth', 'only the owning account removes other accounts; an account may remove itself');
      await removeAccount(db, { systemId: system.id, accountId: account, actor, now: Date.now() });
      return { data: { associatedUserId: system.userId, subAccounts: await listAccounts(db, system.id) } };
    },
  );
};
