// One array of numbers read again on its own, after the parse: its values, where each element
// stands (hovers, errors inside rows: the fast path keeps neither), and an edited row re-read
// without a full parse (incremental.ts).

import * as jsonChars from './jsonChars';
import type { NodeBase, NumbersNode } from './jsonNodes';
import * as jsonNumber from './jsonNumber';
import type { NumberScan } from './jsonNumber';
import { asciiBytes, sourceSlice, type Source } from './jsonSource';
import { TextChunks } from './textChunks';

// (module constants, not imports read where used: the per-file build the tests run reads an
// imported name through a getter each time, which costs the byte loops several times their speed)
const { COMMA, CR, LBRACKET, LF, MINUS, NINE, RBRACKET, SLASH, SPACE, STAR, TAB, ZERO } = jsonChars;
const { FLOAT32_OVERFLOW, scanNumber } = jsonNumber;

/** The values of a NumbersNode (a view into the arena, not a copy). */
export function numbersOf(parsed: { arena: Float32Array }, node: NumbersNode): Float32Array {
  return parsed.arena.subarray(node.offset, node.offset + node.length);
}

/**
 * Scans the text of one number array (from its `[` to its `]`) again and returns where each
 * element starts and ends. Used for positions of single numbers (hovers, errors inside rows),
 * which the fast path does not keep.
 */
export function elementRanges(src: Source, node: NodeBase): Array<[number, number]> {
  // chunks: the row's own text, read with offsets relative to it
  let at: (i: number) => number;
  if (src instanceof TextChunks) {
    const row = src.slice(node.start, node.end);
    at = (i) => row.charCodeAt(i - node.start);
  } else if (typeof src === 'string') at = (i) => src.charCodeAt(i);
  else at = (i) => src[i];
  const out: Array<[number, number]> = [];
  let p = node.start + 1;
  const end = node.end - 1;
  while (p < end) {
    const c = at(p);
    if (c === SPACE || c === LF || c === CR || c === TAB || c === COMMA) {
      p++;
    } else if (c === SLASH && at(p + 1) === SLASH) {
      while (p < end && at(p) !== LF && at(p) !== CR) p++;
    } else if (c === SLASH && at(p + 1) === STAR) {
      let q = p + 2;
      while (q < end && !(at(q) === STAR && at(q + 1) === SLASH)) q++;
      p = q + 2;
    } else {
      const s = p;
      while (p < end) {
        const d = at(p);
        if (d === COMMA || d === SPACE || d === LF || d === CR || d === TAB || d === SLASH) break;
        p++;
      }
      out.push([s, p]);
    }
  }
  return out;
}

/**
 * Scans the text of one number array, from its `[` at `start` to its `]` at `end - 1`, writing
 * the numbers to out[at…]. Returns how many there were, or -1 if the text holds anything but
 * plain numbers, commas, whitespace (or more than `max` numbers): then only a full parse will do.
 * Used to re-read a single edited row of a matrix.
 */
export function scanNumberRow(text: Source, start: number, end: number, out: Float32Array, at: number, max: number): number {
  const rowText = sourceSlice(text, start, end);
  const row = asciiBytes(rowText); // positions below are relative to the row
  const slice = (a: number, b: number): string => rowText.slice(a, b);
  if (row[0] !== LBRACKET || row[row.length - 1] !== RBRACKET) return -1;
  const num: NumberScan = { value: 0, end: 0, error: null };
  let pos = 1;
  const stop = row.length - 1;
  let n = 0;
  let expectValue = true;
  while (pos < stop) {
    const c = row[pos];
    if (c === SPACE || c === LF || c === CR || c === TAB) {
      pos++;
    } else if (c === COMMA) {
      if (expectValue) return -1;
      expectValue = true;
      pos++;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      if (!expectValue || n >= max) return -1;
      scanNumber(row, pos, num, slice);
      if (num.error !== null || num.end > stop) return -1;
      const v = num.value;
      if (v >= FLOAT32_OVERFLOW || v <= -FLOAT32_OVERFLOW) return -1;
      out[at + n++] = v;
      pos = num.end;
      expectValue = false;
    } else {
      return -1; // a comment, a string, a bracket: not for this fast path
    }
  }
  return n;
}
