// The one place where the process environment is read. Every setting is declared once, in the
// SETTINGS table below, and parsed and validated with zod, so a bad value stops start-up with a
// message naming the variable, instead of surfacing later as a confusing failure deep inside a
// request.
import { isIP } from 'node:net';
import { z } from 'zod';
import { familyCoveredEntirely } from './address-coverage.js';
import { parseShardCount, parseShardIds, type ShardCount, type ShardPlan } from './shards.js';
import { environmentShape, incompleteGroups, resolve, setting, together, type Resolved, type SettingsTree } from './settings-table.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const seconds = (fallback: number) =>
  z.coerce
    .number({ message: 'expected a number of seconds' })
    .int('expected a whole number of seconds')
    .positive('expected a positive number of seconds')
    .max(31_536_000, 'expected at most one year')
    .default(fallback);

const count = (fallback: number) =>
  z.coerce
    .number({ message: 'expected a number' })
    .int('expected a whole number')
    .positive('expected a positive number')
    .max(1_000_000, 'expected at most 1000000')
    .default(fallback);

const days = (fallback: number) =>
  z.coerce
    .number({ message: 'expected a number of days' })
    .int('expected a whole number of days')
    .min(0, 'expected 0 (keep forever) or a positive number of days')
    .max(36_500, 'expected at most 36500 days')
    .default(fallback);

const milliseconds = (fallback: number, min: number, max: number) =>
  z.coerce
    .number({ message: 'expected a number of milliseconds' })
    .int('expected a whole number of milliseconds')
    .min(min, `expected at least ${min} ms`)
    .max(max, `expected at most ${max} ms`)
    .default(fallback);

const httpUrl = z
  .string()
  .url('expected an absolute URL')
  .refine((value) => /^https?:\/\//.test(value), 'expected an http:// or https:// URL')
  .transform((value) => value.replace(/\/+$/, ''));

/** Named ranges Fastify's trustProxy (proxy-addr) knows, usable in TRUST_PROXY's list. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const MAX_PROXY_HOPS = 10;

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry) || isIP(entry) !== 0) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  return version !== 0 && rest.length === 0 && prefix !== undefined && /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: which peers may say who the client is in X-Forwarded-For. false (or 0): none, the
 * client is the connection's peer. A hop count: that many proxies in front of the service, the
 * client is the address the outermost one appended. A list of addresses, CIDRs or range names:
 * the client is the right-most address outside the list. `true` (trust every hop) is refused:
 * the left-most entry it would pick is written by the client, so anyone could pick their own key.
 */
const trustProxy = z.string().transform((raw, ctx): TrustedProxies | undefined => {
  const value = raw.trim().toLowerCase();
  if (['false', 'no', '0'].includes(value)) return undefined;
  if (['true', 'yes'].includes(value)) {
    ctx.addIssue({
      code: 'custom',
      message:
        'true is not accepted: it would trust every X-Forwarded-For entry, including the ones the client writes itself; ' +
        'set the number of proxies in front of the service (e.g. 1), their addresses or CIDRs (e.g. 127.0.0.1,10.0.0.0/8), or false',
    });
    return z.NEVER;
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops === 0) return undefined;
    if (hops > MAX_PROXY_HOPS) {
      ctx.addIssue({ code: 'custom', message: `expected at most ${MAX_PROXY_HOPS} proxy hops, or the proxies' addresses` });
      return z.NEVER;
    }
    return { hops };
  }
  const addresses = value.split(',').map((entry) => entry.trim());
  const bad = addresses.filter((entry) => !isProxyAddress(entry));
  if (bad.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: `expected false, a number of proxy hops (e.g. 1), or comma-separated proxy addresses or CIDRs (e.g. 127.0.0.1,10.0.0.0/8); not an address or CIDR: ${bad.map((entry) => JSON.stringify(entry)).join(', ')}`,
    });
    return z.NEVER;
  }
  const everyone = familyCoveredEntirely(addresses);
  if (everyone) {
    ctx.addIssue({
      code: 'custom',
      message: `${JSON.stringify(raw.trim())} trusts every ${everyone} address, as true would (clients could write their own address into X-Forwarded-For); list only the proxies' own addresses or CIDRs, or set the number of proxies (e.g. 1)`,
    });
    return z.NEVER;
  }
  return { addresses };
});

const databaseUrl = z
  .string()
  .refine(
    (value) => value.startsWith('sqlite:') || /^postgres(ql)?:\/\//.test(value),
    'expected sqlite:<path> or postgres://user@host:port/database',
  );

/**
 * Every setting, once: where it goes in the Config (its place in this tree), the variable that sets
 * it and the zod schema that reads it, default included. The validation (EnvSchema), the Config
 * type and the mapping from the environment follow from it; `.env.example` documents the same
 * variables (test/config/config.test.ts holds them to it). The few values that depend on other
 * settings are computed in `complete` below.
 */
const SETTINGS = {
  nodeEnv: setting('NODE_ENV', z.enum(['development', 'production', 'test']).default('development')),
  port: setting(
    'PORT',
    z.coerce
      .number({ message: 'expected a port number' })
      .int('expected a whole number')
      .min(0, 'expected a port between 0 and 65535')
      .max(65535, 'expected a port between 0 and 65535')
      .default(3000),
  ),
  host: setting('HOST', z.string().min(1, 'expected a host name or address').default('127.0.0.1')),
  logLevel: setting('LOG_LEVEL', z.enum(LOG_LEVELS, { message: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info')),
  logFormat: setting('LOG_FORMAT', z.enum(LOG_FORMATS, { message: `expected one of ${LOG_FORMATS.join(', ')}` }).default('auto')),
  /** The issuer and the base of every absolute URL the service hands out (unset: http://localhost:PORT). */
  publicUrl: setting('PUBLIC_URL', httpUrl.optional()),
  /** This installation's name, as people see it on the sign-in, consent and account pages. */
  instanceName: setting('INSTANCE_NAME', z.string().trim().min(1, 'expected a name').max(60, 'expected at most 60 characters').default('switchboard')),
  /** Whose X-Forwarded-For entries are believed; undefined: nobody's (the client is the peer). */
  trustedProxies: setting('TRUST_PROXY', trustProxy.optional()),
  /**
   * How long a client may take to send a whole request (headers and body), and its headers alone;
   * past either the connection is answered 408 and closed, so a trickled request cannot hold it.
   */
  requestTimeouts: {
    requestMs: setting('REQUEST_TIMEOUT_MS', milliseconds(60_000, 1000, 3_600_000)),
    headersMs: setting('HEADERS_TIMEOUT_MS', milliseconds(20_000, 1000, 3_600_000)),
  },
  dataDir: setting('DATA_DIR', z.string().min(1).default('./data')),
  /** Unset: SQLite in DATA_DIR. */
  databaseUrl: setting('DATABASE_URL', databaseUrl.optional()),
  /** Raw secret settings; `loadSecrets` turns them into keys (or generates them). */
  secrets: {
    signingKeys: setting('SIGNING_KEYS', z.string().optional()),
    cookieSecrets: setting('COOKIE_SECRETS', z.string().optional()),
    dataEncryptionKey: setting('DATA_ENCRYPTION_KEY', z.string().optional()),
  },
  discord: {
    /** Present only when "Sign in with Discord" is configured. */
    oauth: together({
      clientId: setting('DISCORD_CLIENT_ID', z.string().regex(/^\d{17,20}$/, 'expected a Discord application id (a snowflake)')),
      clientSecret: setting('DISCORD_CLIENT_SECRET', z.string().min(1)),
    }),
    apiBase: setting('DISCORD_API_BASE', httpUrl.default('https://discord.com/api')),
  },
  devLogin: setting('AUTH_DEV_LOGIN', booleanFlag.default(false)),
  /**
   * The web dashboard at /dashboard (src/dashboard/). false: no /dashboard route answers (404),
   * and its OAuth client is neither registered nor usable (an existing one is deleted on start,
   * with its grants and tokens). The /v1 API is the same either way.
   */
  dashboard: {
    enabled: setting('DASHBOARD_ENABLED', booleanFlag.default(true)),
  },
  bot: {
    /** The bot runs only when a token is configured. */
    token: setting('DISCORD_TOKEN', z.string().min(10, 'expected a Discord bot token').optional()),
    /** Register commands in this guild (instant, for development) instead of globally. */
    guildId: setting('DISCORD_GUILD_ID', z.string().regex(/^\d{17,20}$/, 'expected a Discord server id (a snowflake)').optional()),
    /** The service the bot calls; undefined means the service in the same process. */
    apiUrl: setting('SWITCHBOARD_API_URL', httpUrl.optional()),
    /** The bot's OAuth client; undefined means "register it automatically" (same process only). */
    oauthClient: together({ id: setting('BOT_CLIENT_ID', z.string().min(1)), secret: setting('BOT_CLIENT_SECRET', z.string().min(1)) }),
    /** keyv connection URL for linked accounts; unset: SQLite in DATA_DIR. */
    storeUrl: setting(
      'BOT_STORE_URL',
      z
        .string()
        .regex(/^(sqlite|postgres|postgresql|redis|rediss):\/\//, 'expected sqlite://<path>, postgres://… or redis://…')
        .optional(),
    ),
    /** Raw key sealing the token store; generated into DATA_DIR/keys when unset. */
    storeKey: setting('BOT_STORE_KEY', z.string().optional()),
    apiTimeoutMs: setting('BOT_API_TIMEOUT', z.coerce.number({ message: 'expected milliseconds' }).int().min(100).max(60_000).default(5000)),
    /** How often the bot reads the event feed for owners' "another app changed your system" messages. */
    noticeIntervalMs: setting('BOT_NOTICE_INTERVAL', z.coerce.number({ message: 'expected milliseconds' }).int().min(50).max(600_000).default(5000)),
    /** The bot's shards in all: a number, or `auto` (Discord's recommendation); unset: 1. */
    shardCount: setting(
      'SHARD_COUNT',
      z
        .string()
        .transform((value, ctx) => {
          const count = parseShardCount(value);
          if (typeof count !== 'object') return count;
          ctx.addIssue({ code: 'custom', message: count.error });
          return z.NEVER;
        })
        .default(1),
    ),
    /** The shards this process holds (`2,3`, `0-3`); unset: all of them. Checked against SHARD_COUNT below. */
    shardIds: setting('SHARD_IDS', z.string().optional()),
    /**
     * How long a bot process's leases in the shared store last unless renewed (renewed every third):
     * singleton work (operation messages, retrying a dead process's records) and "this process is
     * alive" move to another process at most this long (and a quarter more) after a holder dies.
     */
    leaseMs: setting('BOT_LEASE_TIMEOUT', milliseconds(15_000, 200, 300_000)),
    /**
     * Requests per second this process's own Discord requests may make. Discord's global rate limit
     * is per bot (50, more for a large bot that Discord has granted more), so several processes
     * each take a share. Webhook executions go in a queue of their own with a budget of the same
     * size (Discord limits them per webhook, not per bot). A message proxied costs one of each (the
     * original's deletion, the execute), so this caps a process's proxied messages per second.
     */
    globalRequestsPerSecond: setting('DISCORD_GLOBAL_RATE_LIMIT', count(50)),
  },
  ttl: {
    accessToken: setting('ACCESS_TOKEN_TTL', seconds(3600)),
    refreshToken: setting('REFRESH_TOKEN_TTL', seconds(30 * 24 * 3600)),
    authorizationCode: setting('AUTHORIZATION_CODE_TTL', seconds(60)),
    deviceCode: setting('DEVICE_CODE_TTL', seconds(600)),
    loginLink: setting('LOGIN_LINK_TTL', seconds(300)),
    session: setting('SESSION_TTL', seconds(24 * 3600)),
  },
  /**
   * Seconds an authorization (an OAuth grant) can last at most after the user approved it, however
   * often it is refreshed; each refresh keeps it alive `ttl.refreshToken` longer, up to this cap.
   */
  grantMaxTtl: setting('GRANT_MAX_TTL', seconds(365 * 24 * 3600)),
  /** Days a proxied-message record is kept for "message info"; 0 keeps them forever. */
  messageRetentionDays: setting('MESSAGE_RETENTION_DAYS', days(0)),
  /** Days an audit-log entry is kept (it holds IP addresses); 0 keeps them forever. */
  auditRetentionDays: setting('AUDIT_RETENTION_DAYS', days(90)),
  /** Requests allowed per window, per access token on /v1 and per client IP everywhere. */
  rateLimit: {
    enabled: setting('RATE_LIMIT_ENABLED', booleanFlag.default(true)),
    perToken: setting('RATE_LIMIT_PER_TOKEN', count(600)),
    perIp: setting('RATE_LIMIT_PER_IP', count(1200)),
    windowSeconds: setting('RATE_LIMIT_WINDOW', seconds(60)),
  },
  /** Shared store for rate-limit counters when several processes serve one deployment. */
  redisUrl: setting(
    'REDIS_URL',
    z
      .string()
      .regex(/^rediss?:\/\//, 'expected redis://host:port or rediss://host:port')
      .optional(),
  ),
  /** Webhook delivery of events (src/events/). */
  events: {
    /** Endpoints may be http:// and reach private, loopback and reserved addresses (development, tests). */
    allowPrivateAddresses: setting('EVENTS_ALLOW_PRIVATE_ADDRESSES', booleanFlag.default(false)),
    timeoutMs: setting('EVENTS_DELIVERY_TIMEOUT_MS', milliseconds(10_000, 100, 120_000)),
    retryBaseMs: setting('EVENTS_RETRY_BASE_MS', milliseconds(5_000, 1, 3_600_000)),
    retryMaxMs: setting('EVENTS_RETRY_MAX_MS', milliseconds(3_600_000, 1, 86_400_000)),
    giveUpAfterMs: setting('EVENTS_GIVE_UP_AFTER_MS', milliseconds(86_400_000, 1, 7 * 86_400_000)),
    pollMs: setting('EVENTS_POLL_INTERVAL_MS', milliseconds(1_000, 10, 600_000)),
    concurrency: setting('EVENTS_CONCURRENCY', count(32)),
    perEndpointConcurrency: setting('EVENTS_CONCURRENCY_PER_ENDPOINT', count(4)),
    /** Requests of one app (all its endpoints) in flight at most; unset: a quarter of `concurrency`, at least `perEndpointConcurrency`. */
    perClientConcurrency: setting(
      'EVENTS_CONCURRENCY_PER_CLIENT',
      z.coerce.number({ message: 'expected a number' }).int('expected a whole number').positive('expected a positive number').max(1_000_000, 'expected at most 1000000').optional(),
    ),
    /** Days events and their delivery log are kept (replays reach back this far). */
    retentionDays: setting(
      'EVENTS_RETENTION_DAYS',
      z.coerce.number({ message: 'expected a number of days' }).int('expected a whole number of days').min(2, 'expected at least 2 days (deliveries are retried for one)').max(3650).default(30),
    ),
  },
} satisfies SettingsTree;

const EnvSchema = z.object(environmentShape(SETTINGS)).superRefine((env, ctx) => {
  if (env.AUTH_DEV_LOGIN && env.NODE_ENV === 'production') {
    ctx.addIssue({
      code: 'custom',
      path: ['AUTH_DEV_LOGIN'],
      message: 'the development login must not be enabled when NODE_ENV=production',
    });
  }
  for (const { missing, message } of incompleteGroups(SETTINGS, env)) ctx.addIssue({ code: 'custom', path: [missing], message });
  if (env.SHARD_IDS !== undefined && (typeof env.SHARD_COUNT === 'number' || env.SHARD_COUNT === 'auto')) {
    const ids = parseShardIds(env.SHARD_IDS, env.SHARD_COUNT);
    if ('error' in ids) ctx.addIssue({ code: 'custom', path: ['SHARD_IDS'], message: ids.error });
  }
  if (env.GRANT_MAX_TTL < env.REFRESH_TOKEN_TTL) {
    ctx.addIssue({
      code: 'custom',
      path: ['GRANT_MAX_TTL'],
      message: `expected at least REFRESH_TOKEN_TTL (${env.REFRESH_TOKEN_TTL} s): it caps how long refreshing can keep an authorization alive`,
    });
  }
});

/** Every variable the configuration reads, in the table's order. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

/** The values that depend on other settings: defaults derived from them, and one cap (the table documents each). */
function complete(settings: Resolved<typeof SETTINGS>) {
  const dataDir = settings.dataDir.replace(/\/+$/, '');
  const { requestTimeouts, events } = settings;
  return {
    ...settings,
    publicUrl: settings.publicUrl ?? `http://localhost:${settings.port}`,
    requestTimeouts: { ...requestTimeouts, headersMs: Math.min(requestTimeouts.headersMs, requestTimeouts.requestMs) },
    /** Behind a reverse proxy (TRUST_PROXY set): oidc-provider believes X-Forwarded-Proto and -Host. */
    trustProxy: settings.trustedProxies !== undefined,
    databaseUrl: settings.databaseUrl ?? `sqlite:${dataDir}/switchboard.db`,
    events: {
      ...events,
      perClientConcurrency: events.perClientConcurrency ?? Math.max(events.perEndpointConcurrency, Math.floor(events.concurrency / 4)),
    },
    bot: {
      ...settings.bot,
      storeUrl: settings.bot.storeUrl ?? `sqlite://${dataDir}/bot-links.sqlite`,
      shards: shardPlan(settings.bot.shardCount, settings.bot.shardIds),
    },
  };
}

/** SHARD_COUNT and SHARD_IDS together (already checked: EnvSchema refuses ids it cannot parse). */
function shardPlan(count: ShardCount, ids: string | undefined): ShardPlan {
  if (ids === undefined) return { count, ids: undefined };
  const parsed = parseShardIds(ids, count);
  if ('error' in parsed) throw new Error(`SHARD_IDS: ${parsed.error}`);
  return { count, ids: parsed };
}

export type LogLevel = (typeof LOG_LEVELS)[number];
/** json: one JSON object a line; pretty: coloured lines for people; auto: pretty on a terminal. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The reverse proxies in front of the service (TRUST_PROXY): a hop count, or their addresses/CIDRs. */
export type TrustedProxies = { hops: number } | { addresses: string[] };

/** The configuration the rest of the code reads: the settings table's shape, completed. */
export type Config = ReturnType<typeof complete>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export type Environment = Record<string, string | undefined>;

/** Parses the environment into a Config, or throws a ConfigError listing every bad variable. */
export function loadConfig(env: Environment = process.env): Config {
  // Empty strings mean "unset": `.env` files often carry `NAME=` lines as documentation.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = issue.path.join('.') || 'environment';
        const got = typeof issue.path[0] === 'string' && !/SECRET|KEY|TOKEN/.test(issue.path[0]) ? cleaned[issue.path[0]] : undefined;
        return `${name}: ${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got)})`}`;
      }),
    );
  }
  return complete(resolve(SETTINGS, parsed.data));
}

/** Reads `.env` from the working directory into process.env (variables already set win). */
export function loadDotEnv(path = '.env'): void {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
