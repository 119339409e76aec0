// Starts the load generator in a separate process and reads its figures.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LoadOptions {
  url: string;
  connections: number;
  duration?: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Run a fixed number of requests instead of for `duration` seconds. */
  amount?: number;
  variants?: Array<{ path: string; headers: Record<string, string> }>;
  refreshChain?: { tokens: string[] };
  codes?: Array<{ code: string; verifier: string }>;
  redirectUri?: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  total: number;
  durationSeconds: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

const worker = fileURLToPath(new URL('./load-worker.mjs', import.meta.url));

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [worker, JSON.stringify(options)], { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`load generator failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as LoadResult);
    });
  });
}
