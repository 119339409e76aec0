// Escape level (R12, D12): backslashes at the raw start of the content. Mobile keyboards and some
// users put a zero-width space between backslashes so Discord's markdown keeps them; one such
// U+200B directly between two backslashes is therefore not a gap.

const BACKSLASH = 0x5c;
const ZERO_WIDTH_SPACE = 0x200b;

/** Capped at 3: every level from 3 on has the same effect. */
export function escapeLevel(content: string): number {
  let level = 0;
  let i = 0;
  while (level < 3 && content.charCodeAt(i) === BACKSLASH) {
    level++;
    i++;
    if (content.charCodeAt(i) === ZERO_WIDTH_SPACE && content.charCodeAt(i + 1) === BACKSLASH) i++;
  }
  return level;
}
