// Chromium for the browser suites (playwright-core driving the system's Chromium, found as
// environment.ts says): a launch that fails with instructions when it is missing (the suites are
// skipped before that outside CI), and pages that collect what they report about themselves (CSP
// violations, console errors, uncaught exceptions).
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { CHROMIUM_ADVICE, CHROMIUM_MISSING, findChromium } from './environment.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(`The browser tests need Chromium: ${CHROMIUM_MISSING}; ${CHROMIUM_ADVICE}.`);
  return chromium.launch({ executablePath, args: CHROMIUM_ARGS });
}

export interface AuditedPage {
  page: Page;
  context: BrowserContext;
  /** securitypolicyviolation events and console messages about the CSP, from every page of the context. */
  violations: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
}

const VIOLATION_LISTENER = `
document.addEventListener('securitypolicyviolation', (event) => {
  console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.sourceFile + ':' + event.lineNumber);
});`;

/** A fresh profile whose pages (popups included) report into one audit. */
export async function auditedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<AuditedPage> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, ...options });
  await context.addInitScript(VIOLATION_LISTENER);
  const audit: AuditedPage = { page: await context.newPage(), context, violations: [], errors: [] };
  const watch = (page: Page) => {
    page.on('console', (message) => {
      if (/Content Security Policy|CSP violation/i.test(message.text())) audit.violations.push(`${page.url()}: ${message.text()}`);
      // A page answered with a 4xx status (an error page, a refused form) is logged as a failed
      // load of the document itself; its status is the test's to check. Any other failure counts.
      else if (message.type() === 'error' && !(message.text().startsWith('Failed to load resource') && message.location().url === page.url())) {
        audit.errors.push(`${page.url()}: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => audit.errors.push(`${page.url()}: ${error.message}`));
  };
  watch(audit.page);
  context.on('page', watch);
  return audit;
}
