// The real service as a child process (the tests' bundle of src/main.ts, test-bundle.ts, or a
// bundle of the test's own), for tests that need a process of its own: a crash, two processes
// sharing one database, the bundle.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, fetch as undiciFetch } from 'undici';
import { testBundle } from './test-bundle.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Service {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

/** `entry`: the script to run instead of the tests' bundle of src/main.ts. */
export function startService(env: Record<string, string>, entry?: string): Service {
  // Nothing from the developer's environment may steer the child: no bot, no shared stores, no keys.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(DATABASE_URL|DISCORD_|BOT_|REDIS_URL|SIGNING_KEYS|COOKIE_SECRETS|DATA_ENCRYPTION_KEY|SWITCHBOARD_)/.test(name)),
  );
  const child = spawn(process.execPath, [entry ?? join(testBundle(), 'main.js')], {
    cwd: REPO_ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

export async function waitReady(service: Service, url: string, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void service.exited.then(() => (exited = true));
  const agent = new Agent({ keepAliveTimeout: 1 });
  try {
    for (;;) {
      if (exited) throw new Error(`the service exited before it was ready:\n${service.output()}`);
      try {
        const response = await undiciFetch(`${url}/readyz`, { dispatcher: agent });
        const body = (await response.json()) as { status?: string };
        if (response.status === 200 && body.status === 'ready') return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the service was not ready within ${timeoutMs} ms:\n${service.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await agent.destroy();
  }
}

/** SIGTERM (a graceful close), then SIGKILL if it has not exited within 10 s. */
export async function stopService(service: Service | undefined): Promise<void> {
  if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
  service.child.kill('SIGTERM');
  const timer = setTimeout(() => service.child.kill('SIGKILL'), 10_000);
  await service.exited;
  clearTimeout(timer);
}
