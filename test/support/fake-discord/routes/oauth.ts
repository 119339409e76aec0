// The OAuth parts "Sign in with Discord" uses: the authorize page answers at once for the
// configured user (or as if they pressed Cancel), the token endpoint, and the Bearer /users/@me.
import type { IncomingMessage } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { FakeState } from '../state.js';
import type { FakeDiscord, FakeDiscordUser } from '../types.js';

export interface OAuthAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export function createOAuthRoutes(state: FakeState) {
  const { clientId, clientSecret } = state;
  const codes = new Map<string, { user: FakeDiscordUser; redirectUri: string }>();
  const tokens = new Map<string, FakeDiscordUser>();
  let currentUser: FakeDiscordUser | undefined;

  /** The OAuth answer for this request, or undefined when it is not an OAuth route. */
  const oauthRoute = (req: IncomingMessage, url: URL, path: string, body: string): OAuthAnswer | undefined => {
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === '/api/oauth2/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state') ?? '';
      if (url.searchParams.get('client_id') !== clientId || url.searchParams.get('scope') !== 'identify') return { status: 400, body: { error: 'invalid_request' } };
      if (!currentUser) {
        redirect.search = new URLSearchParams({ error: 'access_denied', state }).toString();
      } else {
        const code = randomBytes(12).toString('hex');
        codes.set(code, { user: currentUser, redirectUri: url.searchParams.get('redirect_uri') ?? '' });
        redirect.search = new URLSearchParams({ code, state }).toString();
      }
      return { status: 302, headers: { location: redirect.toString() } };
    }

    if (method === 'POST' && path === '/api/oauth2/token') {
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return { status: 401, body: { error: 'invalid_client' } };
      const form = new URLSearchParams(body);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (form.get('grant_type') !== 'authorization_code' || !grant || grant.redirectUri !== form.get('redirect_uri')) return { status: 400, body: { error: 'invalid_grant' } };
      const accessToken = randomBytes(16).toString('hex');
      tokens.set(accessToken, grant.user);
      return { status: 200, body: { access_token: accessToken, token_type: 'Bearer', expires_in: 604800, scope: 'identify' } };
    }

    // Bearer /users/@me is the signed-in user (OAuth); the bot's form is handled by the bot routes.
    if (method === 'GET' && /^\/api(\/v\d+)?\/users\/@me$/.test(path) && !(req.headers.authorization ?? '').startsWith('Bot ')) {
      const signedIn = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!signedIn) return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
      return { status: 200, body: { id: signedIn.id, username: signedIn.username, global_name: null, avatar: null, discriminator: '0' } };
    }
    return undefined;
  };

  const api: Pick<FakeDiscord, 'setUser'> = {
    setUser(next) {
      currentUser = next;
    },
  };

  return { api, oauthRoute };
}
