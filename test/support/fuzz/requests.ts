// Assembling a request from its parts: paths, query strings, and /v1 authorization headers.
import fc from 'fast-check';
import type { FuzzRequest } from './exchange.js';
import type { Fixtures } from './fixtures.js';
import { junkHeaderValue, urlComponent, w } from './generators.js';

export interface RequestParts {
  method: string;
  path: string;
  query: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string | Uint8Array | undefined;
  extra: Array<[string, string]>;
}

export function assemble(parts: RequestParts): FuzzRequest {
  const headers: Array<[string, string]> = [];
  if (parts.authorization !== undefined) headers.push(['authorization', parts.authorization]);
  if (parts.contentType !== undefined) headers.push(['content-type', parts.contentType]);
  headers.push(...parts.extra);
  // HEAD requests carry no body (and undici refuses one).
  const body = parts.method === 'HEAD' ? undefined : parts.body;
  return { method: parts.method, path: `${parts.path}${parts.query}`, headers, body };
}

/** Query strings: nothing, unknown keys, repeats, the token, huge numbers and encoding junk. */
export function queryString(known: Record<string, string[]>): fc.Arbitrary<string> {
  const keys = Object.keys(known);
  const key = fc.oneof(
    w(6, keys.length ? fc.constantFrom(...keys) : fc.constant('max')),
    w(2, fc.constantFrom('access_token', '__proto__', 'constructor', 'max[]', 'MAX', 'expand', 'skip[0]', '', 'a.b', 'max%00')),
    w(1, urlComponent(['x'])),
  );
  const numbers = [
    ...['0', '1', '2', '20', '100', '101', '250', '251', '-1', '1.5', '1e3', ' 1', '+1', '0x10', 'NaN', 'Infinity', '\u0661', '01', ''],
    ...['999999999999', '1000000000', '1000000001', '9999999999999', '99999999999999999999999'],
  ];
  const value = fc.oneof(
    w(6, fc.constantFrom(...numbers, ...Object.values(known).flat()).map(encodeURIComponent)),
    w(1, fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String)),
    w(1, urlComponent(['1'])),
  );
  const pair = fc.oneof(w(8, fc.tuple(key, value).map(([name, entry]) => `${name}=${entry}`)), w(1, key));
  return fc.oneof(
    w(keys.length ? 4 : 12, fc.constant('')),
    w(6, fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.join('&')}`)),
    w(1, fc.constantFrom('?', '?&&', '?;', '?=', '?max', '?max=1;skip=1', '?max=1&max=2', '?skip=1&skip=', '?access_token=x&max=1')),
  );
}

export function v1Authorization(fixtures: Fixtures): fc.Arbitrary<string | undefined> {
  const own = fixtures.owner.token;
  return fc.oneof(
    w(30, fc.constant(`Bearer ${own}`)),
    {
      weight: 5,
      arbitrary: fc.constantFrom(
        `Bearer ${fixtures.other.token}`,
        `Bearer ${fixtures.readOnlyToken}`,
        `Bearer ${fixtures.machineToken}`,
        `Bearer ${fixtures.victimAccess}`,
        `bearer ${own}`,
        `BEARER   ${own}  `,
        `Bearer ${fixtures.owner.refreshToken ?? ''}`,
        `Bearer ${fixtures.victimRefresh}`,
        `Bearer ${fixtures.deviceCode}`,
      ),
    },
    w(2, fc.constant(undefined)),
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constantFrom(
          '',
          'Bearer',
          'Bearer ',
          'Basic Zm9vOmJhcg==',
          `Token ${own}`,
          `Bearer\t${own}`,
          `Bearer ${own}x`,
          `Bearer ${own.slice(0, -1)}`,
          `Bearer ${own},Bearer ${fixtures.other.token}`,
          `Bearer ${own} ${own}`,
          `Bearer "${own}"`,
          `Bearer ${'A'.repeat(4096)}`,
          `Bearer ${'A'.repeat(4097)}`,
          `Bearer ${'A'.repeat(20_000)}`,
          'Bearer ===',
          'Bearer a=b',
          'Bearer \u00ff',
        ),
        junkHeaderValue.map((value) => `Bearer ${value}`),
        junkHeaderValue,
      ),
    },
  );
}
