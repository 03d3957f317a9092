// The overview at the top: the block at a glance, as the blog posts draw it: the attention scores,
// then the FFN expanding, activating and projecting back (of the first layer that has them).
import type { HighlightTarget, ModelSummary, StageView } from '../src/protocol/stages';
import { isDeep } from '../src/core/shownFirst';
import { h } from './dom';
import { highlightFor } from './highlight';
import { overviewPicks } from './stagePicks';
import { axisName } from './views/axes';
import { exact, HeatmapView } from './views/heatmapView';
import { maskReason, stageMask } from './views/attentionMask';
import type { CardContext } from './views/stageCard';
import { StreamMap } from './streamMap';

export class Overview {
  private readonly maps = h('div', { class: 'overview' });
  private readonly views = new Map<string, { info: StageView; view: HeatmapView }>();
  /** Deep models: the residual stream, layer by token, and the stages it reads. */
  private stream: { map: StreamMap; ids: Set<string> } | null = null;

  constructor(private readonly ctx: CardContext, private readonly jump: (id: string) => void, private readonly openLayer: (layer: number) => void) {}

  /** The stages the overview draws. */
  ids(): string[] {
    return [...this.views.keys(), ...(this.stream?.ids ?? [])];
  }

  /** The section's content for a model. */
  build(s: ModelSummary): HTMLElement {
    this.views.clear();
    this.stream = null;
    if (isDeep(s.layers.length)) {
      const map = new StreamMap(this.ctx, (layer) => this.openLayer(layer));
      this.stream = { map, ids: new Set(map.ids(s)) };
      this.maps.replaceChildren(map.el);
      return h('div', {}, this.maps, h('p', { class: 'overview-note' }, `${s.layers.length} layers: open one from the map, the layer picker above, or its section below.`));
    }
    const items: HTMLElement[] = [];
    const picks = overviewPicks(s);
    for (const info of picks) {
      const id = info.id;
      const view = new HeatmapView(true);
      this.views.set(id, { info, view });
      const fig = h('figure', { class: 'overview-item', 'data-stage-id': id }, h('figcaption', {}, this.caption(info, s)), view.el);
      fig.addEventListener('dblclick', () => this.jump(id));
      items.push(fig);
    }
    this.maps.replaceChildren(...items);
    const attn = picks.some((x) => x.group === 'attention');
    const ffn = picks.some((x) => x.group === 'ffn');
    const story = attn && ffn ? 'attention scores, then the FFN expanding, activating and projecting back' : ffn ? 'the FFN expanding, activating and projecting back' : 'the attention scores';
    const layer = s.layers.length > 1 ? ` (the first layer that has them, of ${s.layers.length})` : '';
    const note = h('p', { class: 'overview-note' }, `The block at a glance${layer}: ${story}. Double-click a map to jump to its stage below.`);
    return h('div', {}, this.maps, note);
  }

  has(id: string): boolean {
    return this.views.has(id) || !!this.stream?.ids.has(id);
  }

  /** Draws every map again (and its caption: the head shown may have changed). */
  drawAll(): void {
    for (const id of this.views.keys()) this.draw(id);
    if (this.stream) this.stream.map.draw(this.maps.clientWidth || 600);
  }

  draw(id: string): void {
    if (this.stream?.ids.has(id)) {
      this.stream.map.draw(this.maps.clientWidth || 600);
      return;
    }
    const v = this.views.get(id);
    const data = this.ctx.stageData(id);
    if (!v || !data) return;
    const { info, view } = v;
    const s = this.ctx.summary;
    const fig = this.maps.querySelector(`[data-stage-id="${id}"] figcaption`);
    if (fig) fig.textContent = this.caption(info, s);
    const T = s.T;
    const n = Math.max(1, this.views.size);
    const width = Math.max(90, Math.floor(this.maps.clientWidth / n) - 16);
    let mat = data;
    let cols = info.shape[1];
    let mask: Uint8Array | undefined;
    if (info.perHead) {
      const hh = Math.min(this.ctx.head(id), info.shape[0] - 1);
      cols = info.shape[2];
      mat = data.subarray(hh * T * cols, (hh + 1) * T * cols);
      mask = stageMask(info, T);
    }
    view.set({
      data: mat, rows: T, cols, mask, rowLabels: s.tokens, colLabels: null, colAxis: '', ariaLabel: info.title,
      describe: (row, col, val, masked) => [
        info.title,
        `token "${s.tokens[row] ?? row}" · ${info.cols === 'key' ? `key "${s.tokens[col] ?? col}"` : `${axisName(info.cols)} ${col}`}`,
        masked ? maskReason(info, row, col) : `value = ${exact(val)}`,
      ],
      onClick: (row, col) => this.ctx.reveal(id, info.perHead ? [this.ctx.head(id), row, col] : [row, col]),
    });
    view.paint({ colormap: this.ctx.colormap, backdrop: this.ctx.backdrop, range: this.ctx.range(id, mat, mask), maxRows: this.ctx.maxRows, maxCols: this.ctx.maxCols }, width);
  }

  setHighlight(t: HighlightTarget | null): void {
    for (const { info, view } of this.views.values()) view.setHighlight(t ? highlightFor(info, t) : null);
  }

  /** "Self-Attention Scores (head 2) · layer 0": the head for attention, the layer when there are several. */
  private caption(info: StageView, s: ModelSummary): string {
    const heads = info.perHead ? info.shape[0] : 1;
    const base = heads > 1 ? `${info.title} (head ${this.ctx.head(info.id)})` : info.title;
    return s.layers.length > 1 ? `${base} · layer ${info.layer}` : base;
  }
}
