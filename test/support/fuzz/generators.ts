// Adversarial inputs any endpoint meets: unicode and text edge cases, JSON with hostile leaves,
// encoded junk for URLs, headers, methods, content types and bodies (deep, huge, invalid UTF-8,
// the real field names with wrong values).
import { METHODS } from 'node:http';
import fc from 'fast-check';
import { OTHER, OWNER } from './fixtures.js';

/** Unicode and text edge cases, written with escapes so the source stays plain ASCII. */
export const UNICODE_EDGES = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
  'x\udc00\ud800y', // surrogates in the wrong order
  '\u202e', // right-to-left override
  '\u200f', // right-to-left mark
  '\u0627\u200f\u0628',
  '\u200b', // zero-width space
  '\ufeff', // byte order mark
  '\u00ad', // soft hyphen
  '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}', // family emoji (ZWJ sequence)
  '\u{1F3F3}\uFE0F\u200D\u{1F308}',
  '\u{1F600}',
  'e\u0301', // combining acute
  'Z\u0324\u0354\u0367\u0311\u0313a\u0356\u036d\u0308\u0307l\u036e\u0312\u036bg\u030c\u0317\u035ao\u0319\u0314\u036e\u0307\u0350\u0307', // zalgo
  '\u0085',
  '\u2028',
  '\u2029',
  '\t',
  '\n',
  '\r\n',
  '\\',
  '"',
  "'",
  '<script>alert(1)</script>',
  '%00',
  '%zz',
  '../../etc/passwd',
  '\u00ff',
  '\uffff',
  '\ufffe',
  '\u{1D518}\u{1D52B}\u{1D526}',
  '\ufdfa',
  '\uff11\uff12\uff13', // fullwidth digits
  '\u0661\u0662\u0663', // Arabic-Indic digits
  '@me',
  '@',
  'a b',
  'a/b',
];

/** Values that look right to a careless validator. */
export const PLAUSIBLE_STRINGS = [
  'steady',
  'Steady',
  'STEADY',
  'https://example.com/a.png',
  'http://127.0.0.1/x.png',
  'https://',
  'http://[::1]:99999/',
  'https://a.example/' + 'x'.repeat(2040),
  'javascript:alert(1)',
  'data:image/png;base64,AAAA',
  'ftp://example.com/a.png',
  '//example.com/a.png',
  '#a1b2c3',
  '#A1B2C3',
  '#a1b2c',
  '#a1b2c3d',
  'a1b2c3',
  '12345678901234567',
  '99999999999999999999',
  '999999999999999999999',
  '01234567890123456',
  '1234567890123456',
  OWNER,
  OTHER,
  '1',
  '0',
  '-1',
  'webhook',
  'nickname',
  'both',
  'WEBHOOK',
  'true',
  'null',
];

export const LENGTHS = [1, 2, 32, 33, 99, 100, 101, 149, 150, 151, 200, 201, 512, 513, 999, 1000, 1001, 2048, 2049, 4096, 5000];

/** A weighted alternative for fc.oneof. */
export const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

export const edgeString: fc.Arbitrary<string> = fc.oneof(
  w(4, fc.constantFrom(...UNICODE_EDGES, ...PLAUSIBLE_STRINGS)),
  w(2, fc.string({ unit: 'binary', maxLength: 30 })),
  w(2, fc.string({ unit: 'grapheme', maxLength: 20 })),
  w(1, fc.string({ unit: 'grapheme-ascii', maxLength: 30 })),
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', 'x', '\u{1F600}', 'e\u0301', '\ud800', '\u0000', ' ', '\u202e'), fc.constantFrom(...LENGTHS))
      .map(([unit, count]) => unit.repeat(count)),
  },
);

/** Numbers as JSON text, including the ones JSON.stringify cannot produce. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      ...['-0', '0', '-0.0', '1e308', '-1e308', '1e309', '-1e309', '5e-324', '1e-400', '0.5', '1.0', '1E2', '1e2', '-1', '0.1e1'],
      ...['123456789012345678901234567890', '-123456789012345678901234567890', '1' + '0'.repeat(400), '0.' + '0'.repeat(400) + '1'],
      // Limits: safe integers, 32-bit flags, the latch expiration, privacy bits.
      ...['9007199254740991', '9007199254740992', '9007199254740993', '2147483647', '2147483648', '4294967295', '4294967296'],
      ...['36000000', '36000001', '1023', '1024'],
    ),
  },
  w(2, fc.integer().map(String)),
  w(1, fc.nat({ max: 2100 }).map(String)),
  w(1, fc.bigInt().map(String)),
  w(1, fc.double().map((value) => JSON.stringify(value))),
);

export const stringText: fc.Arbitrary<string> = fc.oneof(
  w(8, edgeString.map((value) => JSON.stringify(value))),
  // Escapes written by hand (upper case, truncated, invalid), and strings that are not JSON at all.
  w(1, fc.constantFrom('"\\u0000"', '"\\ud800"', '"\\uDFFF\\uD800"', '"\\u00"', '"\\x41"', '"\t"', '"a', '"\\"', "'single'")),
);

export const atomText = fc.oneof(numberText, stringText, fc.constantFrom('true', 'false', 'null'));

export function objectText(entries: Array<[string, string]>): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}

/** Any JSON value as text, with adversarial leaves. */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    w(4, atomText),
    w(1, fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`)),
    w(1, fc.array(fc.tuple(edgeString, tie('value')), { maxLength: 4 }).map(objectText)),
  ),
})).value;

/** Encodes a string as UTF-8 bytes, lone surrogates included (as WTF-8 does), percent-encoded. */
export function percentEncodeAll(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    let code = value.charCodeAt(i);
    const next = value.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    const bytes =
      code < 0x80
        ? [code]
        : code < 0x800
          ? [0xc0 | (code >> 6), 0x80 | (code & 63)]
          : code < 0x10000
            ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)]
            : [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 63), 0x80 | ((code >> 6) & 63), 0x80 | (code & 63)];
    out += bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

export const bytesEncoded = fc.uint8Array({ maxLength: 24 }).map((bytes) => [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''));

/** A path segment or query component: known values, encoded junk, raw specials, lengths. */
export function urlComponent(known: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    w(8, fc.constantFrom(...known)),
    w(2, edgeString.map((value) => (value.isWellFormed() ? encodeURIComponent(value) : percentEncodeAll(value)))),
    w(1, edgeString.map(percentEncodeAll)),
    w(1, bytesEncoded),
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        ...['', '.', '..', '%2e%2e', '%2F', '%2f..%2f', '%00', '%', '%zz', '%C0%AF', '%ED%A0%80', '%EF%BB%BF', '%40me', '@ME', 'me', '%20', '+', '1e3', '0x10', '%2B1'],
        // Raw characters Node's parser lets through in a path.
        ...['"', '<', '{', '|', '^', '`', "'", ';', ',', '*', '[', ']', '\\'],
      ),
    },
    w(1, fc.constantFrom(...LENGTHS, 2047, 2048, 2049, 3000).map((count) => 'x'.repeat(count))),
  );
}

/** Header values a client can send: tab, visible ASCII and latin-1 (undici refuses the rest). */
export function headerValue(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

export const junkHeaderValue = fc.oneof(edgeString, fc.string({ unit: 'binary-ascii', maxLength: 40 })).map(headerValue);

/** Headers that should change nothing, and some that should be ignored or refused. */
export const extraHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.oneof(
    fc.constantFrom<[string, string]>(
      ['accept', 'text/html'],
      ['accept', '*/*'],
      ['accept', 'application/xml'],
      ['accept-encoding', 'gzip, br'],
      ['accept-charset', 'utf-16'],
      ['content-encoding', 'gzip'],
      ['content-encoding', 'identity'],
      ['content-encoding', 'br, x'],
      ['x-forwarded-for', '203.0.113.9, 10.0.0.1'],
      ['x-forwarded-proto', 'https'],
      ['x-forwarded-host', 'evil.example'],
      ['x-http-method-override', 'DELETE'],
      ['cookie', 'switchboard_op_session=forged; switchboard_op_session.sig=forged'],
      ['cookie', 'a=b; c'],
      ['origin', 'https://evil.example'],
      ['referer', 'https://evil.example/'],
      ['if-none-match', '*'],
      ['range', 'bytes=0-1'],
    ),
    junkHeaderValue.map((value): [string, string] => ['x-junk', value]),
  ),
  { maxLength: 2 },
);

/** Methods Node's HTTP parser knows (CONNECT is not a request undici sends). */
export const KNOWN_METHODS = METHODS.filter((method) => method !== 'CONNECT');
/** Extension methods: valid HTTP tokens that Node's parser refuses before any route runs. */
export const UNKNOWN_METHODS = ['FOO', 'BREW', 'XYZZY'];

export function methodFor(expected: string): fc.Arbitrary<string> {
  return fc.oneof(
    w(24, fc.constant(expected)),
    w(2, fc.constantFrom(...KNOWN_METHODS)),
    w(1, fc.constantFrom(...UNKNOWN_METHODS)),
  );
}

export const JSON_CONTENT_TYPES: Array<string | undefined> = [
  'application/json; charset=utf-8',
  'Application/JSON',
  'APPLICATION/JSON;CHARSET=UTF-8',
  'application/json;charset="utf-8"',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json ; foo=bar',
  'application/json;;',
  'application/json; a="b;c"',
  'application/json;charset=',
  'application/json; boundary=x; q=1',
];
export const NON_JSON_CONTENT_TYPES: Array<string | undefined> = [
  undefined,
  '',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'application/json-patch+json',
  'application/vnd.api+json',
  'text/json',
  '*/*',
  ';',
  'application/json, text/plain',
  'application',
  'application/',
  '/json',
  'application/json/x',
];

export const jsonContentType: fc.Arbitrary<string | undefined> = fc.oneof(
  w(12, fc.constant('application/json')),
  w(3, fc.constantFrom(...JSON_CONTENT_TYPES)),
  w(2, fc.constantFrom(...NON_JSON_CONTENT_TYPES)),
  w(1, junkHeaderValue),
  w(1, junkHeaderValue.map((junk) => `application/json; ${junk}`)),
);

/** Bodies that are not what any endpoint expects. */
export const JUNK_BODIES = [
  '',
  ' ',
  '\n',
  '{',
  '}',
  '{"a":',
  '{"a":1,}',
  "{'a':1}",
  'null',
  'true',
  '0',
  '-0',
  '1e308',
  '"x"',
  '[]',
  '[{}]',
  '{}',
  '\ufeff{}',
  '{"a":1}{"b":2}',
  '{"a":1} x',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":1.}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"\t"}',
  '/*c*/{}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"a":{"__proto__":null}}',
  '{"\\u005f_proto__":{"x":1}}',
];

export function deepNesting(fields: readonly string[]): fc.Arbitrary<string> {
  return fc
    .record({ depth: fc.constantFrom(2, 64, 500, 1000, 5000, 20_000, 100_000), field: fc.constantFrom(...fields), shape: fc.constantFrom('array', 'object', 'mixed', 'unclosed') })
    .map(({ depth, field, shape }) => {
      const inner =
        shape === 'array'
          ? `${'['.repeat(depth)}1${']'.repeat(depth)}`
          : shape === 'object'
            ? `${`{${JSON.stringify(field)}:`.repeat(depth)}1${'}'.repeat(depth)}`
            : shape === 'mixed'
              ? `${'[{"a":'.repeat(depth)}null${'}]'.repeat(depth)}`
              : '['.repeat(depth);
      return `{${JSON.stringify(field)}:${inner}}`;
    });
}

export function hugeBody(fields: readonly string[]): fc.Arbitrary<string> {
  return fc
    .record({
      // Around the limits: login links' 4 KiB and 64 KiB, the API's 256 KiB.
      size: fc.constantFrom(16 * 1024, 64 * 1024 + 1, 256 * 1024 - 40, 256 * 1024, 256 * 1024 + 1, 300 * 1024, 1024 * 1024),
      field: fc.constantFrom(...fields),
      unit: fc.constantFrom('x', '\u{1F600}', '\u00e9', '\\u0000'),
    })
    .map(({ size, field, unit }) => `{${JSON.stringify(field)}:"${unit.repeat(Math.ceil(size / unit.length))}"}`);
}

export const invalidUtf8Body = fc
  .tuple(fc.constantFrom('{"displayName":"', '{"systemName":"', '{"alter":"', '{"token":"', '{"user_id":"', '{"'), fc.uint8Array({ minLength: 1, maxLength: 16 }))
  .map(([prefix, bytes]) => new Uint8Array(Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe, ...bytes, 0xc3]), Buffer.from('"}')])));

/**
 * Body text for an endpoint that takes a JSON object with `fields`: mostly-valid objects (some of
 * which succeed), the real field names with adversarial values, random JSON, deep nesting, huge
 * bodies, invalid UTF-8 and junk.
 */
export function fieldKey(fields: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(w(8, fc.constantFrom(...fields)), w(1, edgeString), w(1, fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty')));
}

export const fieldValue = fc.oneof(w(3, atomText), w(1, jsonText));

/**
 * A base object with one to three fields added, or overridden (a repeated key: the last one wins),
 * with adversarial values: on a valid base, exactly the requests a write-before-validate bug obeys.
 */
export function withWrongFields(fields: readonly string[], base: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc
    .tuple(base, fc.array(fc.tuple(fieldKey(fields), fieldValue), { minLength: 1, maxLength: 3 }))
    .map(([object, extra]) => objectText([...Object.entries(object).map(([name, entry]): [string, string] => [name, JSON.stringify(entry)]), ...extra]));
}

export function jsonBody(fields: readonly string[], plausible: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string | Uint8Array> {
  return fc.oneof(
    w(6, plausible.map((object) => JSON.stringify(object))),
    w(4, withWrongFields(fields, plausible)),
    w(4, fc.array(fc.tuple(fieldKey(fields), fieldValue), { maxLength: 8 }).map(objectText)),
    w(2, jsonText),
    w(1, deepNesting(fields)),
    w(1, hugeBody(fields)),
    w(1, invalidUtf8Body),
    w(2, fc.oneof(fc.constantFrom(...JUNK_BODIES), fc.string({ unit: 'binary', maxLength: 60 }))),
  );
}
