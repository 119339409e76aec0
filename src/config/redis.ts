// ioredis, loaded only where a Redis store is configured: the shared rate-limit counters
// (REDIS_URL) and the bot's link lock (BOT_STORE_URL).
import type { Redis, RedisOptions } from 'ioredis';

/**
 * A named export of a CommonJS package loaded with import(). Under Node (and tsx) the namespace
 * carries the package's named exports; in the bundle `npm start` runs (scripts/bundle.mjs), a
 * CommonJS package loaded lazily becomes a chunk whose only export is `default`, its
 * module.exports, so the name is read from there. Both hold the same value.
 */
export function commonJsExport<Namespace extends object, Name extends keyof Namespace>(namespace: Namespace, name: Name): Namespace[Name] {
  if (namespace[name] !== undefined) return namespace[name];
  const moduleExports: unknown = (namespace as { default?: unknown }).default;
  const value = (moduleExports !== null && typeof moduleExports === 'object') || typeof moduleExports === 'function' ? (moduleExports as Namespace)[name] : undefined;
  if (value === undefined) throw new TypeError(`the module has no export named ${String(name)}`);
  return value;
}

export async function createRedis(url: string, options: RedisOptions): Promise<Redis> {
  const RedisClient = commonJsExport(await import('ioredis'), 'Redis');
  return new RedisClient(url, options);
}
