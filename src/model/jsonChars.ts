// The characters the JSONC scanners compare bytes with, and small scans of bytes.

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

/**
 * Past the object or array at `from` without reading it (nested too deep): its brackets counted,
 * strings and comments stepped over; `len` if the file ends first. A loop, no recursion.
 */
export function skipNested(b: Uint8Array, from: number, len: number): number {
  let depth = 0;
  let p = from;
  while (p < len) {
    const c = b[p];
    if (c === QUOTE) {
      p++;
      while (p < len && b[p] !== QUOTE && b[p] !== LF && b[p] !== CR) p += b[p] === BACKSLASH ? 2 : 1;
    } else if (c === SLASH && b[p + 1] === SLASH) {
      while (p < len && b[p] !== LF && b[p] !== CR) p++;
    } else if (c === SLASH && b[p + 1] === STAR) {
      const close = indexOfCommentEnd(b, p + 2);
      p = close < 0 ? len : close + 1;
    } else if (c === LBRACE || c === LBRACKET) {
      depth++;
    } else if ((c === RBRACE || c === RBRACKET) && --depth === 0) {
      return p + 1;
    }
    p++;
  }
  return len;
}
