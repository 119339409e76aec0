// A Problem (src/domain/problems.ts: the type, the sentence, the field) as HTTP: how the /v1 API
// answers when something is wrong. One body for every error,
//   {"errors": [{"type": "<stable-kebab-case>", "friendly": "<sentence>", "field"?: "<path>"}]}
// (the origin API's shape, with `field` added), and one status per type. The error handler turns
// every failure (ours, Fastify's, a validator's) into that body; nothing a client sends yields 500.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PROBLEM_TYPES, Problem, type ProblemDetail, type ProblemType } from '../../domain/problems.js';

export const STATUS_OF: Record<ProblemType, number> = {
  'no-access-token': 401,
  'invalid-auth': 401,
  'invalid-scopes': 403,
  'not-matching-oauth': 403,
  'user-token-required': 403,
  'token-in-query': 400,
  'client-token-required': 403,
  'first-party-only': 403,
  validation: 400,
  'read-only-field': 400,
  'invalid-json': 400,
  'unsupported-media-type': 415,
  'body-too-large': 413,
  'max-too-high': 400,
  'not-found': 404,
  'rate-limited': 429,
  'no-system': 404,
  'unknown-alter': 404,
  'unknown-tag': 404,
  'unknown-profile-field': 404,
  'unknown-switch': 404,
  'unknown-message': 404,
  'unknown-endpoint': 404,
  'unknown-delivery': 404,
  'alters-private': 403,
  'tags-private': 403,
  duplicate: 409,
  'duplicate-field': 409,
  'too-many-alters': 409,
  'too-many-tags': 409,
  'too-many-profile-fields': 409,
  'too-many-entries': 409,
  'system-too-large': 409,
  'same-front': 409,
  'invalid-import': 422,
  'invalid-image': 422,
  'expiring-image-link': 422,
  'image-quota': 409,
  'unknown-image': 404,
  'idempotency-key-reused': 409,
  'invalid-account-code': 422,
  'account-has-system': 409,
  'unknown-account': 404,
  'owner-account': 409,
  'unknown-app': 404,
  'calling-app': 409,
  'cross-site-request': 403,
  'internal-error': 500,
};

export const ProblemBody = z
  .strictObject({
    errors: z
      .array(
        z.strictObject({
          type: z.enum(PROBLEM_TYPES),
          friendly: z.string(),
          field: z.string().optional(),
        }),
      )
      .min(1),
  })
  .meta({ id: 'Errors' });

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  return reply.code(STATUS_OF[problem.type]).send({ errors: problem.details });
}

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

const CONTEXT_NAMES: Record<string, string> = { body: 'field', querystring: 'query parameter', params: 'path parameter', headers: 'header' };

/** One detail per validation issue, naming the field and saying why. */
function validationDetails(issues: ValidationIssue[], context: string | undefined): ProblemDetail[] {
  const details: ProblemDetail[] = [];
  for (const issue of issues) {
    const path = issue.instancePath.replace(/^\//, '').split('/').filter(Boolean);
    if (issue.keyword === 'unrecognized_keys') {
      for (const key of (issue.params?.keys as string[] | undefined) ?? []) {
        const field = [...path, key].join('.');
        details.push({ type: 'validation', field, friendly: `${field}: unknown ${CONTEXT_NAMES[context ?? 'body'] ?? 'field'}` });
      }
      continue;
    }
    const field = path.join('.');
    const message = issue.message ?? 'is invalid';
    const readOnly = issue.keyword === 'invalid_type' && issue.params?.expected === 'never';
    const tooHigh = context === 'querystring' && field === 'max' && issue.keyword === 'too_big';
    // A schema can name its own problem type for a refusal (`params: {problem}` on a refinement).
    const named = (issue.params?.params as { problem?: unknown } | undefined)?.problem;
    const own = typeof named === 'string' && (PROBLEM_TYPES as readonly string[]).includes(named) ? (named as ProblemType) : undefined;
    const type: ProblemType = readOnly ? 'read-only-field' : tooHigh ? 'max-too-high' : (own ?? 'validation');
    const friendly = readOnly ? message : field ? `${field}: ${humanize(message)}` : `the ${context === 'body' ? 'request body' : (CONTEXT_NAMES[context ?? ''] ?? 'request')} ${humanize(message)}`;
    details.push({ type, friendly, ...(field ? { field } : {}) });
  }
  // One message per field: the first problem found is the one to fix first.
  const seen = new Set<string>();
  const unique = details.filter((detail) => {
    const key = detail.field ?? '';
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.length > 0 ? unique : [{ type: 'validation', friendly: 'the request is invalid' }];
}

/** zod's default messages ("Invalid input: expected string, received number") read better lowercased. */
function humanize(message: string): string {
  if (/^Invalid input: expected (\w+), received undefined$/.test(message)) return 'is required';
  if (/^Invalid input: expected (\w+), received null$/.test(message)) return 'must not be null';
  const expected = /^Invalid input: expected (\w+), received \w+$/.exec(message)?.[1];
  if (expected) return `must be ${expected === 'object' ? 'a JSON object' : expected === 'array' ? 'a list' : `a ${expected}`}`;
  return message.replace(/^Invalid input: /, '').replace(/^Too big: /, '').replace(/^Too small: /, '').replace(/^./, (c) => c.toLowerCase());
}

const FASTIFY_CODES: Record<string, ProblemDetail> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { type: 'unsupported-media-type', friendly: 'send the body as JSON with Content-Type: application/json' },
  FST_ERR_CTP_BODY_TOO_LARGE: { type: 'body-too-large', friendly: 'the request body is too large' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { type: 'invalid-json', friendly: 'the Content-Length does not match the body' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { type: 'invalid-json', friendly: 'the body is empty; send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { type: 'invalid-json', friendly: 'the body is not valid JSON' },
};

export function v1ErrorHandler(error: FastifyError & { validationContext?: string }, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof Problem) return sendProblem(reply, error);
  if (hasZodFastifySchemaValidationErrors(error)) {
    const details = validationDetails(error.validation as unknown as ValidationIssue[], error.validationContext);
    // The first problem's status (400 for most; 422 for a type of its own such as expiring-image-link).
    return reply.code(STATUS_OF[details[0]?.type ?? 'validation']).send({ errors: details });
  }
  const known = error.code ? FASTIFY_CODES[error.code] : undefined;
  if (known) return sendProblem(reply, new Problem(known.type, known.friendly));
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    // Anything else the client caused (e.g. a poisoned JSON prototype key) is a plain 400.
    return reply.code(400).send({ errors: [{ type: 'validation', friendly: 'the request is invalid' }] });
  }
  request.log.error({ err: error }, 'request failed');
  return sendProblem(reply, new Problem('internal-error', 'something went wrong on our side; try again'));
}
