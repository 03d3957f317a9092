// The DOM-free half of drawing a heatmap: pooling, filling an RGBA buffer (one pixel per cell) and
// hit-testing. draw.ts puts the result on a canvas; everything here runs in Node too.

import { type Backdrop, type ColormapName, type RGB, LUT_SIZE, lut32, packRGBA } from './colormaps';
import { type MaxCells, type Matrix, type PoolResult, poolMaxAbs } from '../../src/common/pool';
import { type Range, ensureRange } from './range';

/** A solid color, or 'transparent' (alpha 0: whatever is behind the canvas shows through). */
export type CellColor = RGB | 'transparent';

/** NaN and ±Infinity: magenta, which none of the colormaps contains. */
export const DEFAULT_INVALID_COLOR: RGB = [255, 0, 255];
/**
 * Masked cells are transparent by default, so they never look like a value: the canvas's CSS
 * background shows through (heatmap.css gives `.ffn-heatmap` a theme-colored hatch for that).
 */
export const DEFAULT_MASK_COLOR: CellColor = 'transparent';
/** Upper bound on the canvas's intrinsic size when the caller gives no maxCells (browsers cap canvases). */
export const DEFAULT_MAX_CELLS: MaxCells = { rows: 4096, cols: 4096 };

export interface FillOptions {
  colormap: ColormapName;
  /** The theme's kind: a diverging map's centre follows it (colormaps.ts). Default light. */
  backdrop?: Backdrop;
  /** [lo, hi]; a degenerate range is widened as range.ts's ensureRange does. */
  range: readonly [number, number];
  /** 1 = masked: drawn in maskColor, never as a value. Same length as the data. */
  mask?: ArrayLike<number>;
  maskColor?: CellColor;
  invalidColor?: CellColor;
}

/** FillOptions without the mask: what a repaint of an already pooled heatmap (which carries its mask) needs. */
export type PaintOptions = Omit<FillOptions, 'mask'>;

export interface HeatmapOptions extends FillOptions {
  /** Pool (max-|v|, see pool.ts) down to at most this many cells. Default DEFAULT_MAX_CELLS. */
  maxCells?: MaxCells;
}

/** What was drawn: the pooled matrix and its block mapping (see PoolResult), plus the map and range used. */
export interface HeatmapInfo extends PoolResult {
  readonly colormap: ColormapName;
  /** The range actually used (after widening a degenerate one). */
  readonly range: Range;
}

function packColor(c: CellColor): number {
  return c === 'transparent' ? 0 : packRGBA(c[0], c[1], c[2], 255);
}

function fillPacked(out: Uint32Array, data: ArrayLike<number>, n: number, opts: FillOptions): void {
  const [lo, hi] = ensureRange(opts.range[0], opts.range[1]);
  const scale = LUT_SIZE / (hi - lo);
  const top = LUT_SIZE - 1;
  const table = lut32(opts.colormap, opts.backdrop);
  const invalidPx = packColor(opts.invalidColor ?? DEFAULT_INVALID_COLOR);
  const mask = opts.mask;
  if (!mask) {
    for (let i = 0; i < n; i++) {
      const v = data[i]!;
      if (v - v !== 0) {
        out[i] = invalidPx; // NaN, ±Infinity
        continue;
      }
      const f = (v - lo) * scale;
      out[i] = table[f <= 0 ? 0 : f >= top ? top : f | 0]!;
    }
    return;
  }
  const maskPx = packColor(opts.maskColor ?? DEFAULT_MASK_COLOR);
  for (let i = 0; i < n; i++) {
    if (mask[i]) {
      out[i] = maskPx;
      continue;
    }
    const v = data[i]!;
    if (v - v !== 0) {
      out[i] = invalidPx;
      continue;
    }
    const f = (v - lo) * scale;
    out[i] = table[f <= 0 ? 0 : f >= top ? top : f | 0]!;
  }
}

/**
 * Writes one RGBA pixel per value into target (row-major, 4 bytes per value, e.g. ImageData.data):
 * the colormap's entry for the value (see colormaps.valueToIndex), maskColor for masked cells,
 * invalidColor for NaN / ±Infinity. Colormap pixels and solid colors have alpha 255.
 */
export function fillRGBA(target: Uint8ClampedArray, data: ArrayLike<number>, opts: FillOptions): void {
  const n = data.length;
  if (target.length < n * 4) throw new RangeError(`target has room for ${target.length / 4} pixels, data has ${n} values`);
  if (opts.mask && opts.mask.length < n) throw new RangeError(`mask has ${opts.mask.length} entries, data has ${n} values`);
  if (target.byteOffset % 4 === 0) {
    fillPacked(new Uint32Array(target.buffer, target.byteOffset, n), data, n, opts);
  } else {
    const tmp = new Uint32Array(n);
    fillPacked(tmp, data, n, opts);
    target.set(new Uint8Array(tmp.buffer), 0);
  }
}

/** Pools m for drawing (see pool.ts) and records the map and range; no pixels yet. */
export function layoutHeatmap(m: Matrix, opts: HeatmapOptions): HeatmapInfo {
  const p = poolMaxAbs(m, opts.maxCells ?? DEFAULT_MAX_CELLS, opts.mask);
  return { ...p, colormap: opts.colormap, range: ensureRange(opts.range[0], opts.range[1]) };
}

/** Everything drawHeatmap does except touching a canvas: rgba holds info.cols x info.rows pixels. */
export function renderToRGBA(m: Matrix, opts: HeatmapOptions): { rgba: Uint8ClampedArray; info: HeatmapInfo } {
  const info = layoutHeatmap(m, opts);
  const rgba = new Uint8ClampedArray(info.rows * info.cols * 4);
  fillRGBA(rgba, info.data, { ...opts, range: info.range, ...(info.mask ? { mask: info.mask } : {}) });
  return { rgba, info };
}

export interface CellHit {
  /** The drawn (pooled) cell. */
  row: number;
  col: number;
  /** The source rows [rowStart, rowEnd) and cols [colStart, colEnd) that cell covers. */
  rowStart: number;
  rowEnd: number;
  colStart: number;
  colEnd: number;
  /** The source cell whose value the drawn cell shows (its block's max-|v|; the cell itself when not pooled). */
  sourceRow: number;
  sourceCol: number;
  value: number;
  masked: boolean;
  /** NaN or ±Infinity. */
  invalid: boolean;
}

/**
 * The cell under a point given as fractions of the drawn heatmap's width and height (0..1, e.g.
 * offsetX / clientWidth). 1 counts as the last cell; outside 0..1 (or NaN) gives null.
 */
export function cellAt(info: HeatmapInfo, xFraction: number, yFraction: number): CellHit | null {
  if (!(xFraction >= 0 && xFraction <= 1 && yFraction >= 0 && yFraction <= 1) || info.rows === 0 || info.cols === 0) return null;
  const col = Math.min(info.cols - 1, Math.floor(xFraction * info.cols));
  const row = Math.min(info.rows - 1, Math.floor(yFraction * info.rows));
  const k = row * info.cols + col;
  const src = info.source ? info.source[k]! : k;
  const value = info.data[k]!;
  return {
    row,
    col,
    rowStart: info.rowStart[row]!,
    rowEnd: info.rowEnd[row]!,
    colStart: info.colStart[col]!,
    colEnd: info.colEnd[col]!,
    sourceRow: Math.floor(src / info.sourceCols),
    sourceCol: src % info.sourceCols,
    value,
    masked: !!info.mask?.[k],
    invalid: !Number.isFinite(value),
  };
}
