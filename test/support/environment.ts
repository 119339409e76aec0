// What the suites need from the machine beyond Node: a Chromium for the browser suites, the
// PostgreSQL of TEST_DATABASE_URL for the PostgreSQL variants, a Redis (TEST_REDIS_URL, by default
// 127.0.0.1:6379) for the shared stores. Without one, the suites that need it are skipped and the
// run says so in one line each (test/support/global-setup.ts); in CI (`CI` set to anything but `false` or `0`) a missing
// browser or service fails the run instead, so CI never passes by skipping.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false' && process.env.CI !== '0';

/** The Redis the suites use (TEST_REDIS_URL, by default the local one). */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome'];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** CHROMIUM_PATH when set (and only then), else the first of chromium, chromium-browser, google-chrome on PATH. */
export function findChromium(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return executable(configured) ? configured : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const name of CHROMIUM_NAMES) {
      const candidate = join(dir, name);
      if (executable(candidate)) return candidate;
    }
  }
  return undefined;
}

export const CHROMIUM_MISSING = process.env.CHROMIUM_PATH
  ? `CHROMIUM_PATH (${process.env.CHROMIUM_PATH}) is not an executable Chromium`
  : `no Chromium found (CHROMIUM_PATH, or ${CHROMIUM_NAMES.join(', ')} on PATH)`;
export const CHROMIUM_ADVICE = 'install one with `apt-get install chromium` (or point CHROMIUM_PATH at a Chromium binary)';

/** Browser suites run when there is a Chromium, and always in CI (where a missing one fails them). */
export const RUN_BROWSER_SUITES = IN_CI || findChromium() !== undefined;

/**
 * Whether the Redis suites run: global-setup.ts sets TEST_REDIS_UNREACHABLE when nothing answers
 * at TEST_REDIS_URL outside CI.
 */
export const REDIS_AVAILABLE = process.env.TEST_REDIS_UNREACHABLE !== '1';
