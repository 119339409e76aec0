// /v1 response serializers are compiled on each one's first response, not while the service
// starts (serializer.ts). A schema fast-json-stringify cannot compile would then fail only when
// that response is first sent; this compiles every response schema of every /v1 route up front.
import Fastify from 'fastify';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { v1Api, type V1Dependencies } from '../../../src/http/v1/plugin.js';
import { compileSerializer } from '../../../src/http/v1/serializer.js';

/** Registering the routes uses none of the dependencies; a request would. */
const UNUSED = {} as never;

describe('the /v1 response serializers', () => {
  it('compile for every status of every route', async () => {
    const app = Fastify();
    const schemas: Array<{ route: string; status: string; schema: z.ZodType }> = [];
    app.addHook('onRoute', (route) => {
      const responses = (route.schema?.response ?? {}) as Record<string, z.ZodType>;
      for (const [status, schema] of Object.entries(responses)) schemas.push({ route: `${route.method} ${route.url}`, status, schema });
    });
    const dependencies: V1Dependencies = { db: UNUSED, verifyBearerToken: UNUSED, systems: UNUSED, profileValues: UNUSED, guilds: UNUSED, events: { crypto: UNUSED, allowPrivateAddresses: false, wake: () => undefined }, crypto: UNUSED, publicUrl: 'http://localhost' };
    await app.register(v1Api, { prefix: '/v1', ...dependencies });
    await app.ready();
    try {
      // Every route answers at least its success and its errors.
      expect(schemas.length).toBeGreaterThan(100);
      for (const { route, status, schema } of schemas) {
        let serialize: ((data: unknown) => string) | undefined;
        expect(() => (serialize = compileSerializer(schema)), `${route} ${status}`).not.toThrow();
        expect(typeof serialize).toBe('function');
      }
    } finally {
      await app.close();
    }
  });
});
