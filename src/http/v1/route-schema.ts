// The parts every /v1 route's schema shares: its security requirement and its error responses,
// so the OpenAPI document states both for each operation.
import type { Scope } from '../../domain/scopes.js';
import { ProblemBody } from './problem-responses.js';

const AUTH_ERRORS = [400, 401, 403, 429] as const;

export function errorResponses(...statuses: number[]) {
  const all = [...new Set([...AUTH_ERRORS, ...statuses])].sort();
  return Object.fromEntries(all.map((status) => [status, ProblemBody])) as Record<number, typeof ProblemBody>;
}

/** The scopes an operation needs (all of them). */
export function security(scope: Scope, ...more: Scope[]) {
  return [{ oauth2: [scope, ...more] }];
}

/** Any one of the scopes will do (OpenAPI's alternatives). */
export function securityAnyOf(...scopes: Scope[]) {
  return scopes.map((scope) => ({ oauth2: [scope] }));
}
