// The dashboard's first load (issue 31's budget: the Overview under 150,000 bytes of JavaScript as
// served), measured in Chromium against the real service: a member with alters signs in once, then
// each run opens /dashboard/ in a fresh browser context holding only the session cookie (a cold
// HTTP cache) and counts the JavaScript transferred (compressed, as the service sent it) until the
// Overview is usable, and the time from navigation start until its first "Switch to" button is
// there and enabled. Screens loaded later (other addresses) are not part of the first load and
// are not fetched here.
//
// Run alone: node --import tsx bench/dashboard.ts [--quick]. bench/run.ts runs it too (row 18).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { loadConfig } from '../src/config/config.js';
import { startServer } from '../src/http/server.js';
import { signIn } from '../test/support/api.js';
import { launchChromium } from '../test/support/chromium.js';
import { ensureDashboardBuilt } from '../test/support/dashboard.js';
import { freePort, type TestServer } from '../test/support/server.js';

/** The budget for the Overview's first load, in bytes of JavaScript as served. */
export const FIRST_LOAD_BUDGET = 150_000;
const USER = '500000000000000181';
const ALTERS = 20;

export interface DashboardBenchResult {
  runs: number;
  alters: number;
  /** JavaScript files of the first load and their bytes as transferred (compressed) and decoded. */
  scripts: number;
  transferredBytes: number;
  decodedBytes: number;
  /** What the service compressed them with (content-encoding), e.g. br. */
  encodings: string[];
  /** Navigation start → the first "Switch to" button enabled, in ms. */
  interactive: { median: number; worst: number };
  /** Navigation start → DOMContentLoaded (the scripts ran; the Overview's API calls come after), median ms. */
  contentLoaded: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The bits of the page's DOM the check reads (this file's TypeScript has no DOM types). */
interface PageGlobals {
  document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null; disabled: boolean }> };
  performance: { now(): number };
}

/**
 * Runs in the page, on every animation frame, until the Overview is usable: then the time since
 * navigation start. A function, not a string: Playwright evaluates a string predicate with eval,
 * which the dashboard's CSP forbids.
 */
function interactiveAt(): number | false {
  const { document, performance } = globalThis as unknown as PageGlobals;
  const button = Array.from(document.querySelectorAll('button')).find((b) => (b.textContent ?? '').trim().startsWith('Switch to') && !b.disabled);
  return button ? performance.now() : false;
}

async function firstLoad(browser: Browser, url: string, storageState: Awaited<ReturnType<import('playwright-core').BrowserContext['storageState']>>) {
  const context = await browser.newContext({ storageState, viewport: { width: 1000, height: 900 } });
  try {
    const page = await context.newPage();
    const scripts: Array<Promise<{ transferred: number; decoded: number; encoding: string }>> = [];
    page.on('response', (response) => {
      if (!/\.js$/.test(new URL(response.url()).pathname)) return;
      scripts.push(
        (async () => {
          const sizes = await response.request().sizes();
          const body = await response.body();
          return { transferred: sizes.responseBodySize, decoded: body.byteLength, encoding: (await response.headerValue('content-encoding')) ?? 'identity' };
        })(),
      );
    });
    await page.goto(`${url}/dashboard/`);
    if (!page.url().startsWith(`${url}/dashboard/`)) throw new Error(`the session did not hold: landed on ${page.url()}`);
    const handle = await page.waitForFunction(interactiveAt, undefined, { polling: 'raf', timeout: 30_000 });
    const interactive = (await handle.jsonValue()) as number;
    // Evaluated over the DevTools protocol, which the page's CSP does not govern.
    const contentLoaded = await page.evaluate<number>("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd");
    const loaded = await Promise.all(scripts);
    return { interactive, contentLoaded, loaded };
  } finally {
    await context.close();
  }
}

export async function benchDashboard(options: { quick?: boolean } = {}): Promise<DashboardBenchResult> {
  const runs = options.quick ? 1 : 7;
  await ensureDashboardBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-bench-dashboard-'));
  const port = await freePort();
  const config = loadConfig({ NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_LEVEL: 'silent', DATA_DIR: dataDir, AUTH_DEV_LOGIN: 'true', RATE_LIMIT_ENABLED: 'false' });
  const running = await startServer(config);
  const browser = await launchChromium();
  try {
    const server = { ...running, url: config.publicUrl } as unknown as TestServer;
    const member = await signIn(server, USER);
    for (let n = 0; n < ALTERS; n++) {
      const made = await member.call('POST', '/v1/users/@me/system/create-alter', { username: `alter-${n}`, displayName: `Alter ${n}` });
      if (made.status !== 201) throw new Error(`seeding failed: ${made.status}`);
    }
    // Signed in once, through the development login; each run starts from that cookie alone.
    const signedIn = await browser.newContext();
    const page = await signedIn.newPage();
    await page.goto(`${config.publicUrl}/dashboard/`);
    await page.getByLabel('Discord user id').fill(USER);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${config.publicUrl}/dashboard/`);
    const storageState = await signedIn.storageState();
    await signedIn.close();

    const times: number[] = [];
    const contentLoadedTimes: number[] = [];
    let last: Awaited<ReturnType<typeof firstLoad>>['loaded'] = [];
    // One load first to warm the service (its first requests compile schemas), not counted.
    await firstLoad(browser, config.publicUrl, storageState);
    for (let run = 0; run < runs; run++) {
      const { interactive, contentLoaded, loaded } = await firstLoad(browser, config.publicUrl, storageState);
      times.push(interactive);
      contentLoadedTimes.push(contentLoaded);
      last = loaded;
    }
    return {
      runs,
      alters: ALTERS,
      scripts: last.length,
      transferredBytes: last.reduce((sum, script) => sum + script.transferred, 0),
      decodedBytes: last.reduce((sum, script) => sum + script.decoded, 0),
      encodings: [...new Set(last.map((script) => script.encoding))],
      interactive: { median: median(times), worst: Math.max(...times) },
      contentLoaded: median(contentLoadedTimes),
    };
  } finally {
    await browser.close();
    await running.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  benchDashboard({ quick: process.argv.includes('--quick') }).then(
    (result) => {
      console.log(JSON.stringify(result, null, 2));
      process.exit(0);
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
