// Fastify's default schema compilers (Ajv for validation, fast-json-stringify for responses),
// loaded when a route first needs one. Fastify builds both when an instance is created, which
// loads Ajv and fast-json-stringify (about 100 modules, 25–45 ms of every start and several MB of
// memory), yet no route of the service uses them: /v1 brings its own compilers (zod) and the
// other routes declare no JSON Schema to validate or serialize with. They are the very same
// compilers, taken from Fastify's own dependencies, so a route that does need one gets what it
// would have had. One difference: Fastify treats a compilersFactory as custom and so does not
// lower-case the property names of a `headers` schema for it; declare header names in lower case.
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;

/** Resolves as Fastify does, so these are the versions Fastify depends on. */
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));

/** Forwards to the factory `load` returns, loaded on the first call. */
function onFirstUse<Factory extends (...args: never[]) => unknown>(load: () => Factory): Factory {
  let factory: Factory | undefined;
  return ((...args: Parameters<Factory>) => (factory ??= load())(...args)) as Factory;
}

export function lazyDefaultCompilers(): Required<CompilersFactory> {
  return {
    buildValidator: onFirstUse(() => (fastifyRequire('@fastify/ajv-compiler') as () => ValidatorFactory)()),
    buildSerializer: onFirstUse(() => (fastifyRequire('@fastify/fast-json-stringify-compiler') as () => SerializerFactory)()),
  };
}
