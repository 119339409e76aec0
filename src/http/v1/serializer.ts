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
// is not written by the generated code, whose loop escapes each key and value in JavaScript: a
// page of 250 alters with 20 profile field values each spent more there than on the rest of the
// page (bench/ANALYSIS.md, issue 30). An object that holds one is also compiled in parts: the
// runs of other properties by fast-json-stringify, each map by JSON.stringify, and a frozen map
// (privacy.ts shares one between the answers that show the same values) once, its text kept with
// it; it is written so when it holds a shared map that is not empty, and whole otherwise. The
// output is the same JSON; the document is unchanged (the OpenAPI document is built from the zod
// schemas, not from what is compiled here).
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
  const jsonSchema = z.toJSONSchema(schema, { target: 'draft-7', io: 'output', unrepresentable: 'any' }) as SchemaObject;
  return compileNode(jsonSchema, { fastJson, definitions: jsonSchema.definitions as Record<string, SchemaObject> | undefined });
}

type SchemaObject = Record<string, unknown>;
type Serialize = (value: unknown) => string;

interface Compilation {
  fastJson: typeof FastJson;
  /** The document's shared schemas (`#/definitions/…`), which every part compiled alone needs too. */
  definitions: Record<string, SchemaObject> | undefined;
}

const DEFINITION_REF = '#/definitions/';

function resolved(node: SchemaObject, compilation: Compilation): SchemaObject {
  const ref = node.$ref;
  if (typeof ref !== 'string' || !ref.startsWith(DEFINITION_REF)) return node;
  return compilation.definitions?.[ref.slice(DEFINITION_REF.length)] ?? node;
}

/** A map of strings: an object with no named properties whose every value is a string. */
function isStringMap(node: SchemaObject): boolean {
  const values = node.additionalProperties as SchemaObject | undefined;
  return node.type === 'object' && node.properties === undefined && node.patternProperties === undefined && values?.type === 'string' && Object.keys(values).every((key) => key === 'type');
}

/** Whether a map of strings is somewhere in the schema (through its references too). */
function holdsStringMap(node: unknown, compilation: Compilation, seen = new Set<unknown>()): boolean {
  if (node === null || typeof node !== 'object' || seen.has(node)) return false;
  seen.add(node);
  if (Array.isArray(node)) return node.some((item) => holdsStringMap(item, compilation, seen));
  const object = resolved(node as SchemaObject, compilation);
  if (object !== node) return holdsStringMap(object, compilation, seen);
  if (isStringMap(object)) return true;
  return Object.entries(object).some(([keyword, value]) => keyword !== 'definitions' && holdsStringMap(value, compilation, seen));
}

/** The text of each frozen map written, kept as long as the map is. */
const frozenMapTexts = new WeakMap<object, string>();

/** A frozen map's text, written once; undefined for any other value. */
function sharedMapText(map: unknown): string | undefined {
  if (typeof map !== 'object' || map === null || !Object.isFrozen(map)) return undefined;
  let text = frozenMapTexts.get(map);
  if (text === undefined) frozenMapTexts.set(map, (text = JSON.stringify(map)));
  return text;
}

function writeStringMap(map: unknown): string {
  return sharedMapText(map) ?? JSON.stringify(map);
}

function compileNode(node: SchemaObject, compilation: Compilation): Serialize {
  const schema = resolved(node, compilation);
  if (!holdsStringMap(schema, compilation)) return compilation.fastJson({ ...schema, definitions: compilation.definitions } as Parameters<typeof FastJson>[0]);
  if (isStringMap(schema)) return writeStringMap;
  if (schema.type === 'array' && typeof schema.items === 'object' && schema.items !== null && !Array.isArray(schema.items)) {
    const item = compileNode(schema.items as SchemaObject, compilation);
    return (value) => {
      const items = value as unknown[];
      let json = '[';
      for (let i = 0; i < items.length; i++) json += (i === 0 ? '' : ',') + item(items[i]);
      return json + ']';
    };
  }
  if (schema.type === 'object' && typeof schema.properties === 'object' && schema.additionalProperties === false) return compileObject(schema, compilation);
  // A map inside anything else (a union, a nullable map): fast-json-stringify writes it, with JSON.stringify.
  return compilation.fastJson(withNativeStringMaps({ ...schema, definitions: compilation.definitions }) as unknown as Parameters<typeof FastJson>[0]);
}

/**
 * An object whose properties hold a map: each run of other properties written by
 * fast-json-stringify as an object of those properties (its braces left out), each property
 * holding a map by its own serializer, in the schema's order.
 */
function compileObject(schema: SchemaObject, compilation: Compilation): Serialize {
  const properties = schema.properties as Record<string, SchemaObject>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const parts: Serialize[] = [];
  let run: string[] = [];
  const endRun = () => {
    if (run.length === 0) return;
    const names = run;
    const serialize = compilation.fastJson({
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, properties[name]])),
      required: names.filter((name) => required.has(name)),
      additionalProperties: false,
      definitions: compilation.definitions,
    } as Parameters<typeof FastJson>[0]);
    parts.push((value) => serialize(value).slice(1, -1));
    run = [];
  };
  for (const [name, property] of Object.entries(properties)) {
    if (!holdsStringMap(property, compilation)) {
      run.push(name);
      continue;
    }
    endRun();
    const serialize = compileNode(property, compilation);
    const key = `${JSON.stringify(name)}:`;
    const isRequired = required.has(name);
    parts.push((value) => {
      const field = (value as Record<string, unknown>)[name];
      if (field !== undefined) return key + serialize(field);
      if (isRequired) throw new Error(`"${name}" is required!`);
      return '';
    });
  }
  endRun();
  const inParts: Serialize = (value) => {
    let json = '';
    for (const part of parts) {
      const text = part(value);
      if (text !== '') json += json === '' ? text : `,${text}`;
    }
    return `{${json}}`;
  };
  // Written in parts, an object costs a little more than written whole (about a microsecond: more
  // calls, more pieces to join): only worth it when a map's text is already kept. Otherwise
  // (a map made for this answer, an empty one) the object is written whole, as without maps.
  const whole = compilation.fastJson({ ...schema, definitions: compilation.definitions } as Parameters<typeof FastJson>[0]);
  const maps = Object.entries(properties)
    .filter(([, property]) => isStringMap(resolved(property, compilation)))
    .map(([name]) => name);
  return (value) => {
    for (const name of maps) {
      const text = sharedMapText((value as Record<string, unknown>)[name]);
      if (text !== undefined && text !== '{}') return inParts(value);
    }
    return whole(value);
  };
}

type JsonSchemaNode = boolean | JsonSchemaNode[] | { [keyword: string]: unknown };

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
