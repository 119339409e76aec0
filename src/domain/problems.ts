// The one error class of the API. A Problem has a stable, machine-readable `type` (kebab-case, as
// in the origin API), a sentence for people, and the field it concerns when there is one. The HTTP
// layer maps each type to a status code and the error body (src/http/v1/problem-responses.ts);
// nothing here knows HTTP.
export const PROBLEM_TYPES = [
  // authentication and authorization
  'no-access-token',
  'invalid-auth',
  'invalid-scopes',
  'not-matching-oauth',
  'user-token-required',
  'token-in-query',
  'client-token-required',
  'first-party-only',
  // the request itself
  'validation',
  'read-only-field',
  'invalid-json',
  'unsupported-media-type',
  'body-too-large',
  'max-too-high',
  'not-found',
  'rate-limited',
  // state
  'no-system',
  'unknown-alter',
  'unknown-tag',
  'unknown-profile-field',
  'unknown-switch',
  'unknown-message',
  'unknown-endpoint',
  'unknown-delivery',
  'alters-private',
  'tags-private',
  'duplicate',
  'duplicate-field',
  'too-many-alters',
  'too-many-tags',
  'too-many-profile-fields',
  'too-many-entries',
  'system-too-large',
  'same-front',
  'invalid-import',
  'invalid-image',
  'expiring-image-link',
  'image-quota',
  'unknown-image',
  'idempotency-key-reused',
  'invalid-account-code',
  'account-has-system',
  'unknown-account',
  'owner-account',
  'unknown-app',
  'calling-app',
  'cross-site-request',
  'internal-error',
] as const;

export type ProblemType = (typeof PROBLEM_TYPES)[number];

export interface ProblemDetail {
  type: ProblemType;
  friendly: string;
  /** Dotted path of the offending field or parameter, e.g. `proxyTags.0.prefix` or `max`. */
  field?: string;
}

export class Problem extends Error {
  readonly type: ProblemType;
  readonly details: ProblemDetail[];

  constructor(type: ProblemType, friendly: string, field?: string) {
    super(friendly);
    this.name = 'Problem';
    this.type = type;
    this.details = [{ type, friendly, ...(field === undefined ? {} : { field }) }];
  }
}
