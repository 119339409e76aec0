// Small, dependency-free primitives for secrets at rest: AES-256-GCM sealing, keyed lookup
// hashes and constant-time comparison. Keys are derived per purpose from DATA_ENCRYPTION_KEY so
// one leaked derived key cannot be used for the other purpose.
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

export interface StorageCrypto {
  /** Encrypts a JSON-serialisable value; `context` is bound as associated data. */
  seal(value: unknown, context: string): string;
  /** Reverses `seal`; returns undefined when the data was tampered with or the context differs. */
  unseal<T>(sealed: string, context: string): T | undefined;
  /** Keyed hash used as a database lookup key for a secret identifier. */
  lookupHash(purpose: string, value: string): string;
}

export function createStorageCrypto(dataEncryptionKey: Buffer): StorageCrypto {
  const sealKey = Buffer.from(hkdfSync('sha256', dataEncryptionKey, Buffer.alloc(0), 'switchboard seal v1', 32));
  const hashKey = Buffer.from(hkdfSync('sha256', dataEncryptionKey, Buffer.alloc(0), 'switchboard lookup v1', 32));
  return {
    seal(value, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', sealKey, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    unseal<T>(sealed: string, context: string): T | undefined {
      try {
        const raw = Buffer.from(sealed, 'base64url');
        const decipher = createDecipheriv('aes-256-gcm', sealKey, raw.subarray(0, 12));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(raw.subarray(12, 28));
        const json = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
        return JSON.parse(json) as T;
      } catch {
        return undefined;
      }
    },
    lookupHash(purpose, value) {
      return createHmac('sha256', hashKey).update(purpose).update('\0').update(value).digest('base64url');
    },
  };
}

/** SHA-256 of bytes, as hex. */
export function sha256Bytes(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Unkeyed SHA-256 for high-entropy random secrets (client secrets, login links). Such secrets
 * cannot be brute-forced, and an unkeyed hash keeps working if the data key is rotated.
 */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A URL-safe random secret with `bytes` bytes of entropy. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
