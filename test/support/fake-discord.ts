// A fake Discord on loopback. For now the parts "Sign in with Discord" uses: the OAuth authorize
// page (answers at once for the configured user), the token endpoint and /users/@me. Every
// request is recorded so tests can assert what the service sent.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeDiscordUser {
  id: string;
  username: string;
}

export interface FakeDiscord {
  apiBase: string;
  clientId: string;
  clientSecret: string;
  requests: RecordedRequest[];
  /** Who "signs in" at the authorize page; undefined makes the user press Cancel. */
  setUser(user: FakeDiscordUser | undefined): void;
  close(): Promise<void>;
}

export async function startFakeDiscord(): Promise<FakeDiscord> {
  const clientId = '100000000000000001';
  const clientSecret = randomBytes(16).toString('hex');
  const requests: RecordedRequest[] = [];
  const codes = new Map<string, { user: FakeDiscordUser; redirectUri: string }>();
  const tokens = new Map<string, FakeDiscordUser>();
  let currentUser: FakeDiscordUser | undefined;

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    let body = '';
    for await (const chunk of req) body += chunk;
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body });
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };

    if (req.method === 'GET' && url.pathname === '/api/oauth2/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state') ?? '';
      if (url.searchParams.get('client_id') !== clientId || url.searchParams.get('scope') !== 'identify') return json(400, { error: 'invalid_request' });
      if (!currentUser) {
        redirect.search = new URLSearchParams({ error: 'access_denied', state }).toString();
      } else {
        const code = randomBytes(12).toString('hex');
        codes.set(code, { user: currentUser, redirectUri: url.searchParams.get('redirect_uri') ?? '' });
        redirect.search = new URLSearchParams({ code, state }).toString();
      }
      res.writeHead(302, { location: redirect.toString() }).end();
      return;
    }

    if (req.method === 'POST' && url.pathname === '/api/oauth2/token') {
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return json(401, { error: 'invalid_client' });
      const form = new URLSearchParams(body);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (form.get('grant_type') !== 'authorization_code' || !grant || grant.redirectUri !== form.get('redirect_uri')) return json(400, { error: 'invalid_grant' });
      const accessToken = randomBytes(16).toString('hex');
      tokens.set(accessToken, grant.user);
      return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 604800, scope: 'identify' });
    }

    if (req.method === 'GET' && url.pathname === '/api/users/@me') {
      const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!user) return json(401, { message: '401: Unauthorized', code: 0 });
      return json(200, { id: user.id, username: user.username, global_name: null, avatar: null, discriminator: '0' });
    }

    json(404, { message: '404: Not Found', code: 0 });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    apiBase: `http://127.0.0.1:${port}/api`,
    clientId,
    clientSecret,
    requests,
    setUser(user) {
      currentUser = user;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
