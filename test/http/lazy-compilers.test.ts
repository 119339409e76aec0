// Fastify's default compilers, loaded on first use (src/http/lazy-compilers.ts), answer exactly as
// the ones Fastify builds itself: same validation errors, same serialized responses.
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { lazyDefaultCompilers } from '../../src/http/lazy-compilers.js';

const SCHEMA = {
  querystring: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'] },
  body: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } }, required: ['name'], additionalProperties: false },
  response: { 200: { type: 'object', properties: { name: { type: 'string' }, n: { type: 'integer' } } } },
};

function app(lazy: boolean): FastifyInstance {
  const instance = Fastify(lazy ? { schemaController: { compilersFactory: lazyDefaultCompilers() } } : {});
  instance.post('/echo', { schema: SCHEMA }, async (request) => ({ ...(request.body as object), n: (request.query as { n: number }).n, extra: 'not in the schema' }));
  return instance;
}

describe('Fastify default compilers loaded on first use', () => {
  const lazy = app(true);
  const eager = app(false);
  afterAll(async () => Promise.all([lazy.close(), eager.close()]));

  const requests = [
    { query: 'n=3', body: { name: 'abc' } },
    { query: 'n=0', body: { name: 'abc' } },
    { query: '', body: { name: 'abc' } },
    { query: 'n=2', body: { name: 'abcdefgh' } },
    { query: 'n=2', body: { name: 'abc', other: 1 } },
    { query: 'n=2', body: {} },
  ];

  it.each(requests)('answer $query $body as Fastify’s own', async ({ query, body }) => {
    const [fromLazy, fromEager] = await Promise.all(
      [lazy, eager].map((instance) => instance.inject({ method: 'POST', url: `/echo?${query}`, payload: body })),
    );
    expect(fromLazy?.statusCode).toBe(fromEager?.statusCode);
    expect(fromLazy?.body).toBe(fromEager?.body);
  });
});
