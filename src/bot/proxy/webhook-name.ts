// The name a proxied message shows: the alter's name for the server, its pronouns when the system
// shows them, and the system's display tag, within Discord's rules for webhook names (1 to 80
// characters, never "clyde" or "discord"). When it is too long the least important part goes
// first (pronouns, then the name is shortened, never the tag unless it alone is too long), always
// at a grapheme boundary and with an ellipsis, so nothing is cut in the middle of an emoji.
export const MAX_WEBHOOK_NAME = 80;

let segmenter: Intl.Segmenter | undefined; // made on first use: it loads ICU data
const graphemes = (text: string) => Array.from((segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' })).segment(text), (part) => part.segment);
const length = (text: string) => [...text].length;

/** Discord refuses these words in webhook names; a zero-width space inside keeps them readable. */
function defuse(text: string): string {
  return text.replace(/clyde|discord/gi, (word) => `${word.slice(0, 1)}\u200b${word.slice(1)}`);
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
  return length(name) < 2 ? `${name}\u200b` : name;
}

export interface NameParts {
  name: string;
  /** Shown only when given (the system's pronoun flag is the caller's decision). */
  pronouns?: string | null;
  displayTag?: string | null;
  /** Used when `name` is blank. */
  fallback: string;
}

export function webhookName(parts: NameParts): string {
  const name = padded(defuse(parts.name.trim() || parts.fallback));
  const pronouns = parts.pronouns?.trim() ? ` (${defuse(parts.pronouns.trim())})` : '';
  const tag = parts.displayTag?.trim() ? ` ${defuse(parts.displayTag.trim())}` : '';
  const full = `${name}${pronouns}${tag}`;
  if (length(full) <= MAX_WEBHOOK_NAME) return full;
  if (length(name + tag) <= MAX_WEBHOOK_NAME) return name + tag;
  // Keep the tag (it says which system is speaking) and as much of the name as fits, at least a
  // few characters of it; only a tag that leaves no room is shortened itself.
  const room = MAX_WEBHOOK_NAME - length(tag);
  if (room >= 8) return shorten(name, room) + tag;
  return shorten(`${shorten(name, 12)}${tag}`, MAX_WEBHOOK_NAME);
}
