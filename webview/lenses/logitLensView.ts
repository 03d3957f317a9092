// The logit lens grid: a row per layer, a column per token; each cell names the word the model
// would predict if it stopped after that layer, colored by its probability (or by the probability
// of a target word picked from the last layer's predictions). Hover: the top 5; click: the layer.
import type { LensResult } from '../../src/protocol/lenses';
import { h } from '../dom';
import { colorAt, cssRGB } from '../heatmap';
import { tooltip } from '../views/tooltip';
import { completedWord, inputTokenNote, pendingBytes, wordNote } from './byteLabels';
import { legend, pct, wordLabel, type LensContext } from './lensContext';

type Grid = Extract<LensResult, { kind: 'logitLens' }>;

export class LogitLensView {
  readonly el = h('div', { class: 'lens-view lens-logit' });
  private target: number | null = null;

  constructor(private readonly ctx: LensContext) {}

  request(): void {
    this.ctx.request({ kind: 'logitLens', k: 5, target: this.target });
  }

  show(g: Grid): void {
    const T = g.tokens.length;
    // the target picker: the words that top any cell of the last layer, and "top word"
    const last = g.cells[g.L - 1] ?? [];
    const choices = [...new Set(last.map((c) => c.top[0][0]))];
    if (g.target !== null && !choices.includes(g.target)) choices.unshift(g.target);
    const select = h('vscode-single-select', { class: 'lens-target', 'aria-label': 'Color by' },
      h('vscode-option', { value: '', selected: g.target === null }, 'the top word\'s probability'),
      ...choices.map((id) => h('vscode-option', { value: String(id), selected: g.target === id }, `p(${wordLabel(g.words, id)})`)));
    select.addEventListener('change', () => {
      const v = (select as HTMLElement & { value: string }).value;
      this.target = v === '' ? null : Number(v);
      this.request();
    });
    const grid = h('div', { class: 'lens-grid', role: 'grid', 'aria-label': 'Logit lens: layers by tokens' });
    // (as wide as their words, up to a cell's 8em: stretched to the page, a wide panel or report
    // spread a few tokens over the whole width)
    grid.style.gridTemplateColumns = `auto repeat(${T}, minmax(3.2em, max-content))`;
    grid.append(h('div', { class: 'lens-corner' }, 'layer \\ token'));
    for (let t = 0; t < T; t++) {
      const note = inputTokenNote(g.tokens[t]);
      grid.append(h('div', { class: 'lens-col', title: note ? `token ${t}: ${note}` : `token ${t}` }, g.tokens[t]));
    }
    // a byte predicted after a character the input began shows the character it completes (…の)
    const pending = pendingBytes(g.tokens);
    const word = (t: number, id: number): string => completedWord(pending[t], wordLabel(g.words, id)) ?? wordLabel(g.words, id);
    // top layer first, as the stream rises (nostalgebraist's figures)
    for (let l = g.L - 1; l >= 0; l--) {
      grid.append(h('div', { class: 'lens-row' }, String(l)));
      for (let t = 0; t < T; t++) {
        const c = g.cells[l][t];
        const [id, p] = c.top[0];
        const shade = g.target === null ? p : c.target!.p;
        const [r, gg, b] = colorAt('viridis', shade, this.ctx.backdrop());
        const cell = h('div', { class: 'lens-cell', role: 'gridcell', tabindex: -1, 'data-layer': l, 'data-token': t, 'data-p': shade.toFixed(4), 'data-top': String(id) }, word(t, id));
        cell.style.background = cssRGB([r, gg, b]);
        cell.style.color = 0.299 * r + 0.587 * gg + 0.114 * b > 140 ? '#000' : '#fff';
        const lines = [
          `layer ${l}, after token ${t} "${g.tokens[t]}"`,
          ...c.top.map(([w, q], i) => `${i + 1}. ${word(t, w)}  ${pct(q)}`),
          ...(c.target ? [`${word(t, g.target!)}: ${pct(c.target.p)} (rank ${c.target.rank + 1})`] : []),
          ...byteLines(wordLabel(g.words, id), word(t, id)),
          'click: open this layer',
        ];
        cell.addEventListener('mousemove', (e) => tooltip.show(lines, e.clientX, e.clientY));
        cell.addEventListener('mouseleave', () => tooltip.hide());
        cell.addEventListener('click', () => this.ctx.openLayer(l));
        grid.append(cell);
      }
    }
    this.el.replaceChildren(
      h('div', { class: 'lens-controls' }, h('span', {}, 'Color:'), select, h('span', { class: 'lens-note' }, 'Each cell: the word predicted next if the model stopped after that layer (the head read off the final norm of the layer\'s output).')),
      h('div', { class: 'lens-scroll' }, grid),
      legend(g.target === null ? 'probability of the word shown' : `probability of ${wordLabel(g.words, g.target)}`, 'viridis', [0, 1], this.ctx.backdrop()),
    );
  }
}

/** The hover's word on a top word that is a byte: the character it completes, or that it is a byte. */
function byteLines(label: string, shown: string): string[] {
  if (shown !== label) return [`${label} completes the character the input began: ${shown.slice(1)}`];
  const note = wordNote(label);
  return note ? [note] : [];
}
