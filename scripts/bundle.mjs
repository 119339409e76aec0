// What `npm start` runs, as one bundle instead of about a thousand module files. Loading modules
// was most of a cold start (bench/ANALYSIS.md, row 7a): resolving, reading and compiling each
// file. The lazy imports stay lazy (code splitting: the bot, PostgreSQL, the API reference load as
// chunks when first used). Left outside, loaded from node_modules as usual: the native addon, pino
// (its transports run files in worker threads) and the Swagger UI (it serves its own static
// files). Names are kept for stack traces; the source map beside each chunk maps them back
// (`node --enable-source-maps dist/bundle/main.js`).
//
// `npm run build` (scripts/build.mjs) bundles into a fresh versioned folder and switches to it
// atomically. `node scripts/bundle.mjs <outdir>` bundles into a folder of your own (emptied first),
// as test/scripts/bundle.test.ts does.
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * esbuild's options for the bundle in `outdir`: src/main.ts as main.js, the import worker as
 * import-worker.js, and their chunks; `withCli` adds src/cli/main.ts as cli.js (the tests' bundle,
 * test/support/test-bundle.ts).
 */
export function bundleOptions(outdir, { withCli = false } = {}) {
  return {
    absWorkingDir: ROOT,
    // The import worker is a second entry: a worker thread starts from a file of its own
    // (src/workers/import-thread.ts finds it beside the chunks).
    entryPoints: { main: 'src/main.ts', 'import-worker': 'src/workers/import-worker.ts', ...(withCli ? { cli: 'src/cli/main.ts' } : {}) },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    minify: true,
    keepNames: true,
    sourcemap: 'linked',
    // Stack traces map to file and line; the packages' own sources stay in node_modules.
    sourcesContent: false,
    external: ['better-sqlite3', 'sharp', 'pino', 'pino-pretty', '@fastify/swagger-ui'],
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    logLevel: 'warning',
  };
}

/** Bundles src/main.ts into `outdir` (main.js, import-worker.js and their chunks). */
export async function bundle(outdir) {
  await build(bundleOptions(outdir));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2];
  if (!outdir) {
    process.stderr.write('usage: node scripts/bundle.mjs <outdir>   (npm run build builds dist/ for npm start)\n');
    process.exit(2);
  }
  rmSync(resolve(outdir), { recursive: true, force: true });
  await bundle(resolve(outdir));
}
