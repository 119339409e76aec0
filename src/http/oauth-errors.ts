// The error handler of every machine-to-machine scope outside /v1 (the OAuth endpoints, the spec's
// introspection form, login links): failures Fastify raises before a route runs (unreadable body or
// Content-Type, body too large) answer in RFC 6749's JSON shape, never as an HTML page or
// Fastify's own body.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/**
 * `description` explains a client error; `clientStatus`, when given, replaces the error's own 4xx
 * status (the token endpoint answers every malformed request with 400).
 */
export function oauthErrorHandler(description: string, clientStatus?: number) {
  return (error: Pick<FastifyError, 'statusCode'>, request: FastifyRequest, reply: FastifyReply) => {
    const clientError = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500;
    if (!clientError) request.log.error({ err: error }, 'back-channel request failed');
    return reply
      .code(clientError ? (clientStatus ?? error.statusCode ?? 400) : 500)
      .header('cache-control', 'no-store')
      .send(clientError ? { error: 'invalid_request', error_description: description } : { error: 'server_error' });
  };
}
