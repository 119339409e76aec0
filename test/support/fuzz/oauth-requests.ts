// OAuth back-channel requests: client authentication in every form, token, introspection,
// revocation, device authorization and login-link requests.
import fc from 'fast-check';
import { REDIRECT_URI } from '../oauth.js';
import { snowflake } from './bodies.js';
import type { FuzzRequest } from './exchange.js';
import { ALL_SCOPES, type Fixtures, OWNER, STRANGER, VICTIM } from './fixtures.js';
import { bytesEncoded, edgeString, extraHeaders, invalidUtf8Body, jsonBody, jsonContentType, JUNK_BODIES, junkHeaderValue, LENGTHS, methodFor, NON_JSON_CONTENT_TYPES, percentEncodeAll, w } from './generators.js';
import { assemble, queryString } from './requests.js';

export interface ClientAuthentication {
  header: string | undefined;
  params: Array<[string, string]>;
}

export const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
export const rawBasic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

/**
 * Client authentication as the generators know it: the fuzz client, the bot and the
 * public client authenticate for real; the victim, the app (whose tokens the /v1 properties use)
 * and the machine client are only ever named with wrong or no secrets, so no generated request can
 * use, revoke or replay a token, code or refresh token of theirs, and none of these three clients'
 * own tokens are known to the clients that can authenticate.
 */
export function clientAuthentication(fixtures: Fixtures): fc.Arbitrary<ClientAuthentication> {
  const { fuzzClient, bot, publicClient, victim } = fixtures;
  const fuzzSecret = fuzzClient.secret ?? '';
  const botSecret = bot.secret ?? '';
  const auth = (header: string | undefined, params: Array<[string, string]> = []): ClientAuthentication => ({ header, params });
  const junkId = fc.oneof(edgeString, fc.constantFrom('%00', 'a\u0000b', '\u0000', '%zz'));
  return fc.oneof(
    w(6, fc.constantFrom(auth(basic(fuzzClient.id, fuzzSecret)), auth(basic(bot.id, botSecret)))),
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        auth(undefined, [['client_id', fuzzClient.id], ['client_secret', fuzzSecret]]),
        auth(undefined, [['client_id', bot.id], ['client_secret', botSecret]]),
        auth(undefined, [['client_id', publicClient.id]]),
        auth(undefined, [['client_id', fuzzClient.id]]),
        auth(undefined, [['client_id', victim.id]]),
        auth(undefined, [['client_id', fixtures.appClientId], ['client_secret', 'wrong']]),
        auth(basic(fuzzClient.id, fuzzSecret), [['client_id', fuzzClient.id], ['client_secret', fuzzSecret]]),
        auth(basic(fuzzClient.id, fuzzSecret), [['client_id', bot.id]]),
        auth(basic(fuzzClient.id, 'wrong')),
        auth(basic(victim.id, 'wrong')),
        auth(basic(bot.id, `${botSecret}x`)),
        auth(basic(publicClient.id, '')),
        auth(`basic ${Buffer.from(`${fuzzClient.id}:${fuzzSecret}`).toString('base64')}`),
        auth(undefined),
      ),
    },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.tuple(junkId, edgeString).map(([id, secret]) => auth(basic(id.isWellFormed() ? id : 'x', secret.isWellFormed() ? secret : 'x'))),
        fc.tuple(junkId, edgeString).map(([id, secret]) => auth(rawBasic(`${id}:${secret}`))),
        fc.tuple(junkId, edgeString).map(([id, secret]): ClientAuthentication => auth(undefined, [['client_id', id], ['client_secret', secret]])),
        junkId.map((id) => auth(undefined, [['client_id', id]])),
        fc.constantFrom(
          auth('Basic'),
          auth('Basic '),
          auth('Basic !!!'),
          auth('Basic ===='),
          auth(rawBasic('no-colon')),
          auth(rawBasic(':')),
          auth(rawBasic('%zz:%zz')),
          auth(rawBasic(`${fuzzClient.id}%00:${fuzzSecret}`)),
          auth(rawBasic('%00:x')),
          auth(rawBasic(`${'a'.repeat(5000)}:b`)),
          auth(`Basic ${'A'.repeat(10_000)}`),
          auth(`Bearer ${fixtures.owner.token}`),
          auth(`Bearer ${fixtures.machineToken}`),
          auth('Digest username="x"'),
        ),
        junkHeaderValue.map((value) => auth(value)),
      ),
    },
  );
}

/** Values for OAuth parameters: the fixtures' tokens and codes, plausible values and junk. */
export function oauthValue(fixtures: Fixtures): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        fixtures.victimCode,
        fixtures.victimAccess,
        fixtures.victimRefresh,
        fixtures.victimRotatedRefresh,
        fixtures.owner.token,
        fixtures.owner.refreshToken ?? '',
        fixtures.machineToken,
        fixtures.deviceCode,
        fixtures.userCode,
        REDIRECT_URI,
        'https://evil.example/cb',
        'openid',
        'alters:read',
        'alters:read system:read',
        ALL_SCOPES,
        'offline_access',
        'openid openid',
        'admin',
        'access_token',
        'refresh_token',
        'S256',
        'plain',
        'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGwSJTm7AM',
        'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      ),
    },
    w(3, edgeString),
    w(1, fc.stringMatching(/^[A-Za-z0-9_-]{43}$/)),
    w(1, fc.constantFrom(...LENGTHS).map((count) => 'z'.repeat(count))),
  );
}

export const GRANT_TYPES = [
  ...['authorization_code', 'refresh_token', 'client_credentials', 'urn:ietf:params:oauth:grant-type:device_code', 'password', 'implicit'],
  ...['urn:ietf:params:oauth:grant-type:jwt-bearer', 'urn:ietf:params:oauth:grant-type:token-exchange', 'urn:openid:params:grant-type:ciba'],
  ...['AUTHORIZATION_CODE', ''],
];
export const TOKEN_PARAMS = [
  ...['code', 'code_verifier', 'redirect_uri', 'refresh_token', 'scope', 'device_code', 'resource', 'audience', 'client_assertion'],
  ...['client_assertion_type', 'username', 'password', 'nonce', 'state', 'grant_type', 'client_id'],
];

/** A parameter given once (mostly), not at all, or twice. */
export function onceOrNot(name: string, value: fc.Arbitrary<string>): fc.Arbitrary<Array<[string, string]>> {
  return fc.oneof(
    w(8, value.map((entry): Array<[string, string]> => [[name, entry]])),
    w(1, fc.constant<Array<[string, string]>>([])),
    w(1, fc.tuple(value, value).map(([a, b]): Array<[string, string]> => [[name, a], [name, b]])),
  );
}

export const FORM_CONTENT_TYPES = [
  'application/x-www-form-urlencoded; charset=utf-8',
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/x-www-form-urlencoded;charset=latin1',
  'application/x-www-form-urlencoded; charset=utf-16',
  'application/x-www-form-urlencoded ; a="b;c"',
];

export const formContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  w(12, fc.constant('application/x-www-form-urlencoded')),
  w(2, fc.constantFrom(...FORM_CONTENT_TYPES)),
  w(2, fc.constantFrom<string | undefined>(undefined, '', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencodedx', '*/*')),
  w(1, junkHeaderValue),
);

/** A form body from parameter pairs: properly encoded, raw junk encodings, JSON, or junk. */
export function formBody(pairs: fc.Arbitrary<Array<[string, string]>>): fc.Arbitrary<string | Uint8Array> {
  const wellFormed = (value: string) => (value.isWellFormed() ? value : value.toWellFormed());
  return fc.oneof(
    w(10, pairs.map((list) => new URLSearchParams(list.map(([name, value]): [string, string] => [wellFormed(name), wellFormed(value)])).toString())),
    w(2, pairs.map((list) => list.map(([name, value]) => `${percentEncodeAll(name)}=${percentEncodeAll(value)}`).join('&'))),
    {
      weight: 1,
      arbitrary: fc.tuple(pairs, bytesEncoded).map(([list, junk]) =>
        [...list.map(([name, value]) => `${encodeURIComponent(wellFormed(name))}=${encodeURIComponent(wellFormed(value))}`), `${junk}=${junk}`, '%zz=%', '=', '&&'].join('&'),
      ),
    },
    w(1, pairs.map((list) => JSON.stringify(Object.fromEntries(list)))),
    w(1, fc.oneof(fc.constantFrom(...JUNK_BODIES), fc.string({ unit: 'binary', maxLength: 60 }), invalidUtf8Body)),
    w(1, fc.constantFrom(4096, 64 * 1024, 100 * 1024, 1024 * 1024).map((size) => `token=${'a'.repeat(size)}`)),
  );
}

export function oauthRequest(
  fixtures: Fixtures,
  path: string,
  params: fc.Arbitrary<Array<[string, string]>>,
  options: {
    auth?: fc.Arbitrary<ClientAuthentication>;
    contentType?: fc.Arbitrary<string | undefined>;
    body?: (pairs: fc.Arbitrary<Array<[string, string]>>) => fc.Arbitrary<string | Uint8Array>;
  } = {},
): fc.Arbitrary<FuzzRequest> {
  const auth = options.auth ?? clientAuthentication(fixtures);
  const withAuth = fc
    .tuple(auth, params, fc.boolean())
    .map(([client, list, authFirst]) => ({ header: client.header, pairs: authFirst ? [...client.params, ...list] : [...list, ...client.params] }));
  return fc
    .record({
      method: methodFor('POST'),
      query: fc.oneof(w(10, fc.constant('')), w(1, queryString({ client_id: [fixtures.fuzzClient.id], token: ['x'] }))),
      request: withAuth,
      contentType: options.contentType ?? formContentType,
      extra: extraHeaders,
    })
    .chain(({ method, query, request, contentType, extra }) =>
      (options.body ?? formBody)(fc.constant(request.pairs)).map((body) =>
        assemble({ method, path, query, authorization: request.header, contentType, body, extra }),
      ),
    );
}

export function tokenRequest(fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const value = oauthValue(fixtures);
  const grantType = fc.oneof(w(6, fc.constantFrom(...GRANT_TYPES)), w(1, edgeString));
  const params = fc
    .tuple(
      onceOrNot('grant_type', grantType),
      fc.array(fc.tuple(fc.oneof(w(6, fc.constantFrom(...TOKEN_PARAMS)), w(1, edgeString)), value), { maxLength: 5 }),
    )
    .map(([grant, rest]) => [...grant, ...rest]);
  return oauthRequest(fixtures, '/auth/oauth2/token', params);
}

export function tokenParams(fixtures: Fixtures, names: string[]): fc.Arbitrary<Array<[string, string]>> {
  const value = oauthValue(fixtures);
  const hint = fc.constantFrom('access_token', 'refresh_token', 'device_code', 'id_token', '', 'ACCESS_TOKEN');
  return fc
    .tuple(
      onceOrNot('token', value),
      fc.option(hint.map((entry): [string, string] => ['token_type_hint', entry])),
      fc.array(fc.tuple(fc.oneof(fc.constantFrom(...names), edgeString), value), { maxLength: 3 }),
    )
    .map(([token, hintPair, rest]) => [...token, ...(hintPair ? [hintPair] : []), ...rest]);
}

/** The spec's introspection form: JSON {token} with Authorization: Bearer <access token>. */
export function jsonIntrospectionRequest(fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const value = oauthValue(fixtures);
  const bearer = fc.oneof(
    w(6, fc.constantFrom(fixtures.owner.token, fixtures.machineToken, fixtures.victimAccess, fixtures.other.token).map((token) => `Bearer ${token}`)),
    w(2, fc.constantFrom(fixtures.victimRefresh, fixtures.victimRotatedRefresh, fixtures.deviceCode, fixtures.victimCode, 'x', '').map((token) => `Bearer ${token}`)),
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        undefined,
        'Bearer',
        `bearer ${fixtures.owner.token}`,
        `Bearer  ${fixtures.owner.token}`,
        `Bearer ${fixtures.owner.token} `,
        basic(fixtures.fuzzClient.id, fixtures.fuzzClient.secret ?? ''),
      ),
    },
    w(1, junkHeaderValue.map((junk) => `Bearer ${junk}`)),
  );
  const plausible = fc.record(
    { token: fc.oneof(w(4, value), w(1, fc.constantFrom<unknown>(42, null, true, [], {}, ''))), token_type_hint: fc.constantFrom('access_token', 'refresh_token', 'id_token', 1) },
    { requiredKeys: ['token'] },
  );
  const jsonTypes = ['application/json; charset=utf-8', 'APPLICATION/JSON', 'application/merge-patch+json', 'application/x.y+json', 'application/json-seq', 'application/jsonp', 'application/json; charset=utf-16'];
  const tooLong = fc.constantFrom(16 * 1024 - 20, 16 * 1024, 16 * 1024 + 1, 64 * 1024).map((size) => JSON.stringify({ token: 'a'.repeat(size) }));
  return fc
    .record({
      method: methodFor('POST'),
      path: fc.constant('/auth/oauth2/introspect'),
      query: fc.oneof(w(10, fc.constant('')), w(1, queryString({ token: ['x'] }))),
      authorization: bearer,
      contentType: fc.oneof(w(10, fc.constant('application/json')), w(3, fc.constantFrom(...jsonTypes)), w(1, fc.constantFrom(...NON_JSON_CONTENT_TYPES))),
      body: fc.oneof(w(3, jsonBody(['token', 'token_type_hint', 'client_id'], plausible)), w(1, tooLong)),
      extra: extraHeaders,
    })
    .map(assemble);
}

export const DEVICE_PARAMS = ['scope', 'client_id', 'resource', 'audience', 'prompt', 'acr_values', 'claims', 'request', 'request_uri', 'redirect_uri', 'response_type'];

export function deviceAuthorizationRequest(fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const value = oauthValue(fixtures);
  const params = fc
    .tuple(
      fc.option(value.map((scope): [string, string] => ['scope', scope])),
      fc.array(fc.tuple(fc.oneof(fc.constantFrom(...DEVICE_PARAMS), edgeString), value), { maxLength: 3 }),
    )
    .map(([scope, rest]) => [...(scope ? [scope] : []), ...rest]);
  return oauthRequest(fixtures, '/auth/oauth2/device_authorization', params);
}

export function loginLinkRequest(fixtures: Fixtures): fc.Arbitrary<FuzzRequest> {
  const { bot, fuzzClient } = fixtures;
  const auth = fc.oneof(
    w(8, fc.constant<ClientAuthentication>({ header: basic(bot.id, bot.secret ?? ''), params: [] })),
    w(2, fc.constant<ClientAuthentication>({ header: basic(fuzzClient.id, fuzzClient.secret ?? ''), params: [] })),
    w(3, clientAuthentication(fixtures)),
  );
  const userId = fc.oneof(
    w(4, fc.constantFrom(OWNER, STRANGER, VICTIM)),
    w(2, fc.oneof(snowflake, edgeString)),
    w(1, fc.constantFrom<unknown>(Number(OWNER), null, [OWNER], { id: OWNER })),
  );
  const returnTo = fc.oneof(
    w(3, fc.constantFrom('/account/apps', `/auth/oauth2/device?user_code=${fixtures.userCode}`, '/auth/oauth2/device')),
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'https://evil.example/',
        '//evil.example/x',
        '/\\evil.example',
        '/%2F%2Fevil.example',
        '/auth/oauth2/token',
        '/account/../auth/oauth2/token',
        '/account/%2e%2e/auth/oauth2/token',
        'javascript:alert(1)',
        '/account/\u0000',
        '/account/\ud800',
        `/account/${'x'.repeat(600)}`,
        '/\t/evil.example',
        '/account@evil.example',
        '',
        '/',
      ),
    },
    w(1, edgeString),
    w(1, fc.constantFrom<unknown>(1, null, ['/account/apps'])),
  );
  const plausible = fc.record({ user_id: userId, return_to: returnTo }, { requiredKeys: ['user_id'] });
  const formPairs = fc
    .tuple(plausible, fc.array(fc.tuple(fc.constantFrom('user_id', 'return_to', 'extra'), fc.oneof(snowflake, edgeString)), { maxLength: 2 }))
    .map(([object, extra]) => [...Object.entries(object).map(([name, entry]): [string, string] => [name, String(entry)]), ...extra]);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: oauthRequest(fixtures, '/auth/login-links', fc.constant([]), {
        auth,
        contentType: jsonContentType,
        body: () => jsonBody(['user_id', 'return_to', 'client_id'], plausible),
      }),
    },
    w(1, oauthRequest(fixtures, '/auth/login-links', formPairs, { auth })),
  );
}
