// Rate limits, per client IP on every route and per access token on /v1, with @fastify/rate-limit
// counting in memory or, when REDIS_URL is set, in Redis (shared by every process). Both limits
// are checked before authentication, so floods of bad tokens cost one counter update each.
// Responses carry X-RateLimit-Limit/-Remaining/-Reset of the tighter limit; 429 adds Retry-After.
// The client's address is request.ip as Fastify computes it from TRUST_PROXY (see src/http/app.ts).
import { isIPv6 } from 'node:net';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import { createRedis } from '../../config/redis.js';
import { CONNECT_TIMEOUT_MS, redisFailure, withConnectTimeout } from '../../config/startup-errors.js';
import { sha256 } from '../../security/crypto.js';

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;
type LimitResult = Awaited<ReturnType<Limiter>>;

export interface RateLimitHooks {
  /** Called when a limit is exceeded; answers in the route family's error shape. */
  onExceeded(request: FastifyRequest, reply: FastifyReply, retryAfterSeconds: number): FastifyReply;
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return header && /^Bearer /i.test(header) ? header.slice(7).trim() : undefined;
}

/**
 * The per-IP count's key for an address: IPv4 as it is (also when written IPv4-mapped, as a
 * dual-stack listener reports it), IPv6 by its /64, the block one subscriber usually gets, so a
 * client cannot start a fresh count from each address it owns.
 */
export function ipKey(address: string | undefined): string {
  if (!address) return 'ip:unknown';
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return `ip:${mapped[1]}`;
  const bare = address.split('%')[0] ?? address;
  if (!isIPv6(bare)) return `ip:${address}`;
  const [head = '', tail] = bare.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  // "::" stands for the zero groups the address leaves out; an embedded IPv4 address (always at
  // the end, so never in the /64) fills two groups.
  const written = [...groups(head), ...groups(tail)];
  const missing = tail === undefined ? 0 : 8 - written.length - (written.at(-1)?.includes('.') ? 1 : 0);
  const full = [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)];
  return `ip:${full.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`;
}

export async function installRateLimits(app: FastifyInstance, config: Config, hooks: RateLimitHooks): Promise<void> {
  if (!config.rateLimit.enabled) return;
  // ioredis is loaded only when a Redis store is configured.
  const redis = config.redisUrl
    ? await createRedis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS })
    : undefined;
  // Connect before serving: without an offline queue, commands sent before the connection is up
  // fail, and skipOnError would let those first requests through uncounted. A store that cannot
  // be reached at start is a configuration mistake far more often than an outage, and running
  // unlimited without a word would hide it: start-up stops. An outage later is tolerated.
  if (redis && config.redisUrl) {
    const url = config.redisUrl;
    // The failure is reported once, below, with the socket's error (connect() only says "closed").
    let socketError: unknown;
    const quiet = (error: unknown) => void (socketError = error);
    redis.on('error', quiet);
    await withConnectTimeout(redis.connect()).catch((error: unknown) => {
      redis.disconnect();
      throw redisFailure(socketError ?? error, 'REDIS_URL', url, 'the shared rate-limit counters; leave REDIS_URL empty to count in memory');
    });
    redis.off('error', quiet);
    redis.on('error', (error) => app.log.warn({ err: error }, 'rate-limit store unreachable'));
  }
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));

  await app.register(rateLimit, {
    global: false,
    timeWindow: config.rateLimit.windowSeconds * 1000,
    nameSpace: 'switchboard-rate-',
    // A store outage must not take the API down with it.
    skipOnError: true,
    ...(redis ? { redis } : {}),
  });
  const perIp = app.createRateLimit({ max: config.rateLimit.perIp, keyGenerator: (request) => ipKey(request.ip) });
  const perToken = app.createRateLimit({
    max: config.rateLimit.perToken,
    keyGenerator: (request) => `token:${sha256(bearerOf(request) ?? '')}`,
  });

  app.addHook('onRequest', async (request, reply) => {
    const checks: LimitResult[] = [await perIp(request)];
    if (request.url.startsWith('/v1/') && bearerOf(request)) checks.push(await perToken(request));
    const counted = checks.filter((check): check is Extract<LimitResult, { isAllowed: false }> => !check.isAllowed && 'remaining' in check);
    if (counted.length === 0) return;
    const tightest = counted.reduce((a, b) => (b.isExceeded && !a.isExceeded ? b : b.remaining < a.remaining && a.isExceeded === b.isExceeded ? b : a));
    reply.header('x-ratelimit-limit', tightest.max);
    reply.header('x-ratelimit-remaining', Math.max(0, tightest.remaining));
    reply.header('x-ratelimit-reset', tightest.ttlInSeconds);
    if (tightest.isExceeded) {
      reply.header('retry-after', tightest.ttlInSeconds);
      return hooks.onExceeded(request, reply, tightest.ttlInSeconds);
    }
  });
}
