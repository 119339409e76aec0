// `npm start` from one installation while another instance runs from it (scripts/build.mjs): a
// start with sources unchanged builds nothing; two starts at once after a source changed both come
// up (one builds, the other waits for it); and the instance started before the change keeps
// answering through the rebuild, its lazily loaded chunks (the API reference) included, because
// the build never removes the folder it runs from. All in a copy of the repository, so the
// checkout's own dist/ is left alone.
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/server.js';
import { stopService, waitReady, type Service } from '../support/service-process.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COPIED = ['src', 'commands', 'dashboard', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

interface BuildScript {
  inputHash(): string;
  isCurrent(hash: string): boolean;
}

let copy: string;
const started: Service[] = [];
const scratch: string[] = [];

/** `npm start` in the copy, as its own process group (npm and the node it starts stop together). */
function npmStart(port: number, dataDir: string): Service {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|DISCORD_|BOT_|REDIS_URL|SIGNING_KEYS|COOKIE_SECRETS|DATA_ENCRYPTION_KEY|SWITCHBOARD_|npm_)/.test(name)));
  const child = spawn('npm', ['start'], {
    cwd: copy,
    env: { ...inherited, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir, DATABASE_URL: '', AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const service: Service = { child, exited, output: () => output };
  started.push(service);
  return service;
}

async function stopGroup(service: Service): Promise<void> {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return;
  try {
    process.kill(-(service.child.pid ?? 0), 'SIGTERM');
  } catch {
    // already gone
  }
  await stopService(service);
}

const bundleFolders = () => readdirSync(join(copy, 'dist')).filter((name) => /^bundle-[0-9a-f]{16}$/.test(name)).sort();

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'switchboard-build-'));
  for (const entry of COPIED) cpSync(join(REPO_ROOT, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
  // The checkout's dist/, when it is the build of these very sources, saves the copy one build.
  const script = (await import(join(REPO_ROOT, 'scripts', 'build.mjs'))) as BuildScript;
  const hash = script.inputHash();
  if (script.isCurrent(hash)) {
    const dist = join(REPO_ROOT, 'dist');
    // Its build only: not older bundle folders, marks of running processes, a lock or temporary folders.
    const wanted = (path: string) => {
      const [top = '', ...rest] = relative(dist, path).split(sep);
      if (/^bundle-[0-9a-f]{16}$/.test(top) && top !== `bundle-${hash}`) return false;
      return !top.startsWith('.bundle-') && top !== '.build-lock' && rest[0] !== 'running';
    };
    cpSync(dist, join(copy, 'dist'), { recursive: true, filter: wanted });
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map(stopGroup));
  for (const dir of [copy, ...scratch]) rmSync(dir, { recursive: true, force: true });
});

describe('npm start from one installation', () => {
  it('builds nothing that is current, and starts twice at once while a running instance keeps answering through the rebuild', { timeout: 600_000 }, async () => {
    const dataDir = (name: string) => {
      const dir = mkdtempSync(join(tmpdir(), `switchboard-build-${name}-`));
      scratch.push(dir);
      return dir;
    };

    // A first instance, from a build of the current sources.
    const firstPort = await freePort();
    const first = npmStart(firstPort, dataDir('first'));
    await waitReady(first, `http://127.0.0.1:${firstPort}`, 300_000);
    const before = bundleFolders();
    expect(before).toHaveLength(1);

    // Starting again with nothing changed builds nothing.
    const againPort = await freePort();
    const again = npmStart(againPort, dataDir('again'));
    await waitReady(again, `http://127.0.0.1:${againPort}`, 120_000);
    expect(again.output()).toMatch(/dist\/ is current/);
    expect(again.output()).not.toMatch(/build: building/);
    await stopGroup(again);

    // What the first instance runs from, file by file: the rebuild must leave it as it is.
    const filesOf = (folder: string) => Object.fromEntries(readdirSync(folder).filter((name) => name !== 'running').map((name) => {
      const stat = statSync(join(folder, name));
      return [name, `${stat.ino}:${stat.mtimeMs}:${stat.size}`];
    }));
    const runningFrom = filesOf(join(copy, 'dist', before[0] ?? ''));

    // A source changes; two starts at once: one builds, the other waits for it, both come up.
    appendFileSync(join(copy, 'src', 'main.ts'), '\n// changed by test/scripts/build.test.ts\n');
    const [portB, portC] = [await freePort(), await freePort()];
    const [b, c] = [npmStart(portB, dataDir('b')), npmStart(portC, dataDir('c'))];
    // Meanwhile the first instance answers all along.
    let rebuilding = true;
    const failures: string[] = [];
    let answered = 0;
    const probes = (async () => {
      while (rebuilding) {
        const response = await fetch(`http://127.0.0.1:${firstPort}/healthz`).catch((error: Error) => error);
        if (response instanceof Error || response.status !== 200) failures.push(response instanceof Error ? response.message : `status ${response.status}`);
        else answered++;
        if (!(response instanceof Error)) await response.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();
    try {
      await Promise.all([waitReady(b, `http://127.0.0.1:${portB}`, 400_000), waitReady(c, `http://127.0.0.1:${portC}`, 400_000)]);
    } finally {
      rebuilding = false;
      await probes;
    }
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(0);
    const builds = [b, c].filter((service) => /build: building/.test(service.output()));
    expect(builds, `${b.output()}\n---\n${c.output()}`).toHaveLength(1);
    // The other one waited for that build (or, starting late, found it done).
    expect([b, c].some((service) => /waiting for the build|built meanwhile|dist\/ is current/.test(service.output()))).toBe(true);

    // The new build is in a folder of its own; the launcher points there; the old folder stays.
    const after = bundleFolders();
    expect(after).toHaveLength(2);
    expect(after).toEqual(expect.arrayContaining(before));
    const newest = after.find((name) => !before.includes(name));
    expect(readFileSync(join(copy, 'dist', 'bundle', 'main.js'), 'utf8')).toContain(`../${newest}/main.js`);

    expect(filesOf(join(copy, 'dist', before[0] ?? ''))).toEqual(runningFrom);

    // The first instance loads its API reference chunks now, after the rebuild, from its own folder.
    for (const port of [firstPort, portB, portC]) {
      const reference = await fetch(`http://127.0.0.1:${port}/openapi.json`);
      expect(reference.status, `port ${port}`).toBe(200);
      expect(((await reference.json()) as { openapi: string }).openapi).toMatch(/^3\./);
      const docs = await fetch(`http://127.0.0.1:${port}/docs/`);
      expect(docs.status, `port ${port}`).toBe(200);
      await docs.arrayBuffer();
    }
    expect(first.child.exitCode).toBeNull();
    // The old folder is marked in use by the first instance alone (the second start has exited).
    const running = join(copy, 'dist', before[0] ?? '', 'running');
    expect(readdirSync(running)).toHaveLength(1);

    for (const service of [first, b, c]) await stopGroup(service);
    // npm exits with its child; the mark goes when node does.
    for (let wait = 0; wait < 100 && readdirSync(running).length > 0; wait++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readdirSync(running)).toEqual([]);
  });
});
