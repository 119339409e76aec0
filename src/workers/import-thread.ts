// The service's side of the import worker (import-worker.ts): one worker thread per process,
// started on the first import and stopped after a minute without one. Jobs queue in the worker and
// run one at a time, so imports never take more than one core from the requests and each other.
import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { ImportFile } from '../domain/import/import-file.js';
import type { ImportReadOptions, ImportReport } from '../domain/import/model.js';
import type { ImportPlan, ImportTarget } from '../domain/import/plan.js';
import { Problem } from '../domain/problems.js';
import type { ImportJob, ImportJobResult, PlanOptions, ReadSummary } from './import-protocol.js';

const IDLE_MS = 60_000;
/** Above what a 32 MiB file (the cap) needs (about 400 MB: bench/import.ts); a limit keeps a bad day off the service's heap. */
const HEAP_LIMIT_MB = 768;

/**
 * How to start the worker: from the JavaScript beside this module when built (tsc puts both in
 * dist/src/workers/, the bundle both at its root: scripts/bundle.mjs), and from the TypeScript
 * through tsx when this module runs from source (tests, `npm run dev`). On Node 20 a worker does
 * not inherit the loader hooks of `--import tsx`, so it registers them itself before importing.
 */
function startWorker(options: WorkerOptions): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./import-worker.js', here), options);
  const source = new URL('./import-worker.ts', here).href;
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); }).catch((error) => { console.error(error); process.exit(1); });`;
  return new Worker(boot, { ...options, eval: true });
}

type Job = ImportJob extends infer J ? (J extends ImportJob ? Omit<J, 'id'> : never) : never;

/** An upload to the worker: its bytes as they arrive, then the file read (or the upload dropped). */
export interface ImportUpload {
  /** The next bytes (copied, and the copy's buffer transferred: the caller's chunk stays its own). */
  write(chunk: Uint8Array): void;
  /** Every byte was written: reads the file, which stays in the worker until released. */
  finish(options?: Partial<ImportReadOptions>): Promise<ImportFile & { release(): Promise<void> }>;
  /** Drops the upload, unless it was finished (then the file's release drops it). */
  abort(): void;
}

export class ImportThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private nextHandle = 1;
  /** Uploads opened and neither finished nor aborted: the worker is not idle while one is. */
  private uploads = 0;
  /** Bytes handed to the worker by uploads, ever (how far uploads got: the streaming route's tests watch it). */
  private written = 0;

  /** Uploads open now, and bytes handed to the worker so far. */
  get stats(): { openUploads: number; bytesWritten: number } {
    return { openUploads: this.uploads, bytesWritten: this.written };
  }
  private readonly pending = new Map<number, { worker: Worker; resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private idleTimer: NodeJS.Timeout | undefined;

  /** Reads an export file's bytes held whole (one upload, written at once): see upload(). */
  async read(bytes: Uint8Array, options?: Partial<ImportReadOptions>): Promise<ImportFile & { release(): Promise<void> }> {
    const upload = this.upload();
    upload.write(bytes);
    return upload.finish(options);
  }

  /**
   * Starts an upload: its chunks go to the worker's streaming reader as they come, so the file is
   * never held whole, on this thread or the worker's.
   */
  upload(): ImportUpload {
    clearTimeout(this.idleTimer);
    const worker = (this.worker ??= this.start());
    const handle = this.nextHandle++;
    let open = true;
    this.uploads++;
    const close = () => {
      if (!open) return false;
      open = false;
      this.uploads--;
      return true;
    };
    worker.postMessage({ op: 'open', handle });
    return {
      write: (chunk) => {
        if (!open || this.worker !== worker || chunk.length === 0) return;
        const copy = new Uint8Array(chunk);
        this.written += copy.length;
        worker.postMessage({ op: 'chunk', handle, bytes: copy }, [copy.buffer]);
      },
      finish: async (options) => {
        if (!close()) throw new Error('the upload was finished or aborted');
        // A worker that stopped took the upload with it.
        if (this.worker !== worker) throw new Error('the import worker stopped while the file was read');
        const summary = (await this.run({ op: 'read', handle, ...(options ? { options } : {}) })) as ReadSummary;
        return this.file(summary);
      },
      abort: () => {
        if (!close()) return;
        if (this.worker === worker) worker.postMessage({ op: 'abort', handle });
        this.idleLater();
      },
    };
  }

  private file(summary: ReadSummary): ImportFile & { release(): Promise<void> } {
    const plan = (target: ImportTarget, options: PlanOptions, reportOnly: boolean) => this.run({ op: 'plan', handle: summary.handle, target, options, reportOnly });
    return {
      source: summary.source,
      sourceSystemId: summary.sourceSystemId,
      plan: async (target, options) => (await plan(target, options, false)) as ImportPlan,
      report: async (target, options) => (await plan(target, options, true)) as ImportReport,
      release: async () => {
        // A worker that stopped took the file with it.
        await this.run({ op: 'release', handle: summary.handle }).catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private run(job: Job): Promise<unknown> {
    clearTimeout(this.idleTimer);
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject });
      worker.postMessage({ ...job, id });
    });
  }

  private start(): Worker {
    const worker = startWorker({ resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB } });
    // Never what keeps a process alive: a stopping service ends it with the process.
    worker.unref();
    worker.on('message', (result: ImportJobResult) => this.settle(result));
    worker.on('error', (error) => this.stopped(worker, error));
    worker.on('exit', (code) => this.stopped(worker, new Error(`the import worker stopped (exit code ${code})`)));
    return worker;
  }

  private settle(result: ImportJobResult): void {
    const waiting = this.pending.get(result.id);
    if (!waiting) return;
    this.pending.delete(result.id);
    if (result.ok) waiting.resolve(result.value);
    else if ('problem' in result) waiting.reject(new Problem(result.problem.type, result.problem.friendly, result.problem.field));
    else waiting.reject(new Error(result.message));
    this.idleLater();
  }

  /** Stops the worker after IDLE_MS without a job or an upload. */
  private idleLater(): void {
    if (this.pending.size > 0 || this.uploads > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.close(), IDLE_MS);
    this.idleTimer.unref();
  }

  /** The worker ended (crashed, ran out of heap, was stopped): its jobs fail, the next job starts another. */
  private stopped(worker: Worker, error: Error): void {
    if (this.worker === worker) this.worker = undefined;
    for (const [id, job] of this.pending) {
      if (job.worker !== worker) continue;
      this.pending.delete(id);
      job.reject(error);
    }
  }
}

let shared: ImportThread | undefined;

/** The process's import worker. */
export function importThread(): ImportThread {
  return (shared ??= new ImportThread());
}
