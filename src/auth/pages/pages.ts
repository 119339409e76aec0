// Every server-rendered page of the sign-in and consent flows.
import { SCOPE_DESCRIPTIONS, isScope } from '../../domain/scopes.js';
import { html, trusted, type SafeHtml } from './html.js';
import { layout } from './layout.js';

const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}">`;

export function loginPage(options: {
  clientName: string | undefined;
  discordUrl: string | undefined;
  devLoginAction: string | undefined;
  csrf: string;
  error?: string | undefined;
}): string {
  const intro = options.clientName ? html`<p><strong>${options.clientName}</strong> wants to use your switchboard account. Sign in first.</p>` : html`<p>Sign in to switchboard.</p>`;
  const discord = options.discordUrl ? html`<p><a class="button" href="${options.discordUrl}">Sign in with Discord</a></p>` : html``;
  const dev = options.devLoginAction
    ? html`<form method="post" action="${options.devLoginAction}">
${csrfField(options.csrf)}
<label for="user_id">Development login: Discord user id</label>
<input type="text" id="user_id" name="user_id" inputmode="numeric" autocomplete="off" required pattern="[0-9]{17,20}">
<button type="submit">Sign in</button>
</form>`
    : html``;
  const none = !options.discordUrl && !options.devLoginAction ? html`<p class="error">No sign-in method is configured on this server. Its administrator must set DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET.</p>` : html``;
  const error = options.error ? html`<p class="error" role="alert">${options.error}</p>` : html``;
  return layout('Sign in', html`${intro}${error}${discord}${dev}${none}`);
}

export function consentPage(options: { clientName: string; scopes: string[]; userLabel: string; action: string; csrf: string }): string {
  const items = options.scopes.map((scope) => html`<li><strong>${scope}</strong>: ${isScope(scope) ? SCOPE_DESCRIPTIONS[scope] : 'Unknown permission'}</li>`);
  return layout(
    'Allow access?',
    html`<p>Signed in as <strong>${options.userLabel}</strong>.</p>
<p><strong>${options.clientName}</strong> asks to:</p>
<ul class="scopes">${items}</ul>
<form method="post" action="${options.action}">
${csrfField(options.csrf)}
<button type="submit" name="decision" value="approve" autofocus>Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>
<p>You can revoke this access at any time on <a href="/account/apps">your authorized apps page</a>.</p>`,
  );
}

export function errorPage(title: string, message: string, details?: Record<string, string | undefined>): string {
  const rows = details ? Object.entries(details).filter(([, v]) => v) : [];
  const list = rows.length ? html`<dl>${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v ?? ''}</dd>`)}</dl>` : html``;
  return layout(title, html`<p class="error" role="alert">${message}</p>${list}<p><a href="/account/apps">Go to your account</a></p>`);
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
export function deviceCodeInputPage(form: string, message: string, isError: boolean): string {
  const action = unescapeAttribute(/\baction="([^"]*)"/.exec(form)?.[1] ?? '');
  const xsrf = unescapeAttribute(/name="xsrf" value="([^"]*)"/.exec(form)?.[1] ?? '');
  const typed = unescapeAttribute(/value="([^"]*)"[^>]*name="user_code"/.exec(form)?.[1] ?? '');
  return layout(
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

export function deviceCodeConfirmPage(form: string, clientName: string, userCode: string): string {
  return layout(
    'Connect a device',
    html`<p><strong>${clientName}</strong> asks to connect with this code:</p>
<p><code class="user-code">${userCode}</code></p>
<p>Continue only if it is the code you were shown.</p>
${trusted(form)}
<button type="submit" form="op.deviceConfirmForm" autofocus>Continue</button>
<button type="submit" form="op.deviceConfirmForm" name="abort" value="yes" class="secondary">Cancel</button>`,
  );
}

export function deviceSuccessPage(clientName: string): string {
  return layout('Device connected', html`<p><strong>${clientName}</strong> is now connected. You can close this page and return to it.</p>`);
}

export interface AuthorizedApp {
  clientId: string;
  clientName: string;
  scopes: string[];
}

export function appsPage(options: { userLabel: string; apps: AuthorizedApp[]; csrf: string; notice?: string | undefined }): string {
  const notice = options.notice ? html`<p role="status">${options.notice}</p>` : html``;
  const list: SafeHtml = options.apps.length
    ? html`<ul>${options.apps.map(
        (app) => html`<li><strong>${app.clientName}</strong>: ${app.scopes.join(', ')}
<form method="post" action="/account/apps/${encodeURIComponent(app.clientId)}/revoke">${csrfField(options.csrf)}<button type="submit">Revoke access</button></form></li>`,
      )}</ul>`
    : html`<p>No app has access to your account.</p>`;
  const signOut = html`<form method="post" action="/account/sign-out">${csrfField(options.csrf)}<button type="submit" class="secondary">Sign out</button></form>`;
  return layout('Authorized apps', html`<p>Signed in as <strong>${options.userLabel}</strong>.</p>${notice}${list}${signOut}`);
}
