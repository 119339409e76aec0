// The name a proxied message shows: the alter's name for the server, its pronouns when the system
// shows them, and the system's display tag, within Discord's rules for webhook usernames. When it
// is too long the least important part goes first (pronouns, then the name is shortened, never the
// tag unless it alone is too long), always at a grapheme boundary and with an ellipsis, so nothing
// is cut in the middle of an emoji.
//
// Discord refuses a username that contains "clyde" or "discord" (any case), that is "everyone" or
// "here", or that is not 1 to 80 characters once it has stripped zero-width spaces and trimmed
// whitespace. Such names are defused rather than dropped: a hair space (U+200A) after the first
// letter, which Discord keeps and readers barely see (a zero-width space would be stripped, and the
// name refused after all).
export const MAX_WEBHOOK_NAME = 80;

const HAIR_SPACE = '\u200a';
// A one-character name is padded with U+17B5 (a Khmer vowel sign that renders as nothing): not
// whitespace, so Discord's trim keeps it, and not a zero-width space, which Discord strips.
const INVISIBLE_PAD = '\u17b5';

let segmenter: Intl.Segmenter | undefined; // made on first use: it loads ICU data
const graphemes = (text: string) => Array.from((segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' })).segment(text), (part) => part.segment);
const length = (text: string) => [...text].length;

/** Breaks up the words Discord refuses inside a name: "Clyde" → "C\u200alyde". */
function defuse(text: string): string {
  return text.replace(/clyde|discord/gi, (word) => `${word.slice(0, 1)}${HAIR_SPACE}${word.slice(1)}`);
}

/** The whole name may not be one of Discord's mention keywords. */
function defuseWhole(name: string): string {
  return /^(?:everyone|here)$/i.test(name) ? `${name.slice(0, 1)}${HAIR_SPACE}${name.slice(1)}` : name;
}

/** Cuts `text` to at most `max` code points at a grapheme boundary, marking the cut with "…". */
export function shorten(text: string, max: number): string {
  if (length(text) <= max) return text;
  let out = '';
  for (const part of graphemes(text)) {
    if (length(out) + length(part) + 1 > max) break;
    out += part;
  }
  return `${out.trimEnd()}…`;
}

/** Discord refuses one-character webhook names; an invisible second character keeps it as typed. */
function padded(name: string): string {
  return length(name) < 2 ? `${name}${INVISIBLE_PAD}` : name;
}

/** Zero-width spaces are stripped by Discord, so they neither fill a name nor separate its words. */
const withoutZeroWidth = (text: string) => text.replaceAll('\u200b', '').trim();

export interface NameParts {
  name: string;
  /** Shown only when given (the system's pronoun flag is the caller's decision). */
  pronouns?: string | null;
  displayTag?: string | null;
  /** Used when `name` is blank. */
  fallback: string;
}

export function webhookName(parts: NameParts): string {
  const name = padded(defuse(withoutZeroWidth(parts.name) || withoutZeroWidth(parts.fallback) || '?'));
  const pronounText = withoutZeroWidth(parts.pronouns ?? '');
  const tagText = withoutZeroWidth(parts.displayTag ?? '');
  const pronouns = pronounText ? ` (${defuse(pronounText)})` : '';
  const tag = tagText ? ` ${defuse(tagText)}` : '';
  return defuseWhole(fit(name, pronouns, tag));
}

function fit(name: string, pronouns: string, tag: string): string {
  const full = `${name}${pronouns}${tag}`;
  if (length(full) <= MAX_WEBHOOK_NAME) return full;
  if (length(name + tag) <= MAX_WEBHOOK_NAME) return name + tag;
  // Keep the tag (it says which system is speaking) and as much of the name as fits, at least a
  // few characters of it; only a tag that leaves no room is shortened itself.
  const room = MAX_WEBHOOK_NAME - length(tag);
  if (room >= 8) return shorten(name, room) + tag;
  return shorten(`${shorten(name, 12)}${tag}`, MAX_WEBHOOK_NAME);
}
