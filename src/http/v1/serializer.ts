// Response serialization for /v1: each zod response schema is turned into JSON Schema and compiled
// with fast-json-stringify, which writes exactly the schema's properties. The type provider's
// default encodes every response through zod first; on the point read that was a visible share of
// the CPU. Responses are still checked against the document by the OpenAPI test.
//
// Fastify asks for every route's serializers while it starts; compiling them all then took about
// a third of a second of CPU at every start (most routes are never called by a given deployment). Each is compiled
// on its first response instead, once, and kept (a few milliseconds on that first response).
// fast-json-stringify itself (with the Ajv it builds on, 25–45 ms to load) is loaded then too.
import { createRequire } from 'node:module';
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import type FastJson from 'fast-json-stringify';
import { z } from 'zod';

const require = createRequire(import.meta.url);
let fastJson: typeof FastJson | undefined;

export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema }) => {
  let serialize: ((data: unknown) => string) | undefined;
  return (data) => (serialize ??= compileSerializer(schema))(data);
};

/** The serializer of one response schema, compiled now. */
export function compileSerializer(schema: z.ZodType): (data: unknown) => string {
  fastJson ??= require('fast-json-stringify') as typeof FastJson;
  return fastJson(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Parameters<typeof FastJson>[0]);
}
