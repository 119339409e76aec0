// /v1 response serializers are compiled on each one's first response, not while the service
// starts (serializer.ts). A schema fast-json-stringify cannot compile would then fail only when
// that response is first sent; this compiles every response schema of every /v1 route up front.
// Schemas with maps of strings are compiled in parts (serializer.ts): their output must be what
// fast-json-stringify alone writes, shared (frozen) maps included.
import { createRequire } from 'node:module';
import Fastify from 'fastify';
import type FastJson from 'fast-json-stringify';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { Alter } from '../../../src/domain/alter.js';
import { viewAlter, type Viewer } from '../../../src/domain/privacy.js';
import { ALTER_PRIVACY_MASK, SYSTEM_PRIVACY_MASK } from '../../../src/domain/privacy-bits.js';
import { aSystem, anAlter } from '../../support/fixtures.js';
import { v1Api, type V1Dependencies } from '../../../src/http/v1/plugin.js';
import { compileSerializer } from '../../../src/http/v1/serializer.js';

const fastJson = createRequire(import.meta.url)('fast-json-stringify') as typeof FastJson;

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

  it('write maps of strings as fast-json-stringify alone does, shared ones included', () => {
    const plain = (schema: z.ZodType) => fastJson(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Parameters<typeof FastJson>[0]);
    const system = aSystem({ id: 7, public: SYSTEM_PRIVACY_MASK });
    const owner: Viewer = { userId: '1', clientId: 'app', systemId: 7, scopes: new Set(['alters:read']) };
    const stranger: Viewer = { ...owner, userId: '2', systemId: null };
    const awkward = 'quote " backslash \\ newline \n tab \t nul \u0000 é 𝄞 </script>';
    const values = Object.freeze([
      Object.freeze({ fieldId: 4, privacy: 'everyone' as const, value: awkward }),
      Object.freeze({ fieldId: 12, privacy: 'owner' as const, value: 'mine' }),
      Object.freeze({ fieldId: 900, privacy: 'description' as const, value: 'about' }),
    ]);
    const alters = [
      anAlter({ id: 1, systemId: 7, public: ALTER_PRIVACY_MASK, fields: { app: awkward }, profileFields: values as never }),
      anAlter({ id: 2, systemId: 7, public: ALTER_PRIVACY_MASK, description: awkward, profileFields: [{ fieldId: 5, privacy: 'everyone', value: 'not shared' }] }),
      anAlter({ id: 3, systemId: 7, public: 1, profileFields: values as never }),
    ];
    for (const viewer of [owner, stranger]) {
      const views = alters.flatMap((alter) => viewAlter(alter, system, viewer) ?? []);
      expect(views.length).toBeGreaterThan(1);
      const list = compileSerializer(z.array(Alter));
      // Twice: the second time the shared maps' texts are the ones kept.
      for (let time = 0; time < 2; time++) expect(list(views)).toBe(plain(z.array(Alter))(views));
      const one = z.strictObject({ isSelf: z.boolean(), data: Alter });
      expect(compileSerializer(one)({ isSelf: true, data: views[0] })).toBe(plain(one)({ isSelf: true, data: views[0] }));
    }
    const [first] = alters;
    if (!first) throw new Error('no alter');
    expect(() => compileSerializer(z.array(Alter))([{ ...viewAlter(first, system, owner), profileFields: undefined }])).toThrow(/profileFields/);
  });
});
