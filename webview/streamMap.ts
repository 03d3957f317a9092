// The residual stream at a glance, for deep models: a layer × token map, each cell the length (L2
// norm) of that token's vector after that layer (the stages the plan marks as the stream). It shows where the stream grows
// and which tokens carry the most; a click opens that layer. Computed here from the stages the
// panel receives (the worker sends every layer's output: the panel always wants them).
import type { ModelSummary } from '../src/protocol/stages';
import { streamStages } from '../src/core/shownFirst';
import { h } from './dom';
import { drawLegend } from './heatmap';
import { exact, HeatmapView } from './views/heatmapView';
import type { CardContext } from './views/stageCard';
import { streamNorms } from './streamNorms';

export class StreamMap {
  private readonly view = new HeatmapView(false);
  /** Its colors' key: 0 … the largest ‖x‖. */
  private readonly legendBox = h('div', { class: 'lens-legend' });
  readonly el: HTMLElement;

  constructor(private readonly ctx: CardContext, private readonly open: (layer: number) => void) {
    this.el = h('figure', { class: 'overview-item stream-map' },
      h('figcaption', {}, 'The residual stream: ‖x‖ of each token after each layer (click a cell to open its layer)'), this.view.el,
      h('div', { class: 'lens-legend-row' }, h('span', { class: 'lens-note' }, '‖x‖'), this.legendBox));
  }

  /** The stages it reads. */
  ids(s: ModelSummary): string[] {
    return streamStages(s.stages).map((x) => x.id);
  }

  draw(width: number): void {
    const s = this.ctx.summary;
    const L = s.layers.length;
    const T = s.T;
    const byLayer = new Map(streamStages(s.stages).map((x) => [x.layer, x.id]));
    const norms = streamNorms(L, T, s.C, (i) => {
      const id = byLayer.get(i);
      return id === undefined ? null : this.ctx.stageData(id);
    });
    let max = 0;
    for (const v of norms) if (v > max) max = v;
    const mask = new Uint8Array(L * T);
    norms.forEach((v, k) => { if (Number.isNaN(v)) mask[k] = 1; });
    // rows: layers (top: the first), columns: tokens
    this.view.set({
      data: norms, rows: L, cols: T, mask, rowLabels: s.layers.map((_, i) => `layer ${i}`), colLabels: s.tokens, colAxis: 'token', ariaLabel: 'Residual stream norms, layer by token',
      describe: (row, col, val, masked) => [`layer ${row} output`, `token "${s.tokens[col] ?? col}"`, masked ? 'not computed yet' : `‖x‖ = ${exact(val)}`],
      onClick: (row) => this.open(row),
    });
    this.view.paint({ colormap: 'viridis', backdrop: this.ctx.backdrop, range: [0, max || 1], maxRows: this.ctx.maxRows, maxCols: this.ctx.maxCols }, width);
    drawLegend(this.legendBox, { colormap: 'viridis', range: [0, max || 1], backdrop: this.ctx.backdrop });
  }
}
