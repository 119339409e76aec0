// `npm run build`, and `npm start`'s prestart: compiles src/ to dist/src/ (the CLI, the `bin`, runs
// from there) and bundles src/main.ts for `npm start` (bundle.mjs), so that
// - starting never rebuilds what is current: a stamp (dist/build-stamp) holds a hash of every input
//   (src/, commands/, dashboard/, the lockfile, package.json, the tsconfigs and these scripts); when it matches
//   and the output is there, nothing is built;
// - a build never pulls files from under a running instance: each bundle goes into a folder of its
//   own, dist/bundle-<hash>/, made under a temporary name and renamed into place, and `npm start`'s
//   entry, dist/bundle/main.js, is a small launcher replaced by a rename to point at the new one.
//   An instance keeps loading its lazy chunks from its own folder. The launcher marks the folder in
//   use (running/<pid>) while the process lives; the newest KEEP folders stay, older ones are
//   deleted once no live process marks them;
// - builds started at once (two `npm start`s) take turns under a lock (dist/.build-lock), and the
//   second finds the first one's output current.
// `node scripts/build.mjs --force` builds even when the stamp matches.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { bundle, ROOT } from './bundle.mjs';
import { buildDashboard } from './build-dashboard.mjs';

const DIST = join(ROOT, 'dist');
const LAUNCHER = join(DIST, 'bundle', 'main.js');
const STAMP = join(DIST, 'build-stamp');
const LOCK = join(DIST, '.build-lock');
/** Bundle folders kept whether or not a process marks them (the current one among them). */
const KEEP = 3;
const INPUT_DIRS = ['src', 'commands', 'dashboard'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/bundle.mjs', 'scripts/build.mjs', 'scripts/build-dashboard.mjs'];
const VERSIONED = /^bundle-[0-9a-f]{16}$/;

const say = (line) => process.stderr.write(`build: ${line}\n`);

function filesUnder(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

/** What the build is made from, as 16 hex digits. */
export function inputHash() {
  const files = [
    ...INPUT_FILES.map((file) => join(ROOT, file)).filter((file) => existsSync(file)),
    ...INPUT_DIRS.map((dir) => join(ROOT, dir)).filter((dir) => existsSync(dir)).flatMap(filesUnder),
  ]
    .map((file) => relative(ROOT, file))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const content = readFileSync(join(ROOT, file));
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex').slice(0, 16);
}

const read = (path) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** Whether dist/ holds the build of `hash`, ready to start. */
export function isCurrent(hash) {
  return (
    read(STAMP) === hash &&
    existsSync(join(DIST, `bundle-${hash}`, 'main.js')) &&
    (read(LAUNCHER) ?? '').includes(`../bundle-${hash}/main.js`) &&
    existsSync(join(DIST, 'src', 'cli', 'main.js'))
  );
}

/** Writes `path` whole or not at all: readers see the old content or the new, never a part. */
function writeAtomically(path, content) {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, content);
  renameSync(temp, path);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function launcher(hash) {
  return `// Written by scripts/build.mjs: runs the bundle in ../bundle-${hash}/, marked in use by this process
// while it lives so that later builds keep its lazily loaded chunks.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
const running = new URL('../bundle-${hash}/running/', import.meta.url);
const mark = new URL(String(process.pid), running);
try {
  mkdirSync(running, { recursive: true });
  writeFileSync(mark, '');
  process.once('exit', () => rmSync(mark, { force: true }));
} catch {
  // Read-only installation: nothing builds there either.
}
await import('../bundle-${hash}/main.js');
`;
}

/** Whether a live process runs from this bundle folder; marks of dead ones are removed. */
function inUse(folder) {
  let used = false;
  const running = join(folder, 'running');
  for (const name of existsSync(running) ? readdirSync(running) : []) {
    if (/^\d+$/.test(name) && alive(Number(name))) used = true;
    else rmSync(join(running, name), { force: true });
  }
  return used;
}

/** Deletes bundle folders beyond the newest KEEP that no live process uses, and abandoned temporary ones. */
function collect(current) {
  const older = readdirSync(DIST)
    .filter((name) => VERSIONED.test(name) && name !== `bundle-${current}`)
    .map((name) => ({ name, at: statSync(join(DIST, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name } of older.slice(KEEP - 1)) {
    if (!inUse(join(DIST, name))) rmSync(join(DIST, name), { recursive: true, force: true });
  }
  for (const name of readdirSync(DIST)) {
    const temp = /^\.bundle-[0-9a-f]{16}-(\d+)$/.exec(name);
    if (temp && !alive(Number(temp[1]))) rmSync(join(DIST, name), { recursive: true, force: true });
  }
}

async function underLock(work) {
  mkdirSync(DIST, { recursive: true });
  let told = false;
  for (;;) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      const owner = Number(read(join(LOCK, 'pid')));
      // A holder that died (or never wrote its pid within a minute) left the lock behind.
      const abandoned = owner > 0 ? !alive(owner) : Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? 0) > 60_000;
      if (abandoned) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (!told) say(`waiting for the build of process ${owner || '?'} to finish`);
      told = true;
      await sleep(200);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

async function build(force) {
  const hash = inputHash();
  if (!force && isCurrent(hash)) {
    say(`dist/ is current (${hash}); nothing to build`);
    return;
  }
  await underLock(async () => {
    if (!force && isCurrent(hash)) {
      say(`dist/ was built meanwhile (${hash})`);
      return;
    }
    say(`building ${hash}`);
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
    // The dashboard's pages (dist/dashboard/, served under /dashboard): Vite, skipped when current.
    if (await buildDashboard({ force })) say('built the dashboard (dist/dashboard/)');
    const folder = join(DIST, `bundle-${hash}`);
    if (force || !existsSync(join(folder, 'main.js'))) {
      const temp = join(DIST, `.bundle-${hash}-${process.pid}`);
      rmSync(temp, { recursive: true, force: true });
      await bundle(temp);
      // Never under a running process: a folder in use is kept and the fresh copy dropped (same inputs).
      if (existsSync(folder) && inUse(folder)) rmSync(temp, { recursive: true, force: true });
      else {
        rmSync(folder, { recursive: true, force: true });
        renameSync(temp, folder);
      }
    }
    const now = new Date();
    utimesSync(folder, now, now);
    mkdirSync(join(DIST, 'bundle'), { recursive: true });
    writeAtomically(LAUNCHER, launcher(hash));
    // Sources edited during the build may not be in it: then the next start builds again.
    if (inputHash() === hash) writeAtomically(STAMP, hash);
    collect(hash);
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await build(process.argv.includes('--force'));
