// An import file read as its bytes arrive, without ever holding it as one string or one tree of
// everything in it. A byte scanner follows the file's top two levels (the top-level object's keys,
// or the top-level array), checking them against JSON's grammar; the members of each collection
// under them (array elements, or the entries of a collection keyed by id) are skimmed to their end
// (strings and brackets followed), cut out, and parsed a batch at a time as they complete (UTF-8
// decoded with fatal errors, long integers kept exact as json.ts does, native JSON.parse, which
// checks their grammar). Every byte is checked as UTF-8 (buffer.isUtf8) whatever else happens.
// Collections no import reads (chat, notes, tokens, …: UNREAD) are checked byte by byte and
// counted, never decoded: the reader gets an array of that many empty slots in their place, which
// is all it ever looked at (their length). `friends` and `private` are parsed and cut to the one
// key the Simply Plural reader takes from each. So the tree is JSON.parse's of the whole file
// (json.ts) but for those collections; a test checks it for every chunking.
import { isUtf8 } from 'node:buffer';
import { Problem } from '../problems.js';
import { notJson, notUtf8, quoteLongIntegers } from './json.js';

/**
 * Top-level keys no reader of any format looks into: Simply Plural collections counted in
 * `notImported` or ignored (spec §2.1), and PluralKit's `accounts` (only whether it is empty).
 */
export const UNREAD_COLLECTIONS: ReadonlySet<string> = new Set([
  'notes',
  'boardMessages',
  'polls',
  'automatedReminders',
  'repeatedReminders',
  'chatMessages',
  'channels',
  'channelCategories',
  'undeliveredMessages',
  'comments',
  'tokens',
  'securityLogs',
  'avatarExports',
  'reports',
  'audit',
  'usage',
  'serverData',
  'queuedEvents',
  'subscribers',
  'pendingFriendRequests',
  'notifications',
  'events',
  'messages',
  'verifiedKeys',
  'sharedFront',
  'privateFront',
  'accounts',
]);

/** Collections of which the Simply Plural reader takes one key per document: only it is kept. */
export const PROJECTED_COLLECTIONS: ReadonlyMap<string, string> = new Map([
  ['friends', 'buckets'],
  ['private', 'location'],
]);

/** A document of a projected collection as kept: its one key, if it has it (others are never read). */
export function projectDocument(doc: unknown, key: string): unknown {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return null;
  return Object.hasOwn(doc, key) ? { [key]: (doc as Record<string, unknown>)[key] } : {};
}

/** Bytes of members parsed at once: large enough that calls cost nothing, small beside the file. */
const BATCH_BYTES = 128 * 1024;

// Scanner modes.
const M_TOKEN = 0; // between tokens
const M_STRING = 1;
const M_ESCAPE = 2; // after a backslash
const M_UNICODE = 3; // in \uXXXX
const M_NUMBER = 4;
const M_LITERAL = 5;
const M_FAILED = 6;
// Inside a document of a collection that is parsed: only its end is looked for (strings and
// brackets followed); JSON.parse checks its bytes when the batch is parsed.
const M_LAX = 7;
const M_LAX_STRING = 8;
const M_LAX_ESCAPE = 9;

// What may come next, between tokens.
const E_VALUE = 0;
const E_VALUE_OR_CLOSE = 1; // after [
const E_KEY_OR_CLOSE = 2; // after {
const E_KEY = 3; // after , in an object
const E_COLON = 4;
const E_COMMA_OR_CLOSE = 5;

// Number states: which may end the number is in NUMBER_CAN_END.
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7;
const NUMBER_CAN_END = [false, true, true, false, true, false, false, true];

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const LITERALS: Record<number, Uint8Array> = { 0x74: new TextEncoder().encode('true'), 0x66: new TextEncoder().encode('false'), 0x6e: new TextEncoder().encode('null') };

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46);

/** Sets a key as JSON.parse does: `__proto__` too is an own property. */
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

/** How a collection's members are kept: parsed, parsed and cut to one key, or counted only. */
type Role = { kind: 'parse' } | { kind: 'project'; key: string } | { kind: 'count' };

/** The collection whose members are being cut out: the top-level array, or a top-level key's value. */
interface Collection {
  isObject: boolean;
  role: Role;
  /** Its depth in the scanner's stack when open (members start at this depth). */
  depth: number;
  array: unknown[];
  object: Record<string, unknown>;
  /** Members counted (a counted collection's length). */
  count: number;
  /** Where the members not yet parsed start and end (stream offsets), -1 when none is pending. */
  batchStart: number;
  batchEnd: number;
}

/** The length of the complete UTF-8 sequences at the start of `bytes` (the rest waits for more bytes). */
function completeUtf8(bytes: Uint8Array): number {
  let i = bytes.length - 1;
  let back = 0;
  while (i >= 0 && back < 4 && ((bytes[i] as number) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return bytes.length;
  const lead = bytes[i] as number;
  const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return i + length > bytes.length ? i : bytes.length;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

const describe = (b: number) => (b >= 0x21 && b < 0x7f ? `"${String.fromCharCode(b)}"` : `byte 0x${b.toString(16).padStart(2, '0')}`);

export class JsonStreamReader {
  // UTF-8, checked over every byte whatever the JSON does (a file that is not UTF-8 is refused as such first, as json.ts does).
  private utf8Carry: Uint8Array | undefined;
  private utf8Bad = false;
  /** The first bytes, until the byte-order marks (up to two, as decodeImportText plus parseImportJson drop) are known. */
  private head: Uint8Array | undefined = new Uint8Array(0);
  private bomBytes = 0;

  // The scanner.
  private mode = M_TOKEN;
  private expect = E_VALUE;
  /** Open containers, innermost last: 1 an object, 0 an array. */
  private readonly stack: number[] = [];
  private stringIsKey = false;
  private unicodeLeft = 0;
  private numberState = N_MINUS;
  private numberDigits = 0;
  private numberStart = 0;
  /** Brackets open in the document being skimmed (M_LAX), and the digits in a row there. */
  private laxDepth = 0;
  private digitRun = 0;
  /**
   * Where the last integer of 16 digits or more started (-1: none yet): text with none is parsed
   * as it is, text with one through quoteLongIntegers (json.ts), which keeps it exact.
   */
  private lastLongInteger = -1;
  private literal: Uint8Array = LITERALS[0x74] as Uint8Array;
  private literalAt = 0;
  private error: Problem | undefined;
  /** Bytes scanned (after the BOMs): the stream offset of the next chunk. */
  private offset = 0;
  private started = false;
  /** The top-level value ended: only whitespace may follow. */
  private done = false;

  // What is built.
  private rootKind: number | undefined;
  private rootObject: Record<string, unknown> = {};
  private root: unknown;
  private collection: Collection | undefined;
  /** The top-level key being read, and the key whose value comes. */
  private keyStart = -1;
  private key = '';
  /** A lone value being cut out (the top-level value, or a top-level key's plain value). */
  private pieceStart = -1;

  /** Chunks that hold bytes not yet parsed, with their stream offsets. */
  private held: Uint8Array[] = [];
  private heldAt: number[] = [];

  /** Takes the next bytes of the file. Never throws: a fault is kept for end(). */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0 || this.utf8Bad) return;
    this.checkUtf8(chunk);
    if (this.utf8Bad) {
      this.release();
      return;
    }
    if (this.head !== undefined) {
      const head = concat(this.head, chunk);
      if (head.length < 6) {
        this.head = head;
        return;
      }
      this.head = undefined;
      chunk = this.withoutBoms(head);
    }
    this.scanChunk(chunk);
  }

  /** The file's value, once every byte was pushed; throws the file's fault as a Problem. */
  end(): unknown {
    if (this.utf8Carry !== undefined) this.utf8Bad = true;
    if (this.utf8Bad) throw notUtf8();
    if (this.head !== undefined) {
      const head = this.head;
      this.head = undefined;
      this.scanChunk(this.withoutBoms(head));
    }
    if (this.error === undefined && this.mode !== M_FAILED) this.finishScan();
    this.release();
    if (this.error !== undefined) throw this.error;
    return this.root;
  }

  private release(): void {
    this.held = [];
    this.heldAt = [];
    this.collection = undefined;
    this.rootObject = {};
  }

  private checkUtf8(chunk: Uint8Array): void {
    const bytes = this.utf8Carry === undefined ? chunk : concat(this.utf8Carry, chunk);
    const complete = completeUtf8(bytes);
    if (!isUtf8(bytes.subarray(0, complete))) this.utf8Bad = true;
    this.utf8Carry = complete < bytes.length ? bytes.slice(complete) : undefined;
  }

  private withoutBoms(bytes: Uint8Array): Uint8Array {
    let at = 0;
    for (let i = 0; i < 2 && bytes[at] === 0xef && bytes[at + 1] === 0xbb && bytes[at + 2] === 0xbf; i++) at += 3;
    this.bomBytes = at;
    return bytes.subarray(at);
  }

  private fail(detail: string): void {
    this.error ??= notJson(detail);
    this.mode = M_FAILED;
    this.release();
  }

  private failAt(position: number, b: number): void {
    this.fail(`unexpected ${describe(b)} at byte ${(position + this.bomBytes).toLocaleString('en-US')}`);
  }

  /** The byte scanner: one pass over the chunk, calling the value hooks only at the top two levels. */
  private scanChunk(chunk: Uint8Array): void {
    if (this.mode === M_FAILED || chunk.length === 0) return;
    const base = this.offset;
    this.offset += chunk.length;
    this.held.push(chunk);
    this.heldAt.push(base);
    const stack = this.stack;
    const n = chunk.length;
    let i = 0;
    // The state in locals while the loop runs (written back when the chunk is done).
    let mode = this.mode;
    let expect = this.expect;
    let stringIsKey = this.stringIsKey;
    let numberState = this.numberState;
    let numberDigits = this.numberDigits;
    let laxDepth = this.laxDepth;
    let digitRun = this.digitRun;
    try {
      while (i < n) {
        if (mode >= M_LAX) {
          // Skimming a document to its end: the hot loop of a large collection.
          while (i < n) {
            if (mode === M_LAX_STRING) {
              let c = 0;
              while (i < n) {
                c = chunk[i++] as number;
                if (c === 0x22 || c === 0x5c) break;
              }
              if (c === 0x22) mode = M_LAX;
              else if (c === 0x5c) mode = M_LAX_ESCAPE;
              continue;
            }
            if (mode === M_LAX_ESCAPE) {
              i++;
              mode = M_LAX_STRING;
              continue;
            }
            const c = chunk[i++] as number;
            if (c === 0x22) {
              mode = M_LAX_STRING;
              digitRun = 0;
            } else if (c >= 0x30 && c <= 0x39) {
              // 16 digits in a row outside strings: the batch may hold a long integer (quoteLongIntegers decides).
              if (++digitRun === 16) this.lastLongInteger = base + i - 1;
            } else {
              digitRun = 0;
              if (c === 0x7b || c === 0x5b) laxDepth++;
              else if ((c === 0x7d || c === 0x5d) && --laxDepth === 0) {
                mode = M_TOKEN;
                expect = E_COMMA_OR_CLOSE;
                this.valueEnd(base + i, true);
                break;
              }
            }
          }
          continue;
        }
        let b = chunk[i] as number;
        if (mode === M_STRING) {
          // The hot loop: most of a file is string bytes.
          while (b !== 0x22 && b !== 0x5c && b >= 0x20) {
            if (++i === n) break;
            b = chunk[i] as number;
          }
          if (i === n) break;
          i++;
          if (b === 0x22) {
            mode = M_TOKEN;
            expect = stringIsKey ? E_COLON : E_COMMA_OR_CLOSE;
            if (stack.length <= 2) {
              if (!stringIsKey) this.valueEnd(base + i, false);
              else if (stack.length === 1) this.keyEnd(base + i);
            }
          } else if (b === 0x5c) {
            mode = M_ESCAPE;
          } else {
            this.failAt(base + i - 1, b);
            return;
          }
          continue;
        }
        if (mode === M_TOKEN) {
          i++;
          if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
          if (this.done) {
            this.fail(`more after the end of the JSON value, at byte ${(base + i - 1 + this.bomBytes).toLocaleString('en-US')}`);
            return;
          }
          if (expect === E_COMMA_OR_CLOSE) {
            const top = stack[stack.length - 1];
            if (b === 0x2c) expect = top === 1 ? E_KEY : E_VALUE;
            else if ((b === 0x5d && top === 0) || (b === 0x7d && top === 1)) {
              if (stack.length <= 3) this.close(base + i);
              else stack.pop();
            } else {
              this.failAt(base + i - 1, b);
              return;
            }
            continue;
          }
          if (expect === E_COLON) {
            if (b !== 0x3a) {
              this.failAt(base + i - 1, b);
              return;
            }
            expect = E_VALUE;
            continue;
          }
          if (expect === E_KEY || expect === E_KEY_OR_CLOSE) {
            if (b === 0x22) {
              mode = M_STRING;
              stringIsKey = true;
              if (stack.length <= 2) this.keyStart_(base + i - 1);
            } else if (b === 0x7d && expect === E_KEY_OR_CLOSE) {
              expect = E_COMMA_OR_CLOSE;
              if (stack.length <= 3) this.close(base + i);
              else stack.pop();
            } else {
              this.failAt(base + i - 1, b);
              return;
            }
            continue;
          }
          // A value (or, after [, the end of the array).
          if (b === 0x5d && expect === E_VALUE_OR_CLOSE) {
            expect = E_COMMA_OR_CLOSE;
            if (stack.length <= 3) this.close(base + i);
            else stack.pop();
            continue;
          }
          const start = base + i - 1;
          if (b === 0x22) {
            if (stack.length <= 2) this.valueStart(start, b);
            mode = M_STRING;
            stringIsKey = false;
          } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
            if (stack.length <= 2) this.valueStart(start, b);
            const collection = this.collection;
            if (collection !== undefined && collection.depth === stack.length && collection.role.kind !== 'count') {
              // A document of a collection that is parsed: skimmed to its end.
              mode = M_LAX;
              laxDepth = 1;
              digitRun = 0;
            } else {
              stack.push(b === OPEN_OBJECT ? 1 : 0);
              expect = b === OPEN_OBJECT ? E_KEY_OR_CLOSE : E_VALUE_OR_CLOSE;
            }
          } else if (b === 0x2d || (b >= 0x30 && b <= 0x39)) {
            if (stack.length <= 2) this.valueStart(start, b);
            mode = M_NUMBER;
            numberState = b === 0x2d ? N_MINUS : b === 0x30 ? N_ZERO : N_INT;
            numberDigits = b === 0x2d ? 0 : 1;
            this.numberStart = start;
          } else if (LITERALS[b] !== undefined) {
            if (stack.length <= 2) this.valueStart(start, b);
            mode = M_LITERAL;
            this.literal = LITERALS[b] as Uint8Array;
            this.literalAt = 1;
          } else {
            this.failAt(start, b);
            return;
          }
          continue;
        }
        if (mode === M_NUMBER) {
          const state = numberState;
          let next = -1;
          if (b >= 0x30 && b <= 0x39) {
            if (state === N_MINUS) next = b === 0x30 ? N_ZERO : N_INT;
            else if (state === N_DOT) next = N_FRAC;
            else if (state === N_E || state === N_E_SIGN) next = N_EXP;
            else if (state !== N_ZERO) next = state;
          } else if (b === 0x2e) {
            next = state === N_ZERO || state === N_INT ? N_DOT : -1;
          } else if (b === 0x65 || b === 0x45) {
            next = state === N_ZERO || state === N_INT || state === N_FRAC ? N_E : -1;
          } else if (b === 0x2b || b === 0x2d) {
            next = state === N_E ? N_E_SIGN : -1;
          }
          if (next >= 0) {
            if (next === N_INT) numberDigits++;
            numberState = next;
            i++;
            continue;
          }
          if (!NUMBER_CAN_END[state] || (b >= 0x30 && b <= 0x39)) {
            this.failAt(base + i, b);
            return;
          }
          // The number ended before this byte, which is looked at again between tokens.
          mode = M_TOKEN;
          expect = E_COMMA_OR_CLOSE;
          if (state === N_INT && numberDigits >= 16) this.lastLongInteger = this.numberStart;
          if (stack.length <= 2) this.valueEnd(base + i, false);
          continue;
        }
        if (mode === M_ESCAPE) {
          i++;
          if (b === 0x75) {
            mode = M_UNICODE;
            this.unicodeLeft = 4;
          } else if (b === 0x22 || b === 0x5c || b === 0x2f || b === 0x62 || b === 0x66 || b === 0x6e || b === 0x72 || b === 0x74) {
            mode = M_STRING;
          } else {
            this.fail(`a bad escape "\\${String.fromCharCode(b)}" at byte ${(base + i - 1 + this.bomBytes).toLocaleString('en-US')}`);
            return;
          }
          continue;
        }
        if (mode === M_UNICODE) {
          i++;
          if (!isHex(b)) {
            this.failAt(base + i - 1, b);
            return;
          }
          if (--this.unicodeLeft === 0) mode = M_STRING;
          continue;
        }
        if (mode === M_LITERAL) {
          i++;
          if (b !== this.literal[this.literalAt]) {
            this.failAt(base + i - 1, b);
            return;
          }
          if (++this.literalAt === this.literal.length) {
            mode = M_TOKEN;
            expect = E_COMMA_OR_CLOSE;
            if (stack.length <= 2) this.valueEnd(base + i, false);
          }
          continue;
        }
        return; // M_FAILED
      }
      this.mode = mode;
      this.expect = expect;
      this.stringIsKey = stringIsKey;
      this.numberState = numberState;
      this.numberDigits = numberDigits;
      this.laxDepth = laxDepth;
      this.digitRun = digitRun;
      this.trim();
    } catch (error) {
      // A batch of skimmed documents is not JSON (JSON.parse said where in the batch), or a decode failed.
      if (error instanceof Problem) {
        this.error ??= error;
        this.mode = M_FAILED;
        this.release();
      } else {
        // JSON.parse's own message quotes the text, which may be a friend's or a token's: not echoed.
        const what = this.rootKind === OPEN_OBJECT ? `"${this.key.slice(0, 40)}"` : 'the top-level list';
        this.fail(`a document in ${what} is broken, before byte ${(base + i + this.bomBytes).toLocaleString('en-US')}`);
      }
    }
  }

  /** The stream ended: a number at the very end ends there; anything still open is cut short. */
  private finishScan(): void {
    if (this.mode === M_NUMBER && this.stack.length === 0) {
      if (!NUMBER_CAN_END[this.numberState]) return this.fail('the file ends inside a number');
      this.mode = M_TOKEN;
      if (this.numberState === N_INT && this.numberDigits >= 16) this.lastLongInteger = this.numberStart;
      try {
        this.valueEnd(this.offset, false);
      } catch (error) {
        return this.fail(error instanceof Error ? error.message : String(error));
      }
    }
    if (this.done) return;
    if (!this.started) {
      this.error ??= new Problem('invalid-json', 'the file is empty');
      return this.fail('');
    }
    const open = this.stack.length;
    this.fail(`the file ends early, at byte ${(this.offset + this.bomBytes).toLocaleString('en-US')}${open > 0 ? ` with ${open} ${open === 1 ? 'bracket' : 'brackets'} open` : ''}`);
  }

  // ------------------------------------------------------------------------------------------
  // Hooks at the top two levels (stack depth 0, 1, 2)

  /** A string in key position starts, in an object at depth 1 or 2. */
  private keyStart_(position: number): void {
    const depth = this.stack.length;
    if (depth === 1) {
      this.keyStart = position;
    } else {
      const collection = this.collection;
      if (collection !== undefined && collection.depth === depth && collection.role.kind !== 'count' && collection.batchStart < 0) collection.batchStart = position;
    }
  }

  /** A top-level key ended at `end`. */
  private keyEnd(end: number): void {
    this.key = JSON.parse(decoder.decode(this.bytes(this.keyStart, end))) as string;
    this.keyStart = -1;
  }

  /** A value starts at `position` at stack depth 0, 1 or 2 (before its container, if any, is pushed). */
  private valueStart(position: number, first: number): void {
    const depth = this.stack.length;
    const container = first === OPEN_ARRAY || first === OPEN_OBJECT;
    if (depth === 0) {
      this.started = true;
      if (first === OPEN_OBJECT) this.rootKind = OPEN_OBJECT;
      else if (first === OPEN_ARRAY) {
        this.rootKind = OPEN_ARRAY;
        this.collection = this.newCollection(false, { kind: 'parse' }, 1);
      } else this.pieceStart = position;
      return;
    }
    if (depth === 1 && this.rootKind === OPEN_OBJECT) {
      if (!container) {
        this.pieceStart = position;
        return;
      }
      const projected = PROJECTED_COLLECTIONS.get(this.key);
      const role: Role = UNREAD_COLLECTIONS.has(this.key) ? { kind: 'count' } : projected !== undefined ? { kind: 'project', key: projected } : { kind: 'parse' };
      this.collection = this.newCollection(first === OPEN_OBJECT, role, 2);
      return;
    }
    // A member of the collection (its elements; an object's members start at their key).
    const collection = this.collection;
    if (collection !== undefined && collection.depth === depth && !collection.isObject && collection.role.kind !== 'count' && collection.batchStart < 0) collection.batchStart = position;
  }

  private newCollection(isObject: boolean, role: Role, depth: number): Collection {
    return { isObject, role, depth, array: [], object: {}, count: 0, batchStart: -1, batchEnd: -1 };
  }

  /** A container closes at `end` (just after its bracket). */
  private close(end: number): void {
    const depth = this.stack.length;
    const collection = this.collection;
    if (collection !== undefined && collection.depth === depth) this.flush(collection);
    this.stack.pop();
    this.valueEnd(end, true);
  }

  /** A value ended at `end`, at the depth the stack now has. */
  private valueEnd(end: number, container: boolean): void {
    const depth = this.stack.length;
    if (depth === 0) {
      this.done = true;
      if (this.rootKind === OPEN_OBJECT) this.root = this.rootObject;
      else if (this.rootKind === OPEN_ARRAY) this.root = (this.collection as Collection).array;
      else this.root = this.piece(end);
      this.collection = undefined;
      return;
    }
    if (depth > 2) return;
    if (depth === 1 && this.rootKind === OPEN_OBJECT) {
      if (!container) {
        setKey(this.rootObject, this.key, this.piece(end));
        return;
      }
      const collection = this.collection as Collection;
      this.collection = undefined;
      const value = collection.role.kind === 'count' ? (collection.isObject ? {} : new Array<unknown>(collection.count)) : collection.isObject ? collection.object : collection.array;
      setKey(this.rootObject, this.key, value);
      return;
    }
    const collection = this.collection;
    if (collection === undefined || collection.depth !== depth) return;
    if (collection.role.kind === 'count') {
      collection.count++;
      return;
    }
    collection.batchEnd = end;
    if (end - collection.batchStart >= BATCH_BYTES) this.flush(collection);
  }

  /** The lone value that ends at `end`, parsed. */
  private piece(end: number): unknown {
    const value = this.parse(this.bytes(this.pieceStart, end), this.lastLongInteger >= this.pieceStart, '', '');
    this.pieceStart = -1;
    return value;
  }

  /** Parses the collection's pending members into it. */
  private flush(collection: Collection): void {
    if (collection.batchStart < 0 || collection.role.kind === 'count') return;
    const bytes = this.bytes(collection.batchStart, collection.batchEnd);
    const long = this.lastLongInteger >= collection.batchStart;
    collection.batchStart = -1;
    const role = collection.role;
    if (collection.isObject) {
      const members = this.parse(bytes, long, '{', '}') as Record<string, unknown>;
      for (const key of Object.keys(members)) setKey(collection.object, key, role.kind === 'project' ? projectDocument(members[key], role.key) : members[key]);
    } else {
      const members = this.parse(bytes, long, '[', ']') as unknown[];
      const array = collection.array;
      if (role.kind === 'project') for (const member of members) array.push(projectDocument(member, role.key));
      else if (array.length === 0) collection.array = members;
      else for (const member of members) array.push(member);
    }
  }

  /** JSON text parsed between `open` and `close`, its long integers (if `long`) kept exact. */
  private parse(bytes: Uint8Array, long: boolean, open: string, close: string): unknown {
    const text = decoder.decode(bytes);
    return JSON.parse(`${open}${long ? quoteLongIntegers(text) : text}${close}`);
  }

  /** The stream's bytes from `start` to `end`, from the chunks held. */
  private bytes(start: number, end: number): Uint8Array {
    const held = this.held;
    const at = this.heldAt;
    let k = held.length - 1;
    while (k > 0 && (at[k] as number) > start) k--;
    const first = held[k] as Uint8Array;
    const firstAt = at[k] as number;
    if (end <= firstAt + first.length) return first.subarray(start - firstAt, end - firstAt);
    const out = new Uint8Array(end - start);
    let written = 0;
    for (; k < held.length && written < out.length; k++) {
      const chunk = held[k] as Uint8Array;
      const chunkAt = at[k] as number;
      const from = Math.max(start, chunkAt) - chunkAt;
      const to = Math.min(end, chunkAt + chunk.length) - chunkAt;
      out.set(chunk.subarray(from, to), written);
      written += to - from;
    }
    return out;
  }

  /** Drops the chunks before the first byte still needed. */
  private trim(): void {
    let needed = Infinity;
    if (this.keyStart >= 0) needed = this.keyStart;
    if (this.pieceStart >= 0) needed = Math.min(needed, this.pieceStart);
    const batch = this.collection?.batchStart ?? -1;
    if (batch >= 0) needed = Math.min(needed, batch);
    let drop = 0;
    while (drop < this.held.length && (this.heldAt[drop] as number) + (this.held[drop] as Uint8Array).length <= needed) drop++;
    if (drop > 0) {
      this.held.splice(0, drop);
      this.heldAt.splice(0, drop);
    }
  }
}

/** Reads a whole file in memory through the streaming reader (the command line, tests, the bench). */
export function readJsonStream(chunks: Iterable<Uint8Array>): unknown {
  const reader = new JsonStreamReader();
  for (const chunk of chunks) reader.push(chunk);
  return reader.end();
}

/** A buffer in chunks of `size` bytes (views, not copies). */
export function* chunksOf(bytes: Uint8Array, size = 64 * 1024): Generator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}
