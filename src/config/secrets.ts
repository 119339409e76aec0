// Keys the service cannot run without: the id_token signing keys, the cookie signing secrets and
// the key that seals OAuth payloads at rest. Each comes from its environment variable when set;
// otherwise it is generated once into DATA_DIR/keys (mode 0600) so a restart keeps every session
// and token valid. Nothing here is ever logged.
import { createHash, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type Config } from './config.js';

export interface SigningJwk extends JsonWebKey {
  kid: string;
  alg: string;
  use: 'sig';
}

export interface Secrets {
  /** Private JWKs for id_tokens; the first of each algorithm signs, all verify. */
  signingKeys: SigningJwk[];
  /** Cookie HMAC secrets; the first signs, the rest still verify (rotation). */
  cookieSecrets: string[];
  /** 32 bytes; sealed storage and lookup hashes derive their keys from it. */
  dataEncryptionKey: Buffer;
}

export function loadSecrets(config: Config): Secrets {
  const dir = join(config.dataDir, 'keys');
  return {
    signingKeys: fromEnvOrFile(config.secrets.signingKeys, 'SIGNING_KEYS', join(dir, 'signing-keys.json'), parseSigningKeys, generateSigningKeys),
    cookieSecrets: fromEnvOrFile(config.secrets.cookieSecrets, 'COOKIE_SECRETS', join(dir, 'cookie-secrets.txt'), parseCookieSecrets, () => randomBytes(32).toString('base64url')),
    dataEncryptionKey: fromEnvOrFile(config.secrets.dataEncryptionKey, 'DATA_ENCRYPTION_KEY', join(dir, 'data-encryption.key'), parseDataKey, () => randomBytes(32).toString('base64url')),
  };
}

function fromEnvOrFile<T>(
  fromEnv: string | undefined,
  variable: string,
  file: string,
  parse: (raw: string) => T | string,
  generate: () => string,
): T {
  let raw = fromEnv;
  let source = variable;
  if (raw === undefined) {
    source = `${variable} (from ${file})`;
    if (existsSync(file)) {
      raw = readFileSync(file, 'utf8').trim();
    } else {
      raw = generate();
      mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
      writeFileSync(file, `${raw}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
    }
  }
  const result = parse(raw);
  if (typeof result === 'string') throw new ConfigError([`${source}: ${result}`]);
  return result;
}

function parseSigningKeys(raw: string): SigningJwk[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'expected a JSON Web Key Set: {"keys": [...]}';
  }
  const keys = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return 'expected a JSON Web Key Set with at least one key';
  for (const key of keys as JsonWebKey[]) {
    if (typeof key !== 'object' || key === null || typeof key.kty !== 'string' || typeof key.d !== 'string') {
      return 'every key must be a private JWK (with "kty" and "d")';
    }
  }
  const jwks = keys as SigningJwk[];
  if (!jwks.some((key) => key.kty === 'RSA')) return 'at least one RSA key is needed (RS256 is the default id_token algorithm)';
  return jwks;
}

function generateSigningKeys(): string {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  const withKid = (jwk: JsonWebKey, alg: string): SigningJwk => ({
    ...jwk,
    kid: createHash('sha256').update(JSON.stringify([jwk.kty, jwk.n ?? jwk.x])).digest('base64url').slice(0, 16),
    alg,
    use: 'sig',
  });
  return JSON.stringify({ keys: [withKid(rsa, 'RS256'), withKid(ec, 'ES256')] });
}

function parseCookieSecrets(raw: string): string[] | string {
  const secrets = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (secrets.length === 0) return 'expected one or more comma-separated secrets';
  if (secrets.some((s) => s.length < 32)) return 'every secret must be at least 32 characters long';
  return secrets;
}

function parseDataKey(raw: string): Buffer | string {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64url');
  if (key.length !== 32) return 'expected 32 random bytes, as 64 hex digits or base64url';
  return key;
}

export interface BotSecrets {
  /** 32 bytes sealing linked accounts' tokens in the bot's store. */
  storeKey: Buffer;
}

/** The bot's key, from BOT_STORE_KEY or generated once into DATA_DIR/keys like the service's. */
export function loadBotSecrets(config: Config): BotSecrets {
  const dir = join(config.dataDir, 'keys');
  return {
    storeKey: fromEnvOrFile(config.bot.storeKey, 'BOT_STORE_KEY', join(dir, 'bot-store.key'), parseDataKey, () => randomBytes(32).toString('base64url')),
  };
}

/**
 * The secret of the bot's own OAuth client when the bot runs inside the service process and
 * registers itself: generated once and kept beside the other keys (only its hash is in the
 * database).
 */
export function loadBotClientSecret(config: Config): string {
  const dir = join(config.dataDir, 'keys');
  const parse = (raw: string) => (raw.length >= 32 ? { secret: raw } : 'expected at least 32 characters');
  return fromEnvOrFile(undefined, 'the bot client secret', join(dir, 'bot-client-secret.txt'), parse, () => randomBytes(32).toString('base64url')).secret;
}
