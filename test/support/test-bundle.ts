// The service and the CLI as the bundle `npm start` runs (scripts/bundle.mjs, with the CLI as one
// more entry), built from this checkout's sources, for tests that start them as processes. Through
// tsx every start compiles a few hundred modules: `switchboard --help` took 2.9 s that way against
// 0.35 s from the bundle here, and the CLI suites start the CLI about 80 times.
//
// Built once per state of the sources (scripts/build.mjs's input hash) into
// test/artifacts/test-bundle-<hash>/ (inside the repository: what the bundle leaves outside resolves
// from node_modules), shared by the test files of a run and by later runs. Files building at once
// each build into a folder of their own and rename it into place; the first rename wins.
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildSync, type BuildOptions } from 'esbuild';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts');
const FOLDER = /^test-bundle-[0-9a-f]{16}$/;
/** Another state's bundle is removed once it has not been built or used for this long. */
const STALE_MS = 60 * 60 * 1000;

interface BuildScript {
  inputHash(): string;
}
interface BundleScript {
  bundleOptions(outdir: string, options: { withCli: boolean }): BuildOptions;
}
const buildScript = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'build.mjs')).href)) as BuildScript;
const bundleScript = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'bundle.mjs')).href)) as BundleScript;

let built: string | undefined;

/** The folder of the current sources' bundle (main.js, cli.js, import-worker.js), built if missing. */
export function testBundle(): string {
  if (built) return built;
  const hash = buildScript.inputHash();
  const folder = join(ARTIFACTS, `test-bundle-${hash}`);
  if (!existsSync(join(folder, 'cli.js'))) {
    mkdirSync(ARTIFACTS, { recursive: true });
    const temp = join(ARTIFACTS, `.test-bundle-${hash}-${process.pid}`);
    rmSync(temp, { recursive: true, force: true });
    buildSync(bundleScript.bundleOptions(temp, { withCli: true }));
    try {
      renameSync(temp, folder);
    } catch {
      // Another test file's build of the same sources got there first.
      rmSync(temp, { recursive: true, force: true });
    }
  }
  removeStale(folder);
  built = folder;
  return folder;
}

const scripts = new Map<string, string>();

/**
 * A test's own process script (e.g. test/bot/refresh-worker.ts) bundled with the sources it
 * imports, for tests that start it as a child process more than once: through tsx each start
 * compiles its modules again. Built once per test file's run, into a folder of this process
 * (test scripts are not part of the build's input hash, so a shared cache would go stale).
 */
export function testScriptBundle(entry: string): string {
  const done = scripts.get(entry);
  if (done) return done;
  const options = bundleScript.bundleOptions(ARTIFACTS, { withCli: false });
  const outfile = join(ARTIFACTS, `.scripts-${process.pid}`, `${scripts.size}.mjs`);
  buildSync({ ...options, entryPoints: [entry], outdir: undefined, outfile, splitting: false, minify: false, sourcemap: 'inline', sourcesContent: false });
  process.once('exit', () => rmSync(join(ARTIFACTS, `.scripts-${process.pid}`), { recursive: true, force: true }));
  scripts.set(entry, outfile);
  return outfile;
}

function removeStale(current: string): void {
  for (const name of readdirSync(ARTIFACTS)) {
    const path = join(ARTIFACTS, name);
    if (!FOLDER.test(name) || path === current) continue;
    const age = Date.now() - (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > STALE_MS) rmSync(path, { recursive: true, force: true });
  }
}
