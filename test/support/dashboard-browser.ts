// The dashboard's browser tests' shared steps: a page signed in through the development login,
// an accessibility audit with axe-core (its default rules), and the screenshots every screen keeps
// as artefacts (light, dark and 375 px wide).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { SCREENSHOTS } from '../browser/screenshots.js';
import { auditedPage, type AuditedPage } from './chromium.js';
import type { TestServer } from './server.js';

export interface DashboardPage extends AuditedPage {
  /** Requests the page made to any other origin than the service's (there must be none). */
  foreign: string[];
}

/** A fresh browser profile signed in as `userId` through the development login, on `path` (under /dashboard). */
export async function openDashboard(browser: Browser, server: TestServer, userId: string, path = '/dashboard/'): Promise<DashboardPage> {
  const audit = await auditedPage(browser);
  const foreign: string[] = [];
  audit.page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'data:' && url.protocol !== 'blob:' && url.origin !== new URL(server.url).origin) foreign.push(request.url());
  });
  await audit.page.goto(`${server.url}${path}`);
  await audit.page.getByLabel('Discord user id').fill(userId);
  await audit.page.getByRole('button', { name: 'Sign in' }).click();
  await audit.page.waitForURL(`${server.url}${path}`);
  return { ...audit, foreign };
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Runs on the page (as text: the tests' TypeScript has no DOM types). An audit that checked nothing would pass anything. */
const RUN_AXE = `(async () => {
  const result = await globalThis.axe.run(document);
  if (result.passes.length === 0) throw new Error('axe-core checked no rule on this page');
  return result.violations.map((violation) => ({
    id: violation.id, impact: violation.impact ?? 'unknown', help: violation.help, targets: violation.nodes.map((node) => node.target.join(' ')),
  }));
})()`;

export interface AccessibilityFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * axe-core's default rules run on the page as it is now, in light and in dark; returns the
 * serious and critical findings (the dashboard's bar is none). axe is evaluated through the
 * DevTools protocol, which the page's CSP does not govern, so the CSP stays as served.
 */
export async function seriousAccessibilityFindings(page: Page): Promise<AccessibilityFinding[]> {
  const findings: AccessibilityFinding[] = [];
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    if (!(await page.evaluate<boolean>("typeof globalThis.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
    const violations = await page.evaluate<AccessibilityFinding[]>(RUN_AXE);
    for (const violation of violations) if (violation.impact === 'serious' || violation.impact === 'critical') findings.push({ ...violation, id: `${violation.id} (${colorScheme})` });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return findings;
}

/** Screenshots of the page as it is now, light, dark and 375 px wide, as test/artifacts/screenshots/dashboard-<name>-<variant>.png. */
export async function screenshotEveryWay(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const viewport = page.viewportSize();
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(SCREENSHOTS, `dashboard-${name}-light.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(SCREENSHOTS, `dashboard-${name}-dark.png`), fullPage: true });
  await page.setViewportSize({ width: 375, height: 812 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(SCREENSHOTS, `dashboard-${name}-narrow.png`), fullPage: true });
  if (viewport) await page.setViewportSize(viewport);
}

/** Whether the page scrolls sideways at its current width (a screen usable at 375 px must not). */
export async function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth + 1');
}
