// The OpenAPI document at /openapi.json: a valid OpenAPI 3.1 document that describes exactly the
// /v1 operations, and one the running API keeps: every response the tests provoke (successes and
// the error cases) is validated against the schema the document gives for that operation and
// status, and a status the document does not list fails the test. Also the Swagger UI page at /docs.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Autoproxy } from '../../../src/domain/autoproxy.js';
import { PROBLEM_TYPES } from '../../../src/domain/problems.js';
import { FIRST_PARTY_SCOPES } from '../../../src/domain/scopes.js';
import { MessageInfo, ProxiedMessage, SystemSummary } from '../../../src/domain/proxied-message.js';
import { ProxyAlter, ProxyProfile } from '../../../src/domain/proxy-profile.js';
import { errorTypes, multipartFile, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { createTestClient } from '../../support/oauth.js';
import { startTestServer, type TestServer } from '../../support/server.js';

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  security?: Array<Record<string, string[]>>;
  responses: Record<string, ResponseObject>;
  requestBody?: { content?: Record<string, MediaType> };
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
    securitySchemes: Record<string, { type: string; flows?: Record<string, { scopes: Record<string, string> }> }>;
  };
}

/** The operations of the specification, with the scope each needs and its success status. */
const OPERATIONS = [
  { method: 'POST', path: '/v1/users/{user}/system/create-alter', scope: 'alters:write', success: 201 },
  { method: 'POST', path: '/v1/users/{user}/alters/{alter}/edit', scope: 'alters:write', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/system', scope: 'system:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/edit', scope: 'system:write', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/fields/alters/{id}', scope: 'alters:read', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/system/list-alters', scope: 'alters:read', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/alters/{alter}', scope: 'alters:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/front', scope: 'system:ai-ap', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/front', scope: 'system:read', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/front/history', scope: 'system:read', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/front/stats', scope: 'system:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/front/switches/{switch}/edit', scope: 'system:ai-ap', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/front/switches/{switch}/delete', scope: 'system:ai-ap', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/autoproxy', scope: 'system:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/autoproxy', scope: 'system:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/autoproxy/remove', scope: 'system:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/autoproxy/state', scope: 'messages:write', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/proxy-profile', scope: 'messages:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/messages', scope: 'messages:write', success: 201 },
  { method: 'POST', path: '/v1/users/{user}/messages/{message}/reproxy', scope: 'messages:write', success: 200 },
  { method: 'GET', path: '/v1/messages/{message}', scope: 'messages:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/alters/{alter}/delete', scope: 'alters:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/edit-alters-privacy', scope: 'alters:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/delete', scope: 'system:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/accounts/code', scope: 'system:write', success: 201 },
  { method: 'POST', path: '/v1/users/{user}/system/accounts/redeem', scope: 'system:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/accounts/{account}/remove', scope: 'system:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/create-tag', scope: 'alters:write', success: 201 },
  { method: 'GET', path: '/v1/users/{user}/tags/{tag}', scope: 'alters:read', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/system/list-tags', scope: 'alters:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/tags/{tag}/edit', scope: 'alters:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/tags/{tag}/alters', scope: 'alters:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/tags/{tag}/delete', scope: 'alters:write', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/create-profile-field', scope: 'alters:write alters:read', success: 201 },
  { method: 'GET', path: '/v1/users/{user}/system/list-profile-fields', scope: 'alters:read', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/profile-fields/{field}', scope: 'alters:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/profile-fields/{field}/edit', scope: 'alters:write alters:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/system/order-profile-fields', scope: 'alters:write alters:read', success: 200 },
  { method: 'POST', path: '/v1/users/{user}/profile-fields/{field}/delete', scope: 'alters:write', success: 200 },
  // Two scopes, both needed: space-separated.
  { method: 'POST', path: '/v1/users/{user}/system/import', scope: 'alters:write system:write', success: 200 },
  { method: 'GET', path: '/v1/users/{user}/system/export', scope: 'system:read alters:read', success: 200 },
  // Either scope will do: |-separated (the document lists them as alternatives).
  { method: 'POST', path: '/v1/users/{user}/images', scope: 'alters:write|system:write', success: 201 },
  { method: 'GET', path: '/v1/users/{user}/images', scope: 'alters:read|system:read', success: 200 },
  { method: 'POST', path: '/v1/events/endpoints', scope: 'events:manage', success: 201 },
  { method: 'GET', path: '/v1/events/endpoints', scope: 'events:manage', success: 200 },
  { method: 'GET', path: '/v1/events/endpoints/{endpoint}', scope: 'events:manage', success: 200 },
  { method: 'POST', path: '/v1/events/endpoints/{endpoint}/edit', scope: 'events:manage', success: 200 },
  { method: 'POST', path: '/v1/events/endpoints/{endpoint}/delete', scope: 'events:manage', success: 200 },
  { method: 'POST', path: '/v1/events/endpoints/{endpoint}/rotate-secret', scope: 'events:manage', success: 200 },
  { method: 'GET', path: '/v1/events/endpoints/{endpoint}/deliveries', scope: 'events:manage', success: 200 },
  { method: 'POST', path: '/v1/events/endpoints/{endpoint}/replay', scope: 'events:manage', success: 200 },
  { method: 'POST', path: '/v1/events/deliveries/{delivery}/replay', scope: 'events:manage', success: 200 },
  { method: 'GET', path: '/v1/events/feed', scope: 'events:manage', success: 200 },
  { method: 'GET', path: '/v1/guilds/{guild}/settings', scope: 'guilds:manage', success: 200 },
  { method: 'POST', path: '/v1/guilds/{guild}/settings/edit', scope: 'guilds:manage', success: 200 },
] as const;

/** The proxying schemas of components, with the fields the domain's zod schemas give them. */
const PROXYING_SCHEMAS = { Autoproxy, ProxyProfile, ProxyAlter, ProxiedMessage, SystemSummary, MessageInfo };

const ALTER_FIELDS = [
  'alterId', 'systemId', 'username', 'displayName', 'nameMap', 'color', 'description', 'created', 'pronouns', 'avatarUrl',
  'avatarUrlMap', 'webhookAvatarUrl', 'banner', 'lastMessageTimestamp', 'messageCount', 'alterMode', 'proxyTags', 'tagIds',
  'public', 'flags', 'fields',
];
const SYSTEM_FIELDS = [
  'associatedUserId', 'systemName', 'systemDisplayTag', 'displayTagMap', 'systemDescription', 'systemAvatar', 'systemBanner',
  'systemPronouns', 'nicknameFormat', 'alterIds', 'tagIds', 'createdAt', 'systemAutoproxy', 'systemOperationDM',
  'latchExpiration', 'public', 'flags', 'disabledGuilds', 'subAccounts', 'disabled',
];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DOC_ID = 'urn:switchboard:openapi';
/** V1_BODY_LIMIT is 256 KiB; this is comfortably over it. */
const OVERSIZED = 300 * 1024;

const OWNER = '200000000000000001';
const OTHER = '200000000000000002';
const NEVER_SIGNED_IN = '200000000000000099';
const GUILD = '300000000000000001';
const CHANNEL = '400000000000000001';

let sequence = 0;
/** A Discord snowflake created at `time` (epoch ms), unique by its low bits. */
const snowflake = (time = Date.now()) => ((BigInt(time - 1_420_070_400_000) << 22n) | BigInt(++sequence)).toString();
/** A fresh message (and original message) id pair. */
const messageIds = () => ({ messageId: snowflake(), originalMessageId: snowflake(Date.now() - 1) });

// ajv-formats is CommonJS; under NodeNext its default import is the module, whose `default` is the plugin.
const addFormats = formats.default;

/** A JSON pointer segment, escaped for use in a URI fragment. */
const pointerSegment = (segment: string) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

describe.each(DIALECTS)('the OpenAPI document (%s)', (dialect) => {
  let server: TestServer;
  let doc: OpenApiDocument;
  let ajv: Ajv2020;
  let owner: ApiUser;
  let other: ApiUser;
  /** A client-credentials token for /v1/events. */
  let eventsToken: string;
  let guildsToken: string;
  /** The statuses each operation was seen answering, keyed `METHOD path`. */
  const seen = new Map<string, Set<number>>();

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    doc = (await response.json()) as OpenApiDocument;

    // The document's schemas are OpenAPI 3.1 schemas, i.e. JSON Schema 2020-12. Adding the whole
    // document under an id lets the response schemas' `#/components/schemas/...` refs resolve.
    ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
    addFormats(ajv);
    // Ajv is strict about unknown keywords: declare the document's own fields and the OpenAPI
    // additions to schema objects as known, without meaning.
    ajv.addVocabulary(['openapi', 'info', 'servers', 'tags', 'paths', 'components', 'webhooks', 'security', 'jsonSchemaDialect', 'externalDocs', 'discriminator', 'xml', 'example']);
    ajv.addSchema({ ...doc, $id: DOC_ID });

    // First-party clients, the bot's kind: only they record proxied messages.
    owner = await signIn(server, OWNER, { client: await createTestClient(server, { firstParty: true }) });
    other = await signIn(server, OTHER, { client: await createTestClient(server, { firstParty: true }) });
    const hooks = await createTestClient(server, { name: 'Hooks', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['events:manage'] });
    eventsToken = (await oidc.clientCredentialsGrant(hooks.config, { scope: 'events:manage' })).access_token;
    const bot = await createTestClient(server, { name: 'Bot', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['guilds:manage'], firstParty: true });
    guildsToken = (await oidc.clientCredentialsGrant(bot.config, { scope: 'guilds:manage' })).access_token;
  });
  afterAll(async () => server?.stop());

  /** Checks that `response` is one the document lists for this operation, with a body it allows. */
  function expectConforms(method: string, path: string, response: ApiResponse): void {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    expect(operation, `${method} ${path} is not in the document`).toBeDefined();
    const status = String(response.status);
    const documented = operation?.responses[status];
    expect(documented, `${method} ${path} answered ${status}, which the document does not list: ${JSON.stringify(response.body)}`).toBeDefined();
    const key = `${method} ${path}`;
    if (documented && !documented.content) {
      // A response the document gives no content (304 Not Modified): it must have no body.
      expect(response.body, `${method} ${path} ${status} has a body the document does not describe`).toBeUndefined();
      seen.set(key, (seen.get(key) ?? new Set()).add(response.status));
      return;
    }
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(documented?.content?.['application/json']?.schema, `${method} ${path} ${status} has no JSON schema`).toBeDefined();

    const ref = `${DOC_ID}#/${['paths', path, method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema'].map(pointerSegment).join('/')}`;
    const validate = ajv.getSchema(ref);
    if (!validate) throw new Error(`no schema at ${ref}`);
    const valid = validate(response.body);
    expect(validate.errors ?? [], `${method} ${path} ${status} does not match its schema; body: ${JSON.stringify(response.body)}`).toEqual([]);
    expect(valid).toBe(true);

    seen.set(key, (seen.get(key) ?? new Set()).add(response.status));
  }

  /** Calls the operation `path` with its parameters filled in and checks the response against the document. */
  async function call(
    method: string,
    path: string,
    params: Record<string, string | number>,
    options: { token?: string; body?: unknown; raw?: string | Uint8Array; headers?: Record<string, string>; query?: string } = {},
  ): Promise<ApiResponse> {
    const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`no value for {${name}}`);
      return String(value);
    });
    const response = await request(server, method, `${concrete}${options.query ?? ''}`, options);
    expectConforms(method, path, response);
    return response;
  }

  async function createAlter(user: ApiUser, body: Record<string, unknown>): Promise<number> {
    const response = await call('POST', '/v1/users/{user}/system/create-alter', { user: '@me' }, { token: user.token, body });
    expect(response.status).toBe(201);
    return (response.body as { alterId: number }).alterId;
  }

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    if (!result.valid) console.error('OpenAPI validation errors:', JSON.stringify(result.errors, null, 2));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes {user} once: one string with a pattern and examples, not a union', () => {
    const raw = doc as unknown as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string; in: string; schema: Record<string, unknown>; description?: string }> }>>;
    };
    const userParameters = Object.values(raw.paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.parameters ?? [])).filter((p) => p.name === 'user');
    expect(userParameters.length).toBeGreaterThan(10);
    for (const parameter of userParameters) {
      expect(parameter.schema).toMatchObject({ type: 'string', pattern: '^(?:@me|[1-9][0-9]{16,19})$' });
      expect(parameter.schema).not.toHaveProperty('anyOf');
      expect(parameter.schema.description ?? parameter.description).toBe('A Discord user id, or @me for the token’s own user.');
    }
  });

  it('serves the same document to Swagger UI at /docs/json', async () => {
    const response = await fetch(`${server.url}/docs/json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(doc);
  });

  it('describes exactly the listed /v1 operations, each with its scope and error responses', () => {
    const described = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual(OPERATIONS.map(({ method, path }) => `${method} ${path}`).sort());

    const oauth2 = doc.components.securitySchemes.oauth2;
    expect(oauth2?.type).toBe('oauth2');
    for (const { method, path, scope, success } of OPERATIONS) {
      const operation = doc.paths[path]?.[method.toLowerCase()];
      if (!operation) throw new Error(`${method} ${path} is missing`);
      const alternatives = scope.includes('|') ? scope.split('|').map((one) => ({ oauth2: [one] })) : [{ oauth2: scope.split(' ') }];
      expect(operation.security, `${method} ${path}`).toEqual(alternatives);
      // Every scope an operation needs is declared; a user's authorization offers none of the
      // first-party scopes, which only the bot's client-credentials token may hold.
      const flows = oauth2?.flows ?? {};
      expect(Object.keys(flows.clientCredentials?.scopes ?? {})).toEqual(expect.arrayContaining(scope.split(/[ |]/)));
      const userScopes = scope.split(/[ |]/).filter((name) => !(FIRST_PARTY_SCOPES as readonly string[]).includes(name));
      expect(Object.keys(flows.authorizationCode?.scopes ?? {})).toEqual(expect.arrayContaining(userScopes));
      expect(Object.keys(flows.authorizationCode?.scopes ?? {})).not.toEqual(expect.arrayContaining([...FIRST_PARTY_SCOPES]));

      const statuses = Object.keys(operation.responses).map(Number);
      expect(statuses, `${method} ${path}`).toContain(success);
      // Every operation authenticates, validates and is rate limited; every write takes a body.
      const errors = [400, 401, 403, 404, 429, ...(method === 'POST' ? [413, 415] : [])];
      expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(errors));
      for (const status of statuses.filter((s) => s >= 400)) {
        expect(operation.responses[String(status)]?.content, `${method} ${path} ${status}`).toEqual({
          'application/json': { schema: { $ref: '#/components/schemas/Errors' } },
        });
      }
      // Uploads are files; every other body is JSON.
      const bodyTypes = path.endsWith('/images') ? ['multipart/form-data'] : ['application/json'];
      if (method === 'POST') expect(Object.keys(operation.requestBody?.content ?? {}), `${method} ${path}`).toEqual(bodyTypes);
    }
    // create-alter and alter edits are the operations that can collide with another alter; an
    // autoproxy entry can be one too many, and a message record can conflict with another.
    expect(Object.keys(doc.paths['/v1/users/{user}/system/create-alter']?.post?.responses ?? {})).toContain('409');
    expect(Object.keys(doc.paths['/v1/users/{user}/alters/{alter}/edit']?.post?.responses ?? {})).toContain('409');
    expect(Object.keys(doc.paths['/v1/users/{user}/system/create-tag']?.post?.responses ?? {})).toContain('409');
    expect(Object.keys(doc.paths['/v1/users/{user}/tags/{tag}/edit']?.post?.responses ?? {})).toContain('409');
    expect(Object.keys(doc.paths['/v1/users/{user}/autoproxy']?.post?.responses ?? {})).toContain('409');
    // A switch identical to the current front changes nothing.
    expect(Object.keys(doc.paths['/v1/users/{user}/front']?.post?.responses ?? {})).toContain('409');
    expect(Object.keys(doc.paths['/v1/users/{user}/messages']?.post?.responses ?? {})).toEqual(expect.arrayContaining(['200', '201', '409']));
    expect(Object.keys(doc.paths['/v1/users/{user}/messages/{message}/reproxy']?.post?.responses ?? {})).toContain('409');
    // The proxy profile revalidates: 304 without a body.
    const notModified = doc.paths['/v1/users/{user}/proxy-profile']?.get?.responses['304'];
    expect(notModified).toBeDefined();
    expect(notModified?.content).toBeUndefined();
  });

  it('defines Alter, System and Errors with every field', () => {
    const { Alter, System, Errors } = doc.components.schemas;
    expect(Object.keys(Alter?.properties ?? {})).toEqual(expect.arrayContaining(ALTER_FIELDS));
    expect(Alter?.required).toEqual(expect.arrayContaining(ALTER_FIELDS));
    expect(Object.keys(System?.properties ?? {})).toEqual(expect.arrayContaining(SYSTEM_FIELDS));
    expect(System?.required).toEqual(expect.arrayContaining(SYSTEM_FIELDS));
    expect(Errors).toMatchObject({
      required: ['errors'],
      properties: { errors: { type: 'array', minItems: 1, items: { required: ['type', 'friendly'], properties: { type: { enum: [...PROBLEM_TYPES] } } } } },
    });

    const schemaOf = (method: string, path: string, status: number) =>
      doc.paths[path]?.[method]?.responses[String(status)]?.content?.['application/json']?.schema;
    expect(schemaOf('post', '/v1/users/{user}/system/create-alter', 201)).toEqual({ $ref: '#/components/schemas/Alter' });
    expect(schemaOf('post', '/v1/users/{user}/alters/{alter}/edit', 200)).toEqual({ $ref: '#/components/schemas/Alter' });
    expect(schemaOf('get', '/v1/users/{user}/fields/alters/{id}', 200)).toEqual({ $ref: '#/components/schemas/Alter' });
    expect(schemaOf('get', '/v1/users/{user}/system/list-alters', 200)).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/Alter' } });
    expect(schemaOf('get', '/v1/users/{user}/alters/{alter}', 200)).toMatchObject({ properties: { data: { $ref: '#/components/schemas/Alter' } } });
    expect(schemaOf('post', '/v1/users/{user}/system/edit', 200)).toEqual({ $ref: '#/components/schemas/System' });
    expect(schemaOf('get', '/v1/users/{user}/system', 200)).toMatchObject({ properties: { data: { $ref: '#/components/schemas/System' } } });

    for (const [name, schema] of Object.entries(PROXYING_SCHEMAS)) {
      const component = doc.components.schemas[name];
      const fields = Object.keys(schema.shape);
      expect(Object.keys(component?.properties ?? {}).sort(), name).toEqual([...fields].sort());
      expect(component?.required, name).toEqual(expect.arrayContaining(fields));
    }
    expect(schemaOf('get', '/v1/users/{user}/autoproxy', 200)).toMatchObject({ properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Autoproxy' } } } });
    expect(schemaOf('post', '/v1/users/{user}/autoproxy', 200)).toMatchObject({ properties: { data: { $ref: '#/components/schemas/Autoproxy' } } });
    expect(schemaOf('post', '/v1/users/{user}/autoproxy/remove', 200)).toMatchObject({ properties: { removed: { type: 'boolean' } }, required: ['removed'] });
    expect(schemaOf('post', '/v1/users/{user}/autoproxy/state', 200)).toMatchObject({ required: ['applied', 'revision'] });
    expect(schemaOf('get', '/v1/users/{user}/proxy-profile', 200)).toEqual({ $ref: '#/components/schemas/ProxyProfile' });
    for (const status of [200, 201]) {
      expect(schemaOf('post', '/v1/users/{user}/messages', status)).toMatchObject({ properties: { data: { $ref: '#/components/schemas/ProxiedMessage' } } });
    }
    expect(schemaOf('get', '/v1/messages/{message}', 200)).toMatchObject({ properties: { data: { $ref: '#/components/schemas/MessageInfo' } } });
    expect(schemaOf('post', '/v1/users/{user}/messages/{message}/reproxy', 200)).toMatchObject({ properties: { data: { $ref: '#/components/schemas/ProxiedMessage' } } });
  });

  // Before the owner's big case, which checks that every operation answered its success status.
  it('holds for the profile field operations’ success responses to the owner', async () => {
    const me = { user: '@me' };
    const token = owner.token;
    const alterId = await createAlter(owner, { username: 'fielded', displayName: 'Fielded' });
    const fieldOf = async (body: Record<string, unknown>) => {
      const created = await call('POST', '/v1/users/{user}/system/create-profile-field', me, { token, body });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return (created.body as { fieldId: number }).fieldId;
    };
    const likes = await fieldOf({ name: 'Likes', kind: 'markdown', privacy: 'everyone' });
    const met = await fieldOf({ name: 'Met' });
    expect((await call('GET', '/v1/users/{user}/system/list-profile-fields', me, { token })).body).toMatchObject([{ fieldId: likes, position: 0 }, { fieldId: met, kind: 'text', privacy: 'owner' }]);
    expect((await call('GET', '/v1/users/{user}/profile-fields/{field}', { user: '@me', field: likes }, { token })).body).toMatchObject({ isSelf: true, data: { name: 'Likes' } });
    expect((await call('POST', '/v1/users/{user}/profile-fields/{field}/edit', { user: '@me', field: met }, { token, body: { kind: 'date', privacy: 'birthday' } })).body).toMatchObject({ kind: 'date' });
    expect((await call('POST', '/v1/users/{user}/system/order-profile-fields', me, { token, body: { fieldIds: [met, likes] } })).body).toMatchObject([{ fieldId: met, position: 0 }, { fieldId: likes, position: 1 }]);
    const valued = await call('POST', '/v1/users/{user}/alters/{alter}/edit', { user: '@me', alter: alterId }, { token, body: { profileFields: { [likes]: '*tea*', [met]: '2020-02-29' } } });
    expect(valued.body).toMatchObject({ profileFields: { [likes]: '*tea*', [met]: '2020-02-29' } });
    expect((await call('POST', '/v1/users/{user}/profile-fields/{field}/delete', { user: '@me', field: met }, { token })).body).toEqual({ deleted: true });
    // The owner's case below counts the system's alters from none.
    expect((await call('POST', '/v1/users/{user}/alters/{alter}/delete', { user: '@me', alter: alterId }, { token })).status).toBe(200);
  });

  it('holds for every operation’s success response to the owner', async () => {
    const me = { user: '@me' };
    const token = owner.token;
    const system = await call('GET', '/v1/users/{user}/system', me, { token });
    expect(system.status).toBe(200);

    const edited = await call('POST', '/v1/users/{user}/system/edit', me, {
      token,
      body: { systemName: 'The Owners', systemDisplayTag: '| O', displayTagMap: { '300000000000000001': '| o' }, systemPronouns: 'they/them', latchExpiration: 60_000, disabledGuilds: ['300000000000000002'] },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ systemName: 'The Owners', latchExpiration: 60_000 });

    const alterId = await createAlter(owner, {
      username: 'Ash',
      displayName: 'Ash',
      nameMap: [{ server: '300000000000000001', name: 'Ashes' }],
      color: '#a1b2c3',
      description: 'first',
      pronouns: 'she/her',
      avatarUrl: 'https://example.com/a.png',
      avatarUrlMap: { '300000000000000001': 'https://example.com/b.png' },
      alterMode: 'both',
      proxyTags: [{ prefix: 'a:' }, { id: 'tag-2', suffix: '-a' }],
      fields: { [owner.client.id]: 'external-ash' },
    });
    // A minimal alter: the optional fields come back as nulls and empty collections.
    const minimalId = await createAlter(owner, { username: 'bo', displayName: 'Bo' });

    const edit = await call('POST', '/v1/users/{user}/alters/{alter}/edit', { user: '@me', alter: alterId }, { token, body: { description: null, banner: 'https://example.com/banner.png' } });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({ alterId, description: null, banner: 'https://example.com/banner.png' });
    // An empty body is "no changes", not an error.
    expect((await call('POST', '/v1/users/{user}/alters/{alter}/edit', { user: '@me', alter: minimalId }, { token, raw: '', headers: { 'content-type': 'application/json' } })).status).toBe(200);
    // Many alters' privacy at once (here one, to the bits it has: the views below stay as they are).
    const privacy = await call('POST', '/v1/users/{user}/system/edit-alters-privacy', me, { token, body: { alterIds: [minimalId], public: 0 } });
    expect(privacy.body).toMatchObject([{ alterId: minimalId, public: 0 }]);

    const one = await call('GET', '/v1/users/{user}/alters/{alter}', { user: OWNER, alter: alterId }, { token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ isSelf: true, data: { alterId, username: 'Ash' } });

    const list = await call('GET', '/v1/users/{user}/system/list-alters', me, { token, query: '?max=1&skip=1' });
    expect(list.status).toBe(200);
    expect((list.body as Array<{ alterId: number }>).map((alter) => alter.alterId)).toEqual([minimalId]);
    expect((await call('GET', '/v1/users/{user}/system/list-alters', me, { token })).status).toBe(200);

    const byField = await call('GET', '/v1/users/{user}/fields/alters/{id}', { user: '@me', id: 'external-ash' }, { token });
    expect(byField.status).toBe(200);
    expect(byField.body).toMatchObject({ alterId, fields: { [owner.client.id]: 'external-ash' } });

    expect((await call('POST', '/v1/users/{user}/front', me, { token, body: { alter: String(alterId) } })).status).toBe(200);
    expect((await call('POST', '/v1/users/{user}/front', me, { token, body: { alters: [minimalId, String(alterId)] } })).status).toBe(200);
    const same = await call('POST', '/v1/users/{user}/front', me, { token, body: { alters: [minimalId, alterId] } });
    expect(same.status).toBe(409);
    expect(errorTypes(same)).toEqual(['same-front']);
    const front = await call('GET', '/v1/users/{user}/front', me, { token });
    expect(front.status).toBe(200);
    expect(front.body).toMatchObject({
      data: { current: { alterIds: [minimalId, alterId], clientId: owner.client.id }, byApp: [{ alterIds: [minimalId, alterId] }] },
    });
    const history = await call('GET', '/v1/users/{user}/front/history', me, { token, query: '?max=1' });
    expect(history.status).toBe(200);
    expect(history.body).toMatchObject({ data: { switches: [{ alterIds: [minimalId, alterId] }], next: expect.any(Number) } });
    const older = await call('GET', '/v1/users/{user}/front/history', me, { token, query: `?before=${(history.body as { data: { next: number } }).data.next}` });
    expect(older.body).toMatchObject({ data: { switches: [{ alterIds: [alterId] }], next: null } });
    const stats = await call('GET', '/v1/users/{user}/front/stats', me, { token, query: '?primary=true' });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ data: { alters: expect.arrayContaining([expect.objectContaining({ alterId: minimalId, switches: 1 })]) } });
    const extra = await call('POST', '/v1/users/{user}/front', me, { token, body: { alter: alterId } });
    const extraId = (extra.body as { data: { switchId: number } }).data.switchId;
    const switchPath = (action: string) => `/v1/users/{user}/front/switches/{switch}/${action}`;
    const editedSwitch = await call('POST', switchPath('edit'), { user: '@me', switch: String(extraId) }, { token, body: { alters: [] } });
    expect(editedSwitch.body).toMatchObject({ data: { switchId: extraId, alterIds: [] } });
    const deletedSwitch = await call('POST', switchPath('delete'), { user: '@me', switch: String(extraId) }, { token, body: {} });
    expect(deletedSwitch.body).toEqual({ deleted: true, alsoDeleted: [] });

    // Read again once the system has alters, so alterIds is not just an empty list.
    expect((await call('GET', '/v1/users/{user}/system', me, { token })).body).toMatchObject({ data: { alterIds: [alterId, minimalId] } });

    // Proxying: autoproxy entries of every mode, an engine state change, the profile, messages.
    expect((await call('GET', '/v1/users/{user}/autoproxy', me, { token })).body).toEqual({ data: [] });
    const entries: Array<Record<string, unknown>> = [
      { serverId: '@global', autoproxyMode: 'front' },
      { serverId: GUILD, autoproxyMode: 'alter', autoproxyAlter: String(alterId) },
      { serverId: `${GUILD}/${CHANNEL}`, autoproxyMode: 'latch', autoproxyAlter: minimalId, lastLatchTimestamp: '2026-11-01T10:00:00.000Z' },
      { serverId: `${GUILD}/400000000000000002`, autoproxyMode: 'latch' },
      { serverId: '300000000000000002', autoproxyMode: 'off', autoproxyAlter: null },
      { serverId: '300000000000000003', autoproxyMode: owner.client.id },
    ];
    for (const body of entries) {
      const set = await call('POST', '/v1/users/{user}/autoproxy', me, { token, body });
      expect(set.status, JSON.stringify(body)).toBe(200);
      expect(set.body).toMatchObject({ data: { serverId: body.serverId, autoproxyMode: body.autoproxyMode, revision: 1 } });
    }
    const listed = await call('GET', '/v1/users/{user}/autoproxy', { user: OWNER }, { token });
    expect((listed.body as { data: unknown[] }).data).toHaveLength(entries.length);

    const state = await call('POST', '/v1/users/{user}/autoproxy/state', me, { token, body: { serverId: `${GUILD}/400000000000000002`, revision: 1, at: new Date().toISOString(), latch: { alterId } } });
    expect(state.body).toMatchObject({ applied: true });
    const dropped = await call('POST', '/v1/users/{user}/autoproxy/state', me, { token, body: { serverId: '@global', revision: 7, at: new Date().toISOString(), mode: 'off' } });
    expect(dropped.body).toMatchObject({ applied: false });

    const profile = await call('GET', '/v1/users/{user}/proxy-profile', me, { token, query: `?guild=${GUILD}` });
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ guildId: GUILD, displayTag: '| o', alters: [{ alterId, name: 'Ashes' }, { alterId: minimalId }] });
    const etag = profile.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const notModified = await call('GET', '/v1/users/{user}/proxy-profile', me, { token, query: `?guild=${GUILD}`, headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    // Elsewhere: a server proxying is off in, with only the global entry and its own.
    const elsewhere = await call('GET', '/v1/users/{user}/proxy-profile', { user: OWNER }, { token, query: '?guild=300000000000000002' });
    expect(elsewhere.body).toMatchObject({ guildDisabled: true, autoproxy: [{ serverId: '300000000000000002' }, { serverId: '@global' }] });

    const message = { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId };
    const recorded = await call('POST', '/v1/users/{user}/messages', me, { token, body: message });
    expect(recorded.status).toBe(201);
    expect(recorded.body).toMatchObject({ data: { messageId: message.messageId, senderId: OWNER }, autoproxyStateApplied: null });
    const replayed = await call('POST', '/v1/users/{user}/messages', me, { token, body: message });
    expect(replayed.status).toBe(200);
    const withState = await call('POST', '/v1/users/{user}/messages', { user: OWNER }, {
      token,
      body: { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: minimalId, autoproxyState: { serverId: `${GUILD}/${CHANNEL}`, revision: 1, at: new Date().toISOString(), latch: { alterId: minimalId } } },
    });
    expect(withState.status).toBe(201);
    expect(withState.body).toMatchObject({ autoproxyStateApplied: true });
    for (const id of [message.messageId, message.originalMessageId]) {
      const info = await call('GET', '/v1/messages/{message}', { message: id }, { token });
      expect(info.status).toBe(200);
      expect(info.body).toMatchObject({ data: { messageId: message.messageId, alter: { alterId }, alterDeleted: false, system: { redacted: [] } } });
    }

    // A message re-sent as another alter: the record moves (the count with it); a retry answers the same.
    const resent = { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId };
    expect((await call('POST', '/v1/users/{user}/messages', me, { token, body: resent })).status).toBe(201);
    const reproxy = { messageId: snowflake(), alterId: minimalId };
    for (let attempt = 0; attempt < 2; attempt++) {
      const moved = await call('POST', '/v1/users/{user}/messages/{message}/reproxy', { user: '@me', message: resent.messageId }, { token, body: reproxy });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ data: { messageId: reproxy.messageId, originalMessageId: resent.originalMessageId, senderId: OWNER } });
    }
    expect((await call('GET', '/v1/messages/{message}', { message: resent.originalMessageId }, { token })).body).toMatchObject({ data: { messageId: reproxy.messageId, alter: { alterId: minimalId } } });

    const removed = await call('POST', '/v1/users/{user}/autoproxy/remove', me, { token, body: { serverId: '300000000000000003' } });
    expect(removed.body).toEqual({ removed: true });
    expect((await call('POST', '/v1/users/{user}/autoproxy/remove', me, { token, body: { serverId: '300000000000000003' } })).body).toEqual({ removed: false });
    // Alters with proxying data, and the system with its entries, still hold.
    expect((await call('GET', '/v1/users/{user}/alters/{alter}', { user: '@me', alter: alterId }, { token })).body).toMatchObject({ data: { messageCount: 1 } });
    expect((await call('GET', '/v1/users/{user}/system', me, { token })).body).toMatchObject({ data: { systemAutoproxy: expect.any(Array) } });

    // Tags: create with every field, read, list, edit, members, delete.
    const tag = await call('POST', '/v1/users/{user}/system/create-tag', me, {
      token,
      body: { name: 'Sleep crew', displayName: 'Sleepers', description: 'd', color: '#123456', icon: 'https://example.com/t.png', public: 63 },
    });
    expect(tag.status).toBe(201);
    const tagId = (tag.body as { tagId: number }).tagId;
    const minimalTag = await call('POST', '/v1/users/{user}/system/create-tag', me, { token, body: { name: 'plain' } });
    expect(minimalTag.body).toMatchObject({ displayName: null, icon: null, alterIds: [] });
    const membership = await call('POST', '/v1/users/{user}/tags/{tag}/alters', { user: '@me', tag: tagId }, { token, body: { add: [alterId, minimalId] } });
    expect(membership.body).toMatchObject({ tagId, alterIds: [alterId, minimalId] });
    expect((await call('GET', '/v1/users/{user}/tags/{tag}', { user: OWNER, tag: tagId }, { token })).body).toMatchObject({ isSelf: true, data: { name: 'Sleep crew' } });
    expect((await call('GET', '/v1/users/{user}/system/list-tags', me, { token, query: '?max=1' })).body).toMatchObject([{ tagId }]);
    expect((await call('POST', '/v1/users/{user}/tags/{tag}/edit', { user: '@me', tag: tagId }, { token, body: { description: null } })).body).toMatchObject({ description: null });
    expect((await call('GET', '/v1/users/{user}/alters/{alter}', { user: '@me', alter: alterId }, { token })).body).toMatchObject({ data: { tagIds: [tagId] } });
    expect((await call('POST', '/v1/users/{user}/tags/{tag}/delete', { user: '@me', tag: (minimalTag.body as { tagId: number }).tagId }, { token })).body).toEqual({ deleted: true });

    // Deleting an alter: its messages still name the system, and tell the owner the alter is gone.
    const doomed = await createAlter(owner, { username: 'doomed', displayName: 'Doomed' });
    const last = { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: doomed };
    expect((await call('POST', '/v1/users/{user}/messages', me, { token, body: last })).status).toBe(201);
    expect((await call('POST', '/v1/users/{user}/alters/{alter}/delete', { user: '@me', alter: doomed }, { token })).body).toEqual({ deleted: true });
    expect((await call('GET', '/v1/messages/{message}', { message: last.messageId }, { token })).body).toMatchObject({ data: { alter: null, alterDeleted: true, system: { associatedUserId: OWNER } } });

    // Import (a small Tupperbox file) and export.
    const imported = await call('POST', '/v1/users/{user}/system/import', me, { token, body: { tuppers: [{ id: 1, name: 'Imported', brackets: ['im:', ''] }], groups: [] } });
    expect(imported.status).toBe(200);
    expect(imported.body).toMatchObject({ data: { format: 'tupperbox', counts: { alters: { created: 1 } } } });
    const exported = await call('GET', '/v1/users/{user}/system/export', me, { token });
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({ version: 2, switchboard: { version: 1 } });

    // Events: an endpoint of a client (client-credentials token), its log, replays, rotation, deletion.
    const events = { token: eventsToken };
    const endpoint = await call('POST', '/v1/events/endpoints', {}, { ...events, body: { url: 'https://hooks.example/in', eventTypes: ['alter.created'], description: 'main' } });
    expect(endpoint.status).toBe(201);
    const endpointId = (endpoint.body as { data: { id: string } }).data.id;
    expect((await call('GET', '/v1/events/endpoints', {}, events)).body).toMatchObject({ data: [{ id: endpointId }] });
    expect((await call('GET', '/v1/events/endpoints/{endpoint}', { endpoint: endpointId }, events)).status).toBe(200);
    expect((await call('POST', '/v1/events/endpoints/{endpoint}/edit', { endpoint: endpointId }, { ...events, body: { enabled: false } })).body).toMatchObject({ data: { enabled: false } });
    expect((await call('POST', '/v1/events/endpoints/{endpoint}/rotate-secret', { endpoint: endpointId }, events)).status).toBe(200);
    expect((await call('GET', '/v1/events/endpoints/{endpoint}/deliveries', { endpoint: endpointId }, { ...events, query: '?max=5&status=failed' })).body).toEqual({ data: [] });
    expect((await call('POST', '/v1/events/endpoints/{endpoint}/replay', { endpoint: endpointId }, { ...events, body: { since: '2026-01-01T00:00:00Z' } })).body).toEqual({ queued: 0 });
    expect((await call('POST', '/v1/events/deliveries/{delivery}/replay', { delivery: 'msg_1' }, events)).status).toBe(404);
    expect((await call('POST', '/v1/events/endpoints/{endpoint}/delete', { endpoint: endpointId }, events)).body).toEqual({ deleted: true });
    const feed = await call('GET', '/v1/events/feed', {}, { ...events, query: '?after=0&max=500' });
    expect(feed.body).toMatchObject({ data: { next: expect.any(String), more: false } });
    expect((await call('GET', '/v1/events/endpoints/{endpoint}', { endpoint: endpointId }, events)).status).toBe(404);

    // Images: an upload (a 1×1 PNG) and the owner's list.
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const uploaded = await call('POST', '/v1/users/{user}/images', me, { token, ...multipartFile('file', png) });
    expect(uploaded.body).toMatchObject({ data: { width: 1, height: 1 } });
    expect((await call('GET', '/v1/users/{user}/images', me, { token })).body).toMatchObject({ data: [{ width: 1, height: 1, purpose: 'avatar' }] });

    // Server settings (the bot's own client): read, edit, revalidate.
    const guild = { guild: GUILD };
    const guilds = { token: guildsToken };
    const settings = await call('GET', '/v1/guilds/{guild}/settings', guild, guilds);
    const guildEdit = await call('POST', '/v1/guilds/{guild}/settings/edit', guild, { ...guilds, body: { actor: { userId: OWNER, permission: 'manage-guild' }, logChannel: CHANNEL, blacklist: { add: [CHANNEL] }, blocks: { add: [{ id: OTHER, kind: 'user', reason: 'r' }] }, requireTag: true, proxyDelayMs: 10, managerRoles: { add: [CHANNEL] }, logCleanupBots: { add: [OTHER] }, logIgnored: { add: [CHANNEL] } } });
    expect(guildEdit.body).toMatchObject({ revision: 1, proxyDelay: { milliseconds: 10 } });
    expect((await call('GET', '/v1/guilds/{guild}/settings', guild, { ...guilds, headers: { 'if-none-match': settings.headers.get('etag') ?? '' } })).status).toBe(200);
    expect((await call('GET', '/v1/guilds/{guild}/settings', guild, { ...guilds, headers: { 'if-none-match': guildEdit.headers.get('etag') ?? '' } })).status).toBe(304);

    // Deleting a system: a user of its own, so the owner's data serves the tests below.
    const leaving = await signIn(server, '200000000000000097', { client: owner.client });
    expect((await call('POST', '/v1/users/{user}/system/delete', me, { token: leaving.token, body: { confirm: true } })).body).toEqual({ deleted: true });

    // Accounts: the owner's code, redeemed by another account (its empty system goes), then removed.
    const joining = await signIn(server, '200000000000000096', { client: owner.client });
    const code = await call('POST', '/v1/users/{user}/system/accounts/code', me, { token });
    expect(code.body).toMatchObject({ data: { code: expect.any(String), expiresAt: expect.any(String) } });
    const redeemed = await call('POST', '/v1/users/{user}/system/accounts/redeem', me, { token: joining.token, body: { code: (code.body as { data: { code: string } }).data.code } });
    expect(redeemed.body).toEqual({ data: { associatedUserId: OWNER, subAccounts: [joining.userId] } });
    const accountRemoved = await call('POST', '/v1/users/{user}/system/accounts/{account}/remove', { user: '@me', account: joining.userId }, { token });
    expect(accountRemoved.body).toEqual({ data: { associatedUserId: OWNER, subAccounts: [] } });

    expect(seen.get('GET /v1/users/{user}/proxy-profile')).toContain(304);
    for (const { method, path, success } of OPERATIONS.filter((operation) => operation.path !== '/v1/events/deliveries/{delivery}/replay')) expect(seen.get(`${method} ${path}`), `${method} ${path}`).toContain(success);
  });

  it('holds for other viewers’ redacted views and for client-credentials tokens', async () => {
    const shower = await signIn(server, '200000000000000003', { client: await createTestClient(server, { firstParty: true }) });
    // The system shows its alters (64) and nothing else; one alter is visible (1) with nothing else.
    expect((await shower.call('POST', '/v1/users/@me/system/edit', { public: 64, systemName: 'Hidden name' })).status).toBe(200);
    const visible = await createAlter(shower, { username: 'vis', displayName: 'Visible', description: 'secret', public: 1 });
    const hidden = await createAlter(shower, { username: 'hid', displayName: 'Hidden' });
    expect((await shower.call('POST', '/v1/users/@me/front', { alter: visible })).status).toBe(200);
    expect((await shower.call('POST', '/v1/users/@me/front', { alter: hidden })).status).toBe(200);

    const viewer = { token: other.token };
    const system = await call('GET', '/v1/users/{user}/system', { user: shower.userId }, viewer);
    expect(system.body).toMatchObject({ data: { systemName: null, alterIds: [visible] } });
    expect((system.body as { data: { redacted: string[] } }).data.redacted).toContain('systemName');

    const alter = await call('GET', '/v1/users/{user}/alters/{alter}', { user: shower.userId, alter: visible }, viewer);
    expect(alter.body).toMatchObject({ isSelf: false, data: { alterId: visible, displayName: null, description: null } });
    const list = await call('GET', '/v1/users/{user}/system/list-alters', { user: shower.userId }, viewer);
    expect((list.body as Array<{ alterId: number }>).map((a) => a.alterId)).toEqual([visible]);
    const front = await call('GET', '/v1/users/{user}/front', { user: shower.userId }, viewer);
    expect(front.status).toBe(200);
    expect(front.body).toMatchObject({ data: { current: { alterIds: [], clientId: null }, byApp: [], alters: [], redacted: ['byApp'] } });
    const history = await call('GET', '/v1/users/{user}/front/history', { user: shower.userId }, viewer);
    expect((history.body as { data: { switches: Array<{ alterIds: number[] }> } }).data.switches.map((entry) => entry.alterIds)).toEqual([[], [visible]]);
    const hiddenRead = await call('GET', '/v1/users/{user}/alters/{alter}', { user: shower.userId, alter: hidden }, viewer);
    expect(hiddenRead.status).toBe(404);
    expect(errorTypes(hiddenRead)).toEqual(['unknown-alter']);

    // Message info: the visible alter's message shows the alter redacted; the hidden one's none.
    const shownMessage = { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: visible };
    const hiddenMessage = { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: hidden };
    for (const body of [shownMessage, hiddenMessage]) expect((await shower.call('POST', '/v1/users/@me/messages', body)).status).toBe(201);
    const shownInfo = await call('GET', '/v1/messages/{message}', { message: shownMessage.originalMessageId }, viewer);
    expect(shownInfo.body).toMatchObject({
      data: { senderId: shower.userId, alter: { alterId: visible, displayName: null }, alterDeleted: false, system: { systemName: null } },
    });
    const hiddenInfo = await call('GET', '/v1/messages/{message}', { message: hiddenMessage.messageId }, viewer);
    expect(hiddenInfo.body).toMatchObject({ data: { senderId: shower.userId, alter: null, alterDeleted: null } });

    const machine = await createTestClient(server, { name: 'Machine', redirectUris: [], grantTypes: ['client_credentials'], scopes: ['alters:read', 'system:read', 'messages:read'] });
    const machineToken = (await oidc.clientCredentialsGrant(machine.config, { scope: 'alters:read system:read messages:read' })).access_token;
    expect((await call('GET', '/v1/users/{user}/system', { user: shower.userId }, { token: machineToken })).status).toBe(200);
    expect((await call('GET', '/v1/users/{user}/system/list-alters', { user: shower.userId }, { token: machineToken })).status).toBe(200);
    const atMe = await call('GET', '/v1/users/{user}/system', { user: '@me' }, { token: machineToken });
    expect(atMe.status).toBe(403);
    expect(errorTypes(atMe)).toEqual(['user-token-required']);
    const machineInfo = await call('GET', '/v1/messages/{message}', { message: shownMessage.messageId }, { token: machineToken });
    expect(machineInfo.status).toBe(200);
    expect(machineInfo.body).toEqual(shownInfo.body);
    const machineEntries = await call('GET', '/v1/users/{user}/autoproxy', { user: shower.userId }, { token: machineToken });
    expect(machineEntries.status).toBe(403);
    expect(errorTypes(machineEntries)).toEqual(['not-matching-oauth']);
  });

  it('holds for 400s: invalid bodies, read-only fields, bad JSON, bad parameters, tokens in the URL', async () => {
    const token = owner.token;
    const invalid = await call('POST', '/v1/users/{user}/system/create-alter', { user: '@me' }, { token, body: { username: 'has space', displayName: '', color: 'red', surprise: 1 } });
    expect(invalid.status).toBe(400);
    expect(new Set(errorTypes(invalid))).toEqual(new Set(['validation']));
    expect(errorTypes(invalid).length).toBeGreaterThanOrEqual(4);

    const readOnly = await call('POST', '/v1/users/{user}/system/edit', { user: '@me' }, { token, body: { createdAt: '2020-01-01T00:00:00Z' } });
    expect(readOnly.status).toBe(400);
    expect(errorTypes(readOnly)).toEqual(['read-only-field']);

    const badJson = await call('POST', '/v1/users/{user}/front', { user: '@me' }, { token, raw: '{"alter": ', headers: { 'content-type': 'application/json' } });
    expect(badJson.status).toBe(400);
    expect(errorTypes(badJson)).toEqual(['invalid-json']);

    const tooHigh = await call('GET', '/v1/users/{user}/system/list-alters', { user: '@me' }, { token, query: '?max=251' });
    expect(tooHigh.status).toBe(400);
    expect(errorTypes(tooHigh)).toEqual(['max-too-high']);
    const badQuery = await call('GET', '/v1/users/{user}/front', { user: '@me' }, { token, query: '?skip=-1&other=1' });
    expect(badQuery.status).toBe(400);
    const badHistoryQuery = await call('GET', '/v1/users/{user}/front/history', { user: '@me' }, { token, query: '?skip=-1&before=x' });
    expect(badHistoryQuery.status).toBe(400);

    const badAlterId = await call('GET', '/v1/users/{user}/alters/{alter}', { user: '@me', alter: 'abc' }, { token });
    expect(badAlterId.status).toBe(400);
    const badUser = await call('GET', '/v1/users/{user}/system', { user: 'someone' }, { token });
    expect(badUser.status).toBe(400);

    const inQuery = await call('GET', '/v1/users/{user}/system', { user: '@me' }, { query: `?access_token=${token}` });
    expect(inQuery.status).toBe(400);
    expect(errorTypes(inQuery)).toEqual(['token-in-query']);

    // Proxying: bodies, the profile's server, message ids.
    const me = { user: '@me' };
    const proxying: Array<[string, string, Record<string, string>, { body?: unknown; query?: string }]> = [
      ['POST', '/v1/users/{user}/autoproxy', me, { body: { serverId: 'everywhere', autoproxyMode: 'alter', extra: 1 } }],
      ['POST', '/v1/users/{user}/autoproxy', me, { body: { serverId: GUILD, autoproxyMode: 'no-such-mode' } }],
      // A valid ISO 8601 string whose instant is in the year 10000 (UTC): no answer could show it.
      ['POST', '/v1/users/{user}/autoproxy', me, { body: { serverId: GUILD, autoproxyMode: 'latch', autoproxyAlter: 1, lastLatchTimestamp: '9999-12-31T23:59:59-23:59' } }],
      ['POST', '/v1/users/{user}/autoproxy/remove', me, { body: { serverId: `${GUILD}/` } }],
      ['POST', '/v1/users/{user}/autoproxy/state', me, { body: { serverId: '@global', revision: -1, at: 'now', mode: 'off', latch: null } }],
      ['POST', '/v1/users/{user}/messages', me, { body: { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: 0 } }],
      ['POST', '/v1/users/{user}/messages', me, { body: { messageId: snowflake(Date.now() + 3_600_000), originalMessageId: snowflake(), channelId: CHANNEL, guildId: GUILD, alterId: 1 } }],
      ['GET', '/v1/users/{user}/proxy-profile', me, {}],
      ['GET', '/v1/users/{user}/proxy-profile', me, { query: `?guild=${GUILD}&extra=1` }],
      ['GET', '/v1/users/{user}/proxy-profile', me, { query: `?guild=${GUILD}&access_token=${token}` }],
      ['GET', '/v1/users/{user}/autoproxy', me, { query: '?max=1' }],
      ['GET', '/v1/messages/{message}', { message: '12345' }, {}],
      ['POST', '/v1/users/{user}/messages/{message}/reproxy', { user: '@me', message: '12345' }, { body: { messageId: snowflake(), alterId: 1 } }],
      ['POST', '/v1/users/{user}/messages/{message}/reproxy', { user: '@me', message: snowflake() }, { body: { messageId: snowflake(Date.now() + 3_600_000), alterId: 1 } }],
      ['POST', '/v1/users/{user}/messages/{message}/reproxy', { user: '@me', message: snowflake() }, { body: { messageId: snowflake(), alterId: '1', extra: true } }],
    ];
    for (const [method, path, params, options] of proxying) {
      const response = await call(method, path, params, { token, ...options });
      expect(response.status, `${method} ${path} ${JSON.stringify(options)}`).toBe(400);
    }
  });

  it('holds for 401s: no token, a malformed header, an unknown token', async () => {
    for (const { method, path } of OPERATIONS) {
      const params = { user: '@me', alter: 1, id: 'x', message: snowflake(), tag: 1, field: 1, switch: 1, endpoint: 'ep_AAAAAAAAAAAAAAAA', delivery: 'msg_1', guild: GUILD, account: '200000000000000095' };
      const none = await call(method, path, params, method === 'POST' ? { body: {} } : {});
      expect(none.status, `${method} ${path}`).toBe(401);
      expect(errorTypes(none)).toEqual(['no-access-token']);
      const unknown = await call(method, path, params, { token: 'not-a-real-token-at-all-0123456789' });
      expect(unknown.status, `${method} ${path}`).toBe(401);
      expect(errorTypes(unknown)).toEqual(['invalid-auth']);
    }
    const malformed = await call('GET', '/v1/users/{user}/system', { user: '@me' }, { headers: { authorization: 'Basic abc' } });
    expect(malformed.status).toBe(401);
    expect(errorTypes(malformed)).toEqual(['invalid-auth']);
  });

  it('holds for 403s: a missing scope, another user’s data, private alters', async () => {
    const reader = await signIn(server, OWNER, { scope: 'openid alters:read' });
    const noScope = await call('POST', '/v1/users/{user}/system/create-alter', { user: '@me' }, { token: reader.token, body: { username: 'x', displayName: 'x' } });
    expect(noScope.status).toBe(403);
    expect(errorTypes(noScope)).toEqual(['invalid-scopes']);
    const noReadScope = await call('GET', '/v1/users/{user}/front', { user: '@me' }, { token: reader.token });
    expect(noReadScope.status).toBe(403);
    expect(errorTypes(noReadScope)).toEqual(['invalid-scopes']);

    const foreignWrite = await call('POST', '/v1/users/{user}/system/edit', { user: OTHER }, { token: owner.token, body: { systemName: 'mine now' } });
    expect(foreignWrite.status).toBe(403);
    expect(errorTypes(foreignWrite)).toEqual(['not-matching-oauth']);
    const foreignFields = await call('GET', '/v1/users/{user}/fields/alters/{id}', { user: OTHER, id: 'x' }, { token: owner.token });
    expect(foreignFields.status).toBe(403);
    expect(errorTypes(foreignFields)).toEqual(['not-matching-oauth']);

    // OTHER's system is private (the default), so its alters and front are not shown.
    const privateList = await call('GET', '/v1/users/{user}/system/list-alters', { user: OTHER }, { token: owner.token });
    expect(privateList.status).toBe(403);
    expect(errorTypes(privateList)).toEqual(['alters-private']);
    const privateFront = await call('GET', '/v1/users/{user}/front', { user: OTHER }, { token: owner.token });
    expect(privateFront.status).toBe(403);
    expect(errorTypes(privateFront)).toEqual(['alters-private']);
    // A private system is still readable, with everything withheld.
    expect((await call('GET', '/v1/users/{user}/system', { user: OTHER }, { token: owner.token })).status).toBe(200);

    // Proxying: without messages:read or messages:write, and another user's settings.
    const proxyingRefusals: Array<[string, string, Record<string, string>, { token: string; body?: unknown; query?: string }, string]> = [
      ['GET', '/v1/users/{user}/proxy-profile', { user: '@me' }, { token: reader.token, query: `?guild=${GUILD}` }, 'invalid-scopes'],
      ['GET', '/v1/messages/{message}', { message: snowflake() }, { token: reader.token }, 'invalid-scopes'],
      ['POST', '/v1/users/{user}/autoproxy/state', { user: '@me' }, { token: reader.token, body: { serverId: '@global', revision: 1, at: new Date().toISOString(), mode: 'off' } }, 'invalid-scopes'],
      ['POST', '/v1/users/{user}/messages', { user: '@me' }, { token: reader.token, body: {} }, 'invalid-scopes'],
      ['GET', '/v1/users/{user}/autoproxy', { user: OTHER }, { token: owner.token }, 'not-matching-oauth'],
      ['GET', '/v1/users/{user}/proxy-profile', { user: OTHER }, { token: owner.token, query: `?guild=${GUILD}` }, 'not-matching-oauth'],
      ['POST', '/v1/users/{user}/autoproxy', { user: OTHER }, { token: owner.token, body: { serverId: '@global', autoproxyMode: 'off' } }, 'not-matching-oauth'],
      ['POST', '/v1/users/{user}/autoproxy/remove', { user: OTHER }, { token: owner.token, body: { serverId: '@global' } }, 'not-matching-oauth'],
      ['POST', '/v1/users/{user}/messages', { user: OTHER }, { token: owner.token, body: { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: 1 } }, 'not-matching-oauth'],
      ['POST', '/v1/users/{user}/messages/{message}/reproxy', { user: '@me', message: snowflake() }, { token: reader.token, body: { messageId: snowflake(), alterId: 1 } }, 'invalid-scopes'],
      ['POST', '/v1/users/{user}/messages/{message}/reproxy', { user: OTHER, message: snowflake() }, { token: owner.token, body: { messageId: snowflake(), alterId: 1 } }, 'not-matching-oauth'],
    ];
    for (const [method, path, params, options, type] of proxyingRefusals) {
      const response = await call(method, path, params, options);
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(errorTypes(response), `${method} ${path}`).toEqual([type]);
    }
  });

  it('holds for 404s: unknown alters, users without a system, unknown fields and endpoints', async () => {
    const token = owner.token;
    const missingAlter = { user: '@me', alter: 999_999_999 };
    for (const [method, path, options] of [
      ['GET', '/v1/users/{user}/alters/{alter}', {}],
      ['POST', '/v1/users/{user}/alters/{alter}/edit', { body: { displayName: 'x' } }],
    ] as const) {
      const response = await call(method, path, missingAlter, { token, ...options });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(errorTypes(response)).toEqual(['unknown-alter']);
    }
    const unknownFront = await call('POST', '/v1/users/{user}/front', { user: '@me' }, { token, body: { alter: '999999999' } });
    expect(unknownFront.status).toBe(404);
    expect(errorTypes(unknownFront)).toEqual(['unknown-alter']);
    const unknownField = await call('GET', '/v1/users/{user}/fields/alters/{id}', { user: '@me', id: 'no-such-value' }, { token });
    expect(unknownField.status).toBe(404);
    expect(errorTypes(unknownField)).toEqual(['unknown-alter']);

    for (const path of ['/v1/users/{user}/system', '/v1/users/{user}/system/list-alters', '/v1/users/{user}/front', '/v1/users/{user}/front/history', '/v1/users/{user}/autoproxy', '/v1/users/{user}/proxy-profile']) {
      const response = await call('GET', path, { user: NEVER_SIGNED_IN }, { token, query: path.endsWith('/proxy-profile') ? `?guild=${GUILD}` : '' });
      expect(response.status, path).toBe(404);
      expect(errorTypes(response)).toEqual(['no-system']);
    }

    // Proxying: alters the system does not have, and messages never recorded.
    const me = { user: '@me' };
    const latch = await call('POST', '/v1/users/{user}/autoproxy', me, { token, body: { serverId: `${GUILD}/400000000000000009`, autoproxyMode: 'latch' } });
    expect(latch.status).toBe(200);
    const missing: Array<[string, Record<string, unknown>]> = [
      ['/v1/users/{user}/autoproxy', { serverId: GUILD, autoproxyMode: 'alter', autoproxyAlter: '999999999' }],
      ['/v1/users/{user}/autoproxy/state', { serverId: `${GUILD}/400000000000000009`, revision: 1, at: new Date().toISOString(), latch: { alterId: 999_999_999 } }],
      ['/v1/users/{user}/messages', { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: 999_999_999 }],
    ];
    for (const [path, body] of missing) {
      const response = await call('POST', path, me, { token, body });
      expect(response.status, path).toBe(404);
      expect(errorTypes(response)).toEqual(['unknown-alter']);
    }
    const unknownMessage = await call('GET', '/v1/messages/{message}', { message: snowflake() }, { token });
    expect(unknownMessage.status).toBe(404);
    expect(errorTypes(unknownMessage)).toEqual(['unknown-message']);
    const alterId = await createAlter(owner, { username: 'reproxied', displayName: 'Reproxied' });
    const recorded = { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId };
    expect((await call('POST', '/v1/users/{user}/messages', me, { token, body: recorded })).status).toBe(201);
    const reproxy = (message: string, body: Record<string, unknown>) => call('POST', '/v1/users/{user}/messages/{message}/reproxy', { user: '@me', message }, { token, body });
    const toUnknownAlter = await reproxy(recorded.messageId, { messageId: snowflake(), alterId: 999_999_999 });
    expect(toUnknownAlter.status).toBe(404);
    expect(errorTypes(toUnknownAlter)).toEqual(['unknown-alter']);
    const ofUnknownMessage = await reproxy(snowflake(), { messageId: snowflake(), alterId });
    expect(ofUnknownMessage.status).toBe(404);
    expect(errorTypes(ofUnknownMessage)).toEqual(['unknown-message']);

    // A token whose user's system is gone (removed directly: no endpoint deletes a system).
    const orphan = await signIn(server, '200000000000000098');
    await server.database.db.deleteFrom('systems').where('user_id', '=', orphan.userId).execute();
    for (const [path, body] of [
      ['/v1/users/{user}/autoproxy', { serverId: '@global', autoproxyMode: 'off' }],
      ['/v1/users/{user}/autoproxy/remove', { serverId: '@global' }],
      ['/v1/users/{user}/autoproxy/state', { serverId: '@global', revision: 1, at: new Date().toISOString(), mode: 'off' }],
      ['/v1/users/{user}/messages', { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: 1 }],
      ['/v1/users/{user}/messages/{message}/reproxy', { messageId: snowflake(), alterId: 1 }],
    ] as const) {
      const response = await call('POST', path, { ...me, message: snowflake() }, { token: orphan.token, body });
      expect(response.status, path).toBe(404);
      expect(errorTypes(response)).toEqual(['no-system']);
    }

    // No operation to check against, but the body is still the documented error shape.
    const endpoint = await request(server, 'GET', '/v1/users/@me/nothing-here', { token });
    expect(endpoint.status).toBe(404);
    expect(errorTypes(endpoint)).toEqual(['not-found']);
    const validateErrors = ajv.getSchema(`${DOC_ID}#/components/schemas/Errors`);
    expect(validateErrors?.(endpoint.body), JSON.stringify(validateErrors?.errors)).toBe(true);
  });

  it('holds for 409s: duplicate usernames, integration field values, message records and autoproxy entries', async () => {
    const user = await signIn(server, '200000000000000004', { client: await createTestClient(server, { firstParty: true }) });
    const first = await createAlter(user, { username: 'Dup', displayName: 'Dup', fields: { [user.client.id]: 'same' } });
    const second = await createAlter(user, { username: 'other', displayName: 'Other' });

    const create = await call('POST', '/v1/users/{user}/system/create-alter', { user: '@me' }, { token: user.token, body: { username: 'dUP', displayName: 'Again' } });
    expect(create.status).toBe(409);
    expect(errorTypes(create)).toEqual(['duplicate']);
    const rename = await call('POST', '/v1/users/{user}/alters/{alter}/edit', { user: '@me', alter: second }, { token: user.token, body: { username: 'DUP' } });
    expect(rename.status).toBe(409);
    expect(errorTypes(rename)).toEqual(['duplicate']);
    const field = await call('POST', '/v1/users/{user}/alters/{alter}/edit', { user: '@me', alter: second }, { token: user.token, body: { fields: { [user.client.id]: 'same' } } });
    expect(field.status).toBe(409);
    expect(errorTypes(field)).toEqual(['duplicate-field']);
    // Editing an alter to its own current name is no collision.
    expect((await call('POST', '/v1/users/{user}/alters/{alter}/edit', { user: '@me', alter: first }, { token: user.token, body: { username: 'dup' } })).status).toBe(200);

    // A message record that conflicts with one already stored, by either id.
    const message = { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: first };
    expect((await call('POST', '/v1/users/{user}/messages', { user: '@me' }, { token: user.token, body: message })).status).toBe(201);
    for (const conflicting of [{ ...message, alterId: second }, { ...message, messageId: snowflake() }]) {
      const response = await call('POST', '/v1/users/{user}/messages', { user: '@me' }, { token: user.token, body: conflicting });
      expect(response.status).toBe(409);
      expect(errorTypes(response)).toEqual(['duplicate']);
    }
    // Re-sent onto a message id another record already has.
    const another = { ...messageIds(), channelId: CHANNEL, guildId: GUILD, alterId: first };
    expect((await call('POST', '/v1/users/{user}/messages', { user: '@me' }, { token: user.token, body: another })).status).toBe(201);
    const collision = await call('POST', '/v1/users/{user}/messages/{message}/reproxy', { user: '@me', message: another.messageId }, { token: user.token, body: { messageId: message.messageId, alterId: second } });
    expect(collision.status).toBe(409);
    expect(errorTypes(collision)).toEqual(['duplicate']);

    // One autoproxy entry too many (the entries written directly: a thousand requests would be slow).
    const db = server.database.db;
    const system = await db.selectFrom('systems').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    const scopes = Array.from({ length: 1000 }, (_, i) => `${GUILD}/5000000000000${String(i).padStart(5, '0')}`);
    for (let i = 0; i < scopes.length; i += 250) {
      await db.insertInto('autoproxy').values(scopes.slice(i, i + 250).map((scope) => ({ system_id: system.id, scope, mode: 'off', alter_id: null, last_latch_at: null }))).execute();
    }
    const tooMany = await call('POST', '/v1/users/{user}/autoproxy', { user: '@me' }, { token: user.token, body: { serverId: '@global', autoproxyMode: 'off' } });
    expect(tooMany.status).toBe(409);
    expect(errorTypes(tooMany)).toEqual(['too-many-entries']);
    // Replacing an existing entry is no new one.
    expect((await call('POST', '/v1/users/{user}/autoproxy', { user: '@me' }, { token: user.token, body: { serverId: scopes[0], autoproxyMode: 'front' } })).status).toBe(200);
  });

  it('holds for 413 and 415 on every write', async () => {
    const writes = OPERATIONS.filter(({ method }) => method === 'POST');
    const params = { user: '@me', alter: 1, message: snowflake(), tag: 1, field: 1, switch: 1, endpoint: 'ep_AAAAAAAAAAAAAAAA', delivery: 'msg_1', guild: GUILD, account: '200000000000000095' };
    const json = { 'content-type': 'application/json' };
    const oversized = JSON.stringify({ displayName: 'x'.repeat(OVERSIZED) });
    // The import takes files up to 32 MiB.
    const oversizedFile = JSON.stringify({ tuppers: [], pad: 'x'.repeat(32 * 1024 * 1024) });
    for (const { method, path } of writes) {
      const token = path.startsWith('/v1/events/') ? eventsToken : path.startsWith('/v1/guilds/') ? guildsToken : owner.token;
      const tooLarge = await call(method, path, params, { token, raw: path.endsWith('/system/import') ? oversizedFile : oversized, headers: json });
      expect(tooLarge.status, `${method} ${path}`).toBe(413);
      expect(errorTypes(tooLarge)).toEqual(['body-too-large']);

      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const wrongType = await call(method, path, params, { token, raw: type === 'text/plain' ? '{}' : 'a=b', headers: { 'content-type': type } });
        expect(wrongType.status, `${method} ${path} ${type}`).toBe(415);
        expect(errorTypes(wrongType)).toEqual(['unsupported-media-type']);
      }
    }
  });

  it('saw every status the document gives the proxying operations (429 aside: rate-limits.test.ts)', () => {
    for (const { method, path } of OPERATIONS.filter((operation) => /autoproxy|proxy-profile|messages/.test(operation.path))) {
      const documented = Object.keys(doc.paths[path]?.[method.toLowerCase()]?.responses ?? {}).map(Number);
      const missing = documented.filter((status) => status !== 429 && !seen.get(`${method} ${path}`)?.has(status));
      expect(missing, `${method} ${path}`).toEqual([]);
    }
  });

  it('serves Swagger UI at /docs under a policy that allows only its own scripts', async () => {
    const response = await fetch(`${server.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('swagger-ui');

    const policy = new Map(
      (response.headers.get('content-security-policy') ?? '')
        .split(';')
        .map((directive) => directive.trim().split(/\s+/))
        .filter((parts) => parts[0])
        .map(([name, ...values]) => [name, values]),
    );
    const scriptSrc = policy.get('script-src') ?? policy.get('default-src');
    expect(scriptSrc, 'the policy has no script-src').toBeDefined();
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(scriptSrc).not.toContain("'unsafe-eval'");
    expect(policy.get('connect-src')).toContain("'self'");

    // With inline scripts refused, the page works only if every script is a same-origin file.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes = '', body = ''] of scripts) {
      expect(body.trim(), 'inline script').toBe('');
      const src = /\bsrc="([^"]+)"/.exec(attributes)?.[1];
      expect(src, 'script without src').toBeDefined();
      const url = new URL(src ?? '', `${server.url}/docs`);
      expect(url.origin).toBe(server.url);
      const script = await fetch(url);
      expect(script.status, url.pathname).toBe(200);
      expect(script.headers.get('content-type'), url.pathname).toMatch(/javascript/);
      await script.arrayBuffer();
    }
  });
});
