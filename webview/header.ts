// The panel's sticky header: the model's name and facts, the colormap and range controls, expand
// and collapse all; built once, so an edit updates the words, never a control the user is holding.
import type { PanelSettings } from '../src/protocol/panel';
import type { ModelSummary } from '../src/protocol/stages';
import { plural } from '../src/common/numberFormat';
import { isSteerStage } from '../src/core/ids';
import { h } from './dom';
import { COLORMAP_LABELS, COLORMAPS } from './heatmap/colormaps';
import { fileNameOfUri } from './heading';
import { post } from './viewState';

const RANGE_LABELS: Record<PanelSettings['range'], string> = {
  perHeatmap: 'per heatmap', perStageKind: 'shared per stage kind', percentile: 'clipped at a percentile',
};

export class PanelHeader {
  private readonly name = h('h1', { class: 'model-name' });
  private readonly facts = h('span', { class: 'facts' });
  /** How far a long render is (a long input, a deep model): the stages in so far. */
  private readonly progressEl = h('span', { class: 'render-progress', role: 'status', hidden: true });
  private readonly cmap = h('vscode-single-select', { class: 'colormap-select', 'aria-label': 'colormap' }) as HTMLElement & { value: string };
  private readonly range = h('vscode-single-select', { class: 'range-select', 'aria-label': 'color range' }) as HTMLElement & { value: string };
  /** Deep models: go to a layer (its section opens). */
  private readonly layer = h('vscode-single-select', { class: 'layer-select', 'aria-label': 'go to layer' }) as HTMLElement & { value: string };
  private readonly layerControl = h('label', { class: 'control layer-control' }, h('span', { class: 'control-label' }, 'Layer'), this.layer);
  private layers = -1;
  /** Compare the stages with a baseline: what an edit changed. */
  private readonly compareSel = h('vscode-single-select', { class: 'compare-select', 'aria-label': 'compare with' },
    h('vscode-option', { value: 'none' }, 'nothing (the numbers)'),
    h('vscode-option', { value: 'plain' }, 'this file without ablate/scale/weights'),
    h('vscode-option', { value: 'head' }, 'this file as committed (HEAD)'),
    h('vscode-option', { value: 'file' }, 'another model file…')) as HTMLElement & { value: string };
  private compareValue = 'none';
  private readonly compareNote = h('div', { class: 'compare-note', role: 'status', hidden: true });

  constructor(into: HTMLElement, setAllOpen: (open: boolean) => void, goToLayer: (layer: number) => void = () => undefined) {
    this.layerControl.style.display = 'none'; // (until a deep model comes)
    this.layer.addEventListener('change', () => {
      const n = Number(this.layer.value);
      if (Number.isInteger(n) && n >= 0) goToLayer(n);
    });
    this.cmap.append(...COLORMAPS.map((v) => h('vscode-option', { value: v }, COLORMAP_LABELS[v])));
    this.cmap.addEventListener('change', () => post({ type: 'setSetting', key: 'colormap', value: this.cmap.value }));
    this.range.append(...Object.entries(RANGE_LABELS).map(([v, l]) => h('vscode-option', { value: v }, l)));
    this.range.addEventListener('change', () => post({ type: 'setSetting', key: 'colorRange', value: this.range.value }));
    const expand = h('vscode-button', { secondary: true, class: 'expand-all', title: 'Expand every section' }, 'Expand all');
    expand.addEventListener('click', () => setAllOpen(true));
    const collapse = h('vscode-button', { secondary: true, class: 'collapse-all', title: 'Collapse every section' }, 'Collapse all');
    collapse.addEventListener('click', () => setAllOpen(false));
    into.replaceChildren(
      h('div', { class: 'title-row' }, this.name, this.facts, this.progressEl),
      h('div', { class: 'control-row' },
        h('label', { class: 'control' }, h('span', { class: 'control-label' }, 'Colors'), this.cmap),
        h('label', { class: 'control' }, h('span', { class: 'control-label' }, 'Range'), this.range),
        this.layerControl,
        h('label', { class: 'control' }, h('span', { class: 'control-label' }, 'Compare with'), this.compareSel),
        h('span', { class: 'spacer' }), h('span', { class: 'control' }, expand, collapse)),
      this.compareNote);
    this.compareSel.addEventListener('change', () => {
      if (this.compareSel.value === this.compareValue && this.compareSel.value !== 'file') return;
      post({ type: 'compare', kind: this.compareSel.value as 'none' | 'plain' | 'head' | 'file' | 'unsteered' });
    });
  }

  /** The "as committed (HEAD)" choice only where the host can read Git (not on vscode.dev). */
  offerGitHead(available: boolean): void {
    const opt = this.compareSel.querySelector('vscode-option[value="head"]') as HTMLElement | null;
    if (!available && opt) opt.remove();
    else if (available && !opt) this.compareSel.insertBefore(h('vscode-option', { value: 'head' }, 'this file as committed (HEAD)'), this.compareSel.querySelector('vscode-option[value="file"]'));
  }

  /** "Without its steer" only while the file steers a stage (its plan has a steered stage). */
  private offerUnsteered(steers: boolean): void {
    const opt = this.compareSel.querySelector('vscode-option[value="unsteered"]');
    if (steers === !!opt) return;
    if (!steers) opt!.remove();
    else this.compareSel.insertBefore(h('vscode-option', { value: 'unsteered' }, 'this file without its steer'), this.compareSel.querySelector('vscode-option[value="head"]') ?? this.compareSel.querySelector('vscode-option[value="file"]'));
  }

  /** What the panel compares with now (label null: nothing); `cancelled`: the choice went back. */
  compare(label: string | null, error: string | null, cancelled = false, incomparable: readonly string[] = []): void {
    if (cancelled) {
      this.compareSel.value = this.compareValue; // (the picker shows what is applied)
      return;
    }
    this.compareValue = label === null ? 'none' : this.compareSel.value;
    if (label === null) {
      this.compareSel.value = this.compareValue = 'none';
      this.compareNote.hidden = true;
      document.body.classList.remove('comparing');
      return;
    }
    this.compareNote.hidden = false;
    document.body.classList.add('comparing');
    // stages the baseline has in another shape (another number of tokens) are not differences: say which
    const n = incomparable.length;
    const apart = n === 0 ? '' : ` Not compared, shown as they are: ${n === 1 ? 'one stage' : `${n} stages`} the baseline has in another shape or not at all: ${incomparable.slice(0, 4).join(', ')}${n > 4 ? ', …' : ''}.`;
    this.compareNote.textContent = error
      ? `Compare with ${label}: ${error}`
      : incomparable.includes('input')
        ? `Compare with ${label}: the two inputs differ in length, so no stage can be subtracted from its baseline: every stage shows this file's own numbers. The prediction's bars show both.`
        : `Showing every stage but the probabilities as edited − baseline (${label}): red where the edited model is larger, blue where smaller, centred at zero. The probabilities stay as they are; the prediction's bars show both.${apart}`;
    this.compareNote.classList.toggle('compare-error', !!error);
  }

  /** A line on how far the render is (null: none, it is complete). */
  progress(text: string | null): void {
    this.progressEl.hidden = text === null;
    this.progressEl.textContent = text ?? '';
  }

  /** The model shown: its name and facts. */
  /** The layer picker shows the layer gone to (from the map, a lens, or itself). */
  showLayer(layer: number): void {
    if (layer < this.layers && this.layer.value !== String(layer)) this.layer.value = String(layer);
  }

  model(s: ModelSummary): void {
    const dff = s.layers.find((l) => l.ffn)?.ffn?.F;
    const a = s.layers.find((l) => l.attention)?.attention;
    const norm = s.norm === 'none' ? '' : `${s.norm}-${s.normKind === 'rmsnorm' ? 'RMSNorm' : 'LN'}`;
    this.name.textContent = s.name;
    this.offerUnsteered(s.stages.some((x) => isSteerStage(x.id)));
    if (s.layers.length !== this.layers) {
      // (rebuilt only when the number of layers changes: never while the user holds the control)
      this.layers = s.layers.length;
      // (style, not the hidden attribute: the control's class sets its display)
      this.layerControl.style.display = s.layers.length <= 2 ? 'none' : '';
      this.layer.replaceChildren(h('vscode-option', { value: '-1' }, 'choose a layer…'), ...s.layers.map((_, i) => h('vscode-option', { value: String(i) }, `layer ${i}`)));
      this.layer.value = '-1';
    }
    this.facts.textContent = [
      plural(s.T, 'token'), `d_model ${s.C}`, dff ? `d_ff ${dff}` : '',
      a ? `${plural(a.NH, 'head')}${a.KVH !== a.NH ? ` (${a.KVH} key/value)` : ''}` : '',
      plural(s.layers.length, 'layer'), norm, s.residual ? 'residual' : '', `layout ${s.layout}`,
    ].filter(Boolean).join(' · ');
  }

  /** Before any summary: the file's name, no facts. */
  file(uri: string): void {
    this.name.textContent = fileNameOfUri(uri);
    this.facts.textContent = '';
  }

  settings(st: PanelSettings): void {
    if (this.cmap.value !== st.colormap) this.cmap.value = st.colormap;
    if (this.range.value !== st.range) this.range.value = st.range;
  }
}
