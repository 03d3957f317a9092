// Draws a heatmap on a canvas: one pixel per (pooled) cell via ImageData; the caller sizes the canvas
// with CSS and the browser scales it up without smoothing (image-rendering: pixelated). Never one
// DOM or chart element per cell.

import type { Matrix } from '../../src/common/pool';
import { ensureRange } from './range';
import { type CellHit, type FillOptions, type HeatmapInfo, type HeatmapOptions, type PaintOptions, cellAt, fillRGBA, layoutHeatmap } from './render';

/** Class added to every heatmap canvas (heatmap.css styles it: pixelated scaling, hatch behind masked cells). */
export const HEATMAP_CANVAS_CLASS = 'ffn-heatmap';

// One ImageData per canvas, reused while the size stays the same (redraws on slider moves etc.).
const images = new WeakMap<HTMLCanvasElement, ImageData>();

/**
 * Draws m on canvas and returns what was drawn (pooling, block mapping, range) for tooltips/legends.
 * Sets canvas.width/height to the (pooled) matrix size only when it changes (which clears the canvas),
 * adds the class HEATMAP_CANVAS_CLASS, and sets image-rendering: pixelated inline unless the element
 * already has an inline image-rendering. Same as paintHeatmap(canvas, layoutHeatmap(m, opts), opts).
 */
export function drawHeatmap(canvas: HTMLCanvasElement, m: Matrix, opts: HeatmapOptions): HeatmapInfo {
  return paintHeatmap(canvas, layoutHeatmap(m, opts), opts);
}

/**
 * Paints an already pooled heatmap (from drawHeatmap or layoutHeatmap) with a colormap and range:
 * use it when only those change, to skip pooling a big matrix again. Returns info with them updated.
 */
export function paintHeatmap(canvas: HTMLCanvasElement, info: HeatmapInfo, opts: PaintOptions): HeatmapInfo {
  const painted: HeatmapInfo = { ...info, colormap: opts.colormap, range: ensureRange(opts.range[0], opts.range[1]) };
  canvas.classList.add(HEATMAP_CANVAS_CLASS);
  if (!canvas.style.imageRendering) canvas.style.imageRendering = 'pixelated';
  if (info.rows === 0 || info.cols === 0) {
    canvas.width = 0;
    canvas.height = 0;
    images.delete(canvas);
    return painted;
  }
  if (canvas.width !== info.cols) canvas.width = info.cols;
  if (canvas.height !== info.rows) canvas.height = info.rows;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('paintHeatmap: no 2d context for the canvas');
  let img = images.get(canvas);
  if (!img || img.width !== info.cols || img.height !== info.rows) {
    img = ctx.createImageData(info.cols, info.rows);
    images.set(canvas, img);
  }
  const fill: FillOptions = { colormap: opts.colormap, range: painted.range };
  if (opts.backdrop) fill.backdrop = opts.backdrop;
  if (info.mask) fill.mask = info.mask;
  if (opts.maskColor) fill.maskColor = opts.maskColor;
  if (opts.invalidColor) fill.invalidColor = opts.invalidColor;
  fillRGBA(img.data, info.data, fill);
  // putImageData replaces pixels (alpha included), so transparent masked cells stay transparent.
  ctx.putImageData(img, 0, 0);
  return painted;
}

/**
 * The cell under a mouse event's client point on a canvas drawn by drawHeatmap, or null outside it.
 * Uses the canvas's bounding box, so keep padding and borders off the canvas itself (put them on a
 * wrapper) and do not use object-fit other than the default 'fill'.
 */
export function cellAtClientPoint(info: HeatmapInfo, canvas: HTMLCanvasElement, clientX: number, clientY: number): CellHit | null {
  const r = canvas.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return null;
  return cellAt(info, (clientX - r.left) / r.width, (clientY - r.top) / r.height);
}
