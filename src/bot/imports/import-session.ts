// Imports waiting for Confirm: the file a user previewed, what they chose, and the one-time key the
// applied import is sent with. A preview is confirmed, cancelled or forgotten after PREVIEW_TTL_MS;
// its file is dropped then. One press at a time runs the import; a second press while it runs, or
// after it finished, is told so (and the service would not apply the same key twice anyway).
//
// Kept in this process's memory: a restart forgets previews (users run /import again; a file
// imported in merge mode twice creates nothing twice), and all waiting files together are bounded.
import { randomBytes } from 'node:crypto';
import { MAX_IMPORT_BYTES } from '../../domain/import/model.js';
import { ApiError, IMPORT_TIMEOUT_MS, type ImportMode, type ImportReport } from '../api-client.js';

export const PREVIEW_TTL_MS = 15 * 60_000;
/** The service's cap on an import body: larger files are refused before they are downloaded. */
export const IMPORT_MAX_BYTES = MAX_IMPORT_BYTES;
/** A running import outlives its preview by this much at least: the service call's own limit, and a margin. */
const RUNNING_GRACE_MS = IMPORT_TIMEOUT_MS + 60_000;
/** All waiting files together; past it, new imports are asked to wait. */
export const MAX_WAITING_BYTES = 128 * 1024 * 1024;

export interface ImportChoice {
  mode: ImportMode;
  history: boolean;
  /** Simply Plural's choices (other formats ignore them); absent: the defaults. */
  customFronts?: 'import' | 'skip';
  friendsArePublic?: boolean;
}

interface Pending {
  userId: string;
  file: Buffer | undefined;
  choice: ImportChoice;
  idempotencyKey: string;
  expiresAt: number;
  state: 'ready' | 'importing' | 'done';
  report?: ImportReport;
}

export type Claim =
  | { status: 'claimed'; file: Buffer; choice: ImportChoice; idempotencyKey: string }
  | { status: 'expired' }
  | { status: 'not-yours' }
  | { status: 'running' }
  | { status: 'done'; report: ImportReport };

export type Cancel = { status: 'cancelled' } | Exclude<Claim, { status: 'claimed' }>;

export function createImportSessions(options: { ttlMs?: number; maxWaitingBytes?: number; now?: () => number } = {}) {
  const ttl = options.ttlMs ?? PREVIEW_TTL_MS;
  const maxBytes = options.maxWaitingBytes ?? MAX_WAITING_BYTES;
  const now = options.now ?? Date.now;
  const pending = new Map<string, Pending>();

  const waitingBytes = () => [...pending.values()].reduce((total, entry) => total + (entry.file?.length ?? 0), 0);

  function live(id: string): Pending | undefined {
    const entry = pending.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      pending.delete(id);
      return undefined;
    }
    return entry;
  }

  function sweep(): void {
    for (const id of [...pending.keys()]) live(id);
  }

  const sweeper = setInterval(sweep, 60_000);
  sweeper.unref();

  return {
    /** Keeps `file` for a preview; the user's earlier preview, if any is still waiting, is dropped. */
    open(userId: string, file: Buffer, choice: ImportChoice): { id: string; expiresAt: number } {
      sweep();
      for (const [id, entry] of pending) if (entry.userId === userId && entry.state === 'ready') pending.delete(id);
      if (waitingBytes() + file.length > maxBytes) {
        throw new ApiError('problem', 503, 'busy', 'Too many imports are waiting for confirmation right now. Try again in a few minutes.');
      }
      const id = randomBytes(12).toString('base64url');
      const expiresAt = now() + ttl;
      pending.set(id, { userId, file, choice, idempotencyKey: randomBytes(24).toString('base64url'), expiresAt, state: 'ready' });
      return { id, expiresAt };
    },

    /** The press of Confirm by `userId`: the file to import, unless something else applies. */
    claim(id: string, userId: string): Claim {
      const entry = live(id);
      if (!entry) return { status: 'expired' };
      if (entry.userId !== userId) return { status: 'not-yours' };
      if (entry.state === 'importing') return { status: 'running' };
      if (entry.state === 'done' && entry.report) return { status: 'done', report: entry.report };
      if (!entry.file) return { status: 'expired' };
      entry.state = 'importing';
      // A running import finishes even past the preview's expiry: its result is what the user waits for.
      entry.expiresAt = Math.max(entry.expiresAt, now() + RUNNING_GRACE_MS);
      return { status: 'claimed', file: entry.file, choice: entry.choice, idempotencyKey: entry.idempotencyKey };
    },

    /** The import ran: the file goes, the report stays for later presses until the preview expires. */
    complete(id: string, report: ImportReport): void {
      const entry = pending.get(id);
      if (!entry) return;
      entry.state = 'done';
      entry.file = undefined;
      entry.report = report;
    },

    /**
     * The import did not finish: `retry` keeps the preview (with its key, so a retry after an
     * import that did land is not applied twice), otherwise it is dropped.
     */
    fail(id: string, retry: boolean): void {
      const entry = pending.get(id);
      if (!entry) return;
      if (retry) entry.state = 'ready';
      else pending.delete(id);
    },

    cancel(id: string, userId: string): Cancel {
      const entry = live(id);
      if (!entry) return { status: 'expired' };
      if (entry.userId !== userId) return { status: 'not-yours' };
      if (entry.state === 'importing') return { status: 'running' };
      if (entry.state === 'done' && entry.report) return { status: 'done', report: entry.report };
      pending.delete(id);
      return { status: 'cancelled' };
    },

    /** Bytes of files waiting (for tests and logs). */
    waitingBytes,

    stop(): void {
      clearInterval(sweeper);
      pending.clear();
    },
  };
}

export type ImportSessions = ReturnType<typeof createImportSessions>;
