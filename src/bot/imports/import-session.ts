// Imports waiting for Confirm: the file a user previewed, what they chose, and the one-time key the
// applied import is sent with. A preview is confirmed, cancelled or forgotten after PREVIEW_TTL_MS;
// its file is dropped then. One press at a time runs the import; a second press while it runs, or
// after it finished, is told so (and the service would not apply the same key twice anyway).
//
// Kept in the shared bot store (BOT_STORE_URL), so a Confirm that lands in another process (a
// direct message goes to shard 0's) or after a restart finds its preview:
// - `import-preview:<id>`: the preview, sealed with BOT_STORE_KEY (the file is someone's system),
//   the file gzipped first; forgotten by the store at its expiry;
// - lease `import-run:<id>`: held by the press that runs the import (one press, in one process, at
//   a time: taking a lease is atomic in every store); it lapses after RUNNING_GRACE_MS if that
//   process dies, and the next press retries with the same key, which the service applies once;
// - `import-user:<keyed hash of the user>`: the user's waiting preview, dropped by their next /import.
// The store's keys say neither who nor what. Files this process put in the store are bounded
// together (MAX_WAITING_BYTES), so the store holds at most that much per process.
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { MAX_IMPORT_BYTES } from '../../domain/import/model.js';
import { ApiError, IMPORT_TIMEOUT_MS, type ImportMode, type ImportReport } from '../api-client.js';
import type { Sealer } from '../processes/bot-shared.js';
import type { SharedStore } from '../processes/shared-store.js';

export const PREVIEW_TTL_MS = 15 * 60_000;
/** The service's cap on an import body: larger files are refused before they are downloaded. */
export const IMPORT_MAX_BYTES = MAX_IMPORT_BYTES;
/** A running import outlives its preview by this much at least: the service call's own limit, and a margin. */
const RUNNING_GRACE_MS = IMPORT_TIMEOUT_MS + 60_000;
/** A finished import's report answers later presses at least this long. */
const DONE_KEEP_MS = 60_000;
/** A cancel holds the preview this long at most. */
const CANCEL_HOLD_MS = 30_000;
/** What this process's previews may hold in the store together; past it, new imports are asked to wait. */
export const MAX_WAITING_BYTES = 128 * 1024 * 1024;

const gzipped = promisify(gzip);
const gunzipped = promisify(gunzip);

export interface ImportChoice {
  mode: ImportMode;
  history: boolean;
  /** Simply Plural's choices (other formats ignore them); absent: the defaults. */
  customFronts?: 'import' | 'skip';
  friendsArePublic?: boolean;
}

/** A preview as stored (sealed). */
interface StoredPreview {
  userId: string;
  /** The file, gzipped, base64; absent once imported. */
  file?: string;
  choice: ImportChoice;
  idempotencyKey: string;
  expiresAt: number;
  report?: ImportReport;
}

export type Claim =
  | { status: 'claimed'; file: Buffer; choice: ImportChoice; idempotencyKey: string; /** Hands the press's hold to complete() or fail(). */ attempt: string }
  | { status: 'expired' }
  | { status: 'not-yours' }
  | { status: 'running' }
  | { status: 'done'; report: ImportReport };

export type Cancel = { status: 'cancelled' } | Exclude<Claim, { status: 'claimed' }>;

export function createImportSessions(deps: {
  store: SharedStore;
  sealer: Sealer;
  ttlMs?: number;
  maxWaitingBytes?: number;
  /** How long a press holds the preview while its import runs (tests shorten it). */
  runningMs?: number;
  now?: () => number;
}) {
  const { store, sealer } = deps;
  const ttl = deps.ttlMs ?? PREVIEW_TTL_MS;
  const maxBytes = deps.maxWaitingBytes ?? MAX_WAITING_BYTES;
  const now = deps.now ?? Date.now;
  const runningMs = deps.runningMs ?? RUNNING_GRACE_MS;
  /** This process's previews still in the store: their stored size, until they expire or go. */
  const waiting = new Map<string, { bytes: number; expiresAt: number }>();
  /** Presses running here: their preview without its file, written back done by complete(). */
  const running = new Map<string, Omit<StoredPreview, 'file'>>();

  const previewKey = (id: string) => `import-preview:${id}`;
  const runLease = (id: string) => `import-run:${id}`;
  const userKey = (userId: string) => `import-user:${sealer.lookupHash('import-user', userId)}`;

  function waitingBytes(): number {
    let total = 0;
    for (const [id, entry] of waiting) {
      if (entry.expiresAt <= now()) waiting.delete(id);
      else total += entry.bytes;
    }
    return total;
  }

  /** The preview, unless it is gone, expired or unreadable (another key, tampered). */
  async function read(id: string): Promise<StoredPreview | undefined> {
    const sealed = await store.get(previewKey(id));
    const preview = sealed === undefined ? undefined : sealer.unseal<StoredPreview>(sealed, previewKey(id));
    return preview && preview.expiresAt > now() ? preview : undefined;
  }

  async function write(id: string, preview: StoredPreview): Promise<number> {
    const sealed = sealer.seal(preview, previewKey(id));
    await store.set(previewKey(id), sealed, Math.max(1, preview.expiresAt - now()));
    return sealed.length;
  }

  async function drop(id: string): Promise<void> {
    waiting.delete(id);
    await store.delete(previewKey(id));
  }

  /** What a press finds that is not a preview to run (or undefined: it is one). */
  async function settled(id: string, preview: StoredPreview | undefined, userId: string): Promise<Exclude<Claim, { status: 'claimed' }> | undefined> {
    if (!preview) return (await store.held(runLease(id))) ? { status: 'running' } : { status: 'expired' };
    if (preview.userId !== userId) return { status: 'not-yours' };
    if (preview.report) return { status: 'done', report: preview.report };
    if (preview.file === undefined) return { status: 'expired' };
    return undefined;
  }

  return {
    /** Keeps `file` for a preview; the user's earlier preview, if any is still waiting, is dropped. */
    async open(userId: string, file: Buffer, choice: ImportChoice): Promise<{ id: string; expiresAt: number }> {
      const earlier = await store.get(userKey(userId));
      if (earlier !== undefined && !(await store.held(runLease(earlier)))) {
        const preview = await read(earlier);
        if (preview && !preview.report) await drop(earlier);
      }
      const packed = (await gzipped(file)).toString('base64');
      // Sealing adds a third (base64 of the JSON) to the packed file.
      const over = () => waitingBytes() + (packed.length * 4) / 3 > maxBytes;
      if (over()) {
        // Previews confirmed or cancelled in other processes count no longer.
        for (const earlierId of [...waiting.keys()]) if (!(await read(earlierId))?.file) waiting.delete(earlierId);
      }
      if (over()) {
        throw new ApiError('problem', 503, 'busy', 'Too many imports are waiting for confirmation right now. Try again in a few minutes.');
      }
      const id = randomBytes(12).toString('base64url');
      const expiresAt = now() + ttl;
      const bytes = await write(id, { userId, file: packed, choice, idempotencyKey: randomBytes(24).toString('base64url'), expiresAt });
      waiting.set(id, { bytes, expiresAt });
      await store.set(userKey(userId), id, ttl);
      return { id, expiresAt };
    },

    /** The press of Confirm by `userId`: the file to import, unless something else applies. */
    async claim(id: string, userId: string): Promise<Claim> {
      const found = await settled(id, await read(id), userId);
      if (found) return found;
      // One press runs it, here or in any other process; a running import finishes even past the
      // preview's expiry (its result is what the user waits for).
      const attempt = randomBytes(12).toString('base64url');
      if (!(await store.lease(runLease(id), attempt, runningMs))) return { status: 'running' };
      // Read again under the hold: another press may have finished (and let go) meanwhile.
      const preview = await read(id);
      const after = await settled(id, preview, userId);
      if (after || !preview?.file) {
        await store.release(runLease(id), attempt);
        return after?.status === 'running' || !after ? { status: 'expired' } : after;
      }
      const { file, ...rest } = preview;
      running.set(attempt, rest);
      return { status: 'claimed', file: await gunzipped(Buffer.from(file, 'base64')), choice: preview.choice, idempotencyKey: preview.idempotencyKey, attempt };
    },

    /** The import ran: the file goes, the report stays for later presses until the preview expires. */
    async complete(id: string, attempt: string, report: ImportReport): Promise<void> {
      // Written from what the press took: the preview may have expired while the import ran.
      const preview = running.get(attempt);
      running.delete(attempt);
      waiting.delete(id);
      if (preview) await write(id, { ...preview, report, expiresAt: Math.max(preview.expiresAt, now() + DONE_KEEP_MS) });
      await store.release(runLease(id), attempt);
    },

    /**
     * The import did not finish: `retry` keeps the preview (with its key, so a retry after an
     * import that did land is not applied twice), otherwise it is dropped.
     */
    async fail(id: string, attempt: string, retry: boolean): Promise<void> {
      running.delete(attempt);
      if (!retry) await drop(id);
      await store.release(runLease(id), attempt);
    },

    async cancel(id: string, userId: string): Promise<Cancel> {
      const found = await settled(id, await read(id), userId);
      if (found) return found;
      const attempt = randomBytes(12).toString('base64url');
      if (!(await store.lease(runLease(id), attempt, CANCEL_HOLD_MS))) return { status: 'running' };
      try {
        const after = await settled(id, await read(id), userId);
        if (after) return after.status === 'running' ? { status: 'expired' } : after;
        await drop(id);
        return { status: 'cancelled' };
      } finally {
        await store.release(runLease(id), attempt);
      }
    },

    /** Bytes this process's waiting previews take in the store (for tests and logs). */
    waitingBytes,

    stop(): void {
      waiting.clear();
      running.clear();
    },
  };
}

export type ImportSessions = ReturnType<typeof createImportSessions>;
