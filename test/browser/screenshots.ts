// Where the browser suites write their screenshots: test/artifacts/screenshots/ (gitignored; CI
// keeps test/artifacts/ as the run's artefacts).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'artifacts', 'screenshots');
