// The one definition of "the same username": the key that the unique index (system_id,
// username_key) compares, that the repository stores on every create and rename, that the
// migration backfilled, and that the bot uses to resolve a typed name.
//
// The key is Unicode's NFKC_Casefold (UAX #44; the identifier caseless match of Unicode §3.13),
// taken of the name's NFKC form, so that canonically equivalent spellings always get one key
// (NFKC_Casefold of the raw text does not promise that around U+0345 COMBINING YPOGEGRAMMENI):
// - NFKC, not only NFC: compatibility forms are look-alikes of their plain letters, so fullwidth
//   `Ａ`, the ligature `ﬁ`, the Kelvin sign or a circled digit collide with `A`, `fi`, `K` and `1`.
//   Canonical equivalents (a precomposed `é` and `e` + U+0301) are covered as well.
// - Full case folding (CaseFolding.txt, statuses C and F; not the Turkic T mappings):
//   `ß`, `ẞ`, `SS` and `ss` are one name; `Σ`, `σ` and `ς` are one; `İ` folds to `i` + U+0307,
//   so it does not collide with `I` or `i`, and dotless `ı` stays itself (as Unicode has it).
// - Default-ignorable code points (zero-width characters, joiners, direction marks, variation
//   selectors...) are dropped. New usernames may not contain them at all (see `Username`); this
//   only matters for names stored before that rule and for what people type into the bot.
//
// JavaScript has no case folding built in. Per code point, toLowerCase → toUpperCase →
// toLowerCase equals the full folding for every code point except two cases, handled below.
// Checked with Node 20.20 (ICU 78, Unicode 17): the folding against CaseFolding-17.0.0.txt and
// the key against NFKC_CF of DerivedNormalizationProps-17.0.0.txt for every code point, and
// against NFKC_CF(NFKC(s)) for random strings of combining marks, Hangul jamo, Greek with
// ypogegrammeni and the like; test/domain/username-key.test.ts pins the interesting cases.
// Working per code point also avoids toLowerCase's context-dependent final sigma. The result
// depends on the Unicode version of the running Node only for characters encoded after it;
// Unicode's stability policies keep the folding and normalisation of encoded characters fixed.
//
// For the usernames the API accepts (their key has no space, so no `ﷺ`), the key is at most 18
// times longer in UTF-8 (`㌖` → `キロメートル`): a 100-character name stays below PostgreSQL's
// limit of about 2,700 bytes on an index entry.

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/;

/** Cherokee: the only script whose case folding maps to the capital letters. */
function isCherokee(codePoint: number): boolean {
  return (codePoint >= 0x13a0 && codePoint <= 0x13ff) || (codePoint >= 0xab70 && codePoint <= 0xabbf);
}

/** Unicode full case folding (statuses C + F) of each code point. */
function caseFold(value: string): string {
  let folded = '';
  for (const char of value) {
    const codePoint = char.codePointAt(0) ?? 0;
    if (codePoint === 0x131) folded += char; // dotless ı has no folding; uppercasing would make it I
    else if (isCherokee(codePoint)) folded += char.toUpperCase();
    else folded += char.toLowerCase().toUpperCase().toLowerCase(); // the last lowering: ẞ → ß → SS → ss
  }
  return folded;
}

/** NFKC_Casefold(value): equal for two usernames exactly when they count as the same name. */
export function usernameKey(value: string): string {
  // ASCII (most names) is its own NFKC, has no default-ignorables, and folds to lowercase.
  if (ASCII.test(value)) return value.toLowerCase();
  return caseFold(value.replace(DEFAULT_IGNORABLE, '').normalize('NFKC')).normalize('NFKC');
}

/** Characters a username may not contain: invisible ones and those that change text direction. */
export const INVISIBLE_OR_BIDI_CONTROL = /[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]/u;
