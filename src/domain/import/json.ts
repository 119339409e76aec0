// Reading an import file's bytes: UTF-8 whatever the sender claimed (Discord's CDN has sent wrong
// charsets), a byte-order mark dropped, and integers too large for a double kept exactly, as
// strings: `JSON.parse` would silently round a Discord id such as 412345678901234567.
// decodeImportText and parseImportJson read a whole file at once: imports read through the
// streaming reader (json-stream.ts), which shares the pieces below and is tested against these.
import { Problem } from '../problems.js';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The refusal of bytes that are not UTF-8. */
export const notUtf8 = () => new Problem('invalid-import', 'the file is not UTF-8 text: export it again from PluralKit or Tupperbox and send the file as it is');

/** The refusal of text that is not JSON; `detail` says where it breaks. */
export const notJson = (detail: string) =>
  new Problem('invalid-json', `the file is not valid JSON${detail ? `: ${detail}` : ''}. Export it again; on a phone, Discord can damage files, so send the link to the file instead`);

/** The text of an import file; a BOM is removed. Refuses bytes that are not UTF-8. */
export function decodeImportText(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw notUtf8();
  }
}

/** Integers with more digits than a double holds exactly (2^53 has 16 digits: play safe from 16). */
const LONG_INTEGER = /\d{16}/;

/** JSON text parsed with its long integers kept as strings (the text has no BOM). */
export function parseExact(text: string): unknown {
  return JSON.parse(LONG_INTEGER.test(text) ? quoteLongIntegers(text) : text);
}

/**
 * Wraps every integer literal of 16 or more digits outside strings in quotes, so it parses to its
 * exact digits. Only called when such a run of digits exists anywhere in the text.
 */
export function quoteLongIntegers(text: string): string {
  let out = '';
  let last = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      i++;
      while (i < n && /[0-9eE.+-]/.test(text[i] as string)) i++;
      const token = text.slice(start, i);
      // Only a number JSON allows (no leading zero): quoting would make `00…0` valid.
      if (/^-?[1-9]\d{15,}$/.test(token)) {
        out += `${text.slice(last, start)}"${token}"`;
        last = i;
      }
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Parses an import file's text; refuses text that is not JSON, naming where it breaks. */
export function parseImportJson(text: string): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (source.trim() === '') throw new Problem('invalid-json', 'the file is empty');
  try {
    return parseExact(source);
  } catch (error) {
    throw notJson(error instanceof SyntaxError ? error.message.replace(/^.*?JSON[^:]*: ?/, '') : '');
  }
}
