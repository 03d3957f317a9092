// The JSONC parser's fast path: an array of plain numbers scanned in one flat loop straight into
// a shared Float32Array (the arena), keeping only where the array's text starts and ends: no
// JSON.parse, no node per number. The rows of a matrix land one after another, so a matrix is a
// subarray. Anything else in the array sends it back to the slow path (jsonTree.ts), which reports
// it with its position.

import * as jsonChars from './jsonChars';
import type { NumbersNode } from './jsonNodes';
import * as jsonNumber from './jsonNumber';
import { JsonScanner } from './jsonScanner';
import type { Source } from './jsonSource';

// (module constants, not imports read where used: the per-file build the tests run reads an
// imported name through a getter each time, which costs the byte loops several times their speed)
const { COMMA, CR, DOT, LF, LOWER_E, MINUS, NINE, PLUS, RBRACKET, SLASH, SPACE, TAB, UPPER_E, ZERO } = jsonChars;
const { FLOAT32_OVERFLOW, POW10, TWO53 } = jsonNumber;

/** 2^-44: far above the error of an approximate float64 (a few ulps, 2^-51), far below a float32 ulp (2^-23). */
const NEAR = 1 / 17592186044416;

/**
 * The float32 of a value known to within a few float64 ulps, or NaN when that is not enough to
 * tell (the value lies within 2^-44 of a rounding boundary between two float32s, or is tiny).
 */
function float32Near(x: number): number {
  const f = Math.fround(x);
  if (Math.fround(x * (1 + NEAR)) !== f || Math.fround(x * (1 - NEAR)) !== f || !(x > 1e-37)) return NaN;
  return f;
}

/** separator(): the array's `]` was read. */
const CLOSED = -2;
/** separator(): something other than a comma or `]` follows a number. */
const NOT_PLAIN = -1;

export class NumberArrayScanner extends JsonScanner {
  readonly numberArrays: NumbersNode[] = [];
  arena: Float32Array;
  /** Numbers written to the arena. */
  private n = 0;
  /** The exponent exponent() read last. */
  private exp = 0;

  constructor(src: Source) {
    super(src);
    // A weight file spends about 8 characters or more per number ("-0.0123, "); denser text makes
    // the arena grow (doubling). Allocating the worst case, 2 characters per number, costs ~5% of
    // the whole parse in allocation alone.
    this.arena = new Float32Array((this.len >> 3) + 16);
  }

  /**
   * The hot loop: numbers and separators only, the number scan written out inline with the cursor
   * in local variables (a call and a result object per number cost half the speed). Returns null
   * to fall back at anything else: the slow path then reports it with its position.
   */
  protected parseNumbers(start: number): NumbersNode | null {
    const t = this.b;
    let arena = this.arena;
    const offset = this.n;
    let n = offset;
    let pos = this.pos;
    let c = t[pos];
    for (;;) {
      const numStart = pos;
      let neg = false;
      if (c === MINUS) {
        neg = true;
        c = t[++pos];
      }
      // The digits, integer part and fraction, as one mantissa in int32 arithmetic (a chain of
      // integer multiply-adds is ~5% faster than float64's); exact up to 9 digits, and a longer
      // number's mantissa is read again in float64 (exact below 2^53: see below).
      let mi = 0;
      let exp10 = 0;
      // Digits as d = byte − '0', tested with one unsigned compare ((d >>> 0) <= 9, 11% faster
      // than two); `| 0` turns a read past the end (undefined) into 0, which ends a run.
      let d = (c | 0) - ZERO;
      if (d === 0) {
        d = (t[++pos] | 0) - ZERO;
        if (d >>> 0 <= 9) return null; // a leading zero: the slow path says so
      } else if (d >>> 0 <= 9) {
        do {
          mi = (mi * 10 + d) | 0;
          d = (t[++pos] | 0) - ZERO;
        } while (d >>> 0 <= 9);
      } else {
        return null; // "-Infinity", "-" alone, a string, a nested array…
      }
      if (d === DOT - ZERO) {
        const fracStart = pos + 1;
        d = (t[++pos] | 0) - ZERO;
        if (d >>> 0 > 9) return null;
        do {
          mi = (mi * 10 + d) | 0;
          d = (t[++pos] | 0) - ZERO;
        } while (d >>> 0 <= 9);
        exp10 = fracStart - pos;
      }
      // (the run's length without the sign and the dot)
      const digits = pos - numStart - (neg ? 1 : 0) - (exp10 < 0 ? 1 : 0);
      const mant = digits <= 9 ? mi : this.mantissa(neg ? numStart + 1 : numStart, pos);
      c = t[pos];
      if (c === LOWER_E || c === UPPER_E) {
        pos = this.exponent(pos);
        if (pos < 0) return null;
        exp10 += this.exp;
        c = t[pos];
      }
      let v: number;
      // A mantissa below 2^53 was accumulated exactly (it only grew), and one multiply or divide
      // by an exact power of ten is correctly rounded, as Number() is. A longer one (17 digits,
      // as Python prints a float32 weight) is off by a few float64 ulps: its float32 is still
      // certain unless it lies next to a float32 rounding boundary (float32Near). Else Number().
      if (mant < TWO53 && exp10 >= -22 && exp10 <= 22) v = exp10 < 0 ? mant / POW10[-exp10] : mant * POW10[exp10];
      else v = this.longNumber(mant, digits, exp10, neg ? numStart + 1 : numStart, pos);
      if (v >= FLOAT32_OVERFLOW) return null;
      if (n === arena.length) arena = this.grow(n);
      arena[n++] = neg ? -v : v;
      if (c === COMMA && t[pos + 1] === SPACE) { // the usual separator, ", ", in one step
        const next = t[pos + 2];
        if (next === MINUS || (next >= ZERO && next <= NINE)) {
          c = next;
          pos += 2;
          continue;
        }
      }
      pos = this.separator(pos);
      if (pos === CLOSED) return this.numbersNode(start, offset, n);
      if (pos === NOT_PLAIN) return null;
      c = t[pos];
    }
  }

  /** The exponent of a number, from its e or E at `pos`: the offset after it (the value in this.exp), or -1 without a digit. */
  private exponent(pos: number): number {
    const t = this.b;
    let c = t[++pos];
    let eneg = false;
    if (c === PLUS || c === MINUS) {
      eneg = c === MINUS;
      c = t[++pos];
    }
    if (!(c >= ZERO && c <= NINE)) return -1;
    let e = 0;
    do {
      if (e < 100000) e = e * 10 + (c - ZERO);
      c = t[++pos];
    } while (c >= ZERO && c <= NINE);
    this.exp = eneg ? -e : e;
    return pos;
  }

  /**
   * After a number at `pos` (the loop takes ", " itself): whitespace and comments, then a comma
   * (→ where the next item starts) or the `]` (→ CLOSED, this.pos past it); else NOT_PLAIN.
   */
  private separator(pos: number): number {
    const t = this.b;
    let c = t[pos];
    if (c !== COMMA) { // usually a comma follows at once: "1.5, 2.5"
      while (c === SPACE || c === LF || c === CR || c === TAB) c = t[++pos];
      if (c === SLASH) c = t[(pos = this.skipTriviaFrom(pos))];
    }
    if (c === COMMA) {
      c = t[++pos];
      while (c === SPACE || c === LF || c === CR || c === TAB) c = t[++pos];
      if (c === SLASH) c = t[(pos = this.skipTriviaFrom(pos))];
      if (c !== RBRACKET) return pos;
      // (a trailing comma)
    }
    if (c !== RBRACKET) return NOT_PLAIN;
    this.pos = pos + 1;
    return CLOSED;
  }

  /** Whitespace and comments skipped from `pos` (skipTrivia's, which reports an unclosed comment): where they end. */
  private skipTriviaFrom(pos: number): number {
    this.pos = pos;
    this.skipTrivia();
    return this.pos;
  }

  /** The magnitude of a number the fast case does not cover (see parseNumbers), its text [a, b). */
  private longNumber(mant: number, digits: number, exp10: number, a: number, b: number): number {
    if (digits <= 19 && exp10 >= -22 && exp10 <= 22) {
      const v = float32Near(exp10 < 0 ? mant / POW10[-exp10] : mant * POW10[exp10]);
      if (v === v) return v;
    }
    return Math.abs(Number(this.slice(a, b)));
  }

  /** The digits of [a, b) (a dot skipped) as a float64 mantissa: numbers of more than 9 digits. */
  private mantissa(a: number, b: number): number {
    const t = this.b;
    let m = 0;
    for (let i = a; i < b; i++) if (t[i] !== DOT) m = m * 10 + (t[i] - ZERO);
    return m;
  }

  /** A larger arena holding the `n` numbers so far (views into it are taken only once parsing ends). */
  private grow(n: number): Float32Array {
    const bigger = new Float32Array(Math.min(Math.max(2 * this.arena.length, 1024), (this.len >> 1) + 2));
    bigger.set(this.arena.subarray(0, n));
    this.arena = bigger;
    return bigger;
  }

  private numbersNode(start: number, offset: number, n: number): NumbersNode {
    this.n = n;
    const node: NumbersNode = { kind: 'numbers', offset, length: n - offset, start, end: this.pos };
    this.numberArrays.push(node);
    return node;
  }
}
