// One webhook request: resolve and check the address (address-guard.ts), connect to exactly that
// address (TLS still verifies the URL's host name), POST the body, read at most a few KiB of the
// answer, never follow a redirect, and give up at the deadline. Connections are kept alive per
// (origin, checked address), so a busy endpoint does not pay a handshake per event.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveDeliveryAddress, type CheckedAddress } from './address-guard.js';

const RESPONSE_BYTES_READ = 4096;
const MAX_AGENTS = 256;

export interface DeliveryResponse {
  /** The HTTP status, or null when no response came. */
  statusCode: number | null;
  /** Why it failed; null on a 2xx. */
  error: string | null;
  durationMs: number;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  allowPrivateAddresses: boolean;
}

/** A lookup that answers only the checked addresses, whatever form (one or all) the caller asks for. */
function pinnedLookup(checked: CheckedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (typeof options === 'object' && options.all) (callback as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, checked.all);
    else callback(null, checked.address, checked.family);
  };
}

export class WebhookSender {
  private readonly agents = new Map<string, http.Agent>();

  constructor(private readonly maxSocketsPerOrigin: number) {}

  private agentFor(url: URL, checked: CheckedAddress): http.Agent {
    const key = `${url.protocol}//${url.host}|${checked.all.map((entry) => entry.address).join(',')}`;
    let agent = this.agents.get(key);
    if (agent) {
      // Most recently used last: the oldest is dropped first.
      this.agents.delete(key);
      this.agents.set(key, agent);
      return agent;
    }
    const options = { keepAlive: true, maxSockets: this.maxSocketsPerOrigin, lookup: pinnedLookup(checked) };
    agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    this.agents.set(key, agent);
    if (this.agents.size > MAX_AGENTS) {
      const [oldestKey, oldest] = this.agents.entries().next().value as [string, http.Agent];
      this.agents.delete(oldestKey);
      oldest.destroy();
    }
    return agent;
  }

  async send(request: WebhookRequest): Promise<DeliveryResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(request.url);
    const deadline = AbortSignal.timeout(request.timeoutMs);
    let checked: CheckedAddress;
    try {
      checked = await Promise.race([
        resolveDeliveryAddress(url.hostname, request.allowPrivateAddresses),
        new Promise<never>((_, reject) => deadline.addEventListener('abort', () => reject(new Error(`timed out after ${request.timeoutMs} ms resolving the host name`)), { once: true })),
      ]);
    } catch (error) {
      return { statusCode: null, error: (error as Error).message, durationMs: elapsed() };
    }
    const agent = this.agentFor(url, checked);
    return new Promise<DeliveryResponse>((resolve) => {
      let settled = false;
      const finish = (result: Omit<DeliveryResponse, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        resolve({ ...result, durationMs: elapsed() });
      };
      const client = url.protocol === 'https:' ? https : http;
      const outgoing = client.request(
        url,
        {
          method: 'POST',
          agent,
          signal: deadline,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body), 'user-agent': 'switchboard-webhooks/1', ...request.headers },
        },
        (response) => {
          const statusCode = response.statusCode ?? 0;
          let read = 0;
          const done = () => finish({ statusCode, error: statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}${statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''}` });
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            // Only the status matters: a large (or endless) answer is cut off, and the socket with it.
            if (read > RESPONSE_BYTES_READ) {
              done();
              response.destroy();
            }
          });
          response.on('end', done);
          response.on('error', () => done());
          response.on('close', done);
        },
      );
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        // The code only: node's message names the address connected to (how the host resolved).
        const message = deadline.aborted ? `timed out after ${request.timeoutMs} ms` : `connection failed (${error.code ?? 'no response'})`;
        finish({ statusCode: null, error: message });
      });
      outgoing.end(request.body);
    });
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
