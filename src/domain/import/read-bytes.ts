// An import file's bytes to the source model: decode, parse, read. One function so that every way
// in (the API, through the import worker; the command line; the bench) reads a file the same way:
// through the streaming reader (json-stream.ts), whether the bytes come in chunks or at once.
import { readImportFile } from './detect.js';
import { JsonStreamReader, chunksOf } from './json-stream.js';
import type { ImportReadOptions, ImportSource } from './model.js';

export function readImportBytes(bytes: Uint8Array, options: Partial<ImportReadOptions> = {}): ImportSource {
  const reader = new JsonStreamReader();
  for (const chunk of chunksOf(bytes)) reader.push(chunk);
  return readImportStream(reader, options);
}

/** The file a reader was fed, read (every byte pushed). */
export function readImportStream(reader: JsonStreamReader, options: Partial<ImportReadOptions> = {}): ImportSource {
  return readImportFile(reader.end(), options);
}
