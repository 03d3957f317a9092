// The characters the JSONC scanners compare bytes with, and small tests on bytes.

export const SPACE = 32, TAB = 9, LF = 10, CR = 13, COMMA = 44, MINUS = 45, DOT = 46, SLASH = 47, ZERO = 48,
  NINE = 57, COLON = 58, LBRACKET = 91, RBRACKET = 93, LBRACE = 123, RBRACE = 125, QUOTE = 34,
  STAR = 42, BACKSLASH = 92, LOWER_E = 101, UPPER_E = 69, PLUS = 43, BOM = 0xfeff;

/** A character of a bare word (true, NaN, an unquoted key, a stray word). */
export function isWordChar(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= ZERO && c <= NINE) || c === 95 || c === 36 || c === MINUS || c === PLUS || c === DOT;
}

/** Where the `*` of the `*\/` closing a block comment stands, from `from` on; -1 if none does. */
export function indexOfCommentEnd(b: Uint8Array, from: number): number {
  for (let i = b.indexOf(STAR, from); i >= 0; i = b.indexOf(STAR, i + 1)) if (b[i + 1] === SLASH) return i;
  return -1;
}

export function startsWithAscii(b: Uint8Array, word: string, at: number): boolean {
  for (let i = 0; i < word.length; i++) if (b[at + i] !== word.charCodeAt(i)) return false;
  return true;
}
