// Conditional GETs (RFC 9110 §13): the If-None-Match test and the empty body of a 304, shared by
// the routes that answer with an ETag (proxy profile, server settings).
import type { FastifyReply, FastifyRequest } from 'fastify';

/** If-None-Match holds this ETag (RFC 9110 §13.1.2: weak comparison, lists, `*`). */
export function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/**
 * A route's onSend for its 304s: no body. The serializer's "null" would announce four bytes in
 * Content-Length that never come, and a client trusting it waits for them (undici did, for its body
 * timeout). HEAD, which Fastify answers through the GET route too, needs a payload it can measure.
 */
export async function emptyNotModified(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode !== 304) return payload;
  reply.removeHeader('content-type');
  return request.method === 'HEAD' ? '' : null;
}
