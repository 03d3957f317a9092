// Reduce a rows x cols matrix to at most maxRows x maxCols cells, keeping extremes.
//
// Each output cell is the input value with the largest |v| in its block, sign kept (max-abs pooling),
// so a single large activation stays visible in an overview instead of being averaged away or
// dropped by the browser's nearest-neighbour downscaling. Rules:
// - Blocks split the rows (cols) as evenly as possible: block i covers source rows
//   [rowStart[i], rowEnd[i]) with rowStart[i] = floor(i * rows / outRows); every source row is in
//   exactly one block, and block sizes differ by at most 1.
// - Masked source cells (mask[k] = 1) are skipped, unless the whole block is masked: then the output
//   cell is masked and holds the max-|v| of the masked values.
// - NaN beats everything and ±Infinity beats every finite value, so invalid values stay visible.
// - Ties in |v| (e.g. +3 and -3) keep the first in row-major order.

export interface Matrix {
  /** Row-major values, length rows * cols. */
  readonly data: ArrayLike<number>;
  readonly rows: number;
  readonly cols: number;
}

export interface MaxCells {
  readonly rows: number;
  readonly cols: number;
}

export interface PoolResult {
  /** Row-major pooled values, length rows * cols. The input array itself when not pooled. */
  readonly data: ArrayLike<number>;
  readonly rows: number;
  readonly cols: number;
  /** Output mask (1 = whole block masked); the input mask itself when not pooled; absent without a mask. */
  readonly mask?: ArrayLike<number>;
  /** The input's size. */
  readonly sourceRows: number;
  readonly sourceCols: number;
  /** Output row i covers source rows [rowStart[i], rowEnd[i]); likewise for columns. */
  readonly rowStart: Uint32Array;
  readonly rowEnd: Uint32Array;
  readonly colStart: Uint32Array;
  readonly colEnd: Uint32Array;
  /** Flat source index (row * sourceCols + col) of the value each output cell shows; absent when not pooled (identity). */
  readonly source?: Uint32Array;
  /** True when the output is smaller than the input. */
  readonly pooled: boolean;
}

function blockEdges(n: number, out: number): { start: Uint32Array; end: Uint32Array } {
  const start = new Uint32Array(out);
  const end = new Uint32Array(out);
  for (let i = 0; i < out; i++) {
    start[i] = Math.floor((i * n) / out);
    end[i] = Math.floor(((i + 1) * n) / out);
  }
  return { start, end };
}

function checkMatrix(m: Matrix, mask?: ArrayLike<number>): void {
  if (!Number.isInteger(m.rows) || !Number.isInteger(m.cols) || m.rows < 0 || m.cols < 0) {
    throw new RangeError(`bad matrix size ${m.rows} x ${m.cols}`);
  }
  if (m.data.length < m.rows * m.cols) throw new RangeError(`matrix data has ${m.data.length} values, ${m.rows} x ${m.cols} needs ${m.rows * m.cols}`);
  if (mask && mask.length < m.rows * m.cols) throw new RangeError(`mask has ${mask.length} entries, ${m.rows} x ${m.cols} needs ${m.rows * m.cols}`);
}

/**
 * Max-|v| pooling of m down to at most max.rows x max.cols (each at least 1). Returns the input
 * unchanged (pooled: false, no copy) when it already fits.
 */
export function poolMaxAbs(m: Matrix, max: MaxCells, mask?: ArrayLike<number>): PoolResult {
  checkMatrix(m, mask);
  const { rows, cols, data } = m;
  const outRows = Math.min(rows, Math.max(1, Math.floor(max.rows)));
  const outCols = Math.min(cols, Math.max(1, Math.floor(max.cols)));
  const r = blockEdges(rows, outRows);
  const c = blockEdges(cols, outCols);
  const base = {
    rows: outRows,
    cols: outCols,
    sourceRows: rows,
    sourceCols: cols,
    rowStart: r.start,
    rowEnd: r.end,
    colStart: c.start,
    colEnd: c.end,
  };
  if (outRows === rows && outCols === cols) {
    return mask ? { ...base, data, mask, pooled: false } : { ...base, data, pooled: false };
  }

  const outData = new Float32Array(outRows * outCols);
  const outMask = mask ? new Uint8Array(outRows * outCols) : undefined;
  const source = new Uint32Array(outRows * outCols);
  const best = bestCells(outCols);
  const masked = bestCells(outCols);
  for (let i = 0; i < outRows; i++) {
    bestOfBlocks(m, mask, r.start[i]!, r.end[i]!, c, best, masked);
    const o = i * outCols;
    for (let j = 0; j < outCols; j++) {
      if (best.abs[j] === -1) {
        // Every cell of the block is masked.
        outData[o + j] = masked.val[j]!;
        source[o + j] = masked.src[j]!;
        outMask![o + j] = 1;
      } else {
        outData[o + j] = best.val[j]!;
        source[o + j] = best.src[j]!;
      }
    }
  }
  return outMask
    ? { ...base, data: outData, mask: outMask, source, pooled: true }
    : { ...base, data: outData, source, pooled: true };
}

/**
 * Per block of an output row: the best |v| so far (-1 = none yet, NaN = a NaN was seen), its value
 * and its source index (one set for the unmasked cells, one for the masked).
 */
interface BestCells { readonly abs: Float64Array; readonly val: Float64Array; readonly src: Uint32Array }

function bestCells(n: number): BestCells {
  return { abs: new Float64Array(n), val: new Float64Array(n), src: new Uint32Array(n) };
}

/** The best cell of each block of one output row (source rows [rowStart, rowEnd)), into best and masked. */
function bestOfBlocks(m: Matrix, mask: ArrayLike<number> | undefined, rowStart: number, rowEnd: number, c: { start: Uint32Array; end: Uint32Array }, best: BestCells, masked: BestCells): void {
  const { cols, data } = m;
  const { start: cStart, end: cEnd } = c;
  const { abs: bestAbs, val: bestVal, src: bestSrc } = best;
  const { abs: mAbs, val: mVal, src: mSrc } = masked;
  const outCols = bestAbs.length;
  bestAbs.fill(-1);
  mAbs.fill(-1);
  for (let sr = rowStart; sr < rowEnd; sr++) {
    const rowBase = sr * cols;
    for (let j = 0; j < outCols; j++) {
      const k0 = rowBase + cStart[j]!;
      const k1 = rowBase + cEnd[j]!;
      // The block's span of this source row, with the best so far in locals (selects, not branches:
      // random data makes the comparison unpredictable, and this runs ~1.5x faster).
      let bA = bestAbs[j]!;
      let bV = bestVal[j]!;
      let bS = bestSrc[j]!;
      if (!mask) {
        for (let k = k0; k < k1; k++) {
          const v = data[k]!;
          const a = Math.abs(v);
          // `a !== a`: NaN wins; once bA is NaN nothing is greater, so it stays.
          const better = a > bA || a !== a;
          bA = better ? a : bA;
          bV = better ? v : bV;
          bS = better ? k : bS;
        }
      } else {
        let mA = mAbs[j]!;
        let mV = mVal[j]!;
        let mS = mSrc[j]!;
        for (let k = k0; k < k1; k++) {
          const v = data[k]!;
          const a = Math.abs(v);
          if (mask[k]) {
            const better = a > mA || a !== a;
            mA = better ? a : mA;
            mV = better ? v : mV;
            mS = better ? k : mS;
          } else {
            const better = a > bA || a !== a;
            bA = better ? a : bA;
            bV = better ? v : bV;
            bS = better ? k : bS;
          }
        }
        mAbs[j] = mA;
        mVal[j] = mV;
        mSrc[j] = mS;
      }
      bestAbs[j] = bA;
      bestVal[j] = bV;
      bestSrc[j] = bS;
    }
  }
}

/** The output block index that source index s (0..n-1) falls into, for n source rows (cols) split into out blocks. */
export function blockOf(s: number, n: number, out: number): number {
  // s is in block i iff floor(i n / out) <= s < floor((i + 1) n / out)  <=>  i = ceil((s + 1) out / n) - 1.
  return Math.floor(((s + 1) * out + n - 1) / n) - 1;
}

/** The output cell that source cell (row, col) fell into. */
export function pooledCellOf(p: PoolResult, row: number, col: number): { row: number; col: number } {
  return { row: blockOf(row, p.sourceRows, p.rows), col: blockOf(col, p.sourceCols, p.cols) };
}
