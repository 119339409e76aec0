// Every server-rendered page of the sign-in, consent, device and account flows.
import { SCOPE_DESCRIPTIONS, isScope } from '../../domain/scopes.js';
import { html, trusted, type SafeHtml } from './html.js';
import { layout, type PageFrame } from './layout.js';

export type { PageFrame } from './layout.js';

const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}">`;

/** What a user id looks like, said wherever one is asked for or refused. */
export const USER_ID_HINT = 'A Discord user id is 17 to 20 digits, like 123456789012345678.';

/** How a signed-in account is named on pages: its Discord username when known, and its id. */
export function accountLabel(userId: string, username: string | null | undefined): string {
  return username ? `${username} (${userId})` : userId;
}

/**
 * Scopes in the words people read: one list item per scope, the same on the consent page and on
 * the authorized apps page. The technical name stays beside the words, for those who look it up.
 */
export function scopeList(scopes: readonly string[]): SafeHtml {
  const items = scopes.map((scope) => html`<li>${isScope(scope) ? SCOPE_DESCRIPTIONS[scope] : 'A permission this server does not know'} <code>${scope}</code></li>`);
  return html`<ul class="scopes">${items}</ul>`;
}

export function loginPage(options: {
  frame: PageFrame;
  clientName: string | undefined;
  discordUrl: string | undefined;
  devLoginAction: string | undefined;
  csrf: string;
  error?: string | undefined;
  typedUserId?: string | undefined;
  notice?: string | undefined;
}): string {
  const { instanceName } = options.frame;
  const intro = options.clientName
    ? html`<p><strong>${options.clientName}</strong> wants to use your ${instanceName} account. Sign in first.</p>`
    : html`<p>Sign in to ${instanceName} to see the apps you connected.</p>`;
  const discord = options.discordUrl ? html`<p><a class="button" href="${options.discordUrl}">Sign in with Discord</a></p>` : html``;
  const dev = options.devLoginAction
    ? html`<form method="post" action="${options.devLoginAction}">
${csrfField(options.csrf)}
<label for="user_id">Development login: Discord user id</label>
<p class="hint" id="user_id_hint">${USER_ID_HINT}</p>
<input type="text" id="user_id" name="user_id" value="${options.typedUserId ?? ''}" inputmode="numeric" autocomplete="off" required pattern="[0-9]{17,20}" title="${USER_ID_HINT}" aria-describedby="user_id_hint"${options.error ? html` aria-invalid="true"` : html``}>
<button type="submit">Sign in</button>
</form>`
    : html``;
  const devBanner = options.devLoginAction
    ? html`<div class="banner" role="note"><strong>Development only</strong>This server lets anyone sign in as any Discord user by typing an id. Never use it for real accounts; its administrator must turn AUTH_DEV_LOGIN off before real people use it.</div>`
    : html``;
  const none = !options.discordUrl && !options.devLoginAction ? html`<p class="error">No sign-in method is configured on this server. Its administrator must set DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET.</p>` : html``;
  const error = options.error ? html`<p class="error" role="alert">${options.error}</p>` : html``;
  const notice = options.notice ? html`<p role="status">${options.notice}</p>` : html``;
  return layout(options.frame, 'Sign in', html`${notice}${intro}${discord}${devBanner}${error}${dev}${none}`);
}

export function consentPage(options: {
  frame: PageFrame;
  clientName: string;
  scopes: string[];
  userLabel: string;
  action: string;
  switchAccountAction: string;
  csrf: string;
}): string {
  const { instanceName } = options.frame;
  return layout(
    // The account line is in the page itself, with "not you?"; the header names only the installation.
    { instanceName },
    'Allow access?',
    html`<div class="signed-in">Signed in as <strong>${options.userLabel}</strong> <form method="post" action="${options.switchAccountAction}" class="inline">${csrfField(options.csrf)}(<button type="submit" class="link" aria-label="Not you? Sign out and sign in as someone else">not you?</button>)</form></div>
<p><strong>${options.clientName}</strong> asks to use your ${instanceName} account to:</p>
${scopeList(options.scopes)}
<form method="post" action="${options.action}">
${csrfField(options.csrf)}
<button type="submit" name="decision" value="approve" autofocus>Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>
<p>You can revoke this access at any time on <a href="/account/apps">your authorized apps page</a>.</p>`,
  );
}

export function errorPage(title: string, message: string, details?: Record<string, string | undefined>, frame?: PageFrame): string {
  const rows = details ? Object.entries(details).filter(([, v]) => v) : [];
  const list = rows.length ? html`<dl>${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v ?? ''}</dd>`)}</dl>` : html``;
  return layout(frame, title, html`<p class="error" role="alert">${message}</p>${list}<p><a href="/account/apps">Go to your account</a></p>`);
}

/** Reverses the escaping oidc-provider applies to attribute values in the forms it hands us. */
function unescapeAttribute(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/**
 * The page where a person types a device code. oidc-provider's own form has an unlabelled field
 * with an inline handler (blocked by our CSP), so the page rebuilds the form from its action and
 * CSRF token, with one labelled field that keeps what was typed.
 */
export function deviceCodeInputPage(frame: PageFrame, form: string, message: string, isError: boolean): string {
  const action = unescapeAttribute(/\baction="([^"]*)"/.exec(form)?.[1] ?? '');
  const xsrf = unescapeAttribute(/name="xsrf" value="([^"]*)"/.exec(form)?.[1] ?? '');
  const typed = unescapeAttribute(/value="([^"]*)"[^>]*name="user_code"/.exec(form)?.[1] ?? '');
  return layout(
    frame,
    'Connect a device',
    html`<p class="${isError ? 'error' : ''}"${isError ? html` role="alert"` : html``}>${message}</p>
<form method="post" action="${action}">
<input type="hidden" name="xsrf" value="${xsrf}">
<label for="user-code">Code</label>
<input type="text" id="user-code" name="user_code" value="${typed}" autocomplete="off" autocapitalize="characters" spellcheck="false" autofocus required>
<button type="submit">Continue</button>
</form>`,
  );
}

export function deviceCodeConfirmPage(frame: PageFrame, form: string, clientName: string, userCode: string): string {
  return layout(
    frame,
    'Connect a device',
    html`<p><strong>${clientName}</strong> asks to connect with this code:</p>
<p><code class="user-code">${userCode}</code></p>
<p>Continue only if it is the code you were shown.</p>
${trusted(form)}
<button type="submit" form="op.deviceConfirmForm" autofocus>Continue</button>
<button type="submit" form="op.deviceConfirmForm" name="abort" value="yes" class="secondary">Cancel</button>`,
  );
}

export function deviceSuccessPage(frame: PageFrame, clientName: string): string {
  return layout(frame, 'Device connected', html`<p><strong>${clientName}</strong> is now connected. You can close this page and return to it.</p>`);
}

export interface AuthorizedApp {
  clientId: string;
  clientName: string;
  scopes: string[];
}

const revokePath = (app: AuthorizedApp) => `/account/apps/${encodeURIComponent(app.clientId)}/revoke`;

export function appsPage(options: { frame: PageFrame; apps: AuthorizedApp[]; notice?: string | undefined }): string {
  const notice = options.notice ? html`<p role="status">${options.notice}</p>` : html``;
  const list: SafeHtml = options.apps.length
    ? html`<p>These apps can use your ${options.frame.instanceName} account:</p>
<ul class="apps">${options.apps.map(
        (app) => html`<li><h2>${app.clientName}</h2>
<p>It can:</p>
${scopeList(app.scopes)}
<p><a class="button danger" href="${revokePath(app)}">Revoke access for ${app.clientName}</a></p></li>`,
      )}</ul>`
    : html`<p>No app has access to your account.</p>`;
  return layout(options.frame, 'Authorized apps', html`${notice}${list}`);
}

/** The confirmation a revocation needs: a page of its own, so it works without scripts. */
export function revokeConfirmPage(options: { frame: PageFrame; app: AuthorizedApp; csrf: string }): string {
  const { app } = options;
  return layout(
    options.frame,
    `Revoke access for ${app.clientName}?`,
    html`<p><strong>${app.clientName}</strong> will no longer be able to:</p>
${scopeList(app.scopes)}
<p>Its tokens stop working at once. To use it again, you will have to approve it again.</p>
<form method="post" action="${revokePath(app)}">
${csrfField(options.csrf)}
<button type="submit" class="danger" autofocus>Revoke access for ${app.clientName}</button>
<a class="button secondary" href="/account/apps">Keep access</a>
</form>`,
  );
}

/** Where "Sign out" leads from pages that cannot carry the form's CSRF token. */
export function signOutPage(options: { frame: PageFrame; csrf: string }): string {
  const { instanceName } = options.frame;
  return layout(
    { instanceName },
    `Sign out of ${instanceName}?`,
    html`<p>Signed in as <strong>${options.frame.account?.label ?? ''}</strong>. Signing out ends this browser's session; apps you authorized keep their access (revoke it on <a href="/account/apps">your authorized apps page</a>).</p>
<form method="post" action="/account/sign-out">
${csrfField(options.csrf)}
<button type="submit" autofocus>Sign out</button>
<a class="button secondary" href="/account/apps">Stay signed in</a>
</form>`,
  );
}
