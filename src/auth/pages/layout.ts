// The frame of every page: no scripts, one same-origin stylesheet, so the strict CSP of
// security-headers.ts holds everywhere.
import { html, type SafeHtml } from './html.js';

export const STYLESHEET_PATH = '/assets/switchboard.css';
export const FAVICON_PATH = '/assets/favicon.svg';

/** The service's icon: a switchboard's plug and jack, in the pages' accent colour. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#5865f2"/><circle cx="10" cy="10" r="3.5" fill="#fff"/><circle cx="22" cy="22" r="3.5" fill="#fff"/><path d="M10 10 C10 20 22 12 22 22" stroke="#fff" stroke-width="2.5" fill="none"/></svg>`;

export function layout(title: string, body: SafeHtml): string {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · switchboard</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
<link rel="icon" href="${FAVICON_PATH}" type="image/svg+xml">
</head>
<body>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>`.value;
}

export const STYLESHEET = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; padding: 2rem 1rem; }
main { max-width: 28rem; margin: 0 auto; }
h1 { font-size: 1.5rem; }
form { margin: 1rem 0; }
label { display: block; margin-bottom: .25rem; }
input[type=text] { width: 100%; box-sizing: border-box; padding: .5rem; font-size: 1rem; }
button, .button { display: inline-block; padding: .5rem 1rem; font-size: 1rem; margin: .25rem .5rem .25rem 0; cursor: pointer; border-radius: .25rem; border: 1px solid #666; background: #5865f2; color: #fff; text-decoration: none; }
button.secondary { background: transparent; color: inherit; }
button:focus-visible, .button:focus-visible, input:focus-visible { outline: 3px solid #f0b232; outline-offset: 2px; }
ul.scopes li { margin: .25rem 0; }
.error { color: #d83c3e; }
code.user-code { font-size: 1.5rem; letter-spacing: .1em; }
`;
