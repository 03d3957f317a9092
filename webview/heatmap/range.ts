// Value ranges for the color scale.
//
// Rules shared by every function here:
// - NaN and ±Infinity are ignored (they are drawn in the invalid color, not from the map).
// - Masked cells (mask[i] = 1, e.g. causal attention above the diagonal) are ignored too, so a
//   -1e9 "minus infinity" fill does not wash out the scale.
// - A range is never 0 wide: data with no valid value, or all zeros, gives [-1, 1]; data where every
//   valid value is the same c != 0 gives [c - |c|, c + |c|] (symmetric: [-|c|, |c|]). So a constant
//   matrix draws in one mid color instead of dividing by zero.
//
// `Range` is a plain [lo, hi] pair with lo < hi, both finite.

import { type ColormapName, isDiverging } from './colormaps';

export type Range = [lo: number, hi: number];
export type Mask = ArrayLike<number>;

/** Widen a degenerate range (see the rules above). Non-finite ends give [-1, 1]. */
export function ensureRange(lo: number, hi: number): Range {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [-1, 1];
  if (lo > hi) [lo, hi] = [hi, lo];
  // Also catches widths so small that 256 / width overflows.
  if (hi > lo && Number.isFinite(256 / (hi - lo))) return [lo, hi];
  const c = (lo + hi) / 2;
  const w = Math.abs(c);
  return w > 0 && Number.isFinite(256 / w) ? [c - w, c + w] : [-1, 1];
}

function symmetricOf(m: number): Range {
  return m > 0 && Number.isFinite(256 / m) ? [-m, m] : [-1, 1];
}

/** [-m, m] with m = max |v| over valid cells; the default for diverging maps (0 gets the center color). */
export function symmetricRange(data: ArrayLike<number>, mask?: Mask): Range {
  let m = 0;
  const n = data.length;
  if (!mask) {
    for (let i = 0; i < n; i++) {
      const v = data[i]!;
      const a = v < 0 ? -v : v;
      if (a > m && a !== Infinity) m = a; // NaN compares false
    }
  } else {
    for (let i = 0; i < n; i++) {
      if (mask[i]) continue;
      const v = data[i]!;
      const a = v < 0 ? -v : v;
      if (a > m && a !== Infinity) m = a;
    }
  }
  return symmetricOf(m);
}

/** [min, max] over valid cells. */
export function minMaxRange(data: ArrayLike<number>, mask?: Mask): Range {
  let lo = Infinity;
  let hi = -Infinity;
  const n = data.length;
  for (let i = 0; i < n; i++) {
    const v = data[i]!;
    if (v - v !== 0 || (mask !== undefined && mask[i])) continue; // NaN, ±Infinity, masked
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo > hi ? [-1, 1] : ensureRange(lo, hi);
}

// ---- percentiles -------------------------------------------------------------------------------

/** Above this many valid values, percentileRange works on an evenly strided sample of this size. */
export const PERCENTILE_SAMPLE_LIMIT = 1 << 18; // 262144

let scratch = new Float64Array(0);
function scratchOf(n: number): Float64Array {
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  return scratch;
}

/** Rearranges a[left..right] so that a[k] is the value a sort would put there (Hoare partitioning, median of three). */
function select(a: Float64Array, k: number, left: number, right: number): void {
  while (right > left) {
    const mid = (left + right) >>> 1;
    // Median of three into a[mid] as the pivot.
    if (a[mid]! < a[left]!) swap(a, mid, left);
    if (a[right]! < a[left]!) swap(a, right, left);
    if (a[right]! < a[mid]!) swap(a, right, mid);
    const pivot = a[mid]!;
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return; // a[j+1..i-1] all equal the pivot
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

/**
 * The value at fractional rank pos (linear between order statistics floor(pos) and floor(pos) + 1, as
 * numpy's default percentile). a[left..right] must hold exactly the ranks left..right (the whole array,
 * or a part already partitioned by an earlier call). Reorders a[left..right].
 */
function valueAtRank(a: Float64Array, pos: number, left: number, right: number): number {
  const k = Math.floor(pos);
  select(a, k, left, right);
  const v = a[k]!;
  const frac = pos - k;
  if (frac === 0 || k + 1 > right) return v;
  // After select, a[k+1..right] >= a[k]: the next order statistic is their minimum.
  let next = Infinity;
  for (let i = k + 1; i <= right; i++) if (a[i]! < next) next = a[i]!;
  return v + (next - v) * frac;
}

/** Copies the valid values (or |v| when abs) into the scratch buffer, strided down to the sample limit. */
function gather(data: ArrayLike<number>, mask: Mask | undefined, abs: boolean): { a: Float64Array; n: number } {
  const len = data.length;
  const stride = len > PERCENTILE_SAMPLE_LIMIT ? len / PERCENTILE_SAMPLE_LIMIT : 1;
  const a = scratchOf(Math.min(len, PERCENTILE_SAMPLE_LIMIT));
  let n = 0;
  const count = stride === 1 ? len : PERCENTILE_SAMPLE_LIMIT;
  for (let s = 0; s < count; s++) {
    const i = stride === 1 ? s : Math.floor(s * stride);
    const v = data[i]!;
    if (v - v !== 0 || (mask && mask[i])) continue;
    a[n++] = abs && v < 0 ? -v : v;
  }
  return { a, n };
}

/**
 * A range that clips the most extreme values so one outlier does not wash out the rest.
 * symmetric: [-m, m] with m = the p-th percentile of |v|; otherwise [the (100-p)-th, the p-th]
 * percentile of v. p is in 0..100 (e.g. 99; values below 50 are treated as 100 - p).
 * O(n) by quickselect on a reused scratch buffer (no sort, no allocation after the first call);
 * for data longer than PERCENTILE_SAMPLE_LIMIT it looks at an evenly strided sample of that many cells.
 * When the clipped range would be 0 wide (e.g. sparse data that is mostly 0), it falls back to the
 * full range (symmetricRange / minMaxRange), then to the rules at the top of this file.
 */
export function percentileRange(data: ArrayLike<number>, p: number, symmetric: boolean, mask?: Mask): Range {
  const full = (): Range => (symmetric ? symmetricRange(data, mask) : minMaxRange(data, mask));
  if (!Number.isFinite(p)) return full();
  const q = Math.min(1, Math.max(0.5, (p < 50 ? 100 - p : p) / 100));
  const { a, n } = gather(data, mask, symmetric);
  if (n === 0) return [-1, 1];
  if (symmetric) {
    const m = valueAtRank(a, q * (n - 1), 0, n - 1);
    return m > 0 && Number.isFinite(256 / m) ? [-m, m] : full();
  }
  const posHi = q * (n - 1);
  const posLo = (1 - q) * (n - 1);
  const hi = valueAtRank(a, posHi, 0, n - 1);
  // After that, a[0..floor(posHi)] holds the smallest values in some order; the low ranks are among them.
  const kHi = Math.floor(posHi);
  const lo = valueAtRank(a, posLo, 0, Math.floor(posLo) < kHi ? kHi : n - 1);
  return hi > lo && Number.isFinite(256 / (hi - lo)) ? [lo, hi] : full();
}

/** The smallest range that holds all given ranges (for one shared scale per stage kind). Invalid ranges are skipped; none gives [-1, 1]. */
export function mergeRanges(ranges: Iterable<readonly [number, number]>): Range {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of ranges) {
    if (!Number.isFinite(r[0]) || !Number.isFinite(r[1])) continue;
    lo = Math.min(lo, r[0], r[1]);
    hi = Math.max(hi, r[0], r[1]);
  }
  return lo > hi ? [-1, 1] : ensureRange(lo, hi);
}

export type RangeMode = 'auto' | 'symmetric' | 'minmax';

/**
 * The range a view should start with: for 'auto', symmetric for a diverging map and min..max for a
 * sequential one. With clipPercentile (e.g. 99) the ends are percentiles instead of extremes.
 */
export function autoRange(
  data: ArrayLike<number>,
  colormap: ColormapName,
  opts: { mode?: RangeMode; clipPercentile?: number; mask?: Mask } = {},
): Range {
  const mode = opts.mode ?? 'auto';
  const symmetric = mode === 'symmetric' || (mode === 'auto' && isDiverging(colormap));
  if (opts.clipPercentile !== undefined && opts.clipPercentile < 100) return percentileRange(data, opts.clipPercentile, symmetric, opts.mask);
  return symmetric ? symmetricRange(data, opts.mask) : minMaxRange(data, opts.mask);
}
