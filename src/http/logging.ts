// The service's log: pino through Fastify. JSON lines for machines (log collectors), or pino-pretty's
// coloured lines for a person at a terminal: LOG_FORMAT=auto (the default) picks pretty when stdout
// is a terminal. One line per request, when it is answered: method, route pattern, status and
// time. The route pattern (`/v1/users/:user/alters/:alter`), never the URL: paths carry ids and
// login tokens, query strings carry codes and states.
import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Config, LogFormat } from '../config/config.js';
import { OAUTH_BASE, OAUTH_ROUTES } from '../auth/provider.js';

/** Whether log lines are pretty-printed: LOG_FORMAT, or for `auto` whether stdout is a terminal. */
export function prettyLogs(format: LogFormat, stdoutIsTerminal = process.stdout.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTerminal);
}

export async function loggerOptions(config: Pick<Config, 'logLevel' | 'logFormat'>): Promise<NonNullable<FastifyServerOptions['logger']>> {
  return {
    level: config.logLevel,
    // Tokens, codes and secrets travel in these; they must never reach the logs.
    redact: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({ method: req.method, url: redactUrl(req.url), id: req.id }),
    },
    // Synchronous, in this thread: pretty output is for a person watching a terminal, where a
    // worker thread's buffering would only reorder lines around a crash.
    ...(prettyLogs(config.logFormat) ? { stream: await prettyStream() } : {}),
  };
}

const REQUEST_FIELDS = ['method', 'route', 'status', 'ms'] as const;

/** pino-pretty is loaded only when used: it adds 70 ms to every start. */
async function prettyStream() {
  const { default: PinoPretty } = await import('pino-pretty');
  return PinoPretty({
    sync: true,
    colorize: process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', 'reqId', ...REQUEST_FIELDS].join(','),
    // The request line reads as one line, `[req-7] GET /v1/users/:user/system 200 3 ms`; the
    // request id prefixes every line logged for a request, so an error finds its request.
    messageFormat: (log, messageKey) => {
      const prefix = typeof log.reqId === 'string' ? `[${log.reqId}] ` : '';
      if (log[messageKey] === 'request' && typeof log.method === 'string') {
        return `${prefix}${log.method} ${typeof log.route === 'string' ? log.route : '(no route)'} ${String(log.status)} ${String(log.ms)} ms`;
      }
      return `${prefix}${String(log[messageKey] ?? '')}`;
    },
  });
}

/**
 * Fastify's request logging, one line per request: nothing when it arrives (Fastify's default
 * logs two lines, with the raw URL), one line when it is answered, also for the authorization
 * server's replies (hijacked, so no hook sees them).
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  // Fastify's line for a 404 carries the raw URL, query string included; the request line says it.
  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const status = reply.statusCode;
    const line = { method: request.method, route: routeOf(request.routeOptions.url, request.url), status, ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else if (status >= 500) reply.log.error(line, 'request');
    else reply.log.info(line, 'request');
  }
}

const PROVIDER_ROUTES = Object.values(OAUTH_ROUTES).sort((a, b) => b.length - a.length);

/**
 * The route pattern a request matched. The authorization server is one wildcard route in front of
 * oidc-provider, so there the endpoint is named instead (its paths hold no secrets, but resume
 * paths hold interaction ids: those become `:uid`). Unmatched requests (404) log no path at all.
 */
function routeOf(pattern: string | undefined, url: string): string | null {
  if (pattern === undefined) return null;
  if (pattern !== `${OAUTH_BASE}/*`) return pattern;
  const path = url.split('?')[0] ?? url;
  const endpoint = PROVIDER_ROUTES.find((route) => path === route || path.startsWith(`${route}/`));
  if (!endpoint) return pattern;
  return path === endpoint ? endpoint : `${endpoint}/:uid`;
}

/** Query strings can carry codes and login tokens: keep only the path in request logs. */
function redactUrl(url: string): string {
  const path = url.split('?')[0] ?? url;
  return path.startsWith('/auth/login-links/') ? '/auth/login-links/[redacted]' : path;
}
