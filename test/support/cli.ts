// The `switchboard` CLI as a user runs it: a process of its own, from the tests' bundle of the
// current sources (test-bundle.ts), with its exit code and both outputs.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testBundle } from './test-bundle.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `switchboard ...args` with `env` over this process's environment (logs silenced). */
export function runCli(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  const cli = join(testBundle(), 'cli.js');
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd: REPO_ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}
