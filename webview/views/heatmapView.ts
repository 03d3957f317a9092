// One heatmap on screen: the canvas (one pixel per cell, scaled up without smoothing), row labels
// (tokens), column ticks, a hover tooltip, click-to-reveal, a highlight band, and a keyboard
// cursor (arrow keys read the cells as the pointer does, Enter reveals). A matrix wider
// or taller than the space it has is pooled to the device pixels available (keeping each block's
// value of largest magnitude), so scaling never drops an extreme, and the card says so.
import { formatFloat32 } from '../../src/common/float32';
import { h } from '../dom';
import { cellAt, cellAtClientPoint, drawHeatmap, paintHeatmap, type CellHit, type HeatmapInfo } from '../heatmap';
import { drawColLabels, drawRowLabels, rowLabelStep, rowLabelWidth } from './heatmapLabels';
import { sourceCol, type HeatmapSpec, type Paint } from './heatmapSpec';
import { tooltip } from './tooltip';
import { lastAtOrBelow } from '../../src/common/search';

export type { HeatmapSpec, Paint } from './heatmapSpec';

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
  /** What the labels were built for: new numbers of the same shape and words keep them (no DOM change, no layout). */
  private labelled: { rows: readonly string[]; cols: readonly string[] | null; key: string } | null = null;
  private highlight: { axis: 'row' | 'col'; index: number } | null = null;
  private readonly cursorEl: HTMLElement;
  /**
   * The keyboard cursor: the first source cell of the drawn (pooled) cell it is on, so that a
   * redraw pooled differently keeps it on the same numbers; null until a key moves it.
   */
  private cursor: { row: number; col: number } | null = null;

  /** `small`: a small multiple (no column ticks); `rowLabels`: a small one that names its rows still. */
  constructor(private readonly small = false, private readonly rowLabels = false) {
    // (an application role: screen readers hand it the arrow keys, which read the cells)
    this.canvas = h('canvas', { class: 'hm-canvas', tabindex: 0, role: 'application', 'aria-roledescription': 'heatmap' });
    this.rowLabelsEl = h('div', { class: 'hm-rows', 'aria-hidden': 'true' });
    this.colLabelsEl = h('div', { class: 'hm-cols', 'aria-hidden': 'true' });
    this.band = h('div', { class: 'hm-band', hidden: true });
    this.noteEl = h('div', { class: 'hm-note' });
    this.cursorEl = h('div', { class: 'hm-cursor', hidden: true });
    const plot = h('div', { class: 'hm-plot' }, this.canvas, this.band, this.cursorEl);
    this.el = h('div', { class: small ? (rowLabels ? 'hm hm-small hm-labelled' : 'hm hm-small') : 'hm' },
      h('div', { class: 'hm-grid' }, this.rowLabelsEl, plot, h('div'), this.colLabelsEl),
      this.noteEl);
    this.canvas.addEventListener('mousemove', (e) => this.hover(e));
    this.canvas.addEventListener('mouseleave', () => tooltip.hide());
    this.canvas.addEventListener('click', (e) => this.click(e));
    this.canvas.addEventListener('keydown', (e) => this.key(e));
    // Tabbing in starts the cursor at the first cell; a click's focus does not (the pointer reads).
    this.canvas.addEventListener('focus', () => {
      if (this.cursor) this.showCursor();
      else if (this.canvas.matches(':focus-visible')) this.moveCursor(0, 0);
    });
    this.canvas.addEventListener('blur', () => {
      this.cursorEl.hidden = true;
      tooltip.hide();
    });
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
    this.canvas.setAttribute('aria-label', `${spec.ariaLabel}. Arrow keys read the cells${spec.onClick ? '; Enter shows the number in the editor' : ''}.`);
  }

  /** Draws with this colormap and range, sized to the width the heatmap has now. */
  paint(p: Paint, availableWidth: number): void {
    const s = this.spec;
    if (!s) return;
    const dpr = window.devicePixelRatio || 1;
    const rowH = this.small ? Math.min(MAX_CELL, Math.max(2, 160 / s.rows)) : Math.min(MAX_CELL, Math.max(s.rows > 64 ? 2 : MIN_ROW, MAX_HEIGHT / s.rows));
    const cssH = Math.max(1, Math.min(this.small ? 160 : MAX_HEIGHT, Math.round(rowH * s.rows)));
    const labelW = this.small && !this.rowLabels ? 0 : rowLabelWidth(s, rowLabelStep(cssH, s.rows) > 1 && s.rowLabels.length > 0);
    // (room at the right for the column axis' name, "neuron", which follows the last tick)
    const width = Math.max(40, availableWidth - labelW - 8 - (this.small ? 0 : AXIS_NAME_W));
    const cellW = Math.min(MAX_CELL, width / s.cols);
    const cssW = Math.max(1, Math.round(cellW * s.cols));
    const maxCols = Math.max(1, Math.min(p.maxCols, Math.floor(cssW * dpr)));
    const maxRows = Math.max(1, Math.min(p.maxRows, Math.floor(cssH * dpr)));
    const key = `${maxRows}x${maxCols}`;
    const opts = { colormap: p.colormap, backdrop: p.backdrop, range: [p.range[0], p.range[1]] as [number, number], maxCells: { rows: maxRows, cols: maxCols } };
    if (this.drawnFor === key && this.info) {
      this.info = paintHeatmap(this.canvas, this.info, opts);
    } else {
      this.info = drawHeatmap(this.canvas, { data: s.data, rows: s.rows, cols: s.cols }, s.mask ? { ...opts, mask: s.mask } : opts);
      this.drawnFor = key;
    }
    // (each write only when it changes something: an edit's redraw then leaves the layout clean, and
    // the next card's reading of its width costs no layout of the whole page)
    setIfChanged(this.canvas.style, 'width', `${cssW}px`);
    setIfChanged(this.canvas.style, 'height', `${cssH}px`);
    const d = this.canvas.dataset;
    setIfChanged(d, 'rows', String(s.rows));
    setIfChanged(d, 'cols', String(s.cols));
    setIfChanged(d, 'rangeLo', String(this.info.range[0]));
    setIfChanged(d, 'rangeHi', String(this.info.range[1]));
    setIfChanged(d, 'colormap', p.colormap);
    setIfChanged(d, 'backdrop', p.backdrop);
    const note = this.info.pooled || s.colsOf
      ? `Pooled to ${this.info.rows} × ${this.info.cols} (each pixel shows the value of largest magnitude in its block of up to ${Math.ceil(s.rows / this.info.rows)} × ${Math.ceil((s.colsOf ?? s.cols) / this.info.cols)} cells).`
      : '';
    if (this.noteEl.textContent !== note) this.noteEl.textContent = note;
    const labelKey = `${s.rows}x${s.cols}:${cssW}x${cssH}:${s.colAxis}`;
    const l = this.labelled;
    if (!l || l.key !== labelKey || !sameWords(l.rows, s.rowLabels) || !sameWords(l.cols, s.colLabels)) {
      this.labels(s, cssW, cssH);
      this.labelled = { rows: s.rowLabels, cols: s.colLabels, key: labelKey };
    }
    this.placeBand();
    // new numbers under a keyboard cursor: read them out again (clamped to the new shape)
    if (this.cursor && document.activeElement === this.canvas) this.showCursor();
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
      if (!this.band.hidden) this.band.hidden = true;
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

  private labels(s: HeatmapSpec, cssW: number, cssH: number): void {
    drawRowLabels(this.rowLabelsEl, s, cssH, this.small && !this.rowLabels);
    drawColLabels(this.colLabelsEl, s, cssW, this.small);
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
    tooltip.show(this.describe(s, hit), e.clientX, e.clientY);
  }

  /** Arrows move by a cell (with Ctrl/Cmd: to the edge), Home/End to the row's ends, Page Up/Down by 8 rows, Enter or Space reveal, Escape lets go. */
  private key(e: KeyboardEvent): void {
    const info = this.info;
    if (!info || !this.spec) return;
    const c = this.cursor && this.drawnCell(this.cursor);
    const far = e.ctrlKey || e.metaKey;
    let row = c?.row ?? 0;
    let col = c?.col ?? 0;
    switch (e.key) {
      case 'ArrowLeft': if (c) col = far ? 0 : col - 1; break;
      case 'ArrowRight': if (c) col = far ? info.cols - 1 : col + 1; break;
      case 'ArrowUp': if (c) row = far ? 0 : row - 1; break;
      case 'ArrowDown': if (c) row = far ? info.rows - 1 : row + 1; break;
      case 'Home': col = 0; if (far) row = 0; break;
      case 'End': col = info.cols - 1; if (far) row = info.rows - 1; break;
      case 'PageUp': row -= 8; break;
      case 'PageDown': row += 8; break;
      case 'Enter':
      case ' ': {
        const hit = c && this.hitAt(c.row, c.col);
        if (!hit || !this.spec.onClick) return;
        e.preventDefault();
        this.spec.onClick(hit.sourceRow, hit.sourceCol);
        return;
      }
      case 'Escape':
        if (!c) return;
        e.preventDefault();
        e.stopPropagation();
        this.cursor = null;
        this.cursorEl.hidden = true;
        tooltip.hide();
        return;
      default:
        return;
    }
    e.preventDefault();
    this.moveCursor(row, col);
  }

  private hitAt(row: number, col: number): CellHit | null {
    const info = this.info;
    return info ? cellAt(info, (col + 0.5) / info.cols, (row + 0.5) / info.rows) : null;
  }

  /** The drawn cell that holds source cell `src` (clamped to the matrix as drawn now). */
  private drawnCell(src: { row: number; col: number }): { row: number; col: number } {
    const info = this.info!;
    return { row: lastAtOrBelow(info.rowStart, src.row), col: lastAtOrBelow(info.colStart, src.col) };
  }

  /** Shows the cursor where it is (after a redraw, or when the focus comes back). */
  private showCursor(): void {
    if (!this.cursor || !this.info) return;
    const c = this.drawnCell(this.cursor);
    this.moveCursor(c.row, c.col);
  }

  /** Puts the keyboard cursor on drawn cell (row, col), clamped, and reads it as a hover would. */
  private moveCursor(row: number, col: number): void {
    const info = this.info;
    const s = this.spec;
    if (!info || !s || info.rows === 0 || info.cols === 0) return;
    row = Math.max(0, Math.min(info.rows - 1, row));
    col = Math.max(0, Math.min(info.cols - 1, col));
    this.cursor = { row: info.rowStart[row]!, col: info.colStart[col]! };
    const hit = this.hitAt(row, col);
    if (!hit) return;
    const w = parseFloat(this.canvas.style.width) || 0;
    const ht = parseFloat(this.canvas.style.height) || 0;
    const cw = w / info.cols;
    const ch = ht / info.rows;
    this.cursorEl.hidden = false;
    this.cursorEl.style.left = `${col * cw}px`;
    this.cursorEl.style.top = `${row * ch}px`;
    this.cursorEl.style.width = `${Math.max(3, cw)}px`;
    this.cursorEl.style.height = `${Math.max(3, ch)}px`;
    this.cursorEl.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const lines = this.describe(s, hit);
    const r = this.cursorEl.getBoundingClientRect();
    tooltip.show(lines, r.right, r.bottom, { announce: true });
  }

  private describe(s: HeatmapSpec, hit: CellHit): string[] {
    const lines = s.describe(hit.sourceRow, hit.sourceCol, hit.value, hit.masked);
    if (s.colsOf) {
      const [a, b] = [sourceCol(s, hit.colStart), sourceCol(s, hit.colEnd) - 1];
      lines.push(`pooled cell: ${hit.rowEnd - hit.rowStart > 1 ? `rows ${hit.rowStart}–${hit.rowEnd - 1}, ` : ''}${s.colAxis}s ${a}–${b}; the largest |value| is shown`);
    } else if (hit.rowEnd - hit.rowStart > 1 || hit.colEnd - hit.colStart > 1) {
      lines.push(`pooled cell: rows ${hit.rowStart}–${hit.rowEnd - 1}, columns ${hit.colStart}–${hit.colEnd - 1}; the largest |value| is shown`);
    }
    return lines;
  }

  private click(e: MouseEvent): void {
    const s = this.spec;
    const hit = this.hit(e);
    if (s?.onClick && hit) s.onClick(hit.sourceRow, hit.sourceCol);
  }
}

/** The value as the tooltip shows it: the exact float32, shortest form. */
export function exact(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Infinity' : '-Infinity';
  return formatFloat32(v);
}

/** Sets a style property or data attribute only when it differs (an unchanged write still dirties the layout). */
function setIfChanged(target: CSSStyleDeclaration | DOMStringMap, key: string, value: string): void {
  const t = target as unknown as Record<string, string | undefined>;
  if (t[key] !== value) t[key] = value;
}

/** The same words (element by element: the summary's arrays are new objects each render). */
function sameWords(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
