// Requests no client should send: each gets a 4xx with the documented error body, and the data is
// unchanged afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorTypes, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { startTestServer, type TestServer } from '../../support/server.js';

describe.each(DIALECTS)('malformed requests (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let alterId: number;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, '200000000000000031');
    alterId = (await owner.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: 'steady', displayName: 'Steady' })).body.alterId;
  });
  afterAll(async () => server?.stop());

  async function snapshot() {
    const [system, alters] = await Promise.all([owner.call('GET', '/v1/users/@me/system'), owner.call('GET', '/v1/users/@me/system/list-alters')]);
    return { system: system.body, alters: alters.body };
  }

  function expectErrorBody(response: ApiResponse, status: number, type: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual({ errors: [expect.objectContaining({ type, friendly: expect.any(String) })] });
  }

  const send = (path: string, raw: string | Uint8Array, contentType?: string) =>
    request(server, 'POST', path, { token: owner.token, raw, headers: contentType ? { 'content-type': contentType } : {} });

  const WRITE_PATHS = () => ['/v1/users/@me/system/create-alter', `/v1/users/@me/alters/${alterId}/edit`, '/v1/users/@me/system/edit', '/v1/users/@me/front'];

  it.each([
    ['truncated JSON', '{"username": "x"', 'application/json', 400, 'invalid-json'],
    ['a trailing comma', '{"displayName": "x",}', 'application/json', 400, 'invalid-json'],
    ['plain text', 'username=x', 'text/plain', 415, 'unsupported-media-type'],
    ['a form body', 'username=x&displayName=y', 'application/x-www-form-urlencoded', 415, 'unsupported-media-type'],
    ['JSON without a content type', '{"displayName":"x"}', undefined, 415, 'unsupported-media-type'],
    ['a JSON array', '[1,2,3]', 'application/json', 400, 'validation'],
    ['JSON null', 'null', 'application/json', 400, 'validation'],
    ['a JSON string', '"hello"', 'application/json', 400, 'validation'],
    // Prototype-poisoning keys are refused by the JSON parser itself.
    ['a __proto__ key', '{"__proto__": {"isAdmin": true}}', 'application/json', 400, 'invalid-json'],
    ['a constructor.prototype key', '{"constructor": {"prototype": {"isAdmin": true}}}', 'application/json', 400, 'invalid-json'],
  ])('refuses %s on every write endpoint', async (_name, raw, contentType, status, type) => {
    const before = await snapshot();
    for (const path of WRITE_PATHS()) expectErrorBody(await send(path, raw, contentType), status, type);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a body over the limit with 413', async () => {
    const before = await snapshot();
    const huge = JSON.stringify({ description: 'x'.repeat(300 * 1024) });
    for (const path of WRITE_PATHS()) expectErrorBody(await send(path, huge, 'application/json'), 413, 'body-too-large');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses deeply nested JSON without a 500', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const response = await send(`/v1/users/@me/alters/${alterId}/edit`, deep, 'application/json');
    expect(response.status).toBe(400);
  });

  it('refuses invalid UTF-8 in the body without a 500', async () => {
    const bytes = Buffer.concat([Buffer.from('{"displayName":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
    const before = await snapshot();
    const response = await send(`/v1/users/@me/alters/${alterId}/edit`, bytes, 'application/json');
    // Node decodes invalid bytes to U+FFFD, which is valid text: the edit is either refused or
    // stored as replacement characters, never a server error.
    expect(response.status).toBeLessThan(500);
    if (response.status !== 200) expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['a number far beyond 2^53', `{"flags": 1e400}`],
    ['a negative zero flags', `{"flags": -0.5}`],
    ['a huge integer', `{"public": 123456789012345678901234567890}`],
  ])('refuses %s', async (_name, raw) => {
    const before = await snapshot();
    const response = await send(`/v1/users/@me/alters/${alterId}/edit`, raw, 'application/json');
    expect(response.status).toBe(400);
    expect(errorTypes(response)).toEqual(['validation']);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['GET', '/v1/nothing-here'],
    ['GET', '/v1/users/@me/alters'],
    ['DELETE', '/v1/users/@me/system'],
    ['PUT', '/v1/users/@me/system/edit'],
  ])('answers %s %s with 404 not-found in the error shape', async (method, path) => {
    const response = await request(server, method, path, { token: owner.token });
    expectErrorBody(response, 404, 'not-found');
  });

  it.each([
    ['a user that is not a snowflake', '/v1/users/me/system'],
    ['a user with letters', '/v1/users/2000000000000000x1/system'],
    ['a user that is too long', `/v1/users/${'1'.repeat(40)}/system`],
    ['an encoded NUL in a field lookup', '/v1/users/@me/fields/alters/a%00b'],
    ['a field lookup over 150 characters', `/v1/users/@me/fields/alters/${'x'.repeat(151)}`],
    ['an alter id beyond 2^53', '/v1/users/@me/alters/9007199254740993'],
    ['bad percent-encoding', '/v1/users/@me/alters/%zz'],
    ['a path parameter over the router’s limit', `/v1/users/@me/fields/alters/${'x'.repeat(3000)}`],
    ['an unknown query parameter', '/v1/users/@me/system?expand=all'],
  ])('refuses %s with 400', async (_name, path) => {
    const response = await request(server, 'GET', path, { token: owner.token });
    expect(response.status).toBe(400);
    expect(errorTypes(response)).toEqual(['validation']);
  });
});
