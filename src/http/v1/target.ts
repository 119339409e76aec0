// `{user}` resolved once per request: after zod has validated the path, a preHandler of the
// /v1/users/{user} context turns it into the target system and the viewer (one query) and hangs
// them on the request; handlers read `targetOf(request)`. The checks that depend on `{user}` run
// here too: `@me` needs a user token (before anything is looked up), and a write must name the
// token's own system, by `@me` or the id of any of its accounts (after the lookup, which tells).
// Every account of a system resolves to it (system-lookup.ts), so the viewer of any of them is its
// owner for privacy (`isSelf`), while `viewer.userId` stays the account the token was issued to.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SystemForReader, SystemLookup } from '../../db/repositories/system-lookup.js';
import type { EventActor } from '../../domain/events.js';
import type { Viewer } from '../../domain/privacy.js';
import { Problem } from '../../domain/problems.js';
import type { SystemRecord } from '../../domain/system.js';

export interface Target {
  viewer: Viewer;
  system: Readonly<SystemRecord>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the /v1/users/{user} preHandler; null on every other route. */
    target: Target | null;
  }
}

/** Callback-style, like authentication.ts: a system held in memory resolves without a promise. */
export function createTargetResolver(systems: SystemLookup) {
  return function resolveTarget(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
    let lookup: ReturnType<typeof targetLookup>;
    try {
      lookup = targetLookup(request);
    } catch (error) {
      return done(error as Error);
    }
    const known = systems.known(lookup.targetUserId, lookup.readerUserId);
    if (known) return done(settle(request, lookup, known));
    systems.forReader(lookup.targetUserId, lookup.readerUserId).then(
      (found) => done(settle(request, lookup, found)),
      (error: unknown) => done(error as Error),
    );
  };
}

/** The checks on the validated `{user}`, and whose system to look up for whom. */
function targetLookup(request: FastifyRequest) {
  const grant = request.grant;
  if (!grant) throw new Error('the {user} resolver runs on a route without authentication');
  const { user } = request.params as { user: string }; // validated by UserRef
  const targetUserId = user === '@me' ? grant.userId : user;
  if (targetUserId === null) {
    throw new Problem('user-token-required', '@me needs a token issued to a user; a client-credentials token can only read other users by id');
  }
  // authentication.ts has already refused writes with a token that has no user. A write may name
  // any account of the token's own system (issue 29), which only the lookup can tell: settle checks.
  return { user, targetUserId, readerUserId: grant.userId, grant, writes: request.routeOptions.config.writes === true };
}

const NOT_YOURS = 'a token can only change its own system’s data; use @me or the id of one of its accounts';

function settle(request: FastifyRequest, lookup: ReturnType<typeof targetLookup>, found: SystemForReader | undefined): Problem | undefined {
  // The token's own id without a system falls through to no-system, as @me does.
  if (lookup.writes && lookup.user !== '@me' && lookup.user !== lookup.readerUserId && !found?.readerOwns) return new Problem('not-matching-oauth', NOT_YOURS);
  if (!found) {
    return new Problem(
      'no-system',
      lookup.user === '@me' ? 'you have no system yet; sign in to the service once to create it' : 'this user has no system (they have never signed in)',
    );
  }
  // The viewer's system matters only to tell whether they own the target (privacy.isOwner): it
  // is the target's id when it is theirs and null otherwise, never looked up on its own.
  const viewer: Viewer = {
    userId: lookup.grant.userId,
    clientId: lookup.grant.clientId,
    systemId: found.readerOwns ? found.system.id : null,
    scopes: lookup.grant.scopes,
  };
  request.target = { viewer, system: found.system };
  return undefined;
}

/** Who acts, for a write's events: the token's client and the account it was issued to. */
export function actorOf(viewer: Viewer): EventActor {
  return { clientId: viewer.clientId, accountId: viewer.userId };
}

/** The request's resolved `{user}`; only routes under /v1/users/{user} have one. */
export function targetOf(request: FastifyRequest): Target {
  if (!request.target) throw new Error('targetOf called outside /v1/users/{user}');
  return request.target;
}
