// The contract every response must honour: error shapes of /v1 (problems) and OAuth (RFC 6749),
// statuses, schemas of successes; contractViolation() says what is wrong with a response.
import { z } from 'zod';
import { PROBLEM_TYPES, type ProblemType } from '../../../src/domain/problems.js';
import { STATUS_OF } from '../../../src/http/v1/problem-responses.js';
import type { FuzzRequest, FuzzResponse } from './exchange.js';
import { KNOWN_METHODS } from './generators.js';

export const PROBLEM_TYPE_SET = new Set<string>(PROBLEM_TYPES);

/** RFC 6749 §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1, RFC 8628 §3.5, RFC 8707, OpenID Connect, and this service's rate limit. */
export const OAUTH_ERROR_CODES = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'server_error',
  'temporarily_unavailable',
  'invalid_token',
  'insufficient_scope',
  'unsupported_token_type',
  'authorization_pending',
  'slow_down',
  'expired_token',
  'invalid_target',
  // OpenID Connect Core §3.1.2.6, registered for OAuth too.
  'request_not_supported',
  'request_uri_not_supported',
  'invalid_request_object',
  'invalid_request_uri',
  'rate_limited',
]);

/** RFC 6749 §5.2: the characters error and error_description may use. */
export const RFC6749_CHARSET = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

export const INTROSPECTION_KEYS = new Set(['active', 'scope', 'client_id', 'username', 'token_type', 'exp', 'iat', 'nbf', 'sub', 'aud', 'iss', 'jti']);

export const V1ErrorBody = z.strictObject({
  errors: z.array(z.strictObject({ type: z.string(), friendly: z.string().min(1), field: z.string().optional() })).min(1),
});

export const OAuthErrorBody = z.strictObject({ error: z.string().min(1), error_description: z.string().optional() });

export const TokenResponse = z.looseObject({ access_token: z.string().min(1), token_type: z.string(), expires_in: z.number().int().positive() });
export const DeviceResponse = z.looseObject({
  device_code: z.string().min(1),
  user_code: z.string().min(1),
  verification_uri: z.string().min(1),
  expires_in: z.number().int().positive(),
});
export const IntrospectionResponse = z.looseObject({ active: z.boolean() }).refine((body) => Object.keys(body).every((name) => INTROSPECTION_KEYS.has(name)), 'only the documented introspection fields');

export type Family = 'v1' | 'oauth';

export interface Expectation {
  family: Family;
  /** The method the endpoint serves; other methods are expected to be refused. */
  method: string;
  /** The status of success for that method. */
  success: number;
  /** The success body, when there is one. */
  schema?: z.ZodType;
  /** Nothing may change even on success: reads, and revocations of tokens the caller does not own. */
  readOnly: boolean;
  /** Another status of success: a replay's (POST /messages answers 200 to a record it already has). */
  alsoSuccess?: number;
  /** Whether a success says it changed nothing (a replay, a state change not applied, nothing removed): then nothing may have changed. */
  unchanged?: (response: FuzzResponse) => boolean;
  /** Answers 304, without a body, to a request whose If-None-Match holds its ETag (or `*`). */
  revalidates?: boolean;
  /** Other methods that reach another endpoint at the same path (POST and GET /front, /autoproxy). */
  otherRoutes?: Record<string, Route>;
  /** A request that uses what a success returned; it must succeed too (e.g. opening a login link). */
  followUp?: (response: FuzzResponse) => FuzzRequest | undefined;
}

/** What a method reaches at an endpoint's path. */
export type Route = Pick<Expectation, 'success' | 'schema' | 'readOnly' | 'alsoSuccess' | 'unchanged' | 'revalidates'>;

/** Things worth reporting that the properties do not assert (shown once per dialect). */
export type Observations = Map<string, { count: number; example: string }>;

export function observe(observations: Observations, key: string, example: () => string) {
  const seen = observations.get(key);
  if (seen) seen.count++;
  else observations.set(key, { count: 1, example: example() });
}

export function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The endpoint a method reaches at the expectation's path, if any. */
export function routeFor(expectation: Expectation, method: string): Route | undefined {
  return method === expectation.method ? expectation : expectation.otherRoutes?.[method];
}

/** What is wrong with a response, or undefined when it honours its contract. */
export function contractViolation(expectation: Expectation, request: FuzzRequest, response: FuzzResponse, observations: Observations): string | undefined {
  const { status } = response;
  if (status >= 500) return `a ${status}: the server failed on client input`;
  if (status === 304) {
    // Revalidation (HEAD too, as its GET): only with If-None-Match, and never with a body.
    if (!routeFor(expectation, request.method === 'HEAD' ? 'GET' : request.method)?.revalidates) return `a 304 from an endpoint that does not revalidate`;
    if (!request.headers.some(([name]) => name.toLowerCase() === 'if-none-match')) return 'a 304 to a request without If-None-Match';
    if (response.text !== '') return 'a 304 with a body';
    return undefined;
  }
  if (status < 200 || (status >= 300 && status < 400)) return `an unexpected status ${status}`;
  const knownMethod = KNOWN_METHODS.includes(request.method);
  const hasBody = request.method !== 'HEAD';

  if (!knownMethod || status === 431) {
    // Node's HTTP parser refuses methods it does not know, and headers over its size limit, before
    // Fastify routes the request, so no route's error shape can apply; it must still be a refusal.
    if (status < 400) return `an unknown method ${request.method} was accepted`;
    const what = knownMethod ? 'headers over the size limit' : 'unknown methods';
    observe(observations, `${expectation.family}: ${what} answered ${status} ${response.contentType}`, () => `${request.method}: ${response.text.slice(0, 200)}`);
    return undefined;
  }

  if (status >= 400) {
    if (!hasBody) return undefined;
    if (expectation.family === 'v1') {
      if (!response.contentType.startsWith('application/json')) return `the error is not JSON (${response.contentType})`;
      const body = V1ErrorBody.safeParse(response.json);
      if (!body.success) return `the error body is not {errors: [{type, friendly, field?}]}: ${z.prettifyError(body.error)}`;
      for (const error of body.data.errors) {
        if (!PROBLEM_TYPE_SET.has(error.type)) return `unknown error type ${JSON.stringify(error.type)}`;
        if (STATUS_OF[error.type as ProblemType] !== status) return `error type ${error.type} is documented with ${STATUS_OF[error.type as ProblemType]}, answered with ${status}`;
      }
      if (status === 401 && !String(response.headers['www-authenticate'] ?? '').startsWith('Bearer')) return 'a 401 without WWW-Authenticate: Bearer';
      return undefined;
    }
    if (request.method !== expectation.method) {
      // A method the endpoint does not serve: refused, in whatever shape the router uses.
      if (!OAuthErrorBody.safeParse(response.json).success) {
        const key = `oauth: other methods at ${request.path.split('?')[0]} answered ${status} ${response.contentType || '(no content type)'}`;
        observe(observations, key, () => `${request.method}: ${response.text.slice(0, 200)}`);
      }
      return undefined;
    }
    if (!response.contentType.startsWith('application/json')) return `the OAuth error is not JSON (${response.contentType})`;
    const body = OAuthErrorBody.safeParse(response.json);
    if (!body.success) return `the OAuth error body is not {error, error_description?}: ${z.prettifyError(body.error)}`;
    if (!OAUTH_ERROR_CODES.has(body.data.error)) return `unknown OAuth error code ${JSON.stringify(body.data.error)}`;
    if (!RFC6749_CHARSET.test(body.data.error_description ?? '')) {
      observe(observations, `oauth: error_description outside RFC 6749's character set at ${request.path.split('?')[0]}`, () => JSON.stringify(body.data.error_description));
    }
    return undefined;
  }

  // 2xx: from the endpoint, from another endpoint at the same path, or HEAD of a GET route.
  const route = routeFor(expectation, request.method);
  if (!route) {
    if (request.method === 'HEAD' && routeFor(expectation, 'GET')) return undefined;
    return `${request.method} was answered ${status} on a ${expectation.method} endpoint`;
  }
  if (status !== route.success && status !== route.alsoSuccess) return `success was ${status}, the endpoint answers ${route.success}`;
  if (!route.schema) return undefined;
  if (!response.contentType.startsWith('application/json')) return `the success body is not JSON (${response.contentType})`;
  const parsed = route.schema.safeParse(response.json);
  if (!parsed.success) return `the success body does not match the endpoint's schema: ${z.prettifyError(parsed.error).slice(0, 800)}`;
  return undefined;
}
