// One bot-side process for token-refresh-processes.test.ts: the bot's own API client and linked
// accounts over a shared link store, as each shard has them. It prints "ready" once its store is
// open, waits for "go" on stdin, then does SB_ACTION once and prints one JSON line:
//   use    → withToken(user, getSystem): { ok, accessToken } or { ok: false, accessToken, error, kind, type }
//   refresh → the same with a call that does not reach the service (nothing notices dead tokens)
//   unlink → { ok, unlinked }
// SB_NO_LOCK=1 replaces the store's lock with a pass-through: the bot as it was before the lock
// spanned processes, so the test can show its race is real.
import { createInterface } from 'node:readline';
import { ApiError, createApiClient } from '../../src/bot/api-client.js';
import { openLinkStore } from '../../src/bot/links/link-store.js';
import { createLinkedAccounts, NotLinkedError } from '../../src/bot/links/linked-accounts.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const api = createApiClient({ baseUrl: env('SB_API_URL'), clientId: env('SB_CLIENT_ID'), clientSecret: env('SB_CLIENT_SECRET'), timeoutMs: 10_000 });
const opened = await openLinkStore(env('SB_STORE_URL'), Buffer.from(env('SB_STORE_KEY'), 'hex'));
const store = process.env.SB_NO_LOCK === '1' ? { ...opened, lock: <T>(_userId: string, work: () => Promise<T>) => work() } : opened;
const accounts = createLinkedAccounts(store, api, { error: (object, message) => console.error(message, object) });
const userId = env('SB_USER_ID');

const lines = createInterface({ input: process.stdin });
console.log('ready');
for await (const line of lines) {
  if (line.trim() !== 'go') continue;
  let result: Record<string, unknown>;
  let used = ''; // the last access token the call was made with
  try {
    if (process.env.SB_ACTION === 'unlink') {
      result = { ok: true, unlinked: await accounts.unlink(userId) };
    } else {
      await accounts.withToken(userId, async (token) => {
        used = token;
        return process.env.SB_ACTION === 'refresh' ? undefined : api.getSystem(token, '@me');
      });
      result = { ok: true, accessToken: used };
    }
  } catch (error) {
    result = {
      ok: false,
      accessToken: used,
      error: error instanceof Error ? error.name : String(error),
      kind: error instanceof ApiError ? error.kind : error instanceof NotLinkedError ? error.reason : undefined,
      type: error instanceof ApiError ? error.type : undefined,
      message: error instanceof Error ? error.message : undefined,
    };
  }
  console.log(JSON.stringify(result));
  break;
}
lines.close();
await opened.close();
process.exit(0);
