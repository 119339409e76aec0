// The streaming reader (json-stream.ts) against the whole-file reading of json.ts: for any file and
// any cutting of it into chunks, the same tree (but for the collections no import reads, counted,
// and the two cut to one key), the same refusal class for a file that is not JSON or not UTF-8.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonStreamReader, PROJECTED_COLLECTIONS, UNREAD_COLLECTIONS, chunksOf, projectDocument, readJsonStream } from '../../../src/domain/import/json-stream.js';
import { decodeImportText, parseImportJson } from '../../../src/domain/import/json.js';
import { Problem } from '../../../src/domain/problems.js';

const encode = (text: string) => new TextEncoder().encode(text);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the readers got before, less what they never read. */
function expected(bytes: Uint8Array): unknown {
  const tree = parseImportJson(decodeImportText(bytes));
  if (!isObject(tree)) return tree;
  for (const key of Object.keys(tree)) {
    const value = tree[key];
    const projected = PROJECTED_COLLECTIONS.get(key);
    if (UNREAD_COLLECTIONS.has(key)) {
      if (Array.isArray(value)) tree[key] = new Array<unknown>(value.length);
      else if (isObject(value)) tree[key] = {};
    } else if (projected !== undefined) {
      if (Array.isArray(value)) tree[key] = value.map((doc) => projectDocument(doc, projected));
      else if (isObject(value)) tree[key] = Object.fromEntries(Object.entries(value).map(([id, doc]) => [id, projectDocument(doc, projected)]));
    }
  }
  return tree;
}

type Outcome = { ok: true; value: unknown } | { ok: false; type: string; message: string };

function outcome(read: () => unknown): Outcome {
  try {
    return { ok: true, value: read() };
  } catch (error) {
    if (!(error instanceof Problem)) throw error;
    const detail = error.details[0];
    return { ok: false, type: detail?.type ?? '', message: detail?.friendly ?? '' };
  }
}

/** The file cut at the given offsets. */
function cutAt(bytes: Uint8Array, offsets: number[]): Uint8Array[] {
  const sorted = [...new Set(offsets.map((o) => Math.max(0, Math.min(bytes.length, o))))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const at of sorted) {
    chunks.push(bytes.slice(from, at));
    from = at;
  }
  chunks.push(bytes.slice(from));
  return chunks;
}

function expectSame(bytes: Uint8Array, chunkings: Uint8Array[][]): void {
  const want = outcome(() => expected(bytes));
  for (const chunks of chunkings) {
    const got = outcome(() => readJsonStream(chunks));
    if (want.ok) expect(got).toStrictEqual(want);
    else {
      expect(got.ok, `${new TextDecoder().decode(bytes).slice(0, 200)} should be refused`).toBe(false);
      if (!got.ok) {
        expect(got.type).toBe(want.type);
        expect(got.message).toMatch(/JSON|UTF-8|empty/);
      }
    }
  }
}

const chunkSizes = (bytes: Uint8Array, sizes: number[]) => sizes.map((size) => [...chunksOf(bytes, size)].map((c) => c.slice()));

// Text with whitespace anywhere between tokens, strings escaped more ways than JSON.stringify
// does, and integers of any length written as digits.
const LONG = Symbol('long');
type Value = null | boolean | number | string | Value[] | { [key: string]: Value } | { [LONG]: string };

const whitespace = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n', '  ');
function escapeString(text: string, style: number): string {
  const plain = JSON.stringify(text);
  if (style === 0) return plain;
  // Every non-ASCII character (and, style 2, every character) as \u escapes.
  let out = '"';
  for (let i = 1; i < plain.length - 1; i++) {
    const c = plain.charCodeAt(i);
    if (plain[i] === '\\') {
      out += plain.slice(i, i + 2);
      if (plain[i + 1] === 'u') {
        out += plain.slice(i + 2, i + 6);
        i += 4;
      }
      i++;
    } else if (c > 0x7e || (style === 2 && c !== 0x22)) out += `\\u${c.toString(16).padStart(4, '0').toUpperCase()}`;
    else out += plain[i];
  }
  return `${out}"`;
}

function write(value: Value, ws: () => string, style: () => number): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'string') return escapeString(value, style());
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => write(v, ws, style)).join(`${ws()},${ws()}`)}${ws()}]`;
  if (LONG in value) return value[LONG];
  return `{${ws()}${Object.entries(value)
    .map(([k, v]) => `${escapeString(k, style())}${ws()}:${ws()}${write(v, ws, style)}`)
    .join(`${ws()},${ws()}`)}${ws()}}`;
}

const longInteger = fc.tuple(fc.boolean(), fc.integer({ min: 16, max: 30 })).chain(([negative, digits]) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: digits - 1, maxLength: digits - 1 }).map((rest) => ({ [LONG]: `${negative ? '-' : ''}${1 + (digits % 9)}${rest.join('')}` }) as Value),
);
const scalar: fc.Arbitrary<Value> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('"', '\\', '\\"', '\u00e9', '\u{1f600}', '\u2028', 'a\u0000b', '000000000000000000001234'),
  longInteger,
);
const { value: anyValue } = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 4 })),
}));
const collectionKey = fc.constantFrom('members', 'frontHistory', 'groups', 'users', 'notes', 'chatMessages', 'tokens', 'comments', 'friends', 'private', 'accounts', 'switchboard', 'version', '__proto__', 'x');
const collection = fc.oneof(fc.array(anyValue, { maxLength: 6 }), fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 4 }), anyValue);
const file: fc.Arbitrary<Value> = fc.oneof(
  fc.array(fc.tuple(collectionKey, collection), { maxLength: 6 }).map((entries) => {
    const object: Record<string, Value> = {};
    // Duplicate keys stay (the last wins, as JSON.parse does): built as entries, written below.
    for (const [k, v] of entries) Object.defineProperty(object, k, { value: v, enumerable: true, configurable: true, writable: true });
    return object;
  }),
  fc.array(anyValue, { maxLength: 8 }),
  anyValue,
);
const bom = fc.constantFrom('', '', '\ufeff', '\ufeff\ufeff');
const styles = fc.infiniteStream(fc.nat({ max: 9 }));
const text = fc.tuple(bom, whitespace, file, whitespace, fc.infiniteStream(whitespace), styles).map(([b, lead, f, trail, spaces, styleOf]) => {
  const ws = () => spaces.next().value as string;
  const style = () => {
    const s = styleOf.next().value as number;
    return s < 7 ? 0 : s < 9 ? 1 : 2;
  };
  return `${b}${lead}${write(f, ws, style)}${trail}`;
});

describe('the streaming reader', () => {
  it('reads any file as the whole-file reader does, cut into chunks of any size', () => {
    fc.assert(
      fc.property(text, fc.array(fc.nat({ max: 400 }), { maxLength: 8 }), (source, offsets) => {
        const bytes = encode(source);
        expectSame(bytes, [...chunkSizes(bytes, [1, 2, 3, 5, 7, 64 * 1024]), cutAt(bytes, offsets)]);
      }),
      { numRuns: 400 },
    );
  });

  it('refuses a damaged file as the whole-file reader does (invalid-json, or invalid-import when not UTF-8)', () => {
    const damage = fc.oneof(
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), what: fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', 'x', '0', '-', '.', 'e', ' ', '\u0001', '\ufeff', 'tru', 'nul') }),
      fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('bytes' as const), at: fc.nat(), what: fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80]) }),
    );
    fc.assert(
      fc.property(text, damage, fc.array(fc.nat({ max: 400 }), { maxLength: 6 }), (source, hurt, offsets) => {
        let bytes = encode(source);
        const at = bytes.length === 0 ? 0 : hurt.at % (bytes.length + 1);
        if (hurt.kind === 'delete') bytes = Uint8Array.from([...bytes.slice(0, at), ...bytes.slice(at + 1)]);
        else if (hurt.kind === 'truncate') bytes = bytes.slice(0, at);
        else if (hurt.kind === 'insert') bytes = Uint8Array.from([...bytes.slice(0, at), ...encode(hurt.what), ...bytes.slice(at)]);
        else bytes = Uint8Array.from([...bytes.slice(0, at), ...hurt.what, ...bytes.slice(at)]);
        expectSame(bytes, [...chunkSizes(bytes, [1, 3, 64 * 1024]), cutAt(bytes, offsets)]);
      }),
      { numRuns: 600 },
    );
  });

  it.each([
    ['an empty file', '', 'invalid-json'],
    ['whitespace only', ' \n\t ', 'invalid-json'],
    ['a BOM only', '\ufeff', 'invalid-json'],
    ['two values', '{} {}', 'invalid-json'],
    ['a trailing comma', '{"members": [1, 2,]}', 'invalid-json'],
    ['a single quote', "{'a': 1}", 'invalid-json'],
    ['a raw newline in a string', '{"a": "x\ny"}', 'invalid-json'],
    ['a bad escape', '{"a": "\\x"}', 'invalid-json'],
    ['a short \\u escape', '{"a": "\\u12"}', 'invalid-json'],
    ['a leading zero', '[01]', 'invalid-json'],
    // Found by the damage property (seed 973270662): quoting long integers made a run of zeros valid.
    ['a long integer with a leading zero', '[4, 00000000000000000000]', 'invalid-json'],
    ['a long integer with a leading zero inside a document', '{"members": [{"id": 0000000000000000001}]}', 'invalid-json'],
    ['a bare minus', '{"a": -}', 'invalid-json'],
    ['an unclosed array in an unread collection', '{"chatMessages": [{"a": [}]}', 'invalid-json'],
    ['a bad number in an unread collection', '{"tokens": [{"token": 1.}]}', 'invalid-json'],
    ['a control character in an unread collection', '{"notes": ["a\u0001"]}', 'invalid-json'],
    ['a mismatched bracket', '{"members": [{"a": 1]]}', 'invalid-json'],
    ['a file cut short', '{"members": [{"a": 1}', 'invalid-json'],
    ['a number cut short', '1e', 'invalid-json'],
  ])('refuses %s', (_name, source, type) => {
    const bytes = encode(source);
    for (const chunks of chunkSizes(bytes, [1, 2, 1000])) {
      const got = outcome(() => readJsonStream(chunks));
      expect(got).toMatchObject({ ok: false, type });
      expect(outcome(() => expected(bytes))).toMatchObject({ ok: false, type });
    }
  });

  it('refuses bytes that are not UTF-8 anywhere, also inside a collection it only counts, and before a JSON fault', () => {
    for (const bytes of [
      Uint8Array.from([...encode('{"tokens": ["'), 0xff, ...encode('"]}')]),
      Uint8Array.from([...encode('{"members": ["'), 0xed, 0xa0, 0x80, ...encode('"]}')]),
      Uint8Array.from([...encode('{"a": x} "'), 0xc3]),
      Uint8Array.from([...encode('["é'), 0xc3]),
    ]) {
      for (const chunks of chunkSizes(bytes, [1, 2, 1000])) expect(outcome(() => readJsonStream(chunks))).toMatchObject({ ok: false, type: 'invalid-import' });
      expect(outcome(() => expected(bytes))).toMatchObject({ ok: false, type: 'invalid-import' });
    }
  });

  it('reads characters of every UTF-8 length cut at every offset', () => {
    const bytes = encode('\ufeff{"members": [{"name": "é€😀\\u00e9\\ud83d\\ude00\\"\\\\"}], "n": 12345678901234567890, "tokens": ["é😀"]}');
    const want = expected(bytes);
    for (let at = 0; at <= bytes.length; at++) {
      for (let second = at; second <= Math.min(bytes.length, at + 4); second++) expect(readJsonStream(cutAt(bytes, [at, second]))).toStrictEqual(want);
    }
    expect(want).toMatchObject({ members: [{ name: 'é€😀é😀"\\' }], n: '12345678901234567890' });
  });

  it('keeps long integers exact at every level, and not in strings', () => {
    const source = '[12345678901234567, {"a": -98765432109876543210, "b": "12345678901234567", "c": 1234567890123456.5, "d": 1e300}, 9007199254740993]';
    expect(readJsonStream([encode(source)])).toStrictEqual(['12345678901234567', { a: '-98765432109876543210', b: '12345678901234567', c: 1234567890123456.5, d: 1e300 }, '9007199254740993']);
    expect(readJsonStream([encode('{"id": 412345678901234567, "members": [{"id": 412345678901234567}]}')])).toStrictEqual({ id: '412345678901234567', members: [{ id: '412345678901234567' }] });
    expect(readJsonStream([encode('412345678901234567')])).toBe('412345678901234567');
  });

  it('counts the collections no import reads without keeping them, and keeps one key of friends and private', () => {
    const source = JSON.stringify({
      members: [{ _id: 'm1', uid: 'u' }],
      chatMessages: [{ message: 'secret' }, { message: 'secret' }],
      tokens: [{ token: 'TOKEN-SECRET', permission: 7 }],
      notes: { n1: { title: 'x' } },
      friends: [{ frienduid: 'FRIEND-SECRET', buckets: ['b1'] }, { frienduid: 'FRIEND-SECRET' }, 'odd'],
      private: [{ location: 'Europe/Paris', notificationToken: ['PUSH-SECRET'] }],
    });
    const tree = readJsonStream(chunksOf(encode(source), 7)) as Record<string, unknown>;
    expect(tree.members).toStrictEqual([{ _id: 'm1', uid: 'u' }]);
    expect(tree.chatMessages).toStrictEqual(new Array(2));
    expect(tree.tokens).toStrictEqual(new Array(1));
    expect(tree.notes).toStrictEqual({});
    expect(tree.friends).toStrictEqual([{ buckets: ['b1'] }, {}, null]);
    expect(tree.private).toStrictEqual([{ location: 'Europe/Paris' }]);
    expect(JSON.stringify(tree)).not.toMatch(/SECRET/);
  });

  it('names where a broken document is without quoting it (it may be a friend\'s or a token\'s)', () => {
    for (const source of ['{"friends": [{"frienduid": "SECRET-1", "x": }]}', '{"tokens": [{"token": "SECRET-2" "p": 1}]}', '[{"uid": "SECRET-3",}]']) {
      const got = outcome(() => readJsonStream(chunksOf(encode(source), 4)));
      expect(got).toMatchObject({ ok: false, type: 'invalid-json' });
      if (!got.ok) expect(got.message).toMatch(/byte \d+/);
      if (!got.ok) expect(got.message).not.toMatch(/SECRET/);
    }
  });

  it('takes deep nesting and large collections', () => {
    // Compared as text: a recursive deep equality would overflow the stack, not the reader.
    const deep = encode(`${'[{"a":'.repeat(2000)}1${'}]'.repeat(2000)}`);
    for (const chunks of chunkSizes(deep, [1, 999])) expect(JSON.stringify(readJsonStream(chunks))).toBe(JSON.stringify(expected(deep)));
    const deepObject = encode(`{"members": ${'['.repeat(2000)}${']'.repeat(2000)}}`);
    expect(JSON.stringify(readJsonStream(chunksOf(deepObject, 3)))).toBe(JSON.stringify(expected(deepObject)));
    const big = JSON.stringify({ frontHistory: Array.from({ length: 20_000 }, (_, i) => ({ _id: `h${i}`, member: `m${i % 7}`, startTime: 1_700_000_000_000 + i, text: 'é'.repeat(i % 13) })) });
    expectSame(encode(big), chunkSizes(encode(big), [1000, 65_536, 1 << 20]));
  });

  it('holds only what it has not parsed yet: an unread collection leaves nothing behind', () => {
    const reader = new JsonStreamReader();
    reader.push(encode('{"chatMessages": ['));
    for (let i = 0; i < 1000; i++) reader.push(encode(`${i === 0 ? '' : ','}{"message": "${'x'.repeat(1000)}"}`));
    const held = (reader as unknown as { held: Uint8Array[] }).held;
    expect(held.length).toBeLessThanOrEqual(1);
    reader.push(encode(']}'));
    expect(reader.end()).toStrictEqual({ chatMessages: new Array(1000) });
  });
});
