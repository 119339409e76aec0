// The service as `npm start` runs it (its bundle): a child process on embedded defaults that creates its
// database and keys, answers health checks, keeps secrets out of its files and logs, and shuts
// down gracefully on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/server.js';
import { testBundle } from '../support/test-bundle.js';

function startService(env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [join(testBundle(), 'main.js')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function waitFor(url: string, timeoutMs = 20_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('the service process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-start-'));
  let running: ChildProcess | undefined;
  afterAll(() => running?.kill('SIGKILL'));

  it('starts on defaults, creates its database and keys, and stops on SIGTERM', async () => {
    const port = await freePort();
    const service = startService({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info', DATABASE_URL: '', NODE_ENV: 'development' });
    running = service.child;
    const health = await waitFor(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(await ready.json()).toMatchObject({ status: 'ready', events: { running: true, inFlight: 0, failing: false } });
    expect(ready.headers.get('x-content-type-options')).toBe('nosniff');

    expect(existsSync(join(dataDir, 'switchboard.db'))).toBe(true);
    const keyFile = join(dataDir, 'keys', 'data-encryption.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim();
    const cookieSecret = readFileSync(join(dataDir, 'keys', 'cookie-secrets.txt'), 'utf8').trim();

    const exit = new Promise<number | null>((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGTERM');
    expect(await exit).toBe(0);
    running = undefined;
    expect(service.output()).toContain('switchboard is ready');
    expect(service.output()).toContain('shutting down');
    expect(service.output()).not.toContain(key);
    expect(service.output()).not.toContain(cookieSecret);
  });

  it('refuses to start with a bad variable, naming it', async () => {
    const service = startService({ PORT: 'nope', DATA_DIR: dataDir });
    const code = await new Promise<number | null>((resolve) => service.child.once('exit', resolve));
    expect(code).toBe(1);
    expect(service.output()).toMatch(/PORT: .*\(got "nope"\)/);
  });
});
