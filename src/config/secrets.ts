// Keys the service cannot run without: the id_token signing keys, the cookie signing secrets and
// the key that seals OAuth payloads at rest. Each comes from its environment variable when set;
// otherwise it is generated once into DATA_DIR/keys (mode 0600) so a restart keeps every session
// and token valid. Nothing here is ever logged.
import { createHash, generateKeyPairSync, randomBytes, type JsonWebKey } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
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
    raw = existsSync(file) ? readFileSync(file, 'utf8').trim() : generateOnce(file, generate);
  }
  const result = parse(raw);
  if (typeof result === 'string') throw new ConfigError([`${source}: ${result}`]);
  return result;
}

/**
 * Writes a generated key to `file` unless another process got there first, and answers the key
 * the file holds. Processes of one installation starting at once (a load balancer's pool, a
 * restart overlapping the old process) would otherwise each generate a key, the second failing to
 * create the file or, worse, reading it half written: the key is written whole to a file of this
 * process's own, then linked to its name, which fails if the name exists and never shows a
 * partial file.
 */
function generateOnce(file: string, generate: () => string): string {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  const own = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(own, `${generate()}\n`, { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(own, 0o600);
    linkSync(own, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(own);
  }
  return readFileSync(file, 'utf8').trim();
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
