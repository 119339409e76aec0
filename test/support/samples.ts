// The project's own sample exports (test/fixtures/samples/): a PluralKit v2 file, a Tupperbox file and a Simply Plural export
// of invented members, covering the cases docs/import-formats.md describes.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SAMPLES = join(REPOSITORY, 'test', 'fixtures', 'samples');
