// Headers every response carries. Pages have no scripts and one same-origin stylesheet, so the
// policy can be strict; `script-src 'self'` (not 'none') lets oidc-provider add the hash of its
// form_post auto-submit script. form-action is left out on purpose: browsers apply it to the
// redirect to the client after the consent form, which would block every authorization.
import type { ServerResponse } from 'node:http';

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * The dashboard's pages (src/dashboard/): its own scripts, styles and API calls only; images also
 * from the https addresses members set for avatars and banners. No inline script or style, no eval.
 */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https:; connect-src 'self'; font-src 'self'; manifest-src 'self'; " +
  "form-action 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export function applySecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    if (!res.hasHeader(name)) res.setHeader(name, value);
  }
}
