// The import worker's thread: reads export files (streamed in as they arrive) and plans imports,
// the CPU-bound part of an import, away from the thread that answers requests. Parsing an 8 MiB file alone holds a thread
// for over 100 ms (a 32 MiB one, the cap, about four times that); on the service's own thread every other request would wait that long.
import { randomBytes } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { ImportSource } from '../domain/import/model.js';
import { planImport } from '../domain/import/plan.js';
import { JsonStreamReader } from '../domain/import/json-stream.js';
import { readImportStream } from '../domain/import/read-bytes.js';
import { Problem } from '../domain/problems.js';
import type { ImportJob, ImportJobResult, ImportUploadMessage } from './import-protocol.js';

const newProxyTagId = () => randomBytes(6).toString('base64url');
/** Uploads still arriving, by handle: only what the reader has not parsed yet is held. */
const uploads = new Map<number, JsonStreamReader>();
/** Files read and not yet released, by handle. */
const files = new Map<number, ImportSource>();

function value(job: ImportJob): ImportJobResult & { ok: true } {
  switch (job.op) {
    case 'read': {
      const reader = uploads.get(job.handle);
      if (!reader) throw new Error(`no upload under handle ${job.handle}`);
      uploads.delete(job.handle);
      const source = readImportStream(reader, job.options);
      files.set(job.handle, source);
      return { id: job.id, ok: true, value: { handle: job.handle, source: source.source, sourceSystemId: source.sourceSystemId } };
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

function upload(message: ImportUploadMessage): void {
  switch (message.op) {
    case 'open':
      uploads.set(message.handle, new JsonStreamReader());
      return;
    case 'chunk':
      // The reader keeps a fault for the end; a chunk of an aborted upload finds none.
      uploads.get(message.handle)?.push(message.bytes);
      return;
    case 'abort':
      uploads.delete(message.handle);
      files.delete(message.handle);
  }
}

parentPort?.on('message', (message: ImportJob | ImportUploadMessage) => {
  if ('id' in message) parentPort?.postMessage(run(message));
  else upload(message);
});
