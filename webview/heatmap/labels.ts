// The DOM-free part of the legend and the axes: tick labels, value formatting, gradient stops,
// the step between a wide axis' index ticks.

import { type Backdrop, type ColormapName, colorAt, cssRGB } from './colormaps';

export interface LegendTick {
  kind: 'min' | 'zero' | 'max';
  value: number;
  /** Position along the bar, 0 (left, lo) .. 1 (right, hi). */
  fraction: number;
  label: string;
}

export interface LegendOptions {
  colormap: ColormapName;
  /** The theme's kind (a diverging map's centre follows it). Default light. */
  backdrop?: Backdrop;
  range: readonly [number, number];
  /** The range was clipped (percentile): values beyond an end exist and are drawn in the end color. */
  clipped?: { lo?: boolean; hi?: boolean };
  /**
   * Show only this part of the map, as fractions [from, to] of its table: a diverging map over
   * data that is never negative (probabilities) uses its upper half, and the legend says only that.
   */
  part?: readonly [number, number];
}

/** A short label for a legend or tooltip value: 3 significant digits, exponent form outside 1e-3..1e4. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '−∞';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const s = a >= 1e4 || a < 1e-3 ? v.toExponential(2).replace(/\.?0+e/, 'e').replace('e+', 'e') : String(Number(v.toPrecision(3)));
  return s.replace(/-/g, '−');
}

/** The min, 0 (when inside the range) and max labels with their positions along the bar. */
export function legendTicks(opts: LegendOptions): LegendTick[] {
  const [lo, hi] = opts.range;
  const ticks: LegendTick[] = [{ kind: 'min', value: lo, fraction: 0, label: (opts.clipped?.lo ? '≤ ' : '') + formatValue(lo) }];
  if (lo < 0 && hi > 0) ticks.push({ kind: 'zero', value: 0, fraction: -lo / (hi - lo), label: '0' });
  ticks.push({ kind: 'max', value: hi, fraction: 1, label: (opts.clipped?.hi ? '≥ ' : '') + formatValue(hi) });
  return ticks;
}

/** count evenly spaced stops of the map, e.g. for a CSS gradient or an SVG <linearGradient>. */
export function gradientStops(name: ColormapName, count = 17, backdrop: Backdrop = 'light'): { offset: number; color: string }[] {
  const n = Math.max(2, Math.floor(count));
  return Array.from({ length: n }, (_, i) => ({ offset: i / (n - 1), color: cssRGB(colorAt(name, i / (n - 1), backdrop)) }));
}

/** A CSS linear-gradient() of the map (low end first), for a legend that is a plain element. */
export function cssGradient(name: ColormapName, direction = 'to right', count = 17, backdrop: Backdrop = 'light'): string {
  return `linear-gradient(${direction}, ${gradientStops(name, count, backdrop)
    .map((s) => `${s.color} ${(s.offset * 100).toFixed(2)}%`)
    .join(', ')})`;
}

/** Px per digit of an index tick label, with room between neighbours (the labels' 11 px font). */
const DIGIT_PX = 7;
const TICK_GAP_PX = 10;

/**
 * The step between index ticks of n columns drawn px wide: a round number, the ticks at least as
 * far apart as the widest label (the last index's digits) needs, so 1000, 1200, 1400 never run
 * together.
 */
export function indexTickStep(n: number, px: number): number {
  const labelPx = Math.max(1, String(Math.max(0, n - 1)).length) * DIGIT_PX + TICK_GAP_PX;
  const maxTicks = Math.max(2, Math.floor(px / Math.max(22, labelPx)));
  const raw = n / maxTicks;
  for (const s of [1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100, 128, 200, 256, 500, 512, 1000, 1024, 2000, 2048, 5000, 10000]) if (s >= raw) return s;
  return Math.ceil(raw);
}
