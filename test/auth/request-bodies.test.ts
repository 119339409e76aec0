// Bodies the OAuth endpoints and /v1 must refuse in their own error shapes: oversized bodies are
// 413 (RFC 6749's JSON on the OAuth endpoints, whether the size is announced or streamed), and
// JSON in a charset other than UTF-8 is 415, never read as if it were UTF-8.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, signIn, type ApiUser } from '../support/api.js';
import { DIALECTS } from '../support/dialects.js';
import { createTestClient, type TestClient } from '../support/oauth.js';
import { startTestServer, type TestServer } from '../support/server.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A POST over plain node:http: `body` is sent with a Content-Length, `chunks` without one
 * (Transfer-Encoding: chunked). The server may answer before it has read everything; writing the
 * rest may then fail, which is fine once the answer is in.
 */
function rawPost(url: string, headers: Record<string, string>, payload: { body: Buffer } | { chunks: Buffer[] }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...headers, ...('body' in payload ? { 'content-length': String(payload.body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', (error) => setTimeout(() => reject(error), 2000));
    if ('body' in payload) {
      req.end(payload.body);
    } else {
      for (const chunk of payload.chunks) req.write(chunk);
      req.end();
    }
  });
}

const basic = (client: TestClient) => `Basic ${Buffer.from(`${client.id}:${client.secret ?? ''}`).toString('base64')}`;

describe.each(DIALECTS)('request bodies on the OAuth endpoints and /v1 (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let bot: TestClient;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, '320000000000000001');
    bot = await createTestClient(server, { name: 'switchboard bot', redirectUris: [], grantTypes: ['device_code', 'refresh_token'], firstParty: true });
  });
  afterAll(async () => server?.stop());

  const OAUTH_POSTS = ['/auth/oauth2/token', '/auth/oauth2/introspect', '/auth/oauth2/revoke', '/auth/oauth2/device_authorization', '/auth/oauth2/userinfo'];

  function expectOAuthError(response: RawResponse, status: number) {
    expect(response.status, response.body).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    expect(body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  }

  it('answers a 50 MB body to the token endpoint with 413 and an RFC 6749 error', async () => {
    const huge = Buffer.alloc(50 * 1024 * 1024, 'a');
    const response = await rawPost(`${server.url}/auth/oauth2/token`, { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(bot) }, { body: huge });
    expectOAuthError(response, 413);
    expect(JSON.parse(response.body).error_description).toMatch(/too large/);
  });

  it('answers an oversized body with 413 on every OAuth endpoint, announced or streamed', async () => {
    const form = Buffer.from(`grant_type=client_credentials&padding=${'a'.repeat(100 * 1024)}`);
    for (const path of OAUTH_POSTS) {
      const announced = await rawPost(`${server.url}${path}`, { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(bot) }, { body: form });
      expectOAuthError(announced, 413);
      const streamed = await rawPost(`${server.url}${path}`, { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(bot) }, { chunks: [form.subarray(0, 30_000), form.subarray(30_000)] });
      expectOAuthError(streamed, 413);
    }
    // The spec's JSON introspection form and the login-link endpoint too.
    const json = Buffer.from(JSON.stringify({ token: 'x'.repeat(100 * 1024) }));
    expectOAuthError(await rawPost(`${server.url}/auth/oauth2/introspect`, { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` }, { body: json }), 413);
    expectOAuthError(await rawPost(`${server.url}/auth/login-links`, { 'content-type': 'application/json', authorization: basic(bot) }, { body: json }), 413);
    // A body within the limit still works.
    const small = await rawPost(`${server.url}/auth/oauth2/introspect`, { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(bot) }, { body: Buffer.from('token=unknown') });
    expect(small.status).toBe(200);
    expect(JSON.parse(small.body)).toEqual({ active: false });
  });

  it('refuses JSON in a charset other than UTF-8 on /v1 with 415', async () => {
    for (const charset of ['latin1', 'ISO-8859-1', 'utf-16', '"windows-1252"']) {
      const response = await request(server, 'POST', '/v1/users/@me/system/create-alter', {
        token: owner.token,
        raw: Buffer.from(JSON.stringify({ username: 'caf\u00e9' }), 'latin1'),
        headers: { 'content-type': `application/json; charset=${charset}` },
      });
      expect(response.status, charset).toBe(415);
      expect(response.body).toEqual({ errors: [{ type: 'unsupported-media-type', friendly: expect.any(String) }] });
    }
    const list = await owner.call<unknown[]>('GET', '/v1/users/@me/system/list-alters');
    expect(JSON.stringify(list.body)).not.toContain('caf');
    // UTF-8, named or not, is accepted.
    for (const contentType of ['application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; charset=utf8']) {
      const response = await request(server, 'POST', '/v1/users/@me/system/edit', { token: owner.token, raw: JSON.stringify({ systemDescription: 'caf\u00e9' }), headers: { 'content-type': contentType } });
      expect(response.status, `${contentType}: ${JSON.stringify(response.body)}`).toBe(200);
    }
    expect((await owner.call<{ data: { systemDescription: string } }>('GET', '/v1/users/@me/system')).body.data.systemDescription).toBe('caf\u00e9');
  });

  it('refuses JSON in a charset other than UTF-8 on the OAuth endpoints with 415', async () => {
    const introspection = await rawPost(
      `${server.url}/auth/oauth2/introspect`,
      { 'content-type': 'application/json; charset=latin1', authorization: `Bearer ${owner.token}` },
      { body: Buffer.from(JSON.stringify({ token: owner.token })) },
    );
    expectOAuthError(introspection, 415);
    const link = await rawPost(`${server.url}/auth/login-links`, { 'content-type': 'application/json; charset=iso-8859-1', authorization: basic(bot) }, { body: Buffer.from(JSON.stringify({ user_id: '320000000000000001' })) });
    expectOAuthError(link, 415);
    // UTF-8 still works on both.
    const ok = await rawPost(
      `${server.url}/auth/oauth2/introspect`,
      { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${owner.token}` },
      { body: Buffer.from(JSON.stringify({ token: owner.token })) },
    );
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ active: true });
    const minted = await rawPost(`${server.url}/auth/login-links`, { 'content-type': 'application/json; charset=UTF-8', authorization: basic(bot) }, { body: Buffer.from(JSON.stringify({ user_id: '320000000000000001' })) });
    expect(minted.status).toBe(201);
  });
});
