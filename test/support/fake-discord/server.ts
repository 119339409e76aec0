// The HTTP server on loopback: records every request, applies the failures a test set, serves
// stored attachments like the CDN, then the OAuth routes and the bot's REST API; websocket
// upgrades at /gateway go to the gateway.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { HttpError } from './refusals.js';
import { checkRequest } from './request-checks.js';
import type { FakeState } from './state.js';
import type { FailureRule, FakeDiscord, RouteResult } from './types.js';
import type { OAuthAnswer } from './routes/oauth.js';

export interface ServerRoutes {
  oauthRoute(req: IncomingMessage, url: URL, path: string, body: string): OAuthAnswer | undefined;
  botRoute(req: IncomingMessage, url: URL, segments: string[], raw: Buffer, receivedAt: bigint): Promise<RouteResult>;
}

/** Listens on an ephemeral loopback port (set in `state.port` before it resolves). */
export async function startServer(state: FakeState, wss: WebSocketServer, routes: ServerRoutes) {
  const { requests, attachmentStore, notify } = state;
  const { oauthRoute, botRoute } = routes;
  let failures: FailureRule[] = [];

  const matchFailure = (method: string, path: string): FailureRule | undefined =>
    failures.find((rule) => rule.remaining > 0 && (!rule.matcher.method || rule.matcher.method.toUpperCase() === method) && rule.matcher.path.test(path));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const body = raw.toString('utf8');
    const receivedAt = process.hrtime.bigint();
    const rawSegments = url.pathname.split('/');
    const path = rawSegments.map((s) => { try { return decodeURIComponent(s); } catch { return s; } }).join('/');
    const method = req.method ?? 'GET';
    requests.push({ method, path, query: url.searchParams, headers: req.headers, body });
    const json = (status: number, value?: unknown): void => {
      if (status === 204 || value === undefined) res.writeHead(status).end();
      else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };

    const failure = matchFailure(method, path);
    if (failure) {
      failure.remaining -= 1;
      const { status, body: failBody, headers = {} } = failure.response;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(failBody ?? { message: `${status}: fake failure`, code: 0 }));
      return;
    }

    const attachment = /^\/(?:ephemeral-)?attachments\/\d+\/(\d+)\/[^/]+$/.exec(path);
    if (attachment && (method === 'GET' || method === 'HEAD')) {
      const stored = attachmentStore.get(attachment[1] ?? '');
      if (!stored) return json(404, { message: '404: Not Found', code: 0 });
      res.writeHead(200, { 'content-type': stored.contentType, 'content-length': String(stored.data.length) }).end(method === 'HEAD' ? undefined : stored.data);
      return;
    }

    const oauth = oauthRoute(req, url, path, body);
    if (oauth?.headers) {
      res.writeHead(oauth.status, oauth.headers).end();
      return;
    }
    if (oauth) return json(oauth.status, oauth.body);

    const versioned = /^\/api\/v\d+\/(.*)$/.exec(path);
    if (versioned?.[1] !== undefined) {
      try {
        const row = await checkRequest(req, versioned[1], raw);
        const result = await botRoute(req, url, versioned[1].split('/'), raw, receivedAt);
        // Every route the fake serves has its row, so no body reaches a route unchecked.
        if (result && !row) throw new Error(`fake Discord: ${method} /${versioned[1]} has no row in request-table.ts`);
        if (result) return json(result.status, result.body);
      } catch (error) {
        if (error instanceof HttpError) return json(error.status, error.body);
        throw error;
      }
    }

    json(404, { message: '404: Not Found', code: 0 });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res)
      .catch((error: unknown) => {
        console.error('fake Discord: request failed', error);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: '500: Internal Server Error', code: 0 }));
      })
      .finally(notify);
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: '' });
    if (url.pathname !== '/gateway') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  state.port = typeof address === 'object' && address ? address.port : 0;

  const api: Pick<FakeDiscord, 'setRestFailure'> = {
    setRestFailure(matcher, response) {
      const sameMatcher = (rule: FailureRule): boolean =>
        rule.matcher.path.source === matcher.path.source && rule.matcher.path.flags === matcher.path.flags && (rule.matcher.method ?? '').toUpperCase() === (matcher.method ?? '').toUpperCase();
      failures = failures.filter((rule) => !sameMatcher(rule));
      if (response) failures.push({ matcher, response, remaining: response.times ?? Number.POSITIVE_INFINITY });
    },
  };

  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return { api, close };
}
