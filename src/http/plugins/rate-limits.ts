// Rate limits, per client IP on every route and per access token on /v1, with @fastify/rate-limit
// counting in memory or, when REDIS_URL is set, in Redis (shared by every process). Both limits
// are checked before authentication, so floods of bad tokens cost one counter update each.
// Responses carry X-RateLimit-Limit/-Remaining/-Reset of the tighter limit; 429 adds Retry-After.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
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

export async function installRateLimits(app: FastifyInstance, config: Config, hooks: RateLimitHooks): Promise<void> {
  if (!config.rateLimit.enabled) return;
  // ioredis is loaded only when a Redis store is configured.
  const redis = config.redisUrl
    ? new (await import('ioredis')).Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true })
    : undefined;
  redis?.on('error', (error) => app.log.warn({ err: error }, 'rate-limit store unreachable'));
  // Connect before serving: without an offline queue, commands sent before the connection is up
  // fail, and skipOnError would let those first requests through uncounted.
  if (redis) await redis.connect().catch((error: unknown) => app.log.warn({ err: error }, 'rate-limit store unreachable at start; requests are not limited until it is back'));
  if (redis) app.addHook('onClose', async () => void (await redis.quit().catch(() => redis.disconnect())));

  await app.register(rateLimit, {
    global: false,
    timeWindow: config.rateLimit.windowSeconds * 1000,
    nameSpace: 'switchboard-rate-',
    // A store outage must not take the API down with it.
    skipOnError: true,
    ...(redis ? { redis } : {}),
  });
  const perIp = app.createRateLimit({ max: config.rateLimit.perIp, keyGenerator: (request) => `ip:${request.ip}` });
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
