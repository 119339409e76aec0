// How an import runs, whatever stores it: plan, then apply in one transaction, answering a
// repeated Idempotency-Key with the first report. The storage is a port (ImportStore), which the
// imports repository implements over the database (src/db/repositories/imports.ts); this module
// decides the order of things and what each outcome is.
//
// The plan is made before the transaction, against the system as read then, so that planning a
// large file holds no lock (on SQLite the write transaction stops every other write). The
// transaction takes the system's lock first, so concurrent imports of one system run one after
// the other and a repeated key finds the first one's report; it applies the plan only if nothing
// moved the system since it was read, and otherwise plans again against what it reads under the
// lock.
import { createHash } from 'node:crypto';
import { Problem } from '../problems.js';
import type { ImportFile } from './import-file.js';
import type { ImportMode, ImportReadOptions, ImportReport, ImportSourceKind } from './model.js';
import type { ImportPlan, ImportTarget } from './plan.js';

/** What makes a repeated request the same one: its key, and a digest of the file and options. */
export interface Idempotency {
  key: string;
  requestHash: string;
}

/** Reports what is being written, e.g. "alters", and how far along. */
export type ImportProgress = (step: string, done: number, total: number) => void;

/** The reads an import makes, outside its transaction or inside it. */
export interface ImportReads {
  /** The system as an import finds it, with the links of earlier imports from this source. */
  loadTarget(source: ImportSourceKind, sourceSystemId: string): Promise<ImportTarget>;
  /**
   * Where the system's data stands: it moves with every write an import plans against. Inside
   * the transaction, as it was before the transaction took the lock.
   */
  stamp(): Promise<string>;
  /** The report of an import applied with this key within the replay window, if any. */
  appliedReport(key: string, now: number): Promise<{ requestHash: string; report: ImportReport } | undefined>;
}

/** The writes of one import, inside its transaction. */
export interface ImportWrites extends ImportReads {
  /** Writes the plan and its events. */
  apply(plan: ImportPlan, clientId: string, now: number, progress?: ImportProgress): Promise<void>;
  /** Keeps the report, for a repeated key. */
  keepReport(idempotency: Idempotency, report: ImportReport, now: number): Promise<void>;
}

export interface ImportStore extends ImportReads {
  /** Runs `work` in one transaction that first takes the system's lock; a throw rolls it back. */
  transaction<T>(work: (writes: ImportWrites) => Promise<T>): Promise<T>;
}

export interface ImportRequest {
  /** The file, read here or in the import worker (importFileHere for one read in this thread). */
  file: ImportFile;
  options: { mode: ImportMode; dryRun: boolean; history: boolean };
  /** The client the switches are recorded as made by. */
  clientId: string;
  /** With a key, a repeated applied import answers the first report instead of importing again. */
  idempotency?: Idempotency;
  now: number;
  progress?: ImportProgress;
}

/** SHA-256 of what makes two import requests the same: the body (by its digest) and the options. */
export function importRequestHash(bodyDigest: string, options: ImportRequest['options'], read: Partial<Omit<ImportReadOptions, 'now'>> = {}): string {
  // Choices of how the file is read count only when not the default, so earlier keys keep their hash.
  const reading = [read.customFronts === 'skip' ? 'customFronts=skip' : '', read.friendsArePublic === true ? 'friendsArePublic' : ''].filter(Boolean);
  return createHash('sha256').update(JSON.stringify([options.mode, options.history, bodyDigest, ...reading])).digest('hex');
}

/** What an import answered: the report, and whether it is a replay of an earlier one. */
export interface ImportOutcome {
  report: ImportReport;
  replayed: boolean;
}

/** The first report of a key, or a refusal when the key came with another request. */
async function replayOf(reads: ImportReads, idempotency: Idempotency, now: number): Promise<ImportReport | undefined> {
  const applied = await reads.appliedReport(idempotency.key, now);
  if (!applied) return undefined;
  if (applied.requestHash !== idempotency.requestHash) {
    throw new Problem('idempotency-key-reused', 'this Idempotency-Key was already used for another import (a different file or options); use a new key');
  }
  return withProfileFieldCounts(applied.report);
}

/**
 * A report kept before reports counted profile fields (kept a day at most) answers with counts of
 * zero and a warning that they are not known: the answer's schema requires them.
 */
function withProfileFieldCounts(report: ImportReport): ImportReport {
  const counts: Partial<ImportReport['counts']> = report.counts;
  if (counts.profileFields !== undefined) return report;
  return {
    ...report,
    counts: { ...report.counts, profileFields: { created: 0, matched: 0, deleted: 0 } },
    warnings: [...report.warnings, 'this import was made before reports counted custom profile fields: their counts are not known (the warnings say which were created)'],
  };
}

class Replay extends Error {
  constructor(readonly report: ImportReport) {
    super('replayed import');
  }
}

/** Plans and (unless a dry run) applies an import. */
export async function importSystem(store: ImportStore, request: ImportRequest): Promise<ImportOutcome> {
  const { file, idempotency, now } = request;
  const options = { ...request.options, now };
  const target = (reads: ImportReads) => reads.loadTarget(file.source, file.sourceSystemId);
  if (options.dryRun) return { report: await file.report(await target(store), options), replayed: false };
  if (idempotency) {
    const report = await replayOf(store, idempotency, now);
    if (report) return { report, replayed: true };
  }
  const readStamp = await store.stamp();
  const early = await file.plan(await target(store), options);
  try {
    return await store.transaction(async (writes) => {
      if (idempotency) {
        // A concurrent request with the same key committed while this one waited for the lock:
        // answer its report and roll back, so the replay writes nothing (not even the revision).
        const report = await replayOf(writes, idempotency, now);
        if (report) throw new Replay(report);
      }
      const plan = (await writes.stamp()) === readStamp ? early : await file.plan(await target(writes), options);
      await writes.apply(plan, request.clientId, now, request.progress);
      if (idempotency) await writes.keepReport(idempotency, plan.report, now);
      return { report: plan.report, replayed: false };
    });
  } catch (error) {
    if (error instanceof Replay) return { report: error.report, replayed: true };
    throw error;
  }
}
