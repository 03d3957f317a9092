// The panel's layout, from the stages the worker lists (ModelSummary.stages, in computation
// order): an overview, the model summary, the input, each layer with its attention and FFN
// sublayers, the output, the prediction head and the logit lens; each section collapsible, its
// open state kept in the view state. Nothing here knows one op from another: a card per stage.
import { stageId } from '../src/core/ids';
import { isDeep as isDeepModel } from '../src/core/shownFirst';
import type { ModelSummary, StageView } from '../src/protocol/stages';
import { plural } from '../src/common/numberFormat';
import { h } from './dom';
import type { Overview } from './overview';
import type { ViewState } from './viewState';
import { headSize, slidingWindow } from './stagePicks';
import { ActivationChart } from './views/activationChart';
import { ProbsChart } from './views/probsChart';
import { StageCard, type CardContext } from './views/stageCard';
import { clearSaeCards, saeCard } from './sae/saeCards';

/** A deep model's layers open collapsed (what the worker sends a new panel: src/core/shownFirst.ts). */
function isDeep(s: ModelSummary): boolean {
  return isDeepModel(s.layers.length);
}

export class PanelLayout {
  readonly cards = new Map<string, StageCard>();
  /** The activation curves (drawn after the stages the plan gives one), by the stage whose values they plot. */
  readonly activationCharts = new Map<string, { chart: ActivationChart; fn: string }>();
  probsChart: ProbsChart | null = null;

  constructor(
    private readonly ctx: CardContext,
    private readonly viewState: () => ViewState,
    private readonly save: () => void,
    private readonly redraw: () => void,
    /** A section opened or closed (the stages shown changed). */
    private readonly onToggle: () => void = () => undefined,
  ) {}

  dispose(): void {
    for (const c of this.activationCharts.values()) c.chart.dispose();
    this.activationCharts.clear();
    this.probsChart?.dispose();
    this.probsChart = null;
    this.cards.clear();
    clearSaeCards();
  }

  /** Every section of the panel for a model. */
  build(s: ModelSummary, overview: Overview, lenses: HTMLElement, generation?: HTMLElement): HTMLElement[] {
    this.dispose();
    const cards = (list: readonly StageView[]): HTMLElement[] => list.flatMap((info) => {
      const c = saeCard(info, this.ctx) ?? new StageCard(info, info.shape, this.ctx);
      this.cards.set(info.id, c);
      const curve = info.show.activationChart;
      if (!curve) return [c.el];
      // the activation's curve on this input, right after the activation stage
      const chart = new ActivationChart();
      this.activationCharts.set(curve.input, { chart, fn: curve.fn });
      return [c.el, h('section', { class: 'card chart-card' }, h('header', { class: 'card-header' }, h('h3', { class: 'card-title' }, 'The activation on this input')), chart.el)];
    });
    const of = (group: StageView['group'], layer = -1): StageView[] => s.stages.filter((x) => x.group === group && x.layer === layer);
    const box = (els: HTMLElement[]): HTMLElement => h('div', { class: 'cards' }, ...els);

    const sections: HTMLElement[] = [
      this.section('overview', 'Overview', overview.build(s), true),
      ...(generation && s.head ? [this.section('generation', 'Generation', generation, true)] : []), // (shown while there is one: views/generationView.ts)
      ...(s.head || s.layers.some((l) => l.attention) ? [this.section('lenses', 'Lenses: logit lens, attribution, heads, patching', lenses, false)] : []),
      this.section('summary', 'Model summary', h('div', { class: 'summary-box' }), false),
      this.section('input', 'Input', box(cards(of('input'))), true),
    ];
    s.layers.forEach((L, i) => {
      // (a sublayer's section is named as the stages under it: `layers.0.ffn`)
      const sub = (group: StageView['group']): string => stageId(i, group);
      const parts: HTMLElement[] = [];
      const a = L.attention;
      if (a) {
        const window = slidingWindow(s, i);
        const note = `${plural(a.NH, 'head')} of width ${headSize(s, i)}${a.KVH !== a.NH ? `, ${a.KVH} key/value heads` : ''}${a.causal ? ', causal' : ''}${window !== undefined ? `, sliding window ${window}` : ''}${a.rope ? ', rotary positions' : ''}${a.identity.length ? `; ${a.identity.join(', ')} missing: identity` : ''}`;
        parts.push(this.section(sub('attention'), `Self-attention (${note})`, box(cards(of('attention', i))), true, 'sub'));
      }
      const f = L.ffn;
      if (f) parts.push(this.section(sub('ffn'), `Feed-forward (${f.activation}, d_ff ${f.F})`, box(cards(of('ffn', i))), true, 'sub'));
      parts.push(box(cards(of('layer', i))));
      // a deep model's layers start closed: the residual-stream overview picks which to open
      sections.push(this.section(`layer${i}`, `Layer ${i}`, h('div', { class: 'layer' }, ...parts), !isDeep(s)));
    });
    sections.push(this.section('output', 'Output', box(cards(of('output'))), true));
    if (s.head) {
      this.probsChart = new ProbsChart(this.viewState().probsToken, (t) => {
        this.viewState().probsToken = t;
        this.save();
      });
      const chartCard = h('section', { class: 'card chart-card' }, h('header', { class: 'card-header' }, h('h3', { class: 'card-title' }, 'Prediction')), this.probsChart.el);
      sections.push(this.section('head', 'Prediction head', box([chartCard, ...cards(of('head'))]), true));
    }
    const lens = s.stages.filter((x) => x.group === 'lens');
    if (lens.length) sections.push(this.section('lens', 'Logit lens', box(cards(lens)), false));
    return sections;
  }

  /**
   * The stages the panel shows: a small model, all of them (null); a deep one, the cards of the
   * open sections (every enclosing section open), plus what `always` needs (overview, prediction).
   */
  wanted(s: ModelSummary, always: readonly string[]): string[] | null {
    if (!isDeep(s)) return null;
    const ids = new Set(always);
    for (const [id, c] of this.cards) {
      let open = true;
      for (let p = c.el.parentElement; p && open; p = p.parentElement) if (p.tagName === 'VSCODE-COLLAPSIBLE' && !(p as HTMLElement & { open: boolean }).open) open = false;
      if (open) ids.add(id);
    }
    return [...ids];
  }

  /** A collapsible section whose open state is kept in the view state. */
  private section(id: string, heading: string, body: HTMLElement, openByDefault: boolean, level = 'top'): HTMLElement {
    const collapsed = this.viewState().collapsed;
    const open = collapsed[id] === undefined ? openByDefault : !collapsed[id];
    const el = h('vscode-collapsible', { heading, class: `section section-${level}`, 'data-section': id, open }, body);
    el.addEventListener('vsc-collapsible-toggle', (e) => {
      if (e.target !== el) return;
      const isOpen = (e as CustomEvent<{ open: boolean }>).detail.open;
      this.viewState().collapsed[id] = !isOpen;
      this.save();
      this.onToggle();
      if (isOpen) requestAnimationFrame(() => this.redraw());
    });
    return el;
  }
}
