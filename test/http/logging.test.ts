// The service's log as an operator reads it, from the process `npm start` runs (a child process,
// its stdout not a terminal): JSON lines by default there, readable lines with LOG_FORMAT=pretty;
// one line per request with the method, route pattern and status, never the URL's ids or query;
// and the start-up line naming the sign-in methods, or warning that there is none.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/server.js';
import { testBundle } from '../support/test-bundle.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Runs the service with `env`, makes `requests` once it answers, stops it; returns its stdout. */
async function serviceOutput(env: Record<string, string>, requests: string[]): Promise<string> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-logs-'));
  dirs.push(dataDir);
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|REDIS_URL|AUTH_DEV_LOGIN|(DISCORD|BOT|LOG)_.*)$/.test(name)));
  const child = spawn(process.execPath, [join(testBundle(), 'main.js')], {
    env: { ...inherited, PORT: String(port), DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await fetch(`http://127.0.0.1:${port}/healthz`);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    for (const path of requests) await fetch(`http://127.0.0.1:${port}${path}`);
  } finally {
    child.kill('SIGTERM');
  }
  await exited;
  return stdout;
}

describe.concurrent('service logs', () => {
  it('writes JSON lines off a terminal: one request line with the route pattern, never the URL', async () => {
    const stdout = await serviceOutput({ AUTH_DEV_LOGIN: 'true' }, ['/v1/users/123456789012345678/system?token=query-secret', '/nowhere/987654321098765432?code=another-secret', '/auth/oauth2/jwks']);
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests.map(({ method, route, status }) => ({ method, route, status }))).toEqual([
      { method: 'GET', route: '/healthz', status: 200 },
      { method: 'GET', route: '/v1/users/:user/system', status: 401 },
      { method: 'GET', route: null, status: 404 },
      { method: 'GET', route: '/auth/oauth2/jwks', status: 200 },
    ]);
    for (const line of requests) expect(typeof line.ms).toBe('number');
    expect(stdout).not.toContain('123456789012345678');
    expect(stdout).not.toContain('987654321098765432');
    expect(stdout).not.toContain('secret');
    expect(stdout).not.toContain('incoming request');
    const signIn = lines.find((line) => typeof line.msg === 'string' && line.msg.startsWith('sign-in:'));
    expect(signIn).toMatchObject({ level: 30, msg: 'sign-in: development login (any Discord user id, no password)' });
  }, 30_000);

  it('writes readable lines with LOG_FORMAT=pretty, and warns when nobody can sign in', async () => {
    const stdout = await serviceOutput({ LOG_FORMAT: 'pretty' }, ['/healthz']);
    expect(stdout).not.toMatch(/^\{/m);
    expect(stdout).toMatch(/INFO: switchboard is ready/);
    expect(stdout).toMatch(/INFO: \[req-\d+\] GET \/healthz 200 \d+ ms/);
    expect(stdout).toMatch(/WARN: no sign-in method is usable: .*DISCORD_CLIENT_ID.*AUTH_DEV_LOGIN=true/);
  }, 30_000);
});
