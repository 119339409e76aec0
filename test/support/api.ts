// A signed-in API user for tests: a real OAuth client, real tokens from the authorization code
// flow, and a small JSON caller for /v1. `signIn` is how every API suite gets its users.
import { createTestClient, obtainTokens, type TestClient } from './oauth.js';
import type { TestServer } from './server.js';

export const ALL_API_SCOPES = 'alters:read alters:write system:read system:write system:ai-ap messages:read messages:write';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** JSON request to the server; `body` is sent as JSON unless `raw` is given. */
export async function request<T = unknown>(
  server: TestServer,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | Uint8Array | undefined = options.raw;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text, the assertion will show it
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** A multipart/form-data body holding one file part, for `request`'s `raw` and `headers`. */
export function multipartFile(part: string, bytes: Uint8Array | string, filename = 'upload.bin'): { raw: Uint8Array; headers: Record<string, string> } {
  const boundary = `----switchboard-test-${Math.random().toString(36).slice(2)}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${part}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const raw = Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { raw, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

export interface ApiUser {
  userId: string;
  client: TestClient;
  token: string;
  refreshToken: string | undefined;
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
}

/** Signs `userId` in through `client` (dev login + consent) and returns a caller with its token. */
export async function signIn(server: TestServer, userId: string, options: { client?: TestClient; scope?: string } = {}): Promise<ApiUser> {
  const client = options.client ?? (await createTestClient(server));
  const { tokens } = await obtainTokens(client, { userId, scope: options.scope ?? `openid offline_access ${ALL_API_SCOPES}` });
  return {
    userId,
    client,
    token: tokens.access_token,
    refreshToken: tokens.refresh_token,
    call: (method, path, body) => request(server, method, path, { token: tokens.access_token, body }),
  };
}

export interface ErrorBody {
  errors: Array<{ type: string; friendly: string; field?: string }>;
}

/** The error types of an error body, for compact assertions. */
export function errorTypes(response: ApiResponse): string[] {
  return ((response.body as ErrorBody | undefined)?.errors ?? []).map((error) => error.type);
}

export function errorFields(response: ApiResponse): Array<string | undefined> {
  return ((response.body as ErrorBody | undefined)?.errors ?? []).map((error) => error.field);
}
