// Direct logit attribution: for the word picked (and the alternative subtracted), what each part
// of the residual stream writes into its logit at the token picked: the largest parts as bars, the
// heads as a layer × head grid (diverging colors, centred at zero), the top neurons. Clicking a
// head or a neuron offers to switch it off in the model file.
import type { DlaPartView, LensResult } from '../../src/protocol/lenses';
import { unitId } from '../../src/core/ids';
import { h } from '../dom';
import { HeatmapView } from '../views/heatmapView';
import { legend, signed, wordLabel, type LensContext } from './lensContext';
import { byteNote, predictedWordAt } from './byteLabels';
import { wordId } from './wordId';

type Dla = Extract<LensResult, { kind: 'dla' }>;

function partLabel(p: DlaPartView): string {
  switch (p.kind) {
    case 'embed': return p.name === 'pos_embed' ? 'positions' : p.name === 'input' ? 'input' : 'token embedding';
    case 'head': return `L${p.layer} head ${p.unit}`;
    case 'bias': return `L${p.layer} attention bias`;
    case 'mlp': return `L${p.layer} MLP`;
    case 'neuron': return `L${p.layer} neuron ${p.unit}`;
  }
}

/** A remainder worth saying (a soft-cap's), not float rounding. */
function shownRemainder(remainder: number, sum: number): boolean {
  return Math.abs(remainder) > 1e-4 * Math.max(1, Math.abs(sum));
}

function unitOf(p: DlaPartView): string | null {
  return p.kind === 'head' || p.kind === 'neuron' ? unitId(p.kind, p.layer, p.unit) : null;
}

export class DlaView {
  readonly el = h('div', { class: 'lens-view lens-dla' });
  private pos: number | null = null;
  private target: number | null = null;
  private alt: number | 'second' | null = 'second';
  private readonly grid = new HeatmapView();
  private last: Dla | null = null;

  constructor(private readonly ctx: LensContext) {}

  request(): void {
    this.ctx.request({ kind: 'dla', pos: this.pos, target: this.target, alt: this.alt });
  }

  /**
   * A field for a word beyond the top ones the pickers offer: its id (`383`, `#383`) or its text as
   * the rows show it (`·the`; a leading space may be typed as a space).
   */
  private anyWord(label: string, placeholder: string, set: (id: number) => void): HTMLElement {
    const f = h('vscode-textfield', { class: 'dla-any-word', placeholder, 'aria-label': label }) as HTMLElement & { value: string };
    f.addEventListener('change', () => {
      const id = wordId(f.value, this.ctx.summary()?.vocab ?? []);
      if (id === null) {
        f.setAttribute('invalid', '');
        f.title = `"${f.value}" is neither a word id nor a word of the vocabulary`;
        return;
      }
      f.removeAttribute('invalid');
      f.title = '';
      set(id);
      this.request();
    });
    return f;
  }

  show(d: Dla): void {
    this.last = d;
    const select = (label: string, options: Array<[string, string]>, value: string, on: (v: string) => void): HTMLElement => {
      const s = h('vscode-single-select', { 'aria-label': label }, ...options.map(([v, text]) => h('vscode-option', { value: v, selected: v === value }, text)));
      s.addEventListener('change', () => on((s as HTMLElement & { value: string }).value));
      return h('label', { class: 'lens-field' }, h('span', {}, label), s);
    };
    // (a word of bytes that completes the character the input began at pos is shown as that character)
    const word = (id: number): string => predictedWordAt(d.tokens, d.pos, wordLabel(d.words, id));
    const words = (ids: readonly number[]): Array<[string, string]> => ids.map((id) => [String(id), word(id)]);
    const predIds = d.predictions.map(([id]) => id);
    const targets = predIds.includes(d.target) ? predIds : [d.target, ...predIds];
    const controls = h('div', { class: 'lens-controls' },
      select('At token', d.tokens.map((t, i) => [String(i), `${i}: ${t}`]), String(d.pos), (v) => {
        this.pos = Number(v);
        this.target = null;
        this.request();
      }),
      h('span', { class: 'lens-field-pair' },
        select('Word', words(targets), String(d.target), (v) => {
          this.target = Number(v);
          this.request();
        }),
        this.anyWord('any word as Word', 'or another: id or text', (id) => { this.target = id; })),
      h('span', { class: 'lens-field-pair' },
        select('minus', [['', '(nothing)'], ...words(targets.filter((id) => id !== d.target))], d.alt === null ? '' : String(d.alt), (v) => {
          this.alt = v === '' ? null : Number(v);
          this.request();
        }),
        this.anyWord('any word as minus', 'or another: id or text', (id) => { this.alt = id; })));
    const what = d.alt === null ? `logit(${word(d.target)})` : `logit(${word(d.target)}) − logit(${word(d.alt)})`;
    const sum = d.parts.reduce((s, p) => s + p.value, d.constant);
    const headline = h('p', { class: 'lens-headline', 'data-logit-diff': String(d.logitDiff), 'data-sum': String(sum) },
      `${what} = ${d.logitDiff.toFixed(4)} after token ${d.pos} "${d.tokens[d.pos] ?? ''}". The parts below add up to ${sum.toFixed(4)} (with ${d.constant.toFixed(4)} from the norms' and the head's biases)${shownRemainder(d.remainder, sum) ? `; the remainder ${d.remainder.toFixed(4)} makes up the rest` : ''}; the norms' scales are this run's, held fixed.`);
    const note = h('p', { class: 'lens-note', 'data-remainder': String(d.remainder) }, d.note + byteNote(d.alt === null ? [word(d.target)] : [word(d.target), word(d.alt)]));

    // the largest parts, as bars
    const ranked = [...d.parts].sort((a, b) => Math.abs(b.value) - Math.abs(a.value)).slice(0, 12);
    const max = Math.max(1e-12, ...ranked.map((p) => Math.abs(p.value)));
    const bars = h('div', { class: 'dla-bars', role: 'list', 'aria-label': 'The largest parts' }, ...ranked.map((p) => this.bar(partLabel(p), p.value, max, unitOf(p))));
    const nmax = Math.max(1e-12, ...d.topNeurons.slice(0, 10).map((p) => Math.abs(p.value)));
    const neurons = h('div', { class: 'dla-bars', role: 'list', 'aria-label': 'The top neurons' }, ...d.topNeurons.slice(0, 10).map((p) => this.bar(partLabel(p), p.value, nmax, unitOf(p))));

    const gridBox = h('div', { class: 'dla-grid' });
    const L = d.heads.length;
    const NH = Math.max(0, ...d.heads.map((r) => r.length));
    if (NH > 0) {
      const data = new Float32Array(L * NH).fill(NaN);
      d.heads.forEach((row, l) => row.forEach((v, k) => (data[l * NH + k] = v)));
      const m = Math.max(1e-12, ...d.heads.flat().map(Math.abs));
      // the heads the file switches off or scales: hatched, their edit in the tooltip
      const edited = (l: number, k: number): string | undefined => d.editedHeads[unitId('head', l, k)];
      const mask = Uint8Array.from({ length: L * NH }, (_, i) => (edited(Math.floor(i / NH), i % NH) ? 1 : 0));
      this.grid.set({
        data, rows: L, cols: NH, mask, rowLabels: d.heads.map((_, l) => `L${l}`), colLabels: Array.from({ length: NH }, (_, k) => String(k)), colAxis: 'head',
        describe: (l, k, v) => [`layer ${l}, head ${k}${edited(l, k) ? `: ${edited(l, k)}` : ''}`, `writes ${signed(v, 4)} into ${what}`, 'click: switch it off or scale it'],
        onClick: (l, k) => this.ctx.unit(unitId('head', l, k)),
        ariaLabel: `Direct logit attribution of every head: ${L} layers × ${NH} heads`,
      });
      const nEdited = Object.keys(d.editedHeads).length;
      gridBox.append(h('h4', {}, 'Every head'), this.grid.el, legend(`logit contribution${nEdited ? '; hatched: switched off or scaled in the model file' : ''}`, 'coolwarm', [-m, m], this.ctx.backdrop()));
      requestAnimationFrame(() => this.grid.paint({ colormap: 'coolwarm', backdrop: this.ctx.backdrop(), range: [-m, m], ...this.maxCells() }, Math.min(520, this.el.clientWidth || 520)));
    }
    this.el.replaceChildren(controls, headline, note,
      h('div', { class: 'dla-columns' },
        h('div', {}, h('h4', {}, 'The largest parts'), bars),
        h('div', {}, h('h4', {}, 'Top neurons'), neurons)),
      gridBox);
  }

  repaint(): void {
    if (this.last) this.show(this.last);
  }

  private maxCells(): { maxRows: number; maxCols: number } {
    const m = this.ctx.maxCells();
    return { maxRows: m.rows, maxCols: m.cols };
  }

  private bar(label: string, v: number, max: number, unit: string | null): HTMLElement {
    const w = `${((Math.abs(v) / max) * 50).toFixed(2)}%`;
    const fill = h('div', { class: v >= 0 ? 'dla-fill dla-pos' : 'dla-fill dla-neg' });
    fill.style.width = w;
    if (v < 0) fill.style.right = '50%';
    else fill.style.left = '50%';
    const row = h(unit ? 'button' : 'div', { class: 'dla-bar', role: 'listitem', title: unit ? `${label}: ${signed(v, 4)} (click: switch it off or scale it in the model file)` : `${label}: ${signed(v, 4)}`, 'data-unit': unit ?? undefined, 'data-value': String(v) },
      h('span', { class: 'dla-label' }, label), h('span', { class: 'dla-track' }, fill), h('span', { class: 'dla-value' }, signed(v)));
    if (unit) row.addEventListener('click', () => this.ctx.unit(unit));
    return row;
  }
}

