// The import worker's thread: reads export files and plans imports, the CPU-bound part of an
// import, away from the thread that answers requests. Parsing an 8 MiB file alone holds a thread
// for over 100 ms (a 32 MiB one, the cap, about four times that); on the service's own thread every other request would wait that long.
import { randomBytes } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { ImportSource } from '../domain/import/model.js';
import { planImport } from '../domain/import/plan.js';
import { readImportBytes } from '../domain/import/read-bytes.js';
import { Problem } from '../domain/problems.js';
import type { ImportJob, ImportJobResult } from './import-protocol.js';

const newProxyTagId = () => randomBytes(6).toString('base64url');
/** Files read and not yet released, by handle. */
const files = new Map<number, ImportSource>();
let nextHandle = 1;

function value(job: ImportJob): ImportJobResult & { ok: true } {
  switch (job.op) {
    case 'read': {
      const source = readImportBytes(job.bytes, job.options);
      const handle = nextHandle++;
      files.set(handle, source);
      return { id: job.id, ok: true, value: { handle, source: source.source, sourceSystemId: source.sourceSystemId } };
    }
    case 'plan': {
      const source = files.get(job.handle);
      if (!source) throw new Error(`no file under handle ${job.handle}`);
      const plan = planImport(source, job.target, { ...job.options, newProxyTagId });
      return { id: job.id, ok: true, value: job.reportOnly ? plan.report : plan };
    }
    case 'release':
      files.delete(job.handle);
      return { id: job.id, ok: true, value: null };
  }
}

function run(job: ImportJob): ImportJobResult {
  try {
    return value(job);
  } catch (error) {
    if (error instanceof Problem) return { id: job.id, ok: false, problem: error.details[0] as NonNullable<Problem['details'][0]> };
    return { id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

parentPort?.on('message', (job: ImportJob) => parentPort?.postMessage(run(job)));
