// Response serialization for /v1: each zod response schema is turned once into JSON Schema and
// compiled with fast-json-stringify, which writes exactly the schema's properties. The type
// provider's default encodes every response through zod first; on the point read that was a
// visible share of the CPU. Responses are still checked against the document by the OpenAPI test.
import type { FastifySerializerCompiler } from 'fastify/types/schema.js';
import fastJson from 'fast-json-stringify';
import { z } from 'zod';

export const serializerCompiler: FastifySerializerCompiler<z.ZodType> = ({ schema }) =>
  fastJson(z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as Parameters<typeof fastJson>[0]);
