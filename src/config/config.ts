// The one place where the process environment is read. Every setting is parsed and validated
// here with zod, so a bad value stops start-up with a message naming the variable, instead of
// surfacing later as a confusing failure deep inside a request.
import { isIP } from 'node:net';
import { z } from 'zod';
import { familyCoveredEntirely } from './address-coverage.js';

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

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    PORT: z.coerce
      .number({ message: 'expected a port number' })
      .int('expected a whole number')
      .min(0, 'expected a port between 0 and 65535')
      .max(65535, 'expected a port between 0 and 65535')
      .default(3000),
    HOST: z.string().min(1, 'expected a host name or address').default('127.0.0.1'),
    LOG_LEVEL: z.enum(LOG_LEVELS, { message: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    LOG_FORMAT: z.enum(LOG_FORMATS, { message: `expected one of ${LOG_FORMATS.join(', ')}` }).default('auto'),
    PUBLIC_URL: httpUrl.optional(),
    INSTANCE_NAME: z.string().trim().min(1, 'expected a name').max(60, 'expected at most 60 characters').default('switchboard'),
    TRUST_PROXY: trustProxy.optional(),
    REQUEST_TIMEOUT_MS: milliseconds(60_000, 1000, 3_600_000),
    HEADERS_TIMEOUT_MS: milliseconds(20_000, 1000, 3_600_000),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: databaseUrl.optional(),

    SIGNING_KEYS: z.string().optional(),
    COOKIE_SECRETS: z.string().optional(),
    DATA_ENCRYPTION_KEY: z.string().optional(),

    DISCORD_CLIENT_ID: z.string().regex(/^\d{17,20}$/, 'expected a Discord application id (a snowflake)').optional(),
    DISCORD_CLIENT_SECRET: z.string().min(1).optional(),
    DISCORD_API_BASE: httpUrl.default('https://discord.com/api'),

    AUTH_DEV_LOGIN: booleanFlag.default(false),

    DISCORD_TOKEN: z.string().min(10, 'expected a Discord bot token').optional(),
    DISCORD_GUILD_ID: z.string().regex(/^\d{17,20}$/, 'expected a Discord server id (a snowflake)').optional(),
    SWITCHBOARD_API_URL: httpUrl.optional(),
    BOT_CLIENT_ID: z.string().min(1).optional(),
    BOT_CLIENT_SECRET: z.string().min(1).optional(),
    BOT_STORE_URL: z
      .string()
      .regex(/^(sqlite|postgres|postgresql|redis|rediss):\/\//, 'expected sqlite://<path>, postgres://… or redis://…')
      .optional(),
    BOT_STORE_KEY: z.string().optional(),
    BOT_API_TIMEOUT: z.coerce.number({ message: 'expected milliseconds' }).int().min(100).max(60_000).default(5000),
    BOT_NOTICE_INTERVAL: z.coerce.number({ message: 'expected milliseconds' }).int().min(50).max(600_000).default(5000),

    ACCESS_TOKEN_TTL: seconds(3600),
    REFRESH_TOKEN_TTL: seconds(30 * 24 * 3600),
    GRANT_MAX_TTL: seconds(365 * 24 * 3600),
    AUTHORIZATION_CODE_TTL: seconds(60),
    DEVICE_CODE_TTL: seconds(600),
    LOGIN_LINK_TTL: seconds(300),
    SESSION_TTL: seconds(24 * 3600),

    MESSAGE_RETENTION_DAYS: z.coerce
      .number({ message: 'expected a number of days' })
      .int('expected a whole number of days')
      .min(0, 'expected 0 (keep forever) or a positive number of days')
      .max(36_500, 'expected at most 36500 days')
      .default(0),
    AUDIT_RETENTION_DAYS: z.coerce
      .number({ message: 'expected a number of days' })
      .int('expected a whole number of days')
      .min(0, 'expected 0 (keep forever) or a positive number of days')
      .max(36_500, 'expected at most 36500 days')
      .default(90),

    RATE_LIMIT_ENABLED: booleanFlag.default(true),
    RATE_LIMIT_PER_TOKEN: count(600),
    RATE_LIMIT_PER_IP: count(1200),
    RATE_LIMIT_WINDOW: seconds(60),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'expected redis://host:port or rediss://host:port')
      .optional(),

    EVENTS_ALLOW_PRIVATE_ADDRESSES: booleanFlag.default(false),
    EVENTS_DELIVERY_TIMEOUT_MS: milliseconds(10_000, 100, 120_000),
    EVENTS_RETRY_BASE_MS: milliseconds(5_000, 1, 3_600_000),
    EVENTS_RETRY_MAX_MS: milliseconds(3_600_000, 1, 86_400_000),
    EVENTS_GIVE_UP_AFTER_MS: milliseconds(86_400_000, 1, 7 * 86_400_000),
    EVENTS_POLL_INTERVAL_MS: milliseconds(1_000, 10, 600_000),
    EVENTS_CONCURRENCY: count(32),
    EVENTS_CONCURRENCY_PER_ENDPOINT: count(4),
    /** Unset: a quarter of EVENTS_CONCURRENCY (at least the per-endpoint share), so it takes four stalled apps to fill the dispatcher. */
    EVENTS_CONCURRENCY_PER_CLIENT: z.coerce.number({ message: 'expected a number' }).int('expected a whole number').positive('expected a positive number').max(1_000_000, 'expected at most 1000000').optional(),
    EVENTS_RETENTION_DAYS: z.coerce.number({ message: 'expected a number of days' }).int('expected a whole number of days').min(2, 'expected at least 2 days (deliveries are retried for one)').max(3650).default(30),
  })
  .superRefine((env, ctx) => {
    if (env.AUTH_DEV_LOGIN && env.NODE_ENV === 'production') {
      ctx.addIssue({
        code: 'custom',
        path: ['AUTH_DEV_LOGIN'],
        message: 'the development login must not be enabled when NODE_ENV=production',
      });
    }
    if (Boolean(env.BOT_CLIENT_ID) !== Boolean(env.BOT_CLIENT_SECRET)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.BOT_CLIENT_ID ? 'BOT_CLIENT_SECRET' : 'BOT_CLIENT_ID'],
        message: 'BOT_CLIENT_ID and BOT_CLIENT_SECRET must be set together',
      });
    }
    if (env.GRANT_MAX_TTL < env.REFRESH_TOKEN_TTL) {
      ctx.addIssue({
        code: 'custom',
        path: ['GRANT_MAX_TTL'],
        message: `expected at least REFRESH_TOKEN_TTL (${env.REFRESH_TOKEN_TTL} s): it caps how long refreshing can keep an authorization alive`,
      });
    }
    if (Boolean(env.DISCORD_CLIENT_ID) !== Boolean(env.DISCORD_CLIENT_SECRET)) {
      ctx.addIssue({
        code: 'custom',
        path: [env.DISCORD_CLIENT_ID ? 'DISCORD_CLIENT_SECRET' : 'DISCORD_CLIENT_ID'],
        message: 'DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET must be set together',
      });
    }
  });

export type LogLevel = (typeof LOG_LEVELS)[number];
/** json: one JSON object a line; pretty: coloured lines for people; auto: pretty on a terminal. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The reverse proxies in front of the service (TRUST_PROXY): a hop count, or their addresses/CIDRs. */
export type TrustedProxies = { hops: number } | { addresses: string[] };

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** The issuer and the base of every absolute URL the service hands out. */
  publicUrl: string;
  /** This installation's name, as people see it on the sign-in, consent and account pages. */
  instanceName: string;
  /**
   * How long a client may take to send a whole request (headers and body), and its headers alone;
   * past either the connection is answered 408 and closed, so a trickled request cannot hold it.
   */
  requestTimeouts: { requestMs: number; headersMs: number };
  /** Behind a reverse proxy (TRUST_PROXY set): oidc-provider believes X-Forwarded-Proto and -Host. */
  trustProxy: boolean;
  /** Whose X-Forwarded-For entries are believed; undefined: nobody's (the client is the peer). */
  trustedProxies: TrustedProxies | undefined;
  dataDir: string;
  databaseUrl: string;
  /** Raw secret settings; `loadSecrets` turns them into keys (or generates them). */
  secrets: {
    signingKeys: string | undefined;
    cookieSecrets: string | undefined;
    dataEncryptionKey: string | undefined;
  };
  discord: {
    apiBase: string;
    /** Present only when "Sign in with Discord" is configured. */
    oauth: { clientId: string; clientSecret: string } | undefined;
  };
  devLogin: boolean;
  ttl: {
    accessToken: number;
    refreshToken: number;
    authorizationCode: number;
    deviceCode: number;
    loginLink: number;
    session: number;
  };
  /**
   * Seconds an authorization (an OAuth grant) can last at most after the user approved it, however
   * often it is refreshed; each refresh keeps it alive `ttl.refreshToken` longer, up to this cap.
   */
  grantMaxTtl: number;
  /** Days a proxied-message record is kept for "message info"; 0 keeps them forever. */
  messageRetentionDays: number;
  /** Days an audit-log entry is kept (it holds IP addresses); 0 keeps them forever. */
  auditRetentionDays: number;
  /** Requests allowed per window, per access token on /v1 and per client IP everywhere. */
  rateLimit: {
    enabled: boolean;
    perToken: number;
    perIp: number;
    windowSeconds: number;
  };
  /** Shared store for rate-limit counters when several processes serve one deployment. */
  redisUrl: string | undefined;
  /** Webhook delivery of events (src/events/). */
  events: {
    /** Endpoints may be http:// and reach private, loopback and reserved addresses (development, tests). */
    allowPrivateAddresses: boolean;
    timeoutMs: number;
    retryBaseMs: number;
    retryMaxMs: number;
    giveUpAfterMs: number;
    pollMs: number;
    concurrency: number;
    perEndpointConcurrency: number;
    /** Requests of one app (all its endpoints) in flight at most. */
    perClientConcurrency: number;
    /** Days events and their delivery log are kept (replays reach back this far). */
    retentionDays: number;
  };
  bot: {
    /** The bot runs only when a token is configured. */
    token: string | undefined;
    /** Register commands in this guild (instant, for development) instead of globally. */
    guildId: string | undefined;
    /** The service the bot calls; undefined means the service in the same process. */
    apiUrl: string | undefined;
    /** The bot's OAuth client; undefined means "register it automatically" (same process only). */
    oauthClient: { id: string; secret: string } | undefined;
    /** keyv connection URL for linked accounts; default: SQLite in DATA_DIR. */
    storeUrl: string;
    /** Raw key sealing the token store; generated into DATA_DIR/keys when unset. */
    storeKey: string | undefined;
    apiTimeoutMs: number;
    /** How often the bot reads the event feed for owners' "another app changed your system" messages. */
    noticeIntervalMs: number;
  };
}

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
  const e = parsed.data;
  const publicUrl = e.PUBLIC_URL ?? `http://localhost:${e.PORT}`;
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    publicUrl,
    instanceName: e.INSTANCE_NAME,
    requestTimeouts: { requestMs: e.REQUEST_TIMEOUT_MS, headersMs: Math.min(e.HEADERS_TIMEOUT_MS, e.REQUEST_TIMEOUT_MS) },
    trustProxy: e.TRUST_PROXY !== undefined,
    trustedProxies: e.TRUST_PROXY,
    dataDir: e.DATA_DIR,
    databaseUrl: e.DATABASE_URL ?? `sqlite:${e.DATA_DIR.replace(/\/+$/, '')}/switchboard.db`,
    secrets: {
      signingKeys: e.SIGNING_KEYS,
      cookieSecrets: e.COOKIE_SECRETS,
      dataEncryptionKey: e.DATA_ENCRYPTION_KEY,
    },
    discord: {
      apiBase: e.DISCORD_API_BASE,
      oauth:
        e.DISCORD_CLIENT_ID && e.DISCORD_CLIENT_SECRET
          ? { clientId: e.DISCORD_CLIENT_ID, clientSecret: e.DISCORD_CLIENT_SECRET }
          : undefined,
    },
    devLogin: e.AUTH_DEV_LOGIN,
    ttl: {
      accessToken: e.ACCESS_TOKEN_TTL,
      refreshToken: e.REFRESH_TOKEN_TTL,
      authorizationCode: e.AUTHORIZATION_CODE_TTL,
      deviceCode: e.DEVICE_CODE_TTL,
      loginLink: e.LOGIN_LINK_TTL,
      session: e.SESSION_TTL,
    },
    grantMaxTtl: e.GRANT_MAX_TTL,
    messageRetentionDays: e.MESSAGE_RETENTION_DAYS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    rateLimit: {
      enabled: e.RATE_LIMIT_ENABLED,
      perToken: e.RATE_LIMIT_PER_TOKEN,
      perIp: e.RATE_LIMIT_PER_IP,
      windowSeconds: e.RATE_LIMIT_WINDOW,
    },
    redisUrl: e.REDIS_URL,
    events: {
      allowPrivateAddresses: e.EVENTS_ALLOW_PRIVATE_ADDRESSES,
      timeoutMs: e.EVENTS_DELIVERY_TIMEOUT_MS,
      retryBaseMs: e.EVENTS_RETRY_BASE_MS,
      retryMaxMs: e.EVENTS_RETRY_MAX_MS,
      giveUpAfterMs: e.EVENTS_GIVE_UP_AFTER_MS,
      pollMs: e.EVENTS_POLL_INTERVAL_MS,
      concurrency: e.EVENTS_CONCURRENCY,
      perEndpointConcurrency: e.EVENTS_CONCURRENCY_PER_ENDPOINT,
      perClientConcurrency: e.EVENTS_CONCURRENCY_PER_CLIENT ?? Math.max(e.EVENTS_CONCURRENCY_PER_ENDPOINT, Math.floor(e.EVENTS_CONCURRENCY / 4)),
      retentionDays: e.EVENTS_RETENTION_DAYS,
    },
    bot: {
      token: e.DISCORD_TOKEN,
      guildId: e.DISCORD_GUILD_ID,
      apiUrl: e.SWITCHBOARD_API_URL,
      oauthClient: e.BOT_CLIENT_ID && e.BOT_CLIENT_SECRET ? { id: e.BOT_CLIENT_ID, secret: e.BOT_CLIENT_SECRET } : undefined,
      storeUrl: e.BOT_STORE_URL ?? `sqlite://${e.DATA_DIR.replace(/\/+$/, '')}/bot-links.sqlite`,
      storeKey: e.BOT_STORE_KEY,
      apiTimeoutMs: e.BOT_API_TIMEOUT,
      noticeIntervalMs: e.BOT_NOTICE_INTERVAL,
    },
  };
}

/** Reads `.env` from the working directory into process.env (variables already set win). */
export function loadDotEnv(path = '.env'): void {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
