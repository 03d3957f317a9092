// A unit's activations coloured over the prompt's own tokens, as CircuitsVis' colored tokens: a
// neuron's activation act[t, n] (blue below zero, red above), or a head's output size ‖z_h[t]‖
// (its slice of the context). The unit is picked here, or follows the editor's cursor in a
// neuron's W1 row (and a click on a neuron's cell in the panel, which moves that cursor).
import type { HighlightTarget } from '../../src/protocol/stages';
import { h } from '../dom';
import { unitsStage } from '../stagePicks';
import { colorAt, cssRGB } from '../heatmap';
import { tooltip } from '../views/tooltip';
import { legend, type LensContext } from './lensContext';

type Unit = { kind: 'neuron' | 'head'; layer: number; index: number };

export class TokensView {
  readonly el = h('div', { class: 'lens-view lens-tokens' });
  private unit: Unit = { kind: 'neuron', layer: 0, index: 0 };
  private readonly kindSel = h('vscode-single-select', { 'aria-label': 'unit kind' },
    h('vscode-option', { value: 'neuron' }, 'neuron'), h('vscode-option', { value: 'head' }, 'head')) as HTMLElement & { value: string };
  private readonly layerSel = h('vscode-single-select', { 'aria-label': 'layer' }) as HTMLElement & { value: string };
  private readonly indexField = h('vscode-textfield', { type: 'number', min: 0, class: 'unit-index', 'aria-label': 'index' }) as HTMLElement & { value: string };
  private readonly body = h('div', { class: 'tokens-body' });
  private builtFor = '';

  constructor(private readonly ctx: LensContext) {
    const change = (): void => {
      this.unit = { kind: this.kindSel.value === 'head' ? 'head' : 'neuron', layer: Number(this.layerSel.value) || 0, index: Math.max(0, Math.floor(Number(this.indexField.value) || 0)) };
      this.request();
    };
    this.kindSel.addEventListener('change', change);
    this.layerSel.addEventListener('change', change);
    this.indexField.addEventListener('change', change);
    this.el.append(
      h('div', { class: 'lens-controls' }, h('span', {}, 'Unit'), this.kindSel, h('span', {}, 'layer'), this.layerSel, h('span', {}, 'index'), this.indexField,
        h('span', { class: 'lens-note' }, 'or, in a model file that writes its weights out, put the editor\'s cursor in a neuron\'s W1 row')),
      this.body);
  }

  /** The stage whose columns the unit's numbers are (null: the layer has none of its kind). */
  private stageId(): string | null {
    const s = this.ctx.summary();
    return (s && unitsStage(s, this.unit.kind, this.unit.layer)?.id) ?? null;
  }

  request(): void {
    const id = this.stageId();
    this.ctx.want(id === null ? [] : [id]);
    this.draw();
  }

  onStage(id: string): void {
    if (id === this.stageId()) this.draw();
  }

  /** The editor's cursor is on a neuron: show it. */
  follow(t: HighlightTarget | null): boolean {
    if (t?.kind !== 'neuron') return false;
    this.unit = { kind: 'neuron', layer: t.layer, index: t.index };
    return true;
  }

  draw(): void {
    const s = this.ctx.summary();
    if (!s) return;
    if (this.builtFor !== String(s.layoutKey)) {
      this.builtFor = String(s.layoutKey);
      this.layerSel.replaceChildren(...s.layers.map((_, i) => h('vscode-option', { value: String(i), selected: i === this.unit.layer }, `layer ${i}`)));
    }
    const u = this.unit;
    this.kindSel.value = u.kind;
    this.layerSel.value = String(u.layer);
    this.indexField.value = String(u.index);
    const L = s.layers[u.layer];
    const size = u.kind === 'neuron' ? L?.ffn?.F : L?.attention?.NH;
    if (!size) {
      this.body.replaceChildren(h('p', { class: 'lens-note' }, `Layer ${u.layer} has no ${u.kind === 'neuron' ? 'FFN' : 'attention'}.`));
      return;
    }
    if (u.index >= size) {
      this.body.replaceChildren(h('p', { class: 'lens-note' }, `Layer ${u.layer} has ${size} ${u.kind}s: 0 to ${size - 1}.`));
      return;
    }
    const id = this.stageId();
    const st = id === null ? null : this.ctx.stage(id);
    if (!st) {
      this.body.replaceChildren(h('p', { class: 'lens-note' }, 'Computing…'));
      return;
    }
    const T = s.T;
    const values: number[] = [];
    if (u.kind === 'neuron') {
      const F = st.shape[1];
      for (let t = 0; t < T; t++) values.push(st.data[t * F + u.index]);
    } else {
      const W = st.shape[1];
      const HS = W / size;
      for (let t = 0; t < T; t++) {
        let ss = 0;
        for (let j = u.index * HS; j < (u.index + 1) * HS; j++) ss += st.data[t * W + j] ** 2;
        values.push(Math.sqrt(ss));
      }
    }
    const m = Math.max(1e-12, ...values.map(Math.abs));
    const neuron = u.kind === 'neuron';
    const range: [number, number] = neuron ? [-m, m] : [0, m];
    const cmap = neuron ? 'coolwarm' : 'viridis';
    const text = h('div', { class: 'colored-tokens', role: 'list', 'aria-label': `${u.kind} ${u.index} of layer ${u.layer} over the prompt` });
    s.tokens.forEach((tok, t) => {
      const v = values[t];
      const f = neuron ? (v + m) / (2 * m) : v / m;
      const [r, g, b] = colorAt(cmap, f, this.ctx.backdrop());
      const span = h('span', { class: 'colored-token', role: 'listitem', 'data-token': t, 'data-value': String(v) }, tok);
      span.style.background = cssRGB([r, g, b]);
      span.style.color = 0.299 * r + 0.587 * g + 0.114 * b > 140 ? '#000' : '#fff';
      const lines = [`token ${t} "${tok}"`, `${neuron ? `act[${t}, ${u.index}]` : `‖z_${u.index}[${t}]‖`} = ${v.toFixed(4)}`];
      span.addEventListener('mousemove', (e) => tooltip.show(lines, e.clientX, e.clientY));
      span.addEventListener('mouseleave', () => tooltip.hide());
      text.append(span);
    });
    const what = neuron ? `Neuron ${u.index} of layer ${u.layer}: its activation at each token` : `Head ${u.index} of layer ${u.layer}: the size of what it writes at each token (‖its slice of the context‖)`;
    this.body.replaceChildren(h('h4', {}, what), text, legend(neuron ? 'activation' : 'size', cmap, range, this.ctx.backdrop()));
  }
}
