// A proxy between the bot and the service that can misbehave on demand: pass requests through,
// refuse connections, hang, or answer 5xx. Tests use it to show the bot survives a sick service.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type ProxyMode = 'pass' | 'reset' | 'hang' | 'error-500';

export interface FaultyProxy {
  url: string;
  target: string;
  mode: ProxyMode;
  close(): Promise<void>;
}

export async function startFaultyProxy(): Promise<FaultyProxy> {
  const sockets = new Set<Socket>();
  const state = { target: '', mode: 'pass' as ProxyMode };

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const target = new URL(req.url ?? '/', state.target);
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };

  const server = createServer((req, res) => {
    if (state.mode === 'pass') return forward(req, res);
    if (state.mode === 'reset') return req.socket.destroy();
    if (state.mode === 'error-500') return res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded');
    // hang: read the request, never answer
    req.resume();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get target() {
      return state.target;
    },
    set target(value: string) {
      state.target = value;
    },
    get mode() {
      return state.mode;
    },
    set mode(value: ProxyMode) {
      state.mode = value;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
