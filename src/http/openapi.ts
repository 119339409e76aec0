// The OpenAPI 3.1 document, generated from the zod schemas the /v1 routes validate with, served
// at /openapi.json, with an interactive reference (Swagger UI) at /docs. Only tagged routes (the
// /v1 API) are described; the OAuth endpoints are described by the discovery documents.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { OAUTH_ROUTES } from '../auth/provider.js';
import type { Config } from '../config/config.js';
import { SCOPE_DESCRIPTIONS } from '../domain/scopes.js';
import { API_DESCRIPTION } from './v1/api-description.js';

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  const url = (path: string) => `${config.publicUrl}${path}`;
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'switchboard API', version: '1.0.0', description: API_DESCRIPTION },
      servers: [{ url: config.publicUrl }],
      tags: [
        { name: 'System', description: 'The system: one Discord user’s profile record.' },
        { name: 'Alters', description: 'The members of a system.' },
        { name: 'Front', description: 'Who is fronting, as pushed by integrations.' },
        { name: 'Autoproxy', description: 'Which alter speaks for untagged messages, per scope.' },
        { name: 'Proxying', description: 'What the bot reads and records when it re-sends messages as alters; message info.' },
        { name: 'Events', description: 'Webhook endpoints of your app (client-credentials token): events pushed for the users who authorized it.' },
      ],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'OAuth 2.1: authorization code with PKCE (S256), refresh tokens with offline_access, device authorization, client credentials.',
            flows: {
              authorizationCode: {
                authorizationUrl: url(OAUTH_ROUTES.authorization),
                tokenUrl: url(OAUTH_ROUTES.token),
                refreshUrl: url(OAUTH_ROUTES.token),
                scopes: { ...SCOPE_DESCRIPTIONS },
              },
              clientCredentials: { tokenUrl: url(OAUTH_ROUTES.token), scopes: { ...SCOPE_DESCRIPTIONS } },
            },
          },
        },
      },
    },
    hideUntagged: true,
    transform: jsonSchemaTransform,
    transformObject: (input) => bodiesWithoutRequiredFieldsAreOptional(jsonSchemaTransformObject(input)),
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // Swagger UI's own policy allows remote fonts and styles and upgrades to https (which breaks
    // plain-http self-hosting); this one keeps it to this origin.
    transformStaticCSP: () =>
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'",
    uiConfig: { deepLinking: true, tryItOutEnabled: false },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => reply.header('cache-control', 'no-cache').send(app.swagger()));
}

type OpenApiDocument = ReturnType<typeof jsonSchemaTransformObject>;

/**
 * @fastify/swagger marks every request body as required, but the API accepts no body at all where
 * every field is optional (the edit endpoints: "default empty object"), so the document says so.
 */
function bodiesWithoutRequiredFieldsAreOptional(document: OpenApiDocument): OpenApiDocument {
  const paths = (document as { paths?: Record<string, Record<string, { requestBody?: { required?: boolean; content?: Record<string, { schema?: { required?: unknown[] } }> } }>> }).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const body = operation.requestBody;
      if (!body?.content) continue;
      const schemas = Object.values(body.content).map((media) => media.schema);
      if (schemas.every((schema) => schema && (schema.required ?? []).length === 0)) body.required = false;
    }
  }
  return document;
}
