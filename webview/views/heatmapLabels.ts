// A heatmap's labels (heatmapView.ts): its rows named by token (every few, with their index, when
// rows are thin), its columns by word where words fit (set at an angle when wider than their
// column), else by index ticks at a round step.
import { h } from '../dom';
import { indexTickStep } from '../heatmap';
import type { HeatmapSpec } from './heatmapSpec';

let measure: CanvasRenderingContext2D | null | undefined;

/** Rows named every this many: each while rows are at least 12 px tall. */
export function rowLabelStep(cssH: number, rows: number): number {
  return Math.max(1, Math.ceil(12 / (cssH / rows)));
}

/** `indexed`: every few rows are named, each with its index in front. */
export function rowLabelWidth(s: HeatmapSpec, indexed: boolean): number {
  const longest = s.rowLabels.reduce((m, l) => Math.max(m, l.length), 1) + (indexed ? String(s.rows - 1).length + 1 : 0);
  return Math.min(indexed ? 150 : 120, 12 + longest * 7);
}

/**
 * Rows: every token while rows are at least 12px tall, else an even subset (`none`: a small
 * multiple that is not the first of its row names none).
 */
export function drawRowLabels(el: HTMLElement, s: HeatmapSpec, cssH: number, none: boolean): void {
  el.replaceChildren();
  if (none) {
    el.style.width = '0px';
    return;
  }
  el.style.height = `${cssH}px`;
  const rowH = cssH / s.rows;
  const rowStep = rowLabelStep(cssH, s.rows);
  // (every few rows named: each with its index, or a repeating input reads "#1 #1 #1…")
  const indexed = rowStep > 1 && s.rowLabels.length > 0;
  el.style.width = `${rowLabelWidth(s, indexed)}px`;
  for (let i = 0; i < s.rows; i += rowStep) {
    const text = s.rowLabels[i] === undefined ? String(i) : indexed ? `${i} ${s.rowLabels[i]}` : s.rowLabels[i];
    const l = h('span', { class: 'hm-row-label', title: s.rowLabels[i] ?? '' }, text);
    l.style.top = `${(i + 0.5) * rowH}px`;
    el.append(l);
  }
}

/**
 * Columns: words when they fit, else index ticks at a round step (`small`, a small multiple: words
 * or nothing, so the keys of an attention head still read under it; no axis name).
 */
export function drawColLabels(el: HTMLElement, s: HeatmapSpec, cssW: number, small: boolean): void {
  el.replaceChildren();
  const colW = cssW / s.cols;
  const words = s.colLabels && colW >= 12;
  el.hidden = small && !words;
  if (el.hidden) return;
  el.style.width = `${cssW}px`;
  // Words wider than their column (measured in the labels' font) are set at an angle, so
  // neighbours never run into each other.
  const shortText = (full: string): string => (full.length > 14 ? `${full.slice(0, 13)}…` : full);
  const widest = words ? widestLabel(el, s.colLabels!.map(shortText)) : 0;
  const angled = words && widest > colW - 4;
  el.classList.toggle('hm-cols-angled', !!angled);
  el.style.height = angled ? `${Math.round(widest * 0.65 + 16)}px` : '';
  if (s.colsOf && !words) {
    // (ticks in the stage's own columns: word 10000, not pooled column 204)
    const of = s.colsOf;
    for (let j = 0, step = indexTickStep(of, cssW); j < of; j += step) {
      const l = h('span', { class: 'hm-col-label', title: `${s.colAxis} ${j}` }, String(j));
      placeTick(l, ((j + 0.5) * cssW) / of, cssW);
      el.append(l);
    }
  } else {
    const step = words ? 1 : indexTickStep(s.cols, cssW);
    for (let j = 0; j < s.cols; j += step) {
      const full = words ? s.colLabels![j] : String(j);
      const text = words ? shortText(full) : full;
      const l = h('span', { class: words ? 'hm-col-label hm-col-word' : 'hm-col-label', title: s.colLabels?.[j] ?? `${s.colAxis} ${j}` }, text);
      if (words) l.style.left = `${(j + 0.5) * colW}px`;
      else placeTick(l, (j + 0.5) * colW, cssW);
      el.append(l);
    }
  }
  if (!small) el.append(h('span', { class: 'hm-axis-name' }, s.colAxis));
}

/** The width in px of the widest of these column words, as a label in `el` draws them. */
function widestLabel(el: HTMLElement, texts: readonly string[]): number {
  const probe = h('span', { class: 'hm-col-label hm-col-word' });
  el.append(probe);
  // (not .font: Chromium leaves that shorthand empty when font-variant-numeric is set)
  const cs = getComputedStyle(probe);
  const font = cs.fontSize && cs.fontFamily ? `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}` : '';
  probe.remove();
  measure ??= document.createElement('canvas').getContext('2d');
  if (!measure || !font) return texts.reduce((m, t) => Math.max(m, t.length * 7), 0);
  measure.font = font;
  return texts.reduce((m, t) => Math.max(m, measure!.measureText(t).width), 0);
}

/**
 * A number under a column, centred on it, but kept inside the heatmap's width: a tick near the
 * right end (50000 of GPT-2's 50,257 words) ends at the edge, clear of the axis name beyond it.
 */
function placeTick(label: HTMLElement, x: number, width: number): void {
  const half = (label.textContent ?? '').length * 3.5; // (a digit is ~7 px at the labels' size)
  if (x + half > width) {
    label.style.left = `${width}px`;
    label.style.transform = 'translateX(-100%)';
  } else if (x - half < 0) {
    label.style.left = '0px';
    label.style.transform = 'none';
  } else label.style.left = `${x}px`;
}
