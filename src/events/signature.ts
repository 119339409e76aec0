// Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` and the
// base64 of random bytes; each request carries `webhook-id`, `webhook-timestamp` (seconds) and
// `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`
// where the key is the secret's decoded bytes. During a rotation both secrets sign.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret: 32 random bytes. */
export function newEndpointSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('not a whsec_ secret');
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three headers of one request, signed with every given secret. */
export function webhookHeaders(secrets: string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => signatureOf(secret, id, timestampSeconds, body)).join(' '),
  };
}
