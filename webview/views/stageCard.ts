// One stage: its title with meaning and shape, its heatmap (for attention stages, one head at a
// time with a head selector, or all heads as small multiples), and its color legend.
import type { ModelSummary, StageView } from '../../src/protocol/stages';
import { h } from '../dom';
import { drawLegend, isDiverging, type Backdrop, type ColormapName } from '../heatmap';
import { maskReason, repeatMask, stageMask } from './attentionMask';
import { axisName, shapeLabel } from './axes';
import { exact, HeatmapView, type HeatmapSpec, type Paint } from './heatmapView';

export interface CardContext {
  readonly summary: ModelSummary;
  readonly colormap: ColormapName;
  /** The theme's kind, which a diverging map's centre follows. */
  readonly backdrop: Backdrop;
  readonly maxRows: number;
  readonly maxCols: number;
  /** The color range for this stage's data (or one head's data). */
  range(stageId: string, data: Float32Array, mask: Uint8Array | undefined): [number, number];
  reveal(stageId: string, index: number[]): void;
  head(stageId: string): number;
  setHead(stageId: string, h: number): void;
  allHeads(stageId: string): boolean;
  setAllHeads(stageId: string, on: boolean): void;
  /** Another stage's numbers, if they have arrived (the activation's tooltip quotes its input). */
  stageData(stageId: string): Float32Array | null;
}

export interface StageData {
  readonly shape: readonly number[];
  /** The numbers, or with `pooled` the [rows][pooled.cols] values of a stage across a vocabulary pooled by the worker. */
  readonly data: Float32Array;
  /** words: the word (column of `shape`) each pooled value is, [rows][cols]. */
  readonly pooled?: { readonly cols: number; readonly words: Float32Array };
}

export class StageCard {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly controls: HTMLElement;
  private readonly legendBox: HTMLElement;
  private readonly main = new HeatmapView();
  private small: HeatmapView[] = [];
  private readonly smallGrid: HTMLElement;
  private headSelect: (HTMLElement & { value: string }) | null = null;
  private allHeadsBox: (HTMLElement & { checked: boolean }) | null = null;
  private stage: StageData | null = null;
  private lastWidth = 0;
  private readonly extraBox: HTMLElement;
  private extra: { title: string; view: HeatmapView; data: Float32Array; shape: readonly number[] } | null = null;

  private readonly shapeEl: HTMLElement;

  constructor(private _info: StageView, private shape: readonly number[], private readonly ctx: CardContext) {
    const info = _info;
    this.shapeEl = h('span', { class: 'card-shape' }, ` ${shapeLabel(shape)}`);
    this.controls = h('div', { class: 'card-controls' });
    this.legendBox = h('div', { class: 'card-legend' });
    this.smallGrid = h('div', { class: 'small-multiples', hidden: true });
    this.extraBox = h('div', { class: 'card-extra', hidden: true });
    this.body = h('div', { class: 'card-body' }, this.controls, this.main.el, this.smallGrid, this.legendBox, this.extraBox);
    // (VS Code's webview context menu reads data-vscode-context: the export commands get the stage)
    this.el = h('section', { class: 'card', 'data-stage-id': info.id, 'data-state': 'waiting', 'data-vscode-context': JSON.stringify({ webviewSection: 'stage', stageId: info.id }) },
      h('header', { class: 'card-header' },
        h('h3', { class: 'card-title' }, info.title, this.shapeEl),
        h('p', { class: 'card-meaning' }, info.meaning)),
      this.body);
    this.main.canvasElement.dataset.stageId = info.id;
  }

  // Built when the card is first drawn, not with it: a select renders several times as its options
  // arrive, each render reading its own box (a forced layout of the page), and GPT-2's 60 attention
  // cards built with theirs held the panel ~200 ms after its model message.
  private buildHeadControls(NH: number): void {
    const sel = h('vscode-single-select', { class: 'head-select', 'aria-label': 'head' }) as HTMLElement & { value: string };
    sel.append(...Array.from({ length: NH }, (_, i) => h('vscode-option', { value: String(i) }, `head ${i}`)));
    sel.value = String(this.ctx.head(this.info.id));
    sel.addEventListener('change', () => {
      this.ctx.setHead(this.info.id, Number(sel.value));
      this.draw(true);
    });
    const box = h('vscode-checkbox', { class: 'all-heads' }, 'all heads') as HTMLElement & { checked: boolean };
    box.checked = this.ctx.allHeads(this.info.id);
    box.addEventListener('change', () => {
      this.ctx.setAllHeads(this.info.id, box.checked);
      this.draw(true);
    });
    this.headSelect = sel;
    this.allHeadsBox = box;
    this.controls.append(h('span', { class: 'control-label' }, 'Head'), sel, box);
  }

  private legendKey = '';

  /** The render whose message brought the numbers shown (a 'kept' or 'cols' names the one it builds on). */
  dataVersion = -1;

  setData(stage: StageData, version: number): void {
    this.stage = stage;
    this.dataVersion = version;
    this.el.dataset.version = String(version); // (tests read which render's numbers a card shows)
    this.el.dataset.state = 'drawn';
    this.draw(true);
  }

  /**
   * A second heatmap under the stage (what one highlighted neuron writes into the down-projection),
   * or null to remove it.
   */
  setExtra(extra: { title: string; data: Float32Array; shape: readonly number[] } | null): void {
    if (!extra) {
      this.extra = null;
      this.extraBox.hidden = true;
      this.extraBox.replaceChildren();
      return;
    }
    const view = this.extra?.view ?? new HeatmapView();
    this.extra = { ...extra, view };
    this.extraBox.hidden = false;
    this.extraBox.replaceChildren(h('div', { class: 'card-extra-title' }, extra.title), view.el);
    this.drawExtra();
  }

  private drawExtra(): void {
    const x = this.extra;
    if (!x || this.el.offsetParent === null) return;
    const [rows, cols] = x.shape;
    const tokens = this.ctx.summary.tokens;
    x.view.set({
      data: x.data, rows, cols, rowLabels: tokens, colLabels: null, colAxis: 'dimension', ariaLabel: x.title,
      describe: (r, c, v) => [x.title, `token "${tokens[r] ?? r}" · dimension ${c}`, `value = ${exact(v)}`],
    });
    // the same range as the stage itself, so the neuron's share of it reads at a glance
    const range = this.ctx.range(this.info.id, this.stage?.data ?? x.data, undefined);
    x.view.paint(this.paintOpts(range), this.body.clientWidth);
  }

  /** What the card shows: its stage as the render on screen plans it. */
  get info(): StageView {
    return this._info;
  }

  /**
   * The render on screen plans this stage at another T (a prompt typed, the same cards): its shape
   * follows; numbers of the old T stay drawn, dimmed, until the new ones come.
   */
  retarget(info: StageView): void {
    this._info = info;
    if (shapeLabel(info.shape) === shapeLabel(this.shape)) return;
    this.shape = info.shape;
    this.shapeEl.textContent = ` ${shapeLabel(info.shape)}`;
  }

  /** The card holds numbers of the shape the render on screen plans (not an older T's). */
  get current(): boolean {
    const st = this.stage;
    return !!st && st.shape.length === this.shape.length && st.shape.every((n, i) => n === this.shape[i]);
  }

  /** The numbers shown are those of the current render too (the stage did not change). */
  setCurrent(): void {
    this.el.dataset.state = 'drawn';
  }

  /** Marks the card as showing numbers from an older render (a new one is on its way). */
  setPending(): void {
    if (this.stage) this.el.dataset.state = 'stale';
  }

  get hasData(): boolean {
    return this.stage !== null;
  }

  get data(): StageData | null {
    return this.stage;
  }

  get heatmap(): HeatmapView {
    return this.main;
  }

  /** Redraws (new data, colors, or width). */
  draw(force = false): void {
    const st = this.stage;
    if (!st || this.el.offsetParent === null) return; // collapsed or hidden: drawn when shown
    if (!this.current) return; // (numbers of an older T: left drawn as they are, dimmed, until the new come)
    const width = this.body.clientWidth;
    if (!force && width === this.lastWidth) return;
    this.lastWidth = width;
    const { summary } = this.ctx;
    const info = this.info;
    const T = summary.T;
    if (info.perHead) {
      const NH = st.shape[0];
      const X = st.shape[2];
      const hsel = Math.min(this.ctx.head(info.id), NH - 1);
      if (!this.headSelect && NH > 1) this.buildHeadControls(NH);
      if (this.headSelect) this.headSelect.value = String(hsel);
      const all = NH > 1 && this.ctx.allHeads(info.id);
      if (this.allHeadsBox) this.allHeadsBox.checked = all;
      // (every head is shown: there is none to choose)
      if (this.headSelect) this.headSelect.toggleAttribute('disabled', all);
      const mask = stageMask(info, T);
      const slice = (hh: number): Float32Array => st.data.subarray(hh * T * X, (hh + 1) * T * X);
      // (for every head at once, the mask once per head)
      const maskAll = mask && all ? repeatMask(mask, NH) : mask;
      const shown = all ? st.data : slice(hsel);
      const range = this.ctx.range(info.id, shown, maskAll);
      this.main.el.hidden = all;
      this.smallGrid.hidden = !all;
      if (!all) {
        this.main.set(this.spec(slice(hsel), T, X, hsel, mask));
        this.main.paint(this.paintOpts(range), width);
      } else {
        // up to 4 a row; the first of each row names the tokens
        const perRow = Math.min(NH, 4);
        while (this.small.length < NH) this.small.push(new HeatmapView(true, this.small.length % 4 === 0));
        // (built again only when the number of heads changes: moving a canvas would drop its focus)
        if (this.smallGrid.childElementCount !== NH) {
          this.smallGrid.replaceChildren(...this.small.slice(0, NH).map((v, hh) => h('figure', { class: 'small-multiple' }, v.el, h('figcaption', {}, `head ${hh}`))));
        }
        const labelW = Math.min(120, 12 + summary.tokens.reduce((m, l) => Math.max(m, l.length), 1) * 7);
        const cellW = Math.max(80, Math.floor((width - labelW) / perRow) - 12);
        this.small.slice(0, NH).forEach((v, hh) => {
          v.set(this.spec(slice(hh), T, X, hh, mask));
          v.paint(this.paintOpts(range), hh % 4 === 0 ? cellW + labelW : cellW);
        });
      }
      this.legend(range, shown, maskAll);
      return;
    }
    const [rows, cols] = st.shape;
    const range = this.ctx.range(info.id, st.data, undefined);
    this.main.set(st.pooled ? this.pooledSpec(st.data, rows, cols, st.pooled) : this.spec(st.data, rows, cols, -1, undefined));
    this.main.paint(this.paintOpts(range), width);
    this.legend(range, st.data);
    this.drawExtra();
  }

  private paintOpts(range: [number, number]): Paint {
    return { colormap: this.ctx.colormap, backdrop: this.ctx.backdrop, range, maxRows: this.ctx.maxRows, maxCols: this.ctx.maxCols };
  }

  /** The legend of `range`, for `data` as drawn (`mask`: its cells drawn as masked). */
  private legend(range: [number, number], data: Float32Array, mask?: Uint8Array): void {
    // Probabilities (attention weights, the head's) are never negative: a diverging map's range
    // [-m, m] then uses only its upper half, and the legend shows only that half, 0 … m.
    const d = data;
    const nonNegative = !!d && range[0] === -range[1] && isDiverging(this.ctx.colormap) && !!this.info.show.nonNegative && d.every((v) => !(v < 0));
    // values beyond an end (a percentile range, or a range shared with other stages) are drawn
    // in that end's color: the legend says "≤" / "≥" there
    let below = false;
    let above = false;
    for (let i = 0; i < d.length; i++) {
      const v = d[i];
      if (mask?.[i] || !Number.isFinite(v)) continue; // (hatched, or the invalid color)
      if (v < range[0]) below = true;
      else if (v > range[1]) above = true;
    }
    const clipped = below || above ? { clipped: { lo: below, hi: above } } : {};
    const map = { colormap: this.ctx.colormap, backdrop: this.ctx.backdrop };
    // (the same legend as drawn: left as it is, so that an edit's redraw changes no DOM)
    const key = JSON.stringify([range, map, nonNegative, below, above]);
    if (key === this.legendKey) return;
    this.legendKey = key;
    this.legendBox.replaceChildren();
    drawLegend(this.legendBox, nonNegative ? { ...map, range: [0, range[1]], part: [0.5, 1], ...clipped } : { ...map, range, ...clipped });
  }

  // A stage across the vocabulary the worker pooled (V words into P columns): each cell is a block
  // of words, its value the one of largest |v|, and the word that is.
  private pooledSpec(data: Float32Array, rows: number, V: number, pooled: NonNullable<StageData['pooled']>): HeatmapSpec {
    const { summary } = this.ctx;
    const info = this.info;
    const tokens = summary.tokens;
    const P = pooled.cols;
    const word = (r: number, c: number): number => pooled.words[r * P + c];
    return {
      data, rows, cols: P, colsOf: V, colLabels: null, rowLabels: tokens,
      colAxis: axisName(info.cols),
      ariaLabel: `${info.title} ${shapeLabel(this.shape)}, ${P} columns of up to ${Math.ceil(V / P)} words`,
      describe: (r, c, v) => {
        const w = word(r, c);
        return [info.title, `token "${tokens[r] ?? `t${r}`}" (row ${r}) · word "${summary.vocab[w] ?? w}" (${w})`, `value = ${exact(v)}`];
      },
      onClick: (r, c) => this.ctx.reveal(info.id, [r, word(r, c)]),
    };
  }

  private spec(data: Float32Array, rows: number, cols: number, head: number, mask: Uint8Array | undefined): HeatmapSpec {
    const { summary } = this.ctx;
    const info = this.info;
    const tokens = summary.tokens;
    const colLabels = info.cols === 'key' ? tokens : info.cols === 'vocab' ? summary.vocab : null;
    const stageTitle = head >= 0 ? `${info.title} · head ${head}` : info.title;
    const valueName = info.show.valueName ?? 'value';
    return {
      data, rows, cols, colLabels, mask,
      rowLabels: tokens,
      colAxis: axisName(info.cols),
      ariaLabel: `${stageTitle} ${shapeLabel(this.shape)}`,
      describe: (r, c, v, masked) => {
        const tok = tokens[r] ?? `t${r}`;
        const lines = [stageTitle];
        if (info.cols === 'key') {
          lines.push(`query "${tok}" (row ${r}) → key "${tokens[c] ?? c}" (column ${c})`);
          lines.push(masked ? maskReason(info, r, c) : `${valueName} = ${exact(v)}`);
          return lines;
        }
        const colName = info.cols === 'vocab' ? `word "${summary.vocab[c] ?? c}" (${c})` : `${axisName(info.cols)} ${c}`;
        lines.push(`token "${tok}" (row ${r}) · ${colName}`);
        // what went in (an activation's pre-activations), as far as those stages have come
        for (const q of info.show.quotes ?? []) {
          const x = this.ctx.stageData(q.stage)?.[r * cols + c];
          if (x !== undefined) lines.push(`${q.label} = ${exact(x)}`);
        }
        lines.push(`${valueName} = ${exact(v)}`);
        return lines;
      },
      onClick: (r, c) => this.ctx.reveal(info.id, head >= 0 ? [head, r, c] : [r, c]),
    };
  }
}
