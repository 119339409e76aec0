// Text the CLI prints that someone else wrote (endpoint URLs and descriptions, client names, ids a
// failed authentication claimed, import reports) goes to the operator's terminal: an escape
// sequence in it could clear the screen, rewrite earlier lines or set the window title, a line
// break could forge a table row, and a bidirectional override could reorder what is shown. Every
// such field is printed through `printable`, which writes those characters as visible escapes.

// Control characters (C0, DEL, C1), format characters (bidirectional controls, zero-width
// characters; not the joiner that emoji sequences need), line and paragraph separators, lone
// surrogates, and the backslash itself, so an escape in the output is always one this wrote.
const UNPRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\\]|(?!\u200d)\p{Cf}/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (character) => {
    const named = NAMED[character];
    if (named) return named;
    const code = character.codePointAt(0) ?? 0;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
