// One SAE feature under the sparse card, as Neuronpedia shows it: its activation over the prompt
// as coloured tokens, the words its decoder direction promotes and suppresses (W_dec[f] · W_U),
// its attribution to the prediction, its Neuronpedia page when the SAE names its release, and the
// edits of the model file it offers (sae_ablate, sae_scale, sae_clamp: the host's quick pick).
import type { SaeFeatureResult } from '../../src/protocol/lenses';
import { formatValue } from '../../src/common/numberFormat';
import { h } from '../dom';
import { colorAt, cssRGB, type Backdrop } from '../heatmap';
import { tooltip } from '../views/tooltip';
import { post } from '../viewState';

export class SaeFeatureView {
  readonly el = h('div', { class: 'sae-feature', hidden: true, 'aria-live': 'polite' });

  /** `pick`: the attribution asked at another token (its top prediction: target null) or for another word. */
  constructor(private readonly backdrop: () => Backdrop, private readonly pick: (pos: number, target: number | null) => void) {}

  waiting(id: string): void {
    this.el.hidden = false;
    this.el.dataset.feature = id;
    this.el.dataset.state = 'waiting';
    this.el.replaceChildren(h('h4', {}, id), h('p', { class: 'lens-note' }, 'Computing…'));
  }

  error(message: string): void {
    this.el.dataset.state = 'error';
    this.el.replaceChildren(h('h4', {}, this.el.dataset.feature ?? ''), h('p', { class: 'lens-note' }, message));
  }

  show(r: SaeFeatureResult): void {
    this.el.hidden = false;
    this.el.dataset.feature = r.id;
    this.el.dataset.state = 'drawn';
    const word = (w: number): string => r.words[w] ?? `#${w}`;
    const list = (cls: string, title: string, ws: SaeFeatureResult['promoted']): HTMLElement =>
      h('div', { class: `sae-words ${cls}` }, h('div', { class: 'sae-words-title' }, title),
        h('ol', {}, ...ws.map(([w, v]) => h('li', { 'data-word': w }, h('span', { class: 'sae-word' }, word(w)), h('span', { class: 'sae-word-value' }, ` ${formatValue(v)}`)))));
    const dla = 'error' in r.dla
      ? h('p', { class: 'lens-note sae-dla' }, `Attribution: ${r.dla.error}`)
      : h('div', {}, this.dlaControls(r, r.dla, word), h('p', { class: 'sae-dla', 'data-pos': r.dla.pos, 'data-target': r.dla.target, 'data-value': String(r.dla.value) }, `Attribution to “${word(r.dla.target)}” after “${r.tokens[r.dla.pos] ?? r.dla.pos}”: `,
        h('strong', {}, formatValue(r.dla.value)), ` of its logit ${formatValue(r.dla.logitDiff)}`,
        r.dla.rank > 0 ? ` (#${r.dla.rank} of ${r.dla.active} active features by size; activation × decoder row through the frozen final norm)` : ' (the feature does not fire there)'));
    const edit = h('vscode-button', { class: 'sae-edit', secondary: true }, 'Ablate / scale / clamp in the model file…');
    edit.addEventListener('click', () => post({ type: 'unit', text: r.id }));
    const links: HTMLElement[] = [edit];
    if (r.neuronpedia) links.push(h('a', { class: 'sae-neuronpedia', href: r.neuronpedia, title: r.neuronpedia }, 'Open on Neuronpedia'));
    const fired = r.acts.filter((a) => a !== 0).length;
    const words: HTMLElement[] = r.promoted.length
      ? [h('div', { class: 'sae-word-lists' }, list('sae-promoted', 'Promotes', r.promoted), list('sae-suppressed', 'Suppresses', r.suppressed)), h('p', { class: 'lens-note' }, `${r.wordsNote}.`)]
      : [];
    this.el.replaceChildren(
      h('h4', {}, `Feature ${r.feature} (${r.id})`),
      h('p', { class: 'lens-note' }, fired ? `Fires on ${fired} of ${r.acts.length} tokens; most at “${r.tokens[r.max.pos] ?? r.max.pos}” (position ${r.max.pos}): ${formatValue(r.max.value)}` : 'Does not fire on this prompt.'),
      this.tokens(r),
      ...words,
      dla,
      ...(r.edit ? [h('p', { class: 'sae-edited' }, `In the model file: ${r.edit}. Its activations here are the encoder's, before the edit; the run downstream reads the edited reconstruction.`)] : []),
      h('div', { class: 'sae-actions' }, ...links),
    );
  }

  // the token the attribution is read at and the word it is to (the top predictions there), as the DLA lens picks them
  private dlaControls(r: SaeFeatureResult, d: Extract<SaeFeatureResult['dla'], { pos: number }>, word: (w: number) => string): HTMLElement {
    const select = (label: string, cls: string, options: Array<[string, string]>, value: string, on: (v: string) => void): HTMLElement => {
      const s = h('vscode-single-select', { class: cls, 'aria-label': label }, ...options.map(([v, text]) => h('vscode-option', { value: v, selected: v === value }, text)));
      s.addEventListener('change', () => on((s as HTMLElement & { value: string }).value));
      return h('label', { class: 'lens-field' }, h('span', {}, label), s);
    };
    const targets = d.predictions.includes(d.target) ? d.predictions : [d.target, ...d.predictions];
    return h('div', { class: 'lens-controls sae-dla-controls' },
      select('Attribution at token', 'sae-dla-pos', r.tokens.map((t, i) => [String(i), `${i}: ${t}`]), String(d.pos), (v) => this.pick(Number(v), null)),
      select('to word', 'sae-dla-target', targets.map((w) => [String(w), word(w)]), String(d.target), (v) => this.pick(d.pos, Number(v))));
  }

  // the activation over the prompt, coloured from 0 to its max (activations are ≥ 0)
  private tokens(r: SaeFeatureResult): HTMLElement {
    const m = Math.max(1e-12, ...r.acts);
    const box = h('div', { class: 'colored-tokens sae-tokens', role: 'list', 'aria-label': `${r.id} over the prompt` });
    r.tokens.forEach((tok, t) => {
      const v = r.acts[t] ?? 0;
      const [red, g, b] = colorAt('viridis', Math.max(0, v) / m, this.backdrop());
      const span = h('span', { class: 'colored-token', role: 'listitem', 'data-token': t, 'data-value': String(v) }, tok);
      span.style.background = cssRGB([red, g, b]);
      span.style.color = 0.299 * red + 0.587 * g + 0.114 * b > 140 ? '#000' : '#fff';
      const lines = [`token ${t} "${tok}"`, `${r.id} = ${v.toFixed(4)}`];
      span.addEventListener('mousemove', (e) => tooltip.show(lines, e.clientX, e.clientY));
      span.addEventListener('mouseleave', () => tooltip.hide());
      box.append(span);
    });
    return box;
  }
}
