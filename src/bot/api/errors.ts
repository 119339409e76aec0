// How the service's failures reach the bot: every one is an ApiError with a sentence a chat user
// can read, the service's own error body when there is one, otherwise what went wrong (down, too
// slow, rate-limited, the bot's own credentials refused).

/** `misconfigured`: the service refused the bot's own client credentials (not the user's grant). */
export type ApiErrorKind = 'problem' | 'unavailable' | 'timeout' | 'rate-limited' | 'unauthorized' | 'oauth' | 'misconfigured';

/** What users are told while the service refuses the bot's client credentials. */
export const MISCONFIGURED_MESSAGE = 'The bot is misconfigured: switchboard does not accept its client credentials right now. Your link is kept; please tell the bot’s operator.';

/** One entry of the service's error body: `field` is the API's name (`avatarUrl`), not an option's. */
export interface ServiceProblem {
  type: string;
  friendly: string;
  field?: string;
}

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    readonly status: number,
    /** The service's error type (`duplicate`, `invalid_grant`, …) or the kind. */
    readonly type: string,
    friendly: string,
    readonly field?: string,
    readonly retryAfterSeconds?: number,
    /** Every problem the service reported (validation names each bad field); empty for the bot's own errors. */
    readonly problems: readonly ServiceProblem[] = [],
  ) {
    super(friendly);
    this.name = 'ApiError';
  }
}

/** The request never got an answer: too slow, or the service is unreachable. */
export function transportError(error: unknown): ApiError {
  const name = (error as { name?: string; code?: string }).name ?? '';
  const code = (error as { code?: string }).code ?? '';
  if (name === 'TimeoutError' || name === 'AbortError' || code.startsWith('UND_ERR_') && code.includes('TIMEOUT')) {
    return new ApiError('timeout', 0, 'timeout', 'switchboard took too long to answer. Try again in a moment.');
  }
  return new ApiError('unavailable', 0, 'unavailable', 'switchboard cannot be reached right now. Try again in a moment.');
}

export function rateLimited(waitSeconds: number): ApiError {
  return new ApiError('rate-limited', 429, 'rate-limited', `Too many requests right now. Try again in ${waitSeconds} s.`, undefined, waitSeconds);
}

/** A /v1 answer that is not a success (nor a 429): the service's error body, in its words where it has some. */
export function apiErrorOf(status: number, body: unknown): ApiError {
  const errors = (body as { errors?: Array<{ type?: string; friendly?: string; field?: string }> } | undefined)?.errors ?? [];
  const first = errors[0];
  if (status === 401) return new ApiError('unauthorized', 401, first?.type ?? 'invalid-auth', 'Your link to switchboard has expired.');
  if (status === 413) return new ApiError('problem', 413, first?.type ?? 'too-large', first?.friendly ?? 'That is more than switchboard accepts in one request.');
  if (status >= 500 || !first) {
    return new ApiError('unavailable', status, first?.type ?? 'server-error', 'switchboard had a problem with that request. Try again in a moment.');
  }
  const problems = errors.map((problem) => ({ type: problem.type ?? 'error', friendly: problem.friendly ?? 'That did not work.', ...(problem.field ? { field: problem.field } : {}) }));
  return new ApiError('problem', status, first.type ?? 'error', first.friendly ?? 'That did not work.', first.field, undefined, problems);
}

/** An OAuth answer of 400 or more (nor a 429): RFC 6749's error, or the bot's own credentials refused. */
export function oauthErrorOf(status: number, body: Record<string, unknown>): ApiError {
  if (status >= 500) return new ApiError('unavailable', status, 'server-error', 'switchboard had a problem. Try again in a moment.');
  const error = typeof body.error === 'string' ? body.error : 'invalid_request';
  // Client authentication failed (a wrong BOT_CLIENT_SECRET, an unknown or re-registered
  // client): a configuration error of the bot, never a sign that a user's grant is gone.
  if (status === 401 || error === 'invalid_client' || error === 'unauthorized_client') {
    return new ApiError('misconfigured', status, error, MISCONFIGURED_MESSAGE);
  }
  return new ApiError('oauth', status, error, typeof body.error_description === 'string' ? body.error_description : error);
}
