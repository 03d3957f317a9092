// What each head does on this prompt: previous-token, duplicate-token and induction scores as
// layer × head grids (0 to 1); hovering a head draws its attention pattern beside them. A button
// runs the standard induction test (a random sequence repeated twice).
import type { LensResult } from '../../src/protocol/lenses';
import { h } from '../dom';
import { HeatmapView } from '../views/heatmapView';
import { legend, type LensContext } from './lensContext';

type Heads = Extract<LensResult, { kind: 'heads' }>;

const KINDS = [
  ['prev', 'Previous token', 'mean attention from each token to the one just before it'],
  ['dup', 'Duplicate token', 'attention from a token to its earlier copies'],
  ['induction', 'Induction', 'attention to the token that followed an earlier copy of the current token'],
] as const;

export class HeadsView {
  readonly el = h('div', { class: 'lens-view lens-heads' });
  private repeat: number | null = null;
  private readonly maps = new Map<string, HeatmapView>();
  private readonly pattern = new HeatmapView(true, true);
  private last: Heads | null = null;

  constructor(private readonly ctx: LensContext) {}

  request(): void {
    this.ctx.request({ kind: 'heads', repeat: this.repeat });
  }

  show(r: Heads): void {
    this.last = r;
    const L = r.prev.length;
    const NH = Math.max(0, ...r.prev.map((x) => x.length));
    const grids: Array<[string, string, string, ReadonlyArray<readonly number[]>]> = [];
    for (const [key, title, meaning] of KINDS) {
      const g = r[key];
      if (g) grids.push([key, title, meaning, g]);
    }
    if (r.repeat) grids.push(['repeat', `Induction test (${Math.floor(r.repeat.ids.length / 2)} random tokens, twice${r.repeat.ids.length % 2 ? ', after BOS' : ''})`, 'the induction score on the repeated sequence: high for induction heads', r.repeat.induction]);
    const patternBox = h('div', { class: 'heads-pattern' }, h('p', { class: 'lens-note' }, 'Hover a head to see its attention pattern on this prompt.'));
    const boxes = grids.map(([key, title, meaning, g]) => {
      let v = this.maps.get(key);
      if (!v) this.maps.set(key, (v = new HeatmapView(true, true)));
      const data = new Float32Array(L * NH).fill(NaN);
      g.forEach((row, l) => row.forEach((x, k) => (data[l * NH + k] = x)));
      const view = v;
      view.set({
        // (the heads' indices under the grid, where they fit)
        data, rows: L, cols: NH, rowLabels: g.map((_, l) => `L${l}`), colLabels: Array.from({ length: NH }, (_, k) => String(k)), colAxis: 'head',
        describe: (l, k, x) => {
          this.showPattern(r, l, k, patternBox);
          return [`layer ${l}, head ${k}`, `${title}: ${x.toFixed(3)}`, meaning];
        },
        ariaLabel: `${title} score of every head: ${L} layers × ${NH} heads`,
      });
      const el = h('div', { class: 'heads-grid', 'data-kind': key }, h('h4', { title: meaning }, title), view.el);
      requestAnimationFrame(() => view.paint({ colormap: 'viridis', backdrop: this.ctx.backdrop(), range: [0, 1], maxRows: 4096, maxCols: 4096 }, 220));
      return el;
    });
    const button = h('vscode-button', { secondary: true, title: 'Runs the model on 20 random tokens repeated twice (after its BOS token, where it has one) and scores every head: an induction head attends from each token of the second half to the token after its first occurrence' }, r.repeat ? 'Run the induction test again' : 'Run the induction test');
    button.addEventListener('click', () => {
      this.repeat = 20;
      this.request();
    });
    // (duplicate-token and induction scores need a token seen before: none here reads as all zero)
    const noRepeat = r.dup && new Set(r.tokens).size === r.tokens.length;
    const note = !r.dup ? 'This model reads vectors: only the previous-token score applies.'
      : noRepeat ? 'No token occurs twice in this prompt, so every duplicate-token and induction score is 0: repeat a token, or run the induction test.' : null;
    this.el.replaceChildren(
      h('div', { class: 'lens-controls' }, button, note ? h('span', { class: 'lens-note' }, note) : null),
      h('div', { class: 'heads-row' }, ...boxes, patternBox),
      legend('score (attention weight, 0 to 1)', 'viridis', [0, 1], this.ctx.backdrop()),
    );
  }

  repaint(): void {
    if (this.last) this.show(this.last);
  }

  private showPattern(r: Heads, l: number, k: number, box: HTMLElement): void {
    const p = r.patterns?.[l]?.[k];
    if (!p) return;
    const T = r.tokens.length;
    this.pattern.set({
      data: Float32Array.from(p), rows: T, cols: T, rowLabels: r.tokens, colLabels: r.tokens, colAxis: 'key',
      describe: (q, kk, x) => [`"${r.tokens[q]}" → "${r.tokens[kk]}"`, `weight ${x.toFixed(3)}`],
      ariaLabel: `Attention pattern of layer ${l}, head ${k}`,
    });
    if (box.dataset.head !== `${l}.${k}`) {
      box.dataset.head = `${l}.${k}`;
      box.replaceChildren(h('h4', {}, `Layer ${l}, head ${k}`), this.pattern.el);
    }
    this.pattern.paint({ colormap: 'viridis', backdrop: this.ctx.backdrop(), range: [0, 1], maxRows: 4096, maxCols: 4096 }, 260);
  }
}
