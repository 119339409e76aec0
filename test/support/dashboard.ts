// The dashboard's pages built from the current sources (scripts/build-dashboard.mjs, skipped when
// dist/dashboard/ is current), for the tests that open them; the service reads them from there.
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface BuildDashboardScript {
  buildDashboard(options?: { force?: boolean }): Promise<boolean>;
}

const SCRIPT = join(fileURLToPath(new URL('../..', import.meta.url)), 'scripts', 'build-dashboard.mjs');

export async function ensureDashboardBuilt(): Promise<void> {
  const script = (await import(pathToFileURL(SCRIPT).href)) as BuildDashboardScript;
  await script.buildDashboard();
}
