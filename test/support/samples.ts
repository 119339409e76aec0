// The sample export files of the specification: `../shared/samples/` beside the repository (CI
// checks the repository out with `../shared` next to it, as it is here).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPOSITORY = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SAMPLES = join(REPOSITORY, '..', 'shared', 'samples');
