// Response serialization for /v1: each zod response schema is turned into JSON Schema and compiled
// with fast-json-stringify, which writes exactly the schema's properties. The type provider's
// default encodes every response through zod first; on the point read that was a visible share of
// the CPU. Responses are still checked against the document by the OpenAPI test.
//
// Fastify asks for every route's serializers while it starts; compiling them all then took about
// a third of a second of CPU at every start (most routes are never called by a given deployment). Each is compiled
// on its first response instead, once, and kept (a few milliseconds on that first response).
// fast-json-stringify itself (with the Ajv it builds on, 25–45 ms to load) is loaded then too.
//
// A map of strings (`z.record(z.string(), z.string())`: an alter's `fields` and `profileFields`)
// is written by the native JSON.stringify instead of the generated loop, which escapes each key and
// value in JavaScript: a page of 250 alters with 20 profile field values each spent about 0.5 ms
// there (bench/ANALYSIS.md, issue 30). The output is the same JSON; the document is unchanged (the
// OpenAPI document is built from the zod schemas, not from what is compiled here).
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
  const jsonSchema = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' });
  return fastJson(withNativeStringMaps(jsonSchema) as unknown as Parameters<typeof FastJson>[0]);
}

type JsonSchemaNode = boolean | JsonSchemaNode[] | { [keyword: string]: unknown };

/** A map of strings: an object with no named properties whose every value is a string. */
function isStringMap(node: Record<string, unknown>): boolean {
  const values = node.additionalProperties as Record<string, unknown> | undefined;
  return node.type === 'object' && node.properties === undefined && node.patternProperties === undefined && values?.type === 'string' && Object.keys(values).every((key) => key === 'type');
}

/**
 * The schema with each map of strings replaced by `true`, which fast-json-stringify writes with
 * JSON.stringify (the same JSON: every value a string, keys and values escaped by the standard).
 */
export function withNativeStringMaps(node: unknown): JsonSchemaNode {
  if (Array.isArray(node)) return node.map(withNativeStringMaps);
  if (node === null || typeof node !== 'object') return node as JsonSchemaNode;
  const object = node as Record<string, unknown>;
  if (isStringMap(object)) return true;
  return Object.fromEntries(Object.entries(object).map(([keyword, value]) => [keyword, withNativeStringMaps(value)]));
}
