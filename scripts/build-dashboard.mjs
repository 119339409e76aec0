// Builds the dashboard (dashboard/, Svelte + Vite) into dist/dashboard/ (with .br and .gz copies of
// the scripts and styles), which the service serves
// under /dashboard (src/dashboard/assets.ts). Run by scripts/build.mjs (`npm run build`, and so
// `npm start`) and by the tests that need the pages. Skipped when dist/dashboard/.stamp holds the
// hash of the current inputs (dashboard/, the service's modules it bundles, the lockfile, this script); built into a temporary folder
// and renamed into place, so a reader never sees half a build.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
export const DASHBOARD_OUT = join(ROOT, 'dist', 'dashboard');
const SOURCES = join(ROOT, 'dashboard');
const INPUT_FILES = ['package-lock.json', 'scripts/build-dashboard.mjs'];
// The service's own pure modules the dashboard bundles (the alter editor's proxy preview and
// privacy words, the Apps screen's scope descriptions), so that a change to them rebuilds it too.
const SHARED_SOURCES = ['src/domain/proxy', 'src/domain/privacy-bits.ts', 'src/bot/proxy/webhook-name.ts', 'src/domain/scopes.ts'];

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

export function dashboardInputHash() {
  const shared = SHARED_SOURCES.map((path) => join(ROOT, path)).flatMap((path) => (statSync(path).isDirectory() ? filesUnder(path) : [path]));
  const files = [...filesUnder(SOURCES), ...shared, ...INPUT_FILES.map((file) => join(ROOT, file))].map((file) => relative(ROOT, file)).sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const content = readFileSync(join(ROOT, file));
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex').slice(0, 16);
}

/** Builds dist/dashboard/ unless it is current; returns whether it built. */
export async function buildDashboard({ force = false } = {}) {
  const hash = dashboardInputHash();
  const stamp = join(DASHBOARD_OUT, '.stamp');
  if (!force && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash && existsSync(join(DASHBOARD_OUT, 'index.html'))) return false;
  const temp = join(ROOT, 'dist', `.dashboard-${hash}-${process.pid}`);
  rmSync(temp, { recursive: true, force: true });
  process.env.DASHBOARD_OUT_DIR = temp;
  // Vite builds for the NODE_ENV it finds, and a test runner's `test` would make Svelte's
  // development build (larger, with its checks): always the production one here.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    const { build } = await import('vite');
    await build({ configFile: join(SOURCES, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
  } finally {
    delete process.env.DASHBOARD_OUT_DIR;
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  // Compressed once here, served as they are (src/dashboard/assets.ts): Brotli, and gzip for the rest.
  for (const file of filesUnder(join(temp, 'assets')).filter((path) => /\.(js|css|svg)$/.test(path))) {
    const content = readFileSync(file);
    writeFileSync(`${file}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
  }
  writeFileSync(join(temp, '.stamp'), hash);
  const old = `${DASHBOARD_OUT}.old-${process.pid}`;
  if (existsSync(DASHBOARD_OUT)) renameSync(DASHBOARD_OUT, old);
  try {
    renameSync(temp, DASHBOARD_OUT);
  } catch (error) {
    // Another build put the same inputs' output in place first.
    rmSync(temp, { recursive: true, force: true });
    if (!existsSync(DASHBOARD_OUT)) throw error;
  }
  rmSync(old, { recursive: true, force: true });
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildDashboard({ force: process.argv.includes('--force') });
  process.stderr.write(`build: dashboard ${built ? 'built' : 'is current'} (dist/dashboard/)\n`);
}
