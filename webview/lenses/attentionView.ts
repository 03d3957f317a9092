// Attention as BertViz draws it, on the prompt's own tokens: the head view (the tokens twice, as
// two columns, a line from each query token to each key token as strong as the weight; hover a
// token on the left to see what it attends to, on the right to see what attends to it) and the
// model view (every layer × head as a small pattern in one grid; click one to open it above).
// Drawn from the attention weights (the stages the plan marks `attentionPattern`), which the view
// asks the worker for while it is shown.
import { h } from '../dom';
import { lut32 } from '../heatmap';
import type { StageView } from '../../src/protocol/stages';
import { attentionPatterns } from '../stagePicks';
import { stageMask } from '../views/attentionMask';
import type { LensContext } from './lensContext';

const ROW_H = 18;
const MAX_TOKENS = 128;

export class AttentionView {
  readonly el = h('div', { class: 'lens-view lens-attention' });
  private layer = 0;
  private head = 0;
  private focus: { side: 'q' | 'k'; t: number } | null = null;
  private readonly lines = h('canvas', { class: 'attn-lines', role: 'img' });
  private readonly left = h('div', { class: 'attn-tokens attn-left' });
  private readonly right = h('div', { class: 'attn-tokens attn-right' });
  private readonly grid = h('div', { class: 'attn-model' });
  private readonly title = h('h4', {});
  private readonly layerSel = h('vscode-single-select', { 'aria-label': 'layer' }) as HTMLElement & { value: string };
  private readonly headSel = h('vscode-single-select', { 'aria-label': 'head' }) as HTMLElement & { value: string };
  private built = '';

  constructor(private readonly ctx: LensContext) {
    this.layerSel.addEventListener('change', () => this.pick(Number(this.layerSel.value), this.head));
    this.headSel.addEventListener('change', () => this.pick(this.layer, Number(this.headSel.value)));
  }

  /** The attention weights of each layer that has them, by layer. */
  private patternStages(): Map<number, StageView> {
    const s = this.ctx.summary();
    return new Map(s ? attentionPatterns(s).map((x) => [x.layer, x]) : []);
  }

  private ids(): string[] {
    return [...this.patternStages().values()].map((x) => x.id);
  }

  request(): void {
    this.ctx.want(this.ids());
    this.draw();
  }

  /** Stage numbers arrived: draw when they are the view's. */
  onStage(id: string): void {
    if (this.ids().includes(id)) this.draw();
  }

  private pick(layer: number, head: number): void {
    this.layer = layer;
    this.head = head;
    this.focus = null;
    this.draw();
  }

  draw(): void {
    const s = this.ctx.summary();
    if (!s) return;
    const T = s.T;
    const layers = s.layers.map((l, i) => ({ i, NH: l.attention?.NH ?? 0 })).filter((l) => l.NH > 0);
    if (!layers.length) {
      this.el.replaceChildren(h('p', { class: 'lens-note' }, 'This model has no attention.'));
      return;
    }
    if (T > MAX_TOKENS) {
      this.el.replaceChildren(h('p', { class: 'lens-note' }, `${T} tokens: the head view draws up to ${MAX_TOKENS}; the attention cards of each layer show every weight.`));
      return;
    }
    const key = `${s.layoutKey}`;
    if (this.built !== key) {
      this.built = key;
      if (!layers.some((l) => l.i === this.layer)) this.layer = layers[0].i;
      this.layerSel.replaceChildren(...layers.map((l) => h('vscode-option', { value: String(l.i), selected: l.i === this.layer }, `layer ${l.i}`)));
      this.el.replaceChildren(
        h('div', { class: 'lens-controls' }, h('span', {}, 'Layer'), this.layerSel, h('span', {}, 'Head'), this.headSel,
          h('span', { class: 'lens-note' }, 'Hover a token on the left: what it attends to; on the right: what attends to it.')),
        this.title,
        h('div', { class: 'attn-head-view' }, this.left, this.lines, this.right),
        h('h4', {}, 'Every layer and head (click one to open it above)'),
        this.grid);
    }
    const NH = s.layers[this.layer]?.attention?.NH ?? 1;
    if (this.head >= NH) this.head = 0;
    // (options marked selected: the control reads its value from its options when they change)
    this.headSel.replaceChildren(...Array.from({ length: NH }, (_, k) => h('vscode-option', { value: String(k), selected: k === this.head }, `head ${k}`)));
    this.layerSel.value = String(this.layer);
    this.headSel.value = String(this.head);
    const window = this.patternStages().get(this.layer)?.show.window;
    this.title.textContent = `Layer ${this.layer}, head ${this.head}${window !== undefined ? ` (sliding window: each token sees its last ${window})` : ''}`;
    this.tokens(s.tokens);
    this.drawLines(T);
    this.drawModel(layers, T);
  }

  private pattern(layer: number, head: number, T: number): Float32Array | null {
    const info = this.patternStages().get(layer);
    const st = info === undefined ? null : this.ctx.stage(info.id);
    return st ? st.data.subarray(head * T * T, (head + 1) * T * T) : null;
  }

  private tokens(tokens: readonly string[]): void {
    const make = (side: 'q' | 'k'): HTMLElement[] => tokens.map((t, i) => {
      const el = h('div', { class: 'attn-token', 'data-side': side, 'data-token': i, title: `token ${i}` }, t);
      el.addEventListener('mouseenter', () => {
        this.focus = { side, t: i };
        this.drawLines(tokens.length);
      });
      el.addEventListener('mouseleave', () => {
        this.focus = null;
        this.drawLines(tokens.length);
      });
      return el;
    });
    this.left.replaceChildren(...make('q'));
    this.right.replaceChildren(...make('k'));
  }

  private drawLines(T: number): void {
    const A = this.pattern(this.layer, this.head, T);
    const dpr = window.devicePixelRatio || 1;
    const W = 160;
    const H = T * ROW_H;
    this.lines.width = W * dpr;
    this.lines.height = H * dpr;
    this.lines.style.width = `${W}px`;
    this.lines.style.height = `${H}px`;
    const g = this.lines.getContext('2d');
    if (!g || !A) return;
    g.scale(dpr, dpr);
    const color = getComputedStyle(document.body).getPropertyValue('--vscode-charts-blue').trim() || '#3794ff';
    g.strokeStyle = color;
    const f = this.focus;
    let strongest = 0;
    for (let q = 0; q < T; q++) {
      for (let k = 0; k < T; k++) {
        if (f && ((f.side === 'q' && f.t !== q) || (f.side === 'k' && f.t !== k))) continue;
        const w = A[q * T + k];
        if (!(w > 0.01)) continue;
        strongest = Math.max(strongest, w);
        g.globalAlpha = Math.min(1, w);
        g.lineWidth = f ? 2 : 1.5;
        g.beginPath();
        g.moveTo(0, (q + 0.5) * ROW_H);
        g.lineTo(W, (k + 0.5) * ROW_H);
        g.stroke();
      }
    }
    g.globalAlpha = 1;
    // the tokens' own shading: the focused token's weights on the other side
    for (const el of [...this.left.children, ...this.right.children] as HTMLElement[]) {
      const side = el.dataset.side;
      const t = Number(el.dataset.token);
      let w = 0;
      if (f && f.side === 'q' && side === 'k') w = A[f.t * T + t];
      if (f && f.side === 'k' && side === 'q') w = A[t * T + f.t];
      el.style.background = w > 0 ? `color-mix(in srgb, ${color} ${Math.round(w * 100)}%, transparent)` : '';
      el.classList.toggle('attn-focus', !!f && f.side === side && f.t === t);
    }
    this.lines.setAttribute('aria-label', `Attention of layer ${this.layer}, head ${this.head}: lines from each token to the tokens it attends to (the strongest weight ${strongest.toFixed(2)})`);
  }

  private drawModel(layers: Array<{ i: number; NH: number }>, T: number): void {
    const maxNH = Math.max(...layers.map((l) => l.NH));
    const table = lut32('viridis', 'light');
    const cells: HTMLElement[] = [h('div', {})];
    for (let k = 0; k < maxNH; k++) cells.push(h('div', { class: 'attn-model-col' }, String(k)));
    for (const l of layers) {
      cells.push(h('div', { class: 'attn-model-row' }, `L${l.i}`));
      for (let k = 0; k < maxNH; k++) {
        const A = k < l.NH ? this.pattern(l.i, k, T) : null;
        const info = this.patternStages().get(l.i);
        const window = info?.show.window;
        const c = h('canvas', { class: 'attn-thumb', width: T, height: T, title: `layer ${l.i}, head ${k}${window !== undefined ? `, sliding window ${window}` : ''}`, 'data-layer': l.i, 'data-head': k });
        if (A) {
          const g = c.getContext('2d')!;
          const img = g.createImageData(T, T);
          const px = new Uint32Array(img.data.buffer);
          // (masked cells, causal or outside the window, stay transparent: the hatch shows through)
          const mask = info ? stageMask(info, T) : undefined;
          for (let i = 0; i < T * T; i++) px[i] = mask?.[i] ? 0 : table[Math.max(0, Math.min(255, Math.round(A[i] * 255)))];
          g.putImageData(img, 0, 0);
          c.addEventListener('click', () => this.pick(l.i, k));
        }
        c.classList.toggle('attn-thumb-on', l.i === this.layer && k === this.head);
        cells.push(c);
      }
    }
    this.grid.style.gridTemplateColumns = `3em repeat(${maxNH}, 44px)`;
    this.grid.replaceChildren(...cells);
  }
}
