// A fuzzed request and its response, and how they are shown in a failure (secrets named, long
// parts abridged).


export interface FuzzRequest {
  method: string;
  /** Path and query, sent as is (no normalisation of dot segments or encodings). */
  path: string;
  headers: Array<[string, string]>;
  body?: string | Uint8Array | undefined;
}

export interface FuzzResponse {
  status: number;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** Secrets of the fixtures, replaced by their names when a request is shown. */
export const secretNames = new Map<string, string>();

export function redact(text: string): string {
  let out = text;
  for (const [secret, name] of secretNames) out = out.split(secret).join(name);
  return out;
}

export function preview(body: FuzzRequest['body'], max = 300): string {
  if (body === undefined) return '(none)';
  if (typeof body !== 'string') {
    return `<${body.length} bytes> ${Buffer.from(body.subarray(0, 80)).toString('hex')}${body.length > 80 ? '…' : ''}`;
  }
  const shown = JSON.stringify(body.length > max ? body.slice(0, max) : body);
  return body.length > max ? `${shown}… (${body.length} characters)` : shown;
}

export function showExchange(request: FuzzRequest, response?: FuzzResponse): string {
  const lines = [
    `request:  ${request.method} ${request.path.length > 400 ? `${request.path.slice(0, 400)}… (${request.path.length} characters)` : request.path}`,
    `headers:  ${JSON.stringify(request.headers.map(([name, value]) => [name, value.length > 200 ? `${value.slice(0, 200)}… (${value.length})` : value]))}`,
    `body:     ${preview(request.body)}`,
  ];
  if (response) lines.push(`response: ${response.status} ${response.contentType}`, `          ${response.text.slice(0, 600)}`);
  return redact(lines.join('\n'));
}
