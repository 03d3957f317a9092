// The model at a glance: its shapes, and where its parameters are — in a GPT-style block the
// FFN holds about two thirds of them (the blog post's point: "MLP ≈ 2/3 of the parameters").
import type { ModelSummary } from '../../src/protocol/panel';
import { h } from '../dom';
import { activationLabel } from '../../src/core/activationKinds';
import { headSize, slidingWindow } from '../stagePicks';

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

export function renderSummary(s: ModelSummary): HTMLElement {
  const p = s.params;
  const parts: Array<[string, number, string]> = [
    ['attention', p.attention, 'part-attention'], ['FFN', p.ffn, 'part-ffn'], ['norms', p.norm, 'part-norm'], ['head', p.head, 'part-head'],
  ];
  const total = p.total || 1;
  const bar = h('div', { class: 'param-bar', role: 'img', 'aria-label': parts.map(([n, v]) => `${n} ${((100 * v) / total).toFixed(0)}%`).join(', ') },
    ...parts.filter(([, v]) => v > 0).map(([name, v, cls]) => {
      const seg = h('span', { class: `param-seg ${cls}`, title: `${name}: ${fmt(v)} (${((100 * v) / total).toFixed(1)}%)` });
      seg.style.width = `${(100 * v) / total}%`;
      return seg;
    }));
  const share = p.total ? Math.round((100 * p.ffn) / p.total) : 0;
  const rows = s.layers.map((L, i) => h('tr', {},
    h('td', {}, `layer ${i}`),
    h('td', {}, L.attention ? `${L.attention.NH} × [${s.T} × ${headSize(s, i)}]${L.attention.causal ? ', causal' : ''}${slidingWindow(s, i) !== undefined ? `, window ${slidingWindow(s, i)}` : ''}` : '—'),
    h('td', {}, L.ffn ? `${s.C} → ${L.ffn.F} → ${s.C}, ${activationLabel(L.ffn.activation)}` : '—')));
  return h('div', { class: 'summary' },
    h('table', { class: 'shapes' },
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', {}, 'attention (heads × [seq × d_head])'), h('th', {}, 'FFN'))),
      h('tbody', {}, ...rows)),
    h('p', { class: 'facts-line' }, `input [${s.T} × ${s.C}], layout ${s.layout}${s.positional === 'sinusoidal' ? ', sinusoidal positions' : ''}, norm ${s.norm}${s.residual ? ', residual' : ''}${s.finalNorm ? ', final norm' : ''}${s.head ? `, head over ${s.head.V} words at temperature ${s.head.temperature}` : ''}`),
    h('div', { class: 'params' },
      h('div', { class: 'params-title' }, `${fmt(p.total)} parameters in the file${p.total ? ` — the FFN holds ${share}%` : ''}`),
      bar,
      h('ul', { class: 'param-legend' }, ...parts.map(([name, v, cls]) => h('li', {}, h('span', { class: `swatch ${cls}` }), `${name}: ${fmt(v)}`)))));
}
