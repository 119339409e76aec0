// "Getting started" of the API reference: from nothing to a first call and a refresh, with
// commands to copy. test/http/v1/getting-started.test.ts runs these very blocks (the CLI command,
// the shell steps with curl, openssl and jq, and the openid-client example) against a live
// service, so keep them runnable when behaviour changes.
import { DOCS_CLIENT_ID } from '../../auth/clients.js';
import { OAUTH_ROUTES } from '../../auth/provider.js';

/** The Markdown section; `issuer` is this installation's PUBLIC_URL, so the examples run as shown. */
export function gettingStarted(issuer: string): string {
  return `
## Getting started
To try the API here, press **Authorize**, tick the scopes, sign in and approve: this page is
itself an OAuth client (\`${DOCS_CLIENT_ID}\`, no secret, PKCE) and every operation's **Try it
out** then calls the API as you. For your own app:

**1. Register a client** (an administrator of this installation runs this once; the secret is
printed once, store it):

\`\`\`sh
npx switchboard clients create --name "My app" --redirect-uri http://localhost:8080/callback --scopes "openid offline_access system:read alters:read"
\`\`\`

Add \`--public\` for an app that cannot keep a secret (a browser or mobile app): it gets no secret
and proves itself with PKCE alone. \`npx switchboard clients --help\` lists the other options
(device flow, client credentials).

**2. Send the user to approve it** (authorization code with PKCE S256; \`plain\` is refused):

\`\`\`sh
ISSUER=${issuer}
CLIENT_ID=your-client-id
CLIENT_SECRET=your-client-secret
REDIRECT_URI=http://localhost:8080/callback
CODE_VERIFIER=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\\n')
CODE_CHALLENGE=$(printf %s "$CODE_VERIFIER" | openssl dgst -sha256 -binary | openssl base64 -A | tr '+/' '-_' | tr -d '=')
STATE=$(openssl rand -hex 16)
echo "$ISSUER${OAUTH_ROUTES.authorization}?response_type=code&client_id=$CLIENT_ID&redirect_uri=$REDIRECT_URI&scope=openid+offline_access+system:read+alters:read&code_challenge=$CODE_CHALLENGE&code_challenge_method=S256&state=$STATE"
\`\`\`

Open the printed URL in a browser, sign in and approve. The browser is sent to
\`$REDIRECT_URI?code=…&state=…\`; check that \`state\` is yours, then **exchange the code** (within
60 seconds, once):

\`\`\`sh
CODE=the-code-from-the-redirect
TOKENS=$(curl -s -u "$CLIENT_ID:$CLIENT_SECRET" "$ISSUER${OAUTH_ROUTES.token}" -d grant_type=authorization_code --data-urlencode "code=$CODE" --data-urlencode "redirect_uri=$REDIRECT_URI" --data-urlencode "code_verifier=$CODE_VERIFIER")
ACCESS_TOKEN=$(echo "$TOKENS" | jq -r .access_token)
REFRESH_TOKEN=$(echo "$TOKENS" | jq -r .refresh_token)
\`\`\`

A public client sends \`-d client_id=$CLIENT_ID\` instead of \`-u\`. The answer has
\`access_token\` (valid \`expires_in\` seconds, an hour by default), \`scope\`, \`id_token\` (with
\`openid\`) and \`refresh_token\` (with \`offline_access\`).

**3. Call the API** with the token in the \`Authorization\` header (never in the URL):

\`\`\`sh
curl -s -H "Authorization: Bearer $ACCESS_TOKEN" "$ISSUER/v1/users/@me/system"
\`\`\`

**4. Refresh** before the access token expires. Each refresh returns a new refresh token and the
old one stops working; using an old one again ends the whole authorization (reuse detection), so
refresh one request at a time and keep the newest:

\`\`\`sh
TOKENS=$(curl -s -u "$CLIENT_ID:$CLIENT_SECRET" "$ISSUER${OAUTH_ROUTES.token}" -d grant_type=refresh_token --data-urlencode "refresh_token=$REFRESH_TOKEN")
ACCESS_TOKEN=$(echo "$TOKENS" | jq -r .access_token)
REFRESH_TOKEN=$(echo "$TOKENS" | jq -r .refresh_token)
\`\`\`

The same in JavaScript with [openid-client](https://github.com/panva/openid-client) (v6), which
reads the endpoints from \`/.well-known/openid-configuration\` (against a plain-http installation
such as a local one, pass \`undefined, { execute: [client.allowInsecureRequests] }\` as
\`discovery\`'s last two arguments):

\`\`\`js
import * as client from 'openid-client';

const config = await client.discovery(new URL('${issuer}'), 'your-client-id', 'your-client-secret');

// 2. Send the user to approve (keep codeVerifier and state in their session).
const codeVerifier = client.randomPKCECodeVerifier();
const state = client.randomState();
const authorizationUrl = client.buildAuthorizationUrl(config, {
  redirect_uri: 'http://localhost:8080/callback',
  scope: 'openid offline_access system:read alters:read',
  code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
  code_challenge_method: 'S256',
  state,
});
// ...redirect the browser to authorizationUrl; it comes back to your callback route as \`request\`:

const tokens = await client.authorizationCodeGrant(config, new URL(request.url, 'http://localhost:8080'), {
  pkceCodeVerifier: codeVerifier,
  expectedState: state,
});

// 3. Call the API.
const response = await fetch('${issuer}/v1/users/@me/system', {
  headers: { authorization: \`Bearer \${tokens.access_token}\` },
});
const { data: system } = await response.json();

// 4. Refresh (one at a time; keep the new refresh token).
const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);
\`\`\`

Other grants: the device flow (\`${OAUTH_ROUTES.device_authorization}\`, for apps without a
browser, like the Discord bot) and client credentials (a confidential client's own token: reads of
other users' public data only). Discovery: \`/.well-known/openid-configuration\`.
`;
}
