// A pass-through proxy whose behaviour is decided per request by a script, for what the plain
// FaultyProxy's single mode cannot express: a service that answers the first call of a command
// and fails the next ones, or one that is slow but still answers. Chain it behind the bot
// harness's proxy (`h.proxy.target = scripted.url`) and put the harness's target back after.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What happens to one request: as FaultyProxy's modes, a delay before one of them, or
 * 'lose-answer': the service gets the request and answers in full, then the client's connection
 * is cut before it hears anything (work done, answer lost: what a retry must cope with).
 */
export type ScriptedAction = 'pass' | 'reset' | 'hang' | 'error-500' | 'lose-answer' | { delayMs: number; then: ScriptedAction };

export interface ProxiedRequest {
  /** 0 for the first request since the last play(). */
  index: number;
  method: string;
  /** Path and query as the client sent them. */
  path: string;
}

export type Script = (request: ProxiedRequest) => ScriptedAction;

export interface ScriptedProxy {
  url: string;
  target: string;
  /** Installs a script and starts numbering requests (and the log) afresh. */
  play(script: Script): void;
  /** The requests seen since the last play(), with what was done to each. */
  log: Array<ProxiedRequest & { action: string }>;
  close(): Promise<void>;
}

/** Passes the first `count` requests, then does `then` to every later one. */
export const passFirst =
  (count: number, then: ScriptedAction): Script =>
  ({ index }) =>
    index < count ? 'pass' : then;

/** Does the same to every request. */
export const always =
  (action: ScriptedAction): Script =>
  () =>
    action;

const describe = (action: ScriptedAction): string => (typeof action === 'string' ? action : `delay ${action.delayMs} ms, ${describe(action.then)}`);

export async function startScriptedProxy(target: string): Promise<ScriptedProxy> {
  const sockets = new Set<Socket>();
  const state: { target: string; script: Script; next: number; log: ScriptedProxy['log'] } = { target, script: always('pass'), next: 0, log: [] };

  const forward = (req: IncomingMessage, res: ServerResponse, loseAnswer = false) => {
    const url = new URL(req.url ?? '/', state.target);
    const upstream = httpRequest(url, { method: req.method, headers: { ...req.headers, host: url.host } }, (answer) => {
      if (loseAnswer) {
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };

  const perform = async (action: ScriptedAction, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (typeof action !== 'string') {
      await sleep(action.delayMs);
      return perform(action.then, req, res);
    }
    if (action === 'pass') return forward(req, res);
    if (action === 'lose-answer') return forward(req, res, true);
    if (action === 'reset') return void req.socket.destroy();
    if (action === 'error-500') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream exploded');
    req.resume(); // hang: read the request, never answer
  };

  const server = createServer((req, res) => {
    const request: ProxiedRequest = { index: state.next++, method: req.method ?? 'GET', path: req.url ?? '/' };
    const action = state.script(request);
    state.log.push({ ...request, action: describe(action) });
    perform(action, req, res).catch(() => req.socket.destroy());
  });
  // A client's idle connection is never closed under it. With Node's 5 s default, a bot idle for
  // about that long (on a loaded machine, while a second bot process started) sent its next request
  // on a connection the proxy was closing, got no answer, and fell back to its cached proxy
  // profile: a failure of the test's plumbing, not of the bot. The refusals are the script's alone.
  server.keepAliveTimeout = 120_000;
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
    play(script) {
      state.script = script;
      state.next = 0;
      state.log = [];
    },
    get log() {
      return state.log;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
