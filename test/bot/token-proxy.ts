// A pass-through proxy to the service that holds the token endpoint's answers for `delayMs` after
// the service gave them: the refresh has happened at the service (the old refresh token is
// spent, new tokens issued) but the bot does not know yet. That is the window in which a second
// refresh or an /unlink races it, made wide enough to hit every time.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface TokenProxy {
  url: string;
  /** How long each token endpoint answer is held (0: not at all). */
  delayMs: number;
  /** Requests seen since the last reset(); `answered` once the service answered (maybe still held). */
  log: Array<{ method: string; path: string; answered: boolean }>;
  reset(delayMs: number): void;
  close(): Promise<void>;
}

export const TOKEN_PATH = '/auth/oauth2/token';

export async function startTokenProxy(target: string): Promise<TokenProxy> {
  const sockets = new Set<Socket>();
  const state = { delayMs: 0, log: [] as TokenProxy['log'] };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const entry = { method: req.method ?? 'GET', path, answered: false };
    state.log.push(entry);
    const hold = path === TOKEN_PATH ? state.delayMs : 0;
    const url = new URL(path, target);
    const upstream = httpRequest(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        entry.answered = true;
        void sleep(hold).then(() => res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks)));
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    get log() {
      return state.log;
    },
    reset(delayMs) {
      state.delayMs = delayMs;
      state.log = [];
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
