// The server-rendered pages (sign-in, consent, device code, errors) in a real headless Chromium,
// driven with the keyboard only: Tab / Shift+Tab, typing, Enter and Space, never a click. On
// every page: no Content Security Policy violation, no script error, no request leaving the
// server's origin, a label on every form control, and focus visibly where the user expects it
// after each key press. A screenshot of each page lands in test/artifacts/screenshots/ (gitignored;
// screenshots.test.ts photographs every page light, dark and narrow).
//
// Without a Chromium this suite is skipped, except in CI, where it fails (test/support/environment.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { RUN_BROWSER_SUITES } from '../support/environment.js';
import { authorizationRequest, createTestClient, postForm, REDIRECT_URI, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { SCREENSHOTS } from './screenshots.js';

const USER = '500000000000000005';

/** What the page reported about itself; every list must stay empty. */
interface Audit {
  page: Page;
  context: BrowserContext;
  /** Console messages about CSP or mixed content, and securitypolicyviolation events. */
  violations: string[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** Requests made by the page that did not go to the server over plain same-origin http. */
  foreignRequests: string[];
  /** Every request the page made, for the failure message. */
  requests: string[];
  /** The Content-Security-Policy of the document last loaded in the page. */
  documentCsp: string | undefined;
}

// Page-side scripts are strings: the project's TypeScript has no DOM library.
const VIOLATION_LISTENER = `
document.addEventListener('securitypolicyviolation', (event) => {
  const report = event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.sourceFile + ':' + event.lineNumber + ' ' + (event.sample || '');
  (window.__cspViolations = window.__cspViolations || []).push(report);
  if (typeof window.__reportViolation === 'function') window.__reportViolation(report);
});`;

/** Controls without an accessible label: a <label>, aria-label(ledby), or a button's own text. */
const UNLABELLED_CONTROLS = `(() => {
  const text = (el) => (el ? el.textContent || '' : '').trim();
  const name = (el) => {
    const labelledBy = (el.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean).map((id) => text(document.getElementById(id))).join(' ').trim();
    if (labelledBy) return labelledBy;
    if ((el.getAttribute('aria-label') || '').trim()) return el.getAttribute('aria-label').trim();
    const labels = el.labels ? [...el.labels].map(text).join(' ').trim() : '';
    if (labels) return labels;
    if (el.tagName === 'BUTTON') return text(el);
    if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type)) return (el.value || '').trim();
    return '';
  };
  return [...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => !(el.tagName === 'INPUT' && el.type === 'hidden'))
    .filter((el) => !name(el))
    .map((el) => el.outerHTML);
})()`;

/** The focused element, described as `tag#id "text"`, and whether its focus is visible. */
const FOCUSED = `(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return { element: 'body', focusVisible: false, outline: 'none' };
  const style = getComputedStyle(el);
  const label = (el.tagName === 'INPUT' ? '' : (el.textContent || '').trim().replace(/\\s+/g, ' '));
  return {
    element: el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (label ? ' "' + label + '"' : ''),
    focusVisible: el.matches(':focus-visible'),
    outline: style.outlineStyle === 'none' || parseFloat(style.outlineWidth) === 0 ? 'none' : style.outlineStyle + ' ' + style.outlineWidth,
  };
})()`;

/** A stack trace or server internals that must never reach a page. */
const INTERNALS = /\bat [\w.<>]+ \(|node_modules|\.(?:js|ts):\d+|\bError: .*\n\s+at\b|TypeError|ReferenceError|SQLITE|kysely/;

describe.runIf(RUN_BROWSER_SUITES)('the sign-in, consent, device and error pages in Chromium (keyboard only)', () => {
  let server: TestServer;
  let browser: Browser;
  let app: TestClient;
  let device: TestClient;
  let origin: string;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startTestServer('sqlite');
    origin = new URL(server.url).origin;
    app = await createTestClient(server, { name: 'Keyboard app' });
    device = await createTestClient(server, { name: 'switchboard bot', redirectUris: [], grantTypes: ['device_code', 'refresh_token'], firstParty: true });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A fresh browser profile (no cookies) with a page whose every report is collected. */
  async function openPage(): Promise<Audit> {
    const context = await browser.newContext({ viewport: { width: 800, height: 900 } });
    const page = await context.newPage();
    const audit: Audit = { page, context, violations: [], pageErrors: [], foreignRequests: [], requests: [], documentCsp: undefined };
    await page.exposeFunction('__reportViolation', (report: string) => audit.violations.push(`securitypolicyviolation: ${report}`));
    await page.addInitScript(VIOLATION_LISTENER);
    page.on('console', (message) => {
      if (/Content Security Policy|Mixed Content/i.test(message.text())) audit.violations.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => audit.pageErrors.push(error.message));
    page.on('request', (request) => {
      const url = new URL(request.url());
      audit.requests.push(`${request.method()} ${url.href}`);
      // The hand-off to the client's redirect URI is the flow's end, answered by the route below.
      if (url.href.startsWith(REDIRECT_URI)) return;
      if (url.protocol !== 'http:' || url.origin !== origin) audit.foreignRequests.push(`${request.method()} ${url.href}`);
    });
    page.on('response', (response) => {
      const request = response.request();
      if (request.resourceType() === 'document' && request.frame() === page.mainFrame() && (response.status() < 300 || response.status() >= 400)) {
        audit.documentCsp = response.headers()['content-security-policy'];
      }
    });
    // The client's callback (http://127.0.0.1:1 refuses connections): answer it in the browser.
    await page.route(`${REDIRECT_URI}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!DOCTYPE html><title>client callback</title><p>callback</p>' }));
    return audit;
  }

  /** Its screenshot, then the checks every page gets. */
  async function checkPage(audit: Audit, name: string, heading: string | RegExp): Promise<void> {
    const { page } = audit;
    await page.waitForLoadState('load');
    // First, so a page that fails its checks is still on record.
    await page.screenshot({ path: join(SCREENSHOTS, `keyboard-${name}.png`), fullPage: true });
    const h1 = (await page.locator('h1').allTextContents()).map((t) => t.trim());
    expect(h1, `${name}: one h1`).toHaveLength(1);
    expect(h1[0], `${name}: heading`).toMatch(heading);
    // The policy the absence of violations is measured against: no inline script allowed.
    expect(audit.documentCsp, `${name}: Content-Security-Policy`).toMatch(/default-src 'none'.*script-src 'self'/);
    expect(audit.documentCsp, `${name}: Content-Security-Policy`).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(await page.evaluate<string>(`document.documentElement.lang`), `${name}: <html lang>`).toBe('en');
    expect(await page.evaluate<string[]>(UNLABELLED_CONTROLS), `${name}: form controls without a label`).toEqual([]);
    expect(await page.evaluate<string[]>(`window.__cspViolations || []`), `${name}: CSP violations`).toEqual([]);
    expect(audit.violations, `${name}: CSP / mixed content reports`).toEqual([]);
    expect(audit.pageErrors, `${name}: page errors`).toEqual([]);
    expect(audit.foreignRequests, `${name}: requests leaving ${origin}`).toEqual([]);
    const body = await page.locator('body').innerText();
    expect(body, `${name}: no stack trace or internals`).not.toMatch(INTERNALS);
  }

  async function focused(page: Page) {
    return page.evaluate<{ element: string; focusVisible: boolean; outline: string }>(FOCUSED);
  }

  /** Presses `key` and expects the focus, visibly, on `expected` (`tag#id "text"`). */
  async function press(page: Page, key: 'Tab' | 'Shift+Tab', expected: string): Promise<void> {
    await page.keyboard.press(key);
    const focus = await focused(page);
    expect(focus.element, `focus after ${key}`).toBe(expected);
    expect(focus.focusVisible, `${expected} matches :focus-visible`).toBe(true);
    expect(focus.outline, `${expected} has a visible outline`).not.toBe('none');
  }

  /** Presses a key that submits a form and waits for the next document (matching `where`) to load. */
  async function submitWith(page: Page, key: 'Enter' | 'Space', where: (url: URL) => boolean): Promise<void> {
    const navigated = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame() && where(new URL(frame.url())), timeout: 10_000 });
    await page.keyboard.press(key);
    await navigated;
    await page.waitForLoadState('load');
  }

  /** Nothing was reported since the last page check either; the profile is closed. */
  async function finish(audit: Audit): Promise<void> {
    expect(audit.violations, 'CSP / mixed content reports').toEqual([]);
    expect(audit.pageErrors, 'page errors').toEqual([]);
    expect(audit.foreignRequests, `requests leaving ${origin}:\n${audit.requests.join('\n')}`).toEqual([]);
    await audit.context.close();
  }

  /** Redeems an approved device code at once (openid-client's poll would first wait 5 s). */
  async function deviceTokenSubject(deviceCode: string): Promise<string> {
    const token = await postForm(`${server.url}/auth/oauth2/token`, { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode }, { id: device.id, secret: device.secret ?? '' });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const payload = String(token.body.id_token).split('.')[1] ?? '';
    return String((JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: string }).sub);
  }

  it('signs in and approves an app, from the authorization request to the client’s redirect URI', async () => {
    const audit = await openPage();
    const { page } = audit;
    const { url: authorizeUrl, verifier, state } = await authorizationRequest(app, { scope: 'openid profile alters:read system:read' });

    // The authorization request lands on the sign-in page of its interaction.
    await page.goto(authorizeUrl.toString(), { waitUntil: 'load' });
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\/[\w-]+$/);
    await checkPage(audit, 'sign-in', 'Sign in');
    expect(await page.locator('main').innerText()).toContain('Keyboard app');

    await press(page, 'Tab', 'input#user_id');
    await page.keyboard.type(USER);
    await press(page, 'Tab', 'button "Sign in"');
    await press(page, 'Shift+Tab', 'input#user_id');
    expect(await page.inputValue('#user_id')).toBe(USER);
    await submitWith(page, 'Enter', (url) => url.pathname.startsWith('/interaction/'));

    // Consent: the approve button has autofocus; walk the page and come back to it.
    await checkPage(audit, 'consent', 'Allow access?');
    const consentText = await page.locator('main').innerText();
    expect(consentText).toContain(USER);
    expect(consentText).toContain('Keyboard app');
    expect(consentText).toContain('alters:read');
    expect((await focused(page)).element).toBe('button "Allow"');
    await press(page, 'Tab', 'button "Deny"');
    await press(page, 'Tab', 'a "your authorized apps page"');
    await press(page, 'Shift+Tab', 'button "Deny"');
    await press(page, 'Shift+Tab', 'button "Allow"');
    await submitWith(page, 'Space', (url) => url.href.startsWith(REDIRECT_URI));

    // The client received a code that redeems for tokens of this user.
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('code')).toBeTruthy();
    const tokens = await oidc.authorizationCodeGrant(app.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()?.sub).toBe(USER);
    await finish(audit);
  });


  it('connects a device through a one-time login link: confirm the code, approve, done', async () => {
    const audit = await openPage();
    const { page } = audit;
    const authorization = await oidc.initiateDeviceAuthorization(device.config, { scope: 'openid offline_access alters:read system:read' });
    const complete = new URL(authorization.verification_uri_complete ?? '');
    const minted = await fetch(`${server.url}/auth/login-links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${device.id}:${device.secret ?? ''}`).toString('base64')}` },
      body: JSON.stringify({ user_id: USER, return_to: `${complete.pathname}${complete.search}` }),
    });
    expect(minted.status).toBe(201);
    const { url: loginLink } = (await minted.json()) as { url: string };

    // The link signs in and lands on the verification page with the code, which posts it by
    // itself (oidc-provider's form_post script, allowed by its hash in the CSP); the answer to
    // that POST asks to confirm the code.
    const confirmPage = page.waitForEvent('framenavigated', { predicate: (frame) => {
        const url = new URL(frame.url());
        return frame === page.mainFrame() && url.pathname === '/auth/oauth2/device' && url.search === '';
      },
    });
    await page.goto(loginLink);
    await confirmPage;
    await page.waitForLoadState('load');
    await checkPage(audit, 'device-confirm', 'Connect a device');
    const confirmText = await page.locator('main').innerText();
    expect(confirmText).toContain(authorization.user_code);
    expect(confirmText).toContain('switchboard bot');
    expect((await focused(page)).element, 'autofocus').toBe('button "Continue"');
    await press(page, 'Tab', 'button "Cancel"');
    await press(page, 'Shift+Tab', 'button "Continue"');
    await submitWith(page, 'Enter', (url) => url.pathname.startsWith('/interaction/'));

    // Already signed in by the link: straight to consent.
    await checkPage(audit, 'device-consent', 'Allow access?');
    expect(await page.locator('main').innerText()).toContain(USER);
    expect((await focused(page)).element, 'autofocus').toBe('button "Allow"');
    await press(page, 'Tab', 'button "Deny"');
    await press(page, 'Shift+Tab', 'button "Allow"');
    await submitWith(page, 'Space', (url) => url.pathname.startsWith('/auth/oauth2/device'));

    await checkPage(audit, 'device-connected', 'Device connected');
    expect(await page.locator('main').innerText()).toContain('switchboard bot is now connected');
    expect(await deviceTokenSubject(authorization.device_code)).toBe(USER);
    await finish(audit);
  });

  // A code typed by hand (RFC 8628 clients that show the code and the bare URL). This once
  // failed: the library's own unlabelled field was rendered beside ours, so user_code was sent twice.
  it('connects a device by typing its code on the verification page', async () => {
    const audit = await openPage();
    const { page } = audit;
    const authorization = await oidc.initiateDeviceAuthorization(device.config, { scope: 'openid alters:read' });

    await page.goto(`${server.url}/auth/oauth2/device`, { waitUntil: 'load' });
    await checkPage(audit, 'device-code', 'Connect a device');
    expect((await focused(page)).element, 'autofocus').toBe('input#user-code');
    await page.keyboard.type(authorization.user_code);
    await press(page, 'Tab', 'button "Continue"');
    await press(page, 'Shift+Tab', 'input#user-code');
    await submitWith(page, 'Enter', (url) => url.pathname === '/auth/oauth2/device');

    await checkPage(audit, 'device-code-confirm', 'Connect a device');
    expect(await page.locator('main').innerText()).toContain(authorization.user_code);
    await submitWith(page, 'Space', (url) => url.pathname.startsWith('/interaction/'));

    // Not signed in yet: the sign-in page, then consent.
    await checkPage(audit, 'device-sign-in', 'Sign in');
    await press(page, 'Tab', 'input#user_id');
    await page.keyboard.type(USER);
    await submitWith(page, 'Enter', (url) => url.pathname.startsWith('/interaction/'));
    await checkPage(audit, 'device-code-consent', 'Allow access?');
    await submitWith(page, 'Enter', (url) => url.pathname.startsWith('/auth/oauth2/device'));
    await checkPage(audit, 'device-code-connected', 'Device connected');
    expect(await deviceTokenSubject(authorization.device_code)).toBe(USER);
    await finish(audit);
  });

  const errorCases = () => [
    {
      name: 'error-unknown-client',
      url: `${server.url}/auth/oauth2/authorize?${new URLSearchParams({ client_id: 'no-such-client', response_type: 'code', redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' })}`,
      status: 400,
      heading: /went wrong/i,
    },
    { name: 'error-unknown-interaction', url: `${server.url}/interaction/not-a-real-interaction`, status: 400, heading: /went wrong/i },
    { name: 'error-used-login-link', url: `${server.url}/auth/login-links/${'A'.repeat(43)}`, status: 410, heading: /expired/i },
  ];

  it('shows error pages with a heading, an announced message and no internals', async () => {
    const audit = await openPage();
    const { page } = audit;
    for (const { name, url, status, heading } of errorCases()) {
      const response = await page.goto(url, { waitUntil: 'load' });
      expect(response?.status(), name).toBe(status);
      await checkPage(audit, name, heading);
      const alert = page.locator('main [role=alert]');
      expect(await alert.count(), `${name}: the message is announced`).toBe(1);
      expect((await alert.innerText()).trim(), `${name}: the message says something`).not.toBe('');
    }
    await finish(audit);
  });

  // An error page is never a dead end: it links on, and the link is reachable with Tab.
  it('offers a way back from every error page, reachable with Tab', async () => {
    const audit = await openPage();
    const { page } = audit;
    for (const { name, url } of errorCases()) {
      await page.goto(url, { waitUntil: 'load' });
      const back = page.locator('main a[href]');
      expect(await back.count(), `${name}: a link back`).toBeGreaterThan(0);
      await page.keyboard.press('Tab');
      const focus = await focused(page);
      expect(focus.element, `${name}: Tab reaches the way back`).toMatch(/^a /);
      expect(focus.focusVisible, `${name}: focus visible`).toBe(true);
      expect(new URL(String(await back.first().getAttribute('href')), url).origin, `${name}: the way back stays on this service`).toBe(origin);
    }
    await finish(audit);
  });
});
