// Where a lost } most likely belongs, by indentation: for the parser's message when a file ends
// with an object unclosed ("expected } before this one: … is not closed").

import * as jsonChars from './jsonChars';

// (module constants, not imports read where used: the per-file build the tests run reads an
// imported name through a getter each time, which costs the byte loops several times their speed)
const { CR, LBRACE, LF, SPACE, TAB } = jsonChars;

interface Indent { readonly width: number; readonly char: number }

/** A } that probably closed the wrong object: the object it closed early, and the outer one its indentation matches. */
export interface MisplacedClose { readonly at: number; readonly open: number; readonly key: string | null; readonly belongsTo: number }

/**
 * A } (at `close`) first on its line, indented less than the line of its own { (at `open`) and
 * exactly as the line of an enclosing object's { (`openStack`: the containers around, innermost
 * last), probably belongs to that one; null otherwise. Indentation of mixed tabs and spaces is not
 * compared.
 */
export function misplacedClose(b: Uint8Array, openStack: readonly number[], open: number, close: number, key: string | null): MisplacedClose | null {
  const mine = closeIndent(b, close);
  if (mine === null) return null;
  const own = lineIndent(b, open);
  if (own === null || own.char !== mine.char && own.width > 0 && mine.width > 0 || mine.width >= own.width) return null;
  for (let k = openStack.length - 1; k >= 0; k--) {
    const a = openStack[k];
    if (b[a] !== LBRACE) continue;
    const ind = lineIndent(b, a);
    if (ind === null || ind.width < mine.width) return null;
    if (ind.width === mine.width && (ind.width === 0 || ind.char === mine.char)) return { at: close, open, key, belongsTo: a };
  }
  return null;
}

/** The indentation [from, to) of a line, if all tabs or all spaces. */
function uniformIndent(t: Uint8Array, from: number, to: number): Indent | null {
  const char = to > from ? t[from] : SPACE;
  for (let p = from; p < to; p++) if (t[p] !== char) return null;
  return { width: to - from, char };
}

/** The indentation before a } if it is the first thing on its line (else null: the usual case, found at once). */
function closeIndent(t: Uint8Array, offset: number): Indent | null {
  let p = offset;
  while (p > 0 && (t[p - 1] === SPACE || t[p - 1] === TAB)) p--;
  if (p > 0 && t[p - 1] !== LF && t[p - 1] !== CR) return null;
  return uniformIndent(t, p, offset);
}

/** The indentation of the line holding `offset` (null if mixed, or the line is very long). */
function lineIndent(t: Uint8Array, offset: number): Indent | null {
  const stop = Math.max(0, offset - 4096);
  let lineStart = offset;
  while (lineStart > stop && t[lineStart - 1] !== LF && t[lineStart - 1] !== CR) lineStart--;
  if (lineStart === stop && stop > 0) return null;
  let p = lineStart;
  while (p < offset && (t[p] === SPACE || t[p] === TAB)) p++;
  return uniformIndent(t, lineStart, p);
}
