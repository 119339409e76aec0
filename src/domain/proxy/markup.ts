// Discord markup the engine must not cut (R5.6) and the leading mentions it sets aside (R6).
import { WHITESPACE_CLASS } from './text.js';

/** A token's UTF-16 range in the text it was found in: [start, end). */
export type Span = { start: number; end: number };

// Every token opens with `<` and holds no other `<`, so a global scan finds them left to right
// without overlap. NAME uses Discord's own ASCII word characters; ID is ASCII digits (`\d`
// without the `u` flag); CMD may hold spaces and colons (`</tag add:123>`).
const TOKEN = /<(?:@[!&]?\d+|#\d+|a?:[A-Za-z0-9_]+:\d+|t:-?\d+(?::[tTdDfFR])?|\/[^<>\n]+:\d+)>/g;

export function tokenSpans(text: string): Span[] {
  if (!text.includes('<')) return [];
  const spans: Span[] = [];
  for (const match of text.matchAll(TOKEN)) spans.push({ start: match.index, end: match.index + match[0].length });
  return spans;
}

/** Whether an edge at `index` would fall strictly inside a token. */
export function cutsToken(spans: readonly Span[], index: number): boolean {
  for (const span of spans) {
    if (span.start >= index) return false;
    if (index < span.end) return true;
  }
  return false;
}

// User, role and channel mentions only: a custom emoji or timestamp at the start is text.
const MENTION_BLOCK = new RegExp(`^(?:(?:<@[!&]?\\d+>|<#\\d+>)[${WHITESPACE_CLASS}]*)+`);

/** The leading mention block as typed, trailing whitespace included; '' when there is none. */
export function leadingMentionBlock(content: string): string {
  if (content.charCodeAt(0) !== 0x3c) return '';
  return MENTION_BLOCK.exec(content)?.[0] ?? '';
}
