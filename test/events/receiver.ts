// A webhook receiver for the event tests: a real HTTP server on loopback that records every request
// and answers as the test says (a status, or never), and a Standard Webhooks signature check
// written from the specification, independently of src/events/signature.ts.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, unknown> & { sequence: number; systemId: string; userId: string; eventId: string } };
  /** performance.now() when the request arrived. */
  at: number;
}

/** What to answer: a status code, or 'hang' to never answer (the sender's timeout ends it). */
export type Answer = number | 'hang';

export class Receiver {
  readonly requests: Received[] = [];
  /** Decides each answer; 200 by default. */
  answer: (request: Received) => Answer = () => 200;
  private server: Server | undefined;
  private hanging: ServerResponse[] = [];
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(Object.entries(incoming.headers).map(([key, value]) => [key, String(value)]));
        const received: Received = { path: incoming.url ?? '', headers, body, json: JSON.parse(body) as Received['json'], at: performance.now() };
        this.requests.push(received);
        const answer = this.answer(received);
        if (answer === 'hang') {
          this.hanging.push(response);
          return;
        }
        response.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  at(path: string): Received[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** Waits until `predicate` holds for the requests to `path` (polling; fails after `timeoutMs`). */
  async waitFor(path: string, predicate: (requests: Received[]) => boolean, timeoutMs = 10_000): Promise<Received[]> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const requests = this.at(path);
      if (predicate(requests)) return requests;
      if (Date.now() > until) throw new Error(`timed out waiting for requests to ${path}; got ${requests.length}: ${requests.map((r) => `${r.json.type}#${r.json.data.sequence}`).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Standard Webhooks verification: any `v1,` signature over "id.timestamp.body" with the secret's key, timestamp within 5 minutes. */
export function verifySignature(secret: string, request: Pick<Received, 'headers' | 'body'>, nowSeconds = Date.now() / 1000): boolean {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  const signatures = request.headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  if (!secret.startsWith('whsec_')) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(request.body, 'utf8').digest();
  return signatures.split(' ').some((entry) => {
    const comma = entry.indexOf(',');
    if (entry.slice(0, comma) !== 'v1') return false;
    const given = Buffer.from(entry.slice(comma + 1), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
