// One heatmap on screen: the canvas (one pixel per cell, scaled up without smoothing), row labels
// (tokens), column ticks, a hover tooltip, click-to-reveal and a highlight band. A matrix wider
// or taller than the space it has is pooled to the device pixels available (keeping each block's
// value of largest magnitude), so scaling never drops an extreme, and the card says so.
import { formatFloat32 } from '../../src/util/float32';
import { h } from '../dom';
import { cellAtClientPoint, drawHeatmap, paintHeatmap, type CellHit, type ColormapName, type HeatmapInfo } from '../heatmap';
import { tooltip } from './tooltip';

export interface HeatmapSpec {
  readonly data: Float32Array;
  readonly rows: number;
  readonly cols: number;
  readonly rowLabels: readonly string[];
  /** Words for the columns (keys, vocabulary), or null for indices. */
  readonly colLabels: readonly string[] | null;
  readonly colAxis: string;
  readonly mask?: Uint8Array;
  /** Lines of the tooltip for a cell (row, col of the source matrix). */
  readonly describe: (row: number, col: number, value: number, masked: boolean) => string[];
  readonly onClick?: (row: number, col: number) => void;
  readonly ariaLabel: string;
}

export interface Paint {
  readonly colormap: ColormapName;
  readonly range: readonly [number, number];
  readonly maxRows: number;
  readonly maxCols: number;
}

const MAX_CELL = 28;     // px: small matrices get big, readable cells
const MIN_ROW = 14;      // px per row while labels fit
const MAX_HEIGHT = 420;  // px
const AXIS_NAME_W = 64;  // px

export class HeatmapView {
  readonly el: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly rowLabelsEl: HTMLElement;
  private readonly colLabelsEl: HTMLElement;
  private readonly band: HTMLElement;
  private readonly noteEl: HTMLElement;
  private spec: HeatmapSpec | null = null;
  private info: HeatmapInfo | null = null;
  private drawnFor = '';
  private highlight: { axis: 'row' | 'col'; index: number } | null = null;

  /** `small`: a small multiple (no column ticks); `rowLabels`: a small one that names its rows still. */
  constructor(private readonly small = false, private readonly rowLabels = false) {
    this.canvas = h('canvas', { class: 'hm-canvas', tabindex: 0, role: 'img' });
    this.rowLabelsEl = h('div', { class: 'hm-rows', 'aria-hidden': 'true' });
    this.colLabelsEl = h('div', { class: 'hm-cols', 'aria-hidden': 'true' });
    this.band = h('div', { class: 'hm-band', hidden: true });
    this.noteEl = h('div', { class: 'hm-note' });
    const plot = h('div', { class: 'hm-plot' }, this.canvas, this.band);
    this.el = h('div', { class: small ? (rowLabels ? 'hm hm-small hm-labelled' : 'hm hm-small') : 'hm' },
      h('div', { class: 'hm-grid' }, this.rowLabelsEl, plot, h('div'), this.colLabelsEl),
      this.noteEl);
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => tooltip.hide());
    this.canvas.addEventListener('click', (e) => this.click(e));
  }

  /** The drawn canvas, for tests and screenshots. */
  get canvasElement(): HTMLCanvasElement {
    return this.canvas;
  }

  get drawn(): HeatmapInfo | null {
    return this.info;
  }

  /** New numbers (same or new shape). Drawn by the next paint(). */
  set(spec: HeatmapSpec): void {
    this.spec = spec;
    this.drawnFor = '';
    this.canvas.setAttribute('aria-label', spec.ariaLabel);
  }

  /** Draws with this colormap and range, sized to the width the heatmap has now. */
  paint(p: Paint, availableWidth: number): void {
    const s = this.spec;
    if (!s) return;
    const dpr = window.devicePixelRatio || 1;
    const labelW = this.small && !this.rowLabels ? 0 : this.rowLabelWidth(s);
    // (room at the right for the column axis' name, "neuron", which follows the last tick)
    const width = Math.max(40, availableWidth - labelW - 8 - (this.small ? 0 : AXIS_NAME_W));
    const cellW = Math.min(MAX_CELL, width / s.cols);
    const cssW = Math.max(1, Math.round(cellW * s.cols));
    const rowH = this.small ? Math.min(MAX_CELL, Math.max(2, 160 / s.rows)) : Math.min(MAX_CELL, Math.max(s.rows > 64 ? 2 : MIN_ROW, MAX_HEIGHT / s.rows));
    const cssH = Math.max(1, Math.min(this.small ? 160 : MAX_HEIGHT, Math.round(rowH * s.rows)));
    const maxCols = Math.max(1, Math.min(p.maxCols, Math.floor(cssW * dpr)));
    const maxRows = Math.max(1, Math.min(p.maxRows, Math.floor(cssH * dpr)));
    const key = `${maxRows}x${maxCols}`;
    const opts = { colormap: p.colormap, range: [p.range[0], p.range[1]] as [number, number], maxCells: { rows: maxRows, cols: maxCols } };
    if (this.drawnFor === key && this.info) {
      this.info = paintHeatmap(this.canvas, this.info, opts);
    } else {
      this.info = drawHeatmap(this.canvas, { data: s.data, rows: s.rows, cols: s.cols }, s.mask ? { ...opts, mask: s.mask } : opts);
      this.drawnFor = key;
    }
    this.canvas.style.width = `${cssW}px`;
    this.canvas.style.height = `${cssH}px`;
    this.canvas.dataset.rows = String(s.rows);
    this.canvas.dataset.cols = String(s.cols);
    this.canvas.dataset.rangeLo = String(this.info.range[0]);
    this.canvas.dataset.rangeHi = String(this.info.range[1]);
    this.canvas.dataset.colormap = p.colormap;
    this.noteEl.textContent = this.info.pooled
      ? `Pooled to ${this.info.rows} × ${this.info.cols} (each pixel shows the value of largest magnitude in its block of up to ${Math.ceil(s.rows / this.info.rows)} × ${Math.ceil(s.cols / this.info.cols)} cells).`
      : '';
    if (!this.small || this.rowLabels) this.labels(s, cssW, cssH);
    this.placeBand();
  }

  setHighlight(hl: { axis: 'row' | 'col'; index: number } | null): void {
    this.highlight = hl;
    this.placeBand();
  }

  /** Scrolls the highlighted band into view (the editor's cursor moved onto its neuron). */
  revealHighlight(): void {
    if (this.highlight && !this.band.hidden) this.band.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  private placeBand(): void {
    const s = this.spec;
    const hl = this.highlight;
    if (!s || !hl || (hl.axis === 'col' ? hl.index >= s.cols : hl.index >= s.rows)) {
      this.band.hidden = true;
      return;
    }
    const w = parseFloat(this.canvas.style.width) || 0;
    const ht = parseFloat(this.canvas.style.height) || 0;
    this.band.hidden = false;
    this.band.dataset.axis = hl.axis;
    if (hl.axis === 'col') {
      const x0 = (hl.index / s.cols) * w;
      this.band.style.left = `${x0}px`;
      this.band.style.top = '0px';
      this.band.style.width = `${Math.max(2, w / s.cols)}px`;
      this.band.style.height = `${ht}px`;
    } else {
      this.band.style.left = '0px';
      this.band.style.top = `${(hl.index / s.rows) * ht}px`;
      this.band.style.width = `${w}px`;
      this.band.style.height = `${Math.max(2, ht / s.rows)}px`;
    }
  }

  private rowLabelWidth(s: HeatmapSpec): number {
    const longest = s.rowLabels.reduce((m, l) => Math.max(m, l.length), 1);
    return Math.min(120, 12 + longest * 7);
  }

  private labels(s: HeatmapSpec, cssW: number, cssH: number): void {
    // Rows: every token while rows are at least 12px tall, else an even subset.
    this.rowLabelsEl.replaceChildren();
    this.rowLabelsEl.style.height = `${cssH}px`;
    this.rowLabelsEl.style.width = `${this.rowLabelWidth(s)}px`;
    const rowH = cssH / s.rows;
    const rowStep = Math.max(1, Math.ceil(12 / rowH));
    for (let i = 0; i < s.rows; i += rowStep) {
      const l = h('span', { class: 'hm-row-label', title: s.rowLabels[i] ?? '' }, s.rowLabels[i] ?? String(i));
      l.style.top = `${(i + 0.5) * rowH}px`;
      this.rowLabelsEl.append(l);
    }
    // Columns: words when they fit, else index ticks at a round step.
    this.colLabelsEl.replaceChildren();
    if (this.small) return;
    this.colLabelsEl.style.width = `${cssW}px`;
    const colW = cssW / s.cols;
    const words = s.colLabels && colW >= 12;
    // Words longer than their column are set at an angle, so neighbours never overlap.
    const longest = words ? Math.min(14, s.colLabels!.reduce((m, w) => Math.max(m, w.length), 1)) : 0;
    const angled = words && longest * 6.5 > colW - 2;
    this.colLabelsEl.classList.toggle('hm-cols-angled', !!angled);
    this.colLabelsEl.style.height = angled ? `${Math.round(longest * 6.5 * 0.7 + 14)}px` : '';
    const step = words ? 1 : niceStep(s.cols, cssW);
    for (let j = 0; j < s.cols; j += step) {
      const full = words ? s.colLabels![j] : String(j);
      const text = words && full.length > 14 ? `${full.slice(0, 13)}…` : full;
      const l = h('span', { class: words ? 'hm-col-label hm-col-word' : 'hm-col-label', title: s.colLabels?.[j] ?? `${s.colAxis} ${j}` }, text);
      l.style.left = `${(j + 0.5) * colW}px`;
      this.colLabelsEl.append(l);
    }
    this.colLabelsEl.append(h('span', { class: 'hm-axis-name' }, s.colAxis));
  }

  private hit(e: MouseEvent): CellHit | null {
    return this.info ? cellAtClientPoint(this.info, this.canvas, e.clientX, e.clientY) : null;
  }

  private hover(e: MouseEvent): void {
    const s = this.spec;
    const hit = this.hit(e);
    if (!s || !hit) {
      tooltip.hide();
      return;
    }
    const lines = s.describe(hit.sourceRow, hit.sourceCol, hit.value, hit.masked);
    if (hit.rowEnd - hit.rowStart > 1 || hit.colEnd - hit.colStart > 1) {
      lines.push(`pooled cell: rows ${hit.rowStart}–${hit.rowEnd - 1}, columns ${hit.colStart}–${hit.colEnd - 1}; the largest |value| is shown`);
    }
    tooltip.show(lines, e.clientX, e.clientY);
  }

  private click(e: MouseEvent): void {
    const s = this.spec;
    const hit = this.hit(e);
    if (s?.onClick && hit) s.onClick(hit.sourceRow, hit.sourceCol);
  }
}

function niceStep(n: number, px: number): number {
  const maxTicks = Math.max(2, Math.floor(px / 22));
  const raw = n / maxTicks;
  for (const s of [1, 2, 4, 5, 8, 10, 16, 20, 32, 50, 64, 100, 128, 200, 256, 500, 512, 1000, 1024]) if (s >= raw) return s;
  return Math.ceil(raw);
}

/** The value as the tooltip shows it: the exact float32, shortest form. */
export function exact(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Infinity' : '-Infinity';
  return formatFloat32(v);
}
