// The frame of every page: the installation's name, who is signed in and a way to sign out; no
// scripts, one same-origin stylesheet, so the strict CSP of security-headers.ts holds everywhere.
import { html, type SafeHtml } from './html.js';

export const STYLESHEET_PATH = '/assets/switchboard.css';
export const FAVICON_PATH = '/assets/favicon.svg';

/** The service's icon: a switchboard's plug and jack, in the pages' accent colour. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#5865f2"/><circle cx="10" cy="10" r="3.5" fill="#fff"/><circle cx="22" cy="22" r="3.5" fill="#fff"/><path d="M10 10 C10 20 22 12 22 22" stroke="#fff" stroke-width="2.5" fill="none"/></svg>`;

/** What frames a page besides its content: whose installation it is, and who is signed in. */
export interface PageFrame {
  /** The installation's name (INSTANCE_NAME), in the header and the title. */
  instanceName: string;
  /**
   * The signed-in account, shown with a way to sign out, on every page a signed-in person sees.
   * With a CSRF token (purpose "account") the button signs out at once; without one (pages the
   * authorization server renders) it leads to the sign-out page, which asks first.
   */
  account?: { label: string; signOutCsrf?: string | undefined } | undefined;
}

export const SIGN_OUT_PATH = '/account/sign-out';

function accountBar(account: NonNullable<PageFrame['account']>): SafeHtml {
  const signOut = account.signOutCsrf
    ? html`<form method="post" action="${SIGN_OUT_PATH}" class="inline"><input type="hidden" name="csrf" value="${account.signOutCsrf}"><button type="submit" class="link">Sign out</button></form>`
    : html`<a href="${SIGN_OUT_PATH}">Sign out</a>`;
  return html`<div class="account"><span>Signed in as <strong>${account.label}</strong></span> ${signOut}</div>`;
}

export function layout(frame: PageFrame | undefined, title: string, body: SafeHtml): string {
  const brand = frame ? html`<p class="brand">${frame.instanceName}</p>` : html``;
  const header = frame ? html`<header>${brand}${frame.account ? accountBar(frame.account) : html``}</header>` : html``;
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${frame?.instanceName ?? 'switchboard'}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
</head>
<body>
${header}
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.value;
}

export const STYLESHEET = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.45; }
body { margin: 0; padding: 0 1rem 2rem; }
header { max-width: 34rem; margin: 0 auto; padding: .75rem 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; justify-content: space-between; align-items: baseline; border-bottom: 1px solid #8886; }
header p, header div { margin: 0; }
.brand { font-weight: 600; }
.account { font-size: .95rem; display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: baseline; }
.signed-in { margin: 1rem 0; }
.signed-in form { white-space: nowrap; }
ul.scopes code { white-space: nowrap; }
main { max-width: 34rem; margin: 0 auto; padding-top: 1.5rem; }
h1 { font-size: 1.5rem; margin-top: 0; }
form.inline { display: inline; margin: 0; }
button.link { background: none; border: none; padding: 0; margin: 0; font: inherit; color: LinkText; text-decoration: underline; cursor: pointer; }
.banner { border: 2px solid #f0b232; background: #f0b23222; padding: .75rem 1rem; border-radius: .25rem; margin: 1rem 0; }
.banner strong { display: block; }
.hint { font-size: .9rem; margin: .25rem 0 .5rem; opacity: .85; }
ul.apps { list-style: none; padding: 0; }
ul.apps > li { border: 1px solid #8886; border-radius: .25rem; padding: .75rem 1rem; margin: .75rem 0; }
ul.apps h2 { font-size: 1.1rem; margin: 0 0 .25rem; }
button.danger, .button.danger { background: #d83c3e; }
form { margin: 1rem 0; }
label { display: block; margin-bottom: .25rem; }
input[type=text] { width: 100%; box-sizing: border-box; padding: .5rem; font-size: 1rem; }
button, .button { font-family: inherit; line-height: 1.2; display: inline-block; padding: .5rem 1rem; font-size: 1rem; margin: .25rem .5rem .25rem 0; cursor: pointer; border-radius: .25rem; border: 1px solid #666; background: #5865f2; color: #fff; text-decoration: none; }
button.secondary, .button.secondary { background: transparent; color: inherit; }
button:focus-visible, .button:focus-visible, input:focus-visible { outline: 3px solid #f0b232; outline-offset: 2px; }
ul.scopes li { margin: .25rem 0; }
.error { color: #d83c3e; }
code.user-code { font-size: 1.5rem; letter-spacing: .1em; }
`;
