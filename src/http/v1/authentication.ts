// Bearer-token authentication for /v1 (RFC 6750, header form only) and the checks that need only
// the token: the route's scope and, for writes, that the token has a user. Runs in onRequest,
// before the body is read, so a request without a valid token learns nothing else. Checks that
// need `{user}` wait for its validation: target.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BearerGrant, BearerVerifier } from '../../auth/access-tokens.js';
import { Problem } from '../../domain/problems.js';
import type { Scope } from '../../domain/scopes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope a token must hold for this /v1 route; a list means all of them, `{anyOf}` one of them. */
    scope?: Scope | Scope[] | { anyOf: Scope[] };
    /** The route writes to `{user}`, which must then be the token's own system (checked in target.ts). */
    writes?: boolean;
  }
  interface FastifyRequest {
    grant: BearerGrant | null;
  }
}

const REALM = 'realm="switchboard"';

function challenge(reply: FastifyReply, parts: string[]): void {
  reply.header('www-authenticate', ['Bearer ' + REALM, ...parts].join(', '));
}

/**
 * A callback-style hook: a token verified before is answered from memory without a promise or a
 * turn of the microtask queue (the point read's most frequent case); others wait for the verifier.
 */
export function createAuthenticator(verifyBearerToken: BearerVerifier) {
  return function authenticate(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    const scope = request.routeOptions.config.scope;
    if (!scope) return done(); // not an API route (e.g. the 404 handler)
    let token: string;
    try {
      token = presentedToken(request, reply);
    } catch (error) {
      return done(error as Error);
    }
    const known = verifyBearerToken.known(token);
    if (known) return done(admit(request, reply, known, scope));
    verifyBearerToken(token).then(
      (grant) => done(admit(request, reply, grant, scope)),
      (error: unknown) => done(error as Error),
    );
  };
}

/** The bearer token of the Authorization header; throws the Problem a malformed or missing one gets. */
function presentedToken(request: FastifyRequest, reply: FastifyReply): string {
  // RFC 9700 §4.3.2 / OAuth 2.1: tokens in URLs leak into logs and histories; refuse them.
  const query = request.query as Record<string, unknown> | undefined;
  if (query && typeof query === 'object' && 'access_token' in query) {
    challenge(reply, ['error="invalid_request"', 'error_description="send the token in the Authorization header"']);
    throw new Problem('token-in-query', 'send the access token in the Authorization header, not in the URL');
  }
  const header = request.headers.authorization;
  if (header === undefined) {
    challenge(reply, []);
    throw new Problem('no-access-token', 'this endpoint needs an access token: send Authorization: Bearer <token>');
  }
  const token = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header)?.[1];
  if (!token || token.length > 4096) {
    challenge(reply, ['error="invalid_request"', 'error_description="malformed Authorization header"']);
    throw new Problem('invalid-auth', 'the Authorization header must be: Bearer <access token>');
  }
  return token;
}

/** Checks what the verified token allows against the route; the Problem to answer, or undefined to go on. */
function admit(request: FastifyRequest, reply: FastifyReply, grant: BearerGrant | undefined, scope: Scope | Scope[] | { anyOf: Scope[] }): Problem | undefined {
  if (!grant) {
    challenge(reply, ['error="invalid_token"', 'error_description="the access token is invalid, expired or revoked"']);
    return new Problem('invalid-auth', 'the access token is invalid, expired or revoked');
  }
  if (typeof scope === 'object' && 'anyOf' in scope) {
    if (!scope.anyOf.some((one) => grant.scopes.has(one))) {
      challenge(reply, ['error="insufficient_scope"', `scope="${scope.anyOf[0]}"`]);
      return new Problem('invalid-scopes', `this endpoint needs one of the scopes ${scope.anyOf.join(' or ')}, which the token does not have`);
    }
    return admitted(request, grant);
  }
  const scopes = Array.isArray(scope) ? scope : [scope];
  const missing = scopes.filter((needed) => !grant.scopes.has(needed));
  if (missing.length > 0) {
    challenge(reply, ['error="insufficient_scope"', `scope="${scopes.join(' ')}"`]);
    return new Problem(
      'invalid-scopes',
      scopes.length === 1
        ? `this endpoint needs the ${scopes[0]} scope, which the token does not have`
        : `this endpoint needs the scopes ${scopes.join(' and ')}; the token does not have ${missing.join(' or ')}`,
    );
  }
  return admitted(request, grant);
}

function admitted(request: FastifyRequest, grant: BearerGrant): Problem | undefined {
  request.grant = grant;
  if (request.routeOptions.config.writes && grant.userId === null) {
    return new Problem('user-token-required', 'writes need a token issued to a user, not to a client alone');
  }
  return undefined;
}
