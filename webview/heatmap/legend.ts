// Color legend: a gradient bar (a 256 x 1 canvas holding the colormap's exact table, stretched by CSS)
// with min / 0 / max labels as DOM text under it. Theme colors come from CSS (heatmap.css) through
// the class names below; this file sets only layout styles inline (CSSOM, so the webview's CSP allows it).
//
//   <div class="ffn-legend [ffn-legend-diverging]">
//     <canvas class="ffn-legend-bar" width="256" height="1">
//     <div class="ffn-legend-labels">
//       <span class="ffn-legend-label ffn-legend-min">-1.5</span>
//       <span class="ffn-legend-label ffn-legend-zero">0</span>      (only when lo < 0 < hi)
//       <span class="ffn-legend-label ffn-legend-max">1.5</span>
//
// A clipped end (percentile range) is labelled '≤ lo' / '≥ hi'.

import { type Backdrop, type ColormapName, LUT_SIZE, isDiverging, lut } from './colormaps';
import { type LegendOptions, formatValue, legendTicks } from './labels';

/** Paints the map's table into a canvas, LUT_SIZE x 1 (stretch it with CSS). */
export function drawColorbar(canvas: HTMLCanvasElement, name: ColormapName, part: readonly [number, number] = [0, 1], backdrop: Backdrop = 'light'): void {
  const a = Math.round(part[0] * LUT_SIZE);
  const b = Math.max(a + 1, Math.round(part[1] * LUT_SIZE));
  if (canvas.width !== b - a) canvas.width = b - a;
  if (canvas.height !== 1) canvas.height = 1;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const img = ctx.createImageData(b - a, 1);
  img.data.set(lut(name, backdrop).subarray(a * 4, b * 4));
  ctx.putImageData(img, 0, 0);
}

/**
 * Builds (or rebuilds) the legend inside container, replacing its children. Returns the legend element.
 * The legend (and its bar) fills the container's width: size the container.
 */
export function drawLegend(container: HTMLElement, opts: LegendOptions): HTMLElement {
  const doc = container.ownerDocument;
  const root = doc.createElement('div');
  root.className = 'ffn-legend';
  root.classList.toggle('ffn-legend-diverging', isDiverging(opts.colormap));

  const bar = doc.createElement('canvas');
  bar.className = 'ffn-legend-bar';
  bar.style.display = 'block';
  bar.style.width = '100%';
  drawColorbar(bar, opts.colormap, opts.part, opts.backdrop);
  bar.setAttribute('role', 'img');
  bar.setAttribute('aria-label', `color scale ${opts.colormap} from ${formatValue(opts.range[0])} to ${formatValue(opts.range[1])}`);

  const labels = doc.createElement('div');
  labels.className = 'ffn-legend-labels';
  labels.style.position = 'relative';
  labels.style.height = '1.4em';
  for (const t of legendTicks(opts)) {
    const span = doc.createElement('span');
    span.className = `ffn-legend-label ffn-legend-${t.kind}`;
    span.textContent = t.label;
    span.style.position = 'absolute';
    span.style.whiteSpace = 'nowrap';
    span.style.left = `${(t.fraction * 100).toFixed(3)}%`;
    // Ends align inward so they stay inside the bar's width; 0 is centered on its position.
    span.style.transform = t.kind === 'min' ? 'none' : t.kind === 'max' ? 'translateX(-100%)' : 'translateX(-50%)';
    labels.append(span);
  }
  root.append(bar, labels);
  container.replaceChildren(root);
  return root;
}
