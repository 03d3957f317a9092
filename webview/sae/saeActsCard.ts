// The card of an SAE's `.acts` stage, drawn sparse: a 16k-wide heatmap of mostly zeros says little,
// so each token lists its active features, the top k by value (feature id and value), as
// `ffn-lens sae` does. A feature clicked opens its view below (saeFeatureView.ts); the whole
// [T, d_sae] stage is still the card's numbers, exported on demand (.npy, as any stage).
import type { SaeFeatureResult } from '../../src/protocol/lenses';
import type { StageView } from '../../src/protocol/stages';
import { formatValue } from '../../src/common/numberFormat';
import { saeFeatureId } from '../../src/core/ids';
import { h } from '../dom';
import { colorAt, cssRGB } from '../heatmap';
import { StageCard, type CardContext, type StageData } from '../views/stageCard';
import { post } from '../viewState';
import { activeFeatures } from './sparseActs';
import { SaeFeatureView } from './saeFeatureView';

/** Features listed per token (the CLI's default --k). */
export const TOP_K = 10;
/** Tokens listed at most (a long prompt's later ones are said, not drawn). */
const MAX_ROWS = 512;

export class SaeActsCard extends StageCard {
  private readonly sparse = h('div', { class: 'sae-sparse', role: 'table', 'aria-label': 'active features per token' });
  private readonly feature: SaeFeatureView;
  private drawnData: StageData | null = null;
  private selected: number | null = null;
  /** Where the feature's attribution is read and to which word (null: the last token, its top prediction). */
  private dlaAt: { pos: number | null; target: number | null } = { pos: null, target: null };
  private edits = new Map<number, string>();

  constructor(info: StageView, shape: readonly number[], private readonly cardCtx: CardContext, readonly site: string) {
    super(info, shape, cardCtx);
    this.feature = new SaeFeatureView(() => this.cardCtx.backdrop, (pos, target) => {
      this.dlaAt = { pos, target };
      if (this.selected !== null) this.request();
    });
    const body = this.el.querySelector<HTMLElement>('.card-body');
    if (body) body.hidden = true; // (the heatmap's place: the sparse list takes it)
    const exportNpy = h('vscode-button', { class: 'sae-export', secondary: true, title: `the whole [T, ${shape[shape.length - 1]}] stage as a NumPy array` }, 'Export all activations (.npy)…');
    exportNpy.addEventListener('click', () => post({ type: 'exportStage', stageId: info.id, kind: 'npy' }));
    const note = h('p', { class: 'lens-note' }, `Each token's active features, the top ${TOP_K} by value; click a feature for what it does.`);
    this.el.append(h('div', { class: 'sae-body' }, h('div', { class: 'sae-toolbar' }, note, exportNpy), this.sparse, this.feature.el));
    this.el.dataset.sae = 'acts';
  }

  override draw(force = false): void {
    const st = this.data;
    if (!st || this.el.offsetParent === null) return;
    if (!force && st === this.drawnData) return;
    this.drawnData = st;
    const [T, N] = st.shape;
    const tokens = this.cardCtx.summary.tokens;
    const rows = activeFeatures(st.data, Math.min(T, MAX_ROWS), N, TOP_K);
    let m = 1e-12;
    for (const r of rows) if (r.top.length) m = Math.max(m, r.top[0][1]);
    const backdrop = this.cardCtx.backdrop;
    const chip = (f: number, v: number): HTMLElement => {
      const [r, g, b] = colorAt('viridis', Math.max(0, v) / m, backdrop);
      const el = h('button', { class: 'sae-chip', 'data-feature': f, 'data-value': String(v), title: `${saeFeatureId(this.site, f)} = ${v}` },
        h('span', { class: 'sae-chip-id' }, String(f)), h('span', { class: 'sae-chip-value' }, formatValue(v)));
      el.style.borderLeftColor = cssRGB([r, g, b]);
      if (f === this.selected) el.classList.add('selected');
      const edit = this.edits.get(f);
      if (edit) {
        el.classList.add('edited');
        el.title += ` · in the model file: ${edit}`;
      }
      return el;
    };
    this.sparse.replaceChildren(...rows.map((r, t) => h('div', { class: 'sae-row', role: 'row', 'data-token': t },
      h('span', { class: 'sae-tok', role: 'rowheader' }, tokens[t] ?? `t${t}`),
      h('span', { class: 'sae-count', title: 'features active on this token' }, String(r.active)),
      h('span', { class: 'sae-chips', role: 'cell' }, ...r.top.map(([f, v]) => chip(f, v))))),
    ...(T > MAX_ROWS ? [h('p', { class: 'lens-note' }, `… ${T - MAX_ROWS} more tokens (export the stage for all of them)`)] : []));
    this.sparse.onclick = (e) => {
      const b = (e.target as HTMLElement).closest<HTMLElement>('.sae-chip');
      if (b?.dataset.feature) this.select(Number(b.dataset.feature));
    };
  }

  /** The model file's edits of these features (marked on their chips: the values shown are the encoder's, before the edit). */
  setEdits(edits: ReadonlyArray<readonly [number, string]>): void {
    const next = new Map(edits);
    if ([...next].join() === [...this.edits].join()) return;
    this.edits = next;
    this.draw(true);
  }

  /** A feature clicked: its view below, computed by the worker. */
  select(feature: number): void {
    this.selected = feature;
    for (const b of this.sparse.querySelectorAll<HTMLElement>('.sae-chip')) b.classList.toggle('selected', Number(b.dataset.feature) === feature);
    this.feature.waiting(saeFeatureId(this.site, feature));
    this.request();
  }

  /** A render is complete: the feature shown is asked for again (it follows the edits). */
  onRendered(): void {
    if (this.selected !== null) this.request();
  }

  showFeature(r: SaeFeatureResult): void {
    if (r.feature === this.selected) this.feature.show(r);
  }

  featureError(message: string): void {
    if (this.selected !== null) this.feature.error(message);
  }

  private request(): void {
    const { pos, target } = this.dlaAt;
    // (a position past a shorter prompt's end: the last again)
    const T = this.cardCtx.summary.tokens.length;
    post({ type: 'lens', request: { kind: 'saeFeature', site: this.site, feature: this.selected!, pos: pos !== null && pos < T ? pos : null, target: pos !== null && pos < T ? target : null } });
  }
}
