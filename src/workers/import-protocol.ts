// The messages between the service and its import worker (import-worker.ts, import-thread.ts).
// Everything crosses by structured clone (Maps and Sets included), so what crosses is kept small:
// a file's bytes go in as transferred chunks, the file read stays in the worker under a handle, and
// a preview brings back only its report. A
// Problem crosses as its detail, since an Error subclass arrives as a plain Error.
import type { ImportReadOptions, ImportReport, ImportSourceKind } from '../domain/import/model.js';
import type { ImportOptions, ImportPlan, ImportTarget } from '../domain/import/plan.js';
import type { ProblemDetail } from '../domain/problems.js';

/** Planner options without the id generator: the worker makes its own ids. */
export type PlanOptions = Omit<ImportOptions, 'newProxyTagId'>;

/** What the service learns of a file the worker read: where it comes from (to load the target). */
export interface ReadSummary {
  handle: number;
  source: ImportSourceKind;
  sourceSystemId: string;
}

/**
 * An upload: its bytes stream into the worker as they arrive (`chunk`, the ArrayBuffer
 * transferred), fed to the streaming reader there; `read` (a job) ends it and reads the file,
 * which then stays under the same handle. No answer is sent to these.
 */
export type ImportUploadMessage = { op: 'open'; handle: number } | { op: 'chunk'; handle: number; bytes: Uint8Array } | { op: 'abort'; handle: number };

export type ImportJob =
  | { id: number; op: 'read'; handle: number; options?: Partial<ImportReadOptions> }
  | { id: number; op: 'plan'; handle: number; target: ImportTarget; options: PlanOptions; reportOnly: boolean }
  | { id: number; op: 'release'; handle: number };

export type ImportJobResult =
  | { id: number; ok: true; value: ReadSummary | ImportPlan | ImportReport | null }
  | { id: number; ok: false; problem: ProblemDetail }
  | { id: number; ok: false; message: string };
