// An import file's bytes to the source model: decode, parse, read. One function so that every way
// in (the API, through the import worker; the command line; the bench) reads a file the same way.
import { readImportFile } from './detect.js';
import { decodeImportText, parseImportJson } from './json.js';
import type { ImportReadOptions, ImportSource } from './model.js';

export function readImportBytes(bytes: Uint8Array, options: Partial<ImportReadOptions> = {}): ImportSource {
  return readImportFile(parseImportJson(decodeImportText(bytes)), options);
}
