// One JSON number, scanned from bytes and rounded exactly as JSON.parse then Math.fround would: a
// decimal mantissa below 2^53 with a power of ten up to 22 is converted with one exact multiply or
// divide (correctly rounded in float64), anything else goes through Number().

import * as jsonChars from './jsonChars';

// (module constants, not imports read where used: the per-file build the tests run reads an
// imported name through a getter each time, which costs the byte loops several times their speed)
const { DOT, LOWER_E, MINUS, NINE, PLUS, UPPER_E, ZERO } = jsonChars;

export const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
  1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];
export const TWO53 = 9007199254740992;
/** Smallest float64 that Math.fround rounds to Infinity. */
export const FLOAT32_OVERFLOW = 3.4028235677973366e38;

/** A number scanned: its value and the offset after it, or an error message. */
export interface NumberScan { value: number; end: number; error: string | null }

/**
 * Scans one JSON number starting at `pos` (which holds '-' or a digit). Leaves the offset after
 * it in `out.end` and the value in `out.value`, or an error message in `out.error`.
 */
export function scanNumber(text: Uint8Array, pos: number, out: NumberScan, slice: (a: number, b: number) => string): void {
  const start = pos;
  const len = text.length;
  let c = text[pos];
  let neg = false;
  if (c === MINUS) {
    neg = true;
    c = text[++pos];
  }
  let mant = 0;
  let exact = true;
  let exp10 = 0;
  out.error = null;
  if (c === ZERO) {
    c = text[++pos];
    if (c >= ZERO && c <= NINE) {
      while (pos < len && c >= ZERO && c <= NINE) c = text[++pos];
      out.error = 'a number may not start with 0 followed by more digits';
    }
  } else if (c > ZERO && c <= NINE) {
    do {
      if (mant < 9e14) mant = mant * 10 + (c - ZERO);
      else exact = false;
      c = text[++pos];
    } while (c >= ZERO && c <= NINE);
  } else {
    out.error = 'expected a digit after the minus sign';
  }
  if (c === DOT) {
    c = text[++pos];
    if (!(c >= ZERO && c <= NINE)) out.error ??= 'expected a digit after the decimal point';
    while (c >= ZERO && c <= NINE) {
      if (mant < 9e14) {
        mant = mant * 10 + (c - ZERO);
        exp10--;
      } else if (c !== ZERO) exact = false;
      c = text[++pos];
    }
  }
  if (c === LOWER_E || c === UPPER_E) {
    c = text[++pos];
    let eneg = false;
    if (c === PLUS || c === MINUS) {
      eneg = c === MINUS;
      c = text[++pos];
    }
    if (!(c >= ZERO && c <= NINE)) out.error ??= 'expected a digit in the exponent';
    let e = 0;
    while (c >= ZERO && c <= NINE) {
      if (e < 100000) e = e * 10 + (c - ZERO);
      c = text[++pos];
    }
    exp10 += eneg ? -e : e;
  }
  out.end = pos;
  if (out.error !== null) {
    out.value = NaN;
    return;
  }
  let v: number;
  if (exact && mant < TWO53 && exp10 >= -22 && exp10 <= 22) v = exp10 < 0 ? mant / POW10[-exp10] : mant * POW10[exp10];
  else v = Math.abs(Number(slice(neg ? start + 1 : start, pos)));
  out.value = neg ? -v : v;
}
