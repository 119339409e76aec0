// Autoproxy settings of the caller's own system: read, set one scope's entry, remove it, and apply
// a state change the proxy engine decided (the bot's small write after a latch or an escape).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { applyAutoproxyState, listAutoproxy, removeAutoproxy, setAutoproxy } from '../../../db/repositories/autoproxy.js';
import { isAccountOf } from '../../../db/repositories/accounts.js';
import { findClient } from '../../../db/repositories/oauth-clients.js';
import type { Schema } from '../../../db/tables.js';
import { AUTOPROXY_MODES, Autoproxy, AutoproxyStateAnswer, AutoproxyStateChange, MAX_AUTOPROXY_ENTRIES, RemoveAutoproxyBody, SetAutoproxyBody, toAutoproxy } from '../../../domain/autoproxy.js';
import { isOwner } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { NoQuery, UserParams } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { targetOf, type Target } from '../target.js';

function requireOwner({ viewer, system }: Target): void {
  if (!isOwner(viewer, system.id)) throw new Problem('not-matching-oauth', 'autoproxy settings are their owner’s alone; use @me');
}

export const autoproxyRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  /** An entry's `account`: null for every account, else one of the system's accounts (404 `unknown-account` otherwise). */
  async function accountOfEntry(system: { id: number; userId: string }, account: string | undefined): Promise<string | null> {
    if (account === undefined) return null;
    if (!(await isAccountOf(db, system, account))) throw new Problem('unknown-account', 'account: not an account of this system', 'account');
    return account;
  }

  app.get(
    '/autoproxy',
    {
      config: { scope: 'system:read' },
      schema: {
        tags: ['Autoproxy'],
        summary: 'Your autoproxy entries',
        description: 'Every entry of your system, by scope label. Owner only (the same entries appear in your own system read as `systemAutoproxy`).',
        security: security('system:read'),
        params: UserParams,
        querystring: NoQuery,
        response: { 200: z.strictObject({ data: z.array(Autoproxy) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const target = targetOf(request);
      requireOwner(target);
      return { data: (await listAutoproxy(db, target.system.id)).map(toAutoproxy) };
    },
  );

  app.post(
    '/autoproxy',
    {
      config: { scope: 'system:write', writes: true },
      schema: {
        tags: ['Autoproxy'],
        summary: 'Set the autoproxy entry of one scope',
        description: `Creates or replaces the entry of \`serverId\` (\`@global\`, a server, or \`<server>/<channel>\`); the most specific entry present is in effect, even in \`off\` mode. Modes: \`off\`; \`alter\` (needs \`autoproxyAlter\`); \`latch\` (optionally started on \`autoproxyAlter\` at \`lastLatchTimestamp\`, default now); \`front\` (the alter of the newest front push); or an integration’s client id (that client’s newest push, the origin’s form). At most ${MAX_AUTOPROXY_ENTRIES} entries per system. With \`account\` (one of the system’s Discord accounts) the entry is that account’s alone and wins over the system’s entry of the same scope for it, so autoproxy can be set or turned off for one account without touching the others (404 \`unknown-account\` for an id that is not an account of the system). The entry’s \`revision\` moves on.`,
        security: security('system:write'),
        params: UserParams,
        querystring: NoQuery,
        body: SetAutoproxyBody,
        response: { 200: z.strictObject({ data: Autoproxy }), ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { system } = targetOf(request);
      const body = request.body;
      if (!(AUTOPROXY_MODES as readonly string[]).includes(body.autoproxyMode) && !(await findClient(db, body.autoproxyMode))) {
        throw new Problem('validation', `autoproxyMode: must be one of ${AUTOPROXY_MODES.join(', ')}, or the client id of a registered integration`, 'autoproxyMode');
      }
      const alterId = body.autoproxyAlter ?? null;
      const latchAt = body.autoproxyMode === 'latch' && alterId !== null ? (body.lastLatchTimestamp ? Date.parse(body.lastLatchTimestamp) : Date.now()) : null;
      const accountId = await accountOfEntry(system, body.account);
      const entry = await setAutoproxy(db, system.id, { scope: body.serverId, accountId, mode: body.autoproxyMode, alterId, lastLatchAt: latchAt });
      return { data: toAutoproxy(entry) };
    },
  );

  app.post(
    '/autoproxy/remove',
    {
      config: { scope: 'system:write', writes: true },
      schema: {
        tags: ['Autoproxy'],
        summary: 'Remove the autoproxy entry of one scope',
        description: 'The broader scope’s entry applies again (for `account`, the system’s entry of the scope). `removed` is false when there was no entry (not an error).',
        security: security('system:write'),
        params: UserParams,
        querystring: NoQuery,
        body: RemoveAutoproxyBody,
        response: { 200: z.strictObject({ removed: z.boolean() }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { system } = targetOf(request);
      return { removed: await removeAutoproxy(db, system.id, request.body.serverId, await accountOfEntry(system, request.body.account)) };
    },
  );

  app.post(
    '/autoproxy/state',
    {
      config: { scope: 'messages:write', writes: true },
      schema: {
        tags: ['Autoproxy'],
        summary: 'Apply a proxy-engine state change',
        description: 'For the bot: the latch set or cleared, or an entry turned off by an escape, when no message is recorded with it. Conditional: `applied` is false (200) when the entry no longer has `revision` (the owner changed it), is in another mode, or its latch is newer than `at`.',
        security: security('messages:write'),
        params: UserParams,
        querystring: NoQuery,
        body: AutoproxyStateChange,
        response: { 200: AutoproxyStateAnswer, ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { system } = targetOf(request);
      return db.transaction().execute(async (trx) => {
        const applied = await applyAutoproxyState(trx, system.id, request.body);
        const { revision } = await trx.selectFrom('systems').select('revision').where('id', '=', system.id).executeTakeFirstOrThrow();
        return { applied, revision: Number(revision) };
      });
    },
  );
};
