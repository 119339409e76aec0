// HTTP to the service: one request with the bot's timeouts and credentials, /v1 calls (short
// rate-limit waits are honoured by retrying once; longer ones are reported with the wait), OAuth
// calls, and the bot's own client-credentials tokens. Endpoints live in ../api-client.ts.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from '../http.js';
import { ApiError, apiErrorOf, oauthErrorOf, rateLimited, transportError } from './errors.js';

export interface TransportOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  /** Longest Retry-After the client waits out by itself before giving up. */
  maxRetryWaitSeconds?: number;
}

export interface CallOptions {
  token?: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** A JSON body sent byte for byte (an import file: re-serialising it could change it). */
  rawJson?: Buffer;
  form?: Record<string, string>;
  /** A file, sent as multipart/form-data in one part (an image upload). */
  file?: { part: string; filename: string; bytes: Buffer };
  clientAuth?: boolean;
  /** Instead of the client's timeout, for calls that do much more work than the others. */
  timeoutMs?: number;
}

export type Headers = Record<string, string | string[] | undefined>;

export interface RawResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/**
 * A successful /v1 answer as `T`, its route's response schema's type (from src/domain/): the
 * service validates its answers against that schema, so the bot reads them as such without
 * parsing them again. The one place the bot trusts an answer's shape.
 */
export function answerOf<T>(response: RawResponse): T {
  return response.body as T;
}

export function createTransport(options: TransportOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;
  const maxWait = options.maxRetryWaitSeconds ?? 2;

  async function send(method: string, path: string, call: CallOptions): Promise<RawResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    if (call.clientAuth) headers.authorization = basic;
    let body: string | Buffer | undefined;
    if (call.rawJson !== undefined) {
      headers['content-type'] = 'application/json';
      body = call.rawJson;
    } else if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(call.form).toString();
    } else if (call.file) {
      const { contentType, bytes } = multipartBody(call.file);
      headers['content-type'] = contentType;
      body = bytes;
    }
    const timeoutMs = call.timeoutMs ?? options.timeoutMs;
    try {
      const response = await request(`${base}${path}`, {
        method: method as 'GET',
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.body.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.statusCode, headers: response.headers, body: parsed, text };
    } catch (error) {
      throw transportError(error);
    }
  }

  function retryAfterOf(headers: Headers): number {
    const raw = Number(headers['retry-after']);
    return Number.isFinite(raw) && raw >= 0 ? Math.ceil(raw) : 1;
  }

  /** A /v1 call, answered with a 2xx response; errors from the service's error body. */
  async function callApi(method: string, path: string, call: CallOptions, retried = false): Promise<RawResponse> {
    const response = await send(method, path, call);
    if (response.status === 429) {
      const wait = retryAfterOf(response.headers);
      if (!retried && wait <= maxWait) {
        await sleep(wait * 1000);
        return callApi(method, path, call, true);
      }
      throw rateLimited(wait);
    }
    // 304 answers only conditional requests, whose callers look for it.
    if ((response.status >= 200 && response.status < 300) || response.status === 304) return response;
    throw apiErrorOf(response.status, response.body);
  }

  /** A /v1 call: JSON in and out (see answerOf). */
  async function api<T>(method: string, path: string, call: CallOptions): Promise<T> {
    return answerOf<T>(await callApi(method, path, call));
  }

  /** An OAuth call: form in, JSON out, RFC 6749 errors. */
  async function oauth(path: string, form: Record<string, string>): Promise<Record<string, unknown>> {
    const response = await send('POST', path, { form, clientAuth: true });
    const body = (response.body ?? {}) as Record<string, unknown>;
    if (response.status === 429) throw rateLimited(retryAfterOf(response.headers));
    if (response.status >= 400) throw oauthErrorOf(response.status, body);
    return body;
  }

  // The bot's own client-credentials token, for what it asks as itself on behalf of people who
  // never linked: message info, and other users' public profiles (lookups by moderators). It
  // holds read scopes only, and the service lets such a token read nothing but public data of
  // users named by id.
  /** One client-credentials token source per scope set: shared by concurrent callers, renewed a minute early or after a 401. */
  function clientTokenSource(scope: string, misconfigured: string) {
    let current: { value: string; expiresAt: number } | undefined;
    let pending: Promise<string> | undefined;
    function token(): Promise<string> {
      if (current && current.expiresAt - Date.now() > 60_000) return Promise.resolve(current.value);
      pending ??= oauth('/auth/oauth2/token', { grant_type: 'client_credentials', scope })
        .catch((error: unknown) => {
          // A client registered without client_credentials or these scopes (a bot run apart from the
          // service, registered by hand): the operator's to fix, and the asker has no link to keep.
          const refused = error instanceof ApiError && (error.kind === 'misconfigured' || (error.kind === 'oauth' && ['invalid_scope', 'unauthorized_client', 'unsupported_grant_type'].includes(error.type)));
          throw refused ? new ApiError('misconfigured', error.status, error.type, misconfigured) : error;
        })
        .then((body) => {
          current = { value: String(body.access_token), expiresAt: Date.now() + Number(body.expires_in ?? 3600) * 1000 };
          return current.value;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    }
    return async function withToken<T>(call: (token: string) => Promise<T>): Promise<T> {
      const first = await token();
      try {
        return await call(first);
      } catch (error) {
        if (!(error instanceof ApiError && error.kind === 'unauthorized')) throw error;
        if (current?.value === first) current = undefined;
        return call(await token());
      }
    };
  }

  return { send, callApi, api, oauth, clientTokenSource };
}

/** One file part as multipart/form-data (RFC 7578); the boundary is random, so no file can contain it by chance. */
function multipartBody(file: { part: string; filename: string; bytes: Buffer }): { contentType: string; bytes: Buffer } {
  const boundary = `switchboard-${randomBytes(16).toString('hex')}`;
  const quoted = (text: string) => text.replace(/["\\\r\n]/g, '_');
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.part)}"; filename="${quoted(file.filename)}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    bytes: Buffer.concat([Buffer.from(head), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]),
  };
}
