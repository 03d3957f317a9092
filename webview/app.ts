// The panel: the overview the blog posts draw, a model summary, then every stage of every layer in
// computation order, grouped by layer and sublayer, each collapsible. Stages arrive one by one,
// tagged with the document version; anything older than the render on screen is dropped. While
// the text does not read as a model, the last good render stays, dimmed, under a banner.
import type {
  HighlightTarget, ModelSummary, PanelSettings, ProblemInfo, ToWebview,
} from '../src/preview/protocol';
import type { Activation } from '../src/core/activation';
import { bannerBlocks, contentWarnings } from './banner';
import { h, perFrame } from './dom';
import { fileNameOfUri } from './heading';
import {
  backdropOf, isDiverging, mergeRanges, minMaxRange, percentileRange, symmetricRange, type Backdrop, type ColormapName,
} from './heatmap';
import { axisName, stageInfo, type StageInfo } from './stageInfo';
import { freshViewState, loadState, post, saveState, type ViewState } from './vscodeApi';
import { ActivationChart } from './views/activationChart';
import { causalMask, repeatMask, StageCard, type CardContext } from './views/stageCard';
import { exact, HeatmapView } from './views/heatmapView';
import { ProbsChart } from './views/probsChart';
import { renderSummary } from './views/summary';

interface Render {
  version: number;
  summary: ModelSummary;
  cards: Map<string, StageCard>;
  layoutKey: string;
  received: number;
}

const COLORMAP_LABELS: Record<string, string> = {
  coolwarm: 'coolwarm', 'purple-orange': 'purple–orange (colorblind-safe)', viridis: 'viridis', grayscale: 'grayscale',
};
const RANGE_LABELS: Record<string, string> = {
  perHeatmap: 'per heatmap', perStageKind: 'shared per stage kind', percentile: 'clipped at a percentile',
};

/** How many other documents' view states a panel keeps. */
const MAX_REMEMBERED = 10;

export class App {
  private settings: PanelSettings | null = null;
  private state: ViewState = loadState();
  private render: Render | null = null;
  private problems: { version: number; list: readonly ProblemInfo[] } | null = null;
  /** The warnings of the render shown (when the text reads as a model, `problems` is null). */
  private warnings: readonly ProblemInfo[] = [];
  private readonly root: HTMLElement;
  private readonly header: HTMLElement;
  private readonly headerMain: HTMLElement;
  private readonly banner: HTMLElement;
  private readonly content: HTMLElement;
  private readonly overview: { el: HTMLElement; views: Map<string, HeatmapView> } = { el: h('div', { class: 'overview' }), views: new Map() };
  private readonly activationCharts = new Map<number, ActivationChart>();
  private probsChart: ProbsChart | null = null;
  private highlightTarget: HighlightTarget | null = null;
  /** Stages arriving in pieces. */
  private readonly pieces = new Map<string, { version: number; data: Float32Array; filled: number }>();
  private readonly redrawAll = perFrame(() => this.drawAll(false));

  constructor(root: HTMLElement) {
    this.root = root;
    this.header = h('header', { class: 'panel-header' });
    this.banner = h('div', { class: 'banner', role: 'alert', hidden: true });
    this.headerMain = h('div', { class: 'header-main' });
    // the banner sits in the sticky header: wherever the user has scrolled, the dimmed view says why
    this.header.append(this.headerMain, this.banner);
    this.content = h('main', { class: 'content' }, h('p', { class: 'placeholder' }, 'Reading the model file…'));
    root.append(this.header, this.content);
    // a card scrolled to lands below the sticky header, not under it
    new ResizeObserver(() => document.documentElement.style.setProperty('--header-height', `${this.header.offsetHeight}px`)).observe(this.header);
    new ResizeObserver(() => this.redrawAll()).observe(this.content);
    // VS Code swaps the body's theme class (vscode-light, vscode-dark, vscode-high-contrast):
    // the charts read their colors when drawn, so draw them again.
    const theme = (): string => /vscode-(high-contrast-light|high-contrast|light|dark)/.exec(document.body.className)?.[1] ?? '';
    let themeKind = theme();
    new MutationObserver(() => {
      if (theme() === themeKind) return; // (has-errors and other classes come and go too)
      themeKind = theme();
      for (const c of this.activationCharts.values()) c.retheme();
      this.probsChart?.retheme();
      // a diverging map's centre follows the theme (dark on dark): the heatmaps and legends too
      if (isDiverging(this.colormap())) this.drawAll(true);
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
    window.addEventListener('scroll', () => {
      this.state.scrollY = window.scrollY;
      this.save();
    }, { passive: true });
  }

  private save(): void {
    saveState(this.state);
  }

  handle(msg: ToWebview): void {
    switch (msg.type) {
      case 'init':
        this.settings = msg.settings;
        if (this.state.uri !== msg.uri) {
          // Another document: the view state it had in this panel, if it was shown here before
          // (the panel follows the active editor back and forth), else a fresh one.
          const { uri: was, others = {}, ...mine } = this.state;
          if (was) others[was] = mine;
          const back = others[msg.uri];
          delete others[msg.uri];
          const keep = Object.keys(others).slice(-MAX_REMEMBERED);
          this.state = { ...(back ?? freshViewState()), uri: msg.uri, others: Object.fromEntries(keep.map((k) => [k, others[k]])) };
          this.save();
          // from the top: the new content may be built before any layout would clamp the old offset
          window.scrollTo(0, 0);
        }
        this.render = null;
        this.problems = null;
        this.warnings = [];
        this.content.replaceChildren(h('p', { class: 'placeholder' }, 'Reading the model file…'));
        // the file shown now, by its name, until a model summary names the model
        this.renderFileHeader(msg.uri);
        this.showBanner();
        return;
      case 'settings':
        this.settings = msg.settings;
        this.renderHeader();
        this.drawAll(true);
        return;
      case 'model':
        this.onModel(msg.version, msg.summary, msg.warnings);
        return;
      case 'stage':
        this.onPiece(msg.version, msg.id, msg.shape, msg.data, msg.offset, msg.total);
        return;
      case 'kept': {
        const card = this.render?.version === msg.version ? this.render.cards.get(msg.id) : undefined;
        if (card?.hasData) {
          card.setCurrent();
          this.render!.received++;
        }
        return;
      }
      case 'done':
        this.onDone(msg.version, msg.ms);
        return;
      case 'problems':
        if (this.render && msg.version < this.render.version) return; // older than what is shown
        this.problems = { version: msg.version, list: msg.problems };
        this.showBanner();
        // never read yet: say what the panel waits for, not that it is still reading
        if (!this.render) this.content.replaceChildren(h('p', { class: 'placeholder' }, 'The heatmaps appear once the file reads as a model: see the problems above.'));
        return;
      case 'notice':
        this.notice(msg.text);
        return;
      case 'highlight':
        this.highlight(msg.target, msg.writes);
        return;
      case 'focusStage':
        this.pendingFocus = msg.id;
        // now if the render is complete, else once it is (heights settle as the maps draw)
        if (this.render && document.body.dataset.renderedVersion === String(this.render.version)) this.focusPending();
        return;
    }
  }

  // --- a render ---------------------------------------------------------------------------

  private onModel(version: number, summary: ModelSummary, warnings: readonly ProblemInfo[]): void {
    if (this.render && version < this.render.version) return;
    this.problems = null;
    this.warnings = warnings;
    this.showBanner();
    const layoutKey = JSON.stringify([summary.stages, summary.tokens, summary.vocab, summary.layers, summary.head, summary.norm]);
    if (this.render && this.render.layoutKey === layoutKey) {
      // Same shapes: keep every card and its old numbers until the new ones arrive.
      this.render.version = version;
      this.render.summary = summary;
      this.render.received = 0;
      for (const c of this.render.cards.values()) c.setPending();
    } else {
      this.render = { version, summary, cards: new Map(), layoutKey, received: 0 };
      this.build(summary);
    }
    this.renderHeader();
    this.renderWarnings(warnings);
    this.refreshSummary(summary);
  }

  /** A piece of a stage's numbers; the stage is drawn once all its pieces are in. */
  private onPiece(version: number, id: string, shape: readonly number[], buf: ArrayBuffer, offset: number, total: number): void {
    const r = this.render;
    if (!r || r.version !== version) return; // a stage of an older render: drop it
    let p = this.pieces.get(id);
    if (!p || p.version !== version || p.data.length !== total) {
      p = { version, data: offset === 0 && buf.byteLength / 4 === total ? new Float32Array(buf) : new Float32Array(total), filled: 0 };
      this.pieces.set(id, p);
    }
    if (p.data.buffer !== buf) p.data.set(new Float32Array(buf), offset);
    p.filled += buf.byteLength / 4;
    if (p.filled < total) return;
    this.pieces.delete(id);
    this.onStage(version, id, shape, p.data);
  }

  private onStage(version: number, id: string, shape: readonly number[], data: Float32Array): void {
    const r = this.render;
    if (!r || r.version !== version) return;
    const card = r.cards.get(id);
    if (!card) return;
    card.setData({ shape, data });
    r.received++;
    this.afterStage(id, data);
  }

  private onDone(version: number, ms: number): void {
    const r = this.render;
    if (!r || r.version !== version) return;
    requestAnimationFrame(() => {
      document.body.dataset.renderedVersion = String(version);
      post({ type: 'rendered', version, stages: r.received, ms });
      this.focusPending();
    });
    if (this.state.scrollY && window.scrollY === 0) window.scrollTo(0, this.state.scrollY);
  }

  /** The overview and the charts follow the stages they show. */
  private afterStage(id: string, data: Float32Array): void {
    const r = this.render!;
    const ov = this.overview.views.get(id);
    if (ov) this.drawOverview(id);
    const info = stageInfo(id, r.summary);
    if (info.kind === 'ffn.up' || info.kind === 'ffn.gate') {
      const L = r.summary.layers[info.layer]?.ffn;
      const chart = this.activationCharts.get(info.layer);
      if (L && chart && (L.gated ? info.kind === 'ffn.gate' : info.kind === 'ffn.up')) chart.update(L.activation as Activation, data, r.summary.tokens);
    }
    if (id === 'head.probs' && this.probsChart && r.summary.head) {
      this.probsChart.update(data, r.summary.tokens, r.summary.vocab, r.summary.head.temperature);
    }
    if (this.highlightTarget) this.applyHighlight(false);
    // perStageKind: a new stage can widen the shared range of the others
    if (this.settings?.range === 'perStageKind') this.redrawKind(info.kind, id);
  }

  private redrawKind(kind: string, except: string): void {
    for (const c of this.render?.cards.values() ?? []) if (c.info.kind === kind && c.info.id !== except && c.hasData) c.draw(true);
  }

  // --- layout -----------------------------------------------------------------------------

  private build(s: ModelSummary): void {
    for (const c of this.activationCharts.values()) c.dispose();
    this.activationCharts.clear();
    this.probsChart?.dispose();
    this.probsChart = null;
    const cards = this.render!.cards;
    const ctx = this.cardContext();
    const card = (id: string): HTMLElement => {
      const plan = s.stages.find((p) => p.id === id)!;
      const c = new StageCard(stageInfo(id, s), plan.shape, ctx);
      cards.set(id, c);
      return c.el;
    };
    const ids = s.stages.map((p) => p.id);
    const has = (id: string): boolean => ids.includes(id);
    const sections: HTMLElement[] = [];

    sections.push(this.section('overview', 'Overview', this.buildOverview(s), true));
    sections.push(this.section('summary', 'Model summary', h('div', { class: 'summary-box' }), false));
    sections.push(this.section('input', 'Input', card('input'), true));

    s.layers.forEach((L, i) => {
      const p = `layers.${i}.`;
      const parts: HTMLElement[] = [];
      if (L.attention) {
        const a = L.attention;
        const kids = ['ln1', 'attn.q', 'attn.k', 'attn.v', 'attn.scores', 'attn.weights', 'attn.context', 'attn.out', 'attn.residual']
          .filter((k) => has(p + k) && (k !== 'ln1' || s.norm === 'pre')).map((k) => card(p + k));
        if (s.norm === 'post' && has(p + 'ln1')) kids.push(card(p + 'ln1'));
        const note = `${a.heads} head${a.heads === 1 ? '' : 's'} of width ${s.dModel / a.heads}${a.causal ? ', causal' : ''}${a.identity.length ? `; ${a.identity.join(', ')} missing: identity` : ''}`;
        parts.push(this.section(`${p}attention`, `Self-attention (${note})`, h('div', { class: 'cards' }, ...kids), true, 'sub'));
      }
      if (L.ffn) {
        const f = L.ffn;
        const kids: HTMLElement[] = [];
        if (s.norm === 'pre' && has(p + 'ln2')) kids.push(card(p + 'ln2'));
        kids.push(card(p + 'ffn.up'));
        if (has(p + 'ffn.gate')) kids.push(card(p + 'ffn.gate'));
        kids.push(card(p + 'ffn.act'));
        const chart = new ActivationChart();
        this.activationCharts.set(i, chart);
        kids.push(h('section', { class: 'card chart-card' }, h('header', { class: 'card-header' }, h('h3', { class: 'card-title' }, 'The activation on this input')), chart.el));
        kids.push(card(p + 'ffn.down'));
        if (has(p + 'ffn.residual')) kids.push(card(p + 'ffn.residual'));
        if (s.norm === 'post' && has(p + 'ln2')) kids.push(card(p + 'ln2'));
        parts.push(this.section(`${p}ffn`, `Feed-forward (${f.activation}, d_ff ${f.dFf})`, h('div', { class: 'cards' }, ...kids), true, 'sub'));
      }
      parts.push(h('div', { class: 'cards' }, card(p + 'out')));
      sections.push(this.section(`layer${i}`, `Layer ${i}`, h('div', { class: 'layer' }, ...parts), true));
    });

    const outKids = [...(has('ln_f') ? [card('ln_f')] : []), card('output')];
    sections.push(this.section('output', 'Output', h('div', { class: 'cards' }, ...outKids), true));
    if (s.head) {
      this.probsChart = new ProbsChart(this.state.probsToken, (t) => {
        this.state.probsToken = t;
        this.save();
      });
      const chartCard = h('section', { class: 'card chart-card' }, h('header', { class: 'card-header' }, h('h3', { class: 'card-title' }, 'Prediction')), this.probsChart.el);
      sections.push(this.section('head', 'Prediction head', h('div', { class: 'cards' }, chartCard, card('head.logits'), card('head.probs')), true));
    }
    this.content.replaceChildren(...sections);
  }

  /** A collapsible section whose open state is kept in the view state. */
  private section(id: string, heading: string, body: HTMLElement, openByDefault: boolean, level = 'top'): HTMLElement {
    const open = this.state.collapsed[id] === undefined ? openByDefault : !this.state.collapsed[id];
    const el = h('vscode-collapsible', { heading, class: `section section-${level}`, 'data-section': id, open }, body);
    el.addEventListener('vsc-collapsible-toggle', (e) => {
      if (e.target !== el) return;
      const isOpen = (e as CustomEvent<{ open: boolean }>).detail.open;
      this.state.collapsed[id] = !isOpen;
      this.save();
      if (isOpen) requestAnimationFrame(() => this.drawAll(true));
    });
    return el;
  }

  private buildOverview(s: ModelSummary): HTMLElement {
    this.overview.views.clear();
    const items: HTMLElement[] = [];
    const firstAttn = s.layers.findIndex((l) => l.attention);
    const firstFfn = s.layers.findIndex((l) => l.ffn);
    const ids: string[] = [];
    if (firstAttn >= 0) ids.push(`layers.${firstAttn}.attn.scores`);
    if (firstFfn >= 0) ids.push(`layers.${firstFfn}.ffn.up`, `layers.${firstFfn}.ffn.act`, `layers.${firstFfn}.ffn.down`);
    for (const id of ids) {
      const v = new HeatmapView(true);
      this.overview.views.set(id, v);
      const fig = h('figure', { class: 'overview-item', 'data-stage-id': id }, h('figcaption', {}, this.overviewCaption(id, s)), v.el);
      fig.addEventListener('dblclick', () => this.scrollToCard(id));
      items.push(fig);
    }
    this.overview.el.replaceChildren(...items);
    const story = firstAttn >= 0 && firstFfn >= 0 ? 'attention scores, then the FFN expanding, activating and projecting back' : firstFfn >= 0 ? 'the FFN expanding, activating and projecting back' : 'the attention scores';
    const layer = s.layers.length > 1 ? ` (the first layer that has them, of ${s.layers.length})` : '';
    const note = h('p', { class: 'overview-note' }, `The block at a glance${layer}: ${story}. Double-click a map to jump to its stage below.`);
    return h('div', {}, this.overview.el, note);
  }

  private drawOverview(id: string): void {
    const r = this.render;
    const v = this.overview.views.get(id);
    const card = r?.cards.get(id);
    if (!r || !v || !card?.data) return;
    const info = card.info;
    const { data, shape } = card.data;
    const T = r.summary.seq;
    const n = Math.max(1, this.overview.views.size);
    const width = Math.max(90, Math.floor(this.overview.el.clientWidth / n) - 16);
    let mat = data;
    let cols = shape[1];
    let mask: Uint8Array | undefined;
    if (info.perHead) {
      const hh = Math.min(this.cardHead(id), shape[0] - 1);
      cols = shape[2];
      mat = data.subarray(hh * T * cols, (hh + 1) * T * cols);
      if (info.masked) mask = causalMask(T);
    }
    v.set({
      data: mat, rows: T, cols, mask, rowLabels: r.summary.tokens, colLabels: null, colAxis: '', ariaLabel: info.title,
      describe: (row, col, val, masked) => [
        info.title,
        `token "${r.summary.tokens[row] ?? row}" · ${info.cols === 'key' ? `key "${r.summary.tokens[col] ?? col}"` : `${axisName(info.cols)} ${col}`}`,
        masked ? 'masked: a causal query cannot see a later token' : `value = ${exact(val)}`,
      ],
      onClick: (row, col) => post({ type: 'reveal', stageId: id, index: info.perHead ? [this.cardHead(id), row, col] : [row, col] }),
    });
    v.paint({ colormap: this.colormap(), backdrop: this.backdrop(), range: this.rangeFor(id, mat, mask), maxRows: this.settings?.maxRows ?? 256, maxCols: this.settings?.maxCols ?? 1024 }, width);
  }

  /** A stage to scroll to once its card exists (asked for before the model arrived). */
  private pendingFocus: string | null = null;

  private focusPending(): void {
    const id = this.pendingFocus;
    if (!id || !this.render?.cards.has(id)) return;
    this.pendingFocus = null;
    this.scrollToCard(id);
  }

  private scrollToCard(id: string): void {
    const c = this.render?.cards.get(id);
    if (!c) return;
    for (let p = c.el.parentElement; p; p = p.parentElement) if (p.tagName === 'VSCODE-COLLAPSIBLE') (p as HTMLElement & { open: boolean }).open = true;
    requestAnimationFrame(() => c.el.scrollIntoView({ block: 'start', behavior: 'smooth' }));
  }

  private refreshSummary(s: ModelSummary): void {
    const box = this.content.querySelector('.summary-box');
    if (box) box.replaceChildren(renderSummary(s));
  }

  // --- header, banner, warnings -------------------------------------------------------------

  /** The header's parts, built once: an edit updates the words, never a control the user may be holding. */
  private headerParts: { name: HTMLElement; facts: HTMLElement; cmap: HTMLElement & { value: string }; range: HTMLElement & { value: string } } | null = null;

  private renderHeader(): void {
    const r = this.render;
    const st = this.settings;
    if (!r || !st) return;
    const s = r.summary;
    const dff = s.layers.find((l) => l.ffn)?.ffn?.dFf;
    const heads = s.layers.find((l) => l.attention)?.attention?.heads;
    const facts = [
      `${s.seq} token${s.seq === 1 ? '' : 's'}`, `d_model ${s.dModel}`, dff ? `d_ff ${dff}` : '', heads ? `${heads} head${heads === 1 ? '' : 's'}` : '',
      `${s.layers.length} layer${s.layers.length === 1 ? '' : 's'}`, s.norm !== 'none' ? `${s.norm}-LN` : '', s.residual ? 'residual' : '', `layout ${s.layout}`,
    ].filter(Boolean);
    const parts = (this.headerParts ??= this.buildHeader());
    parts.name.textContent = s.name;
    parts.facts.textContent = facts.join(' · ');
    if (parts.cmap.value !== st.colormap) parts.cmap.value = st.colormap;
    if (parts.range.value !== st.range) parts.range.value = st.range;
  }

  /** The heading before any summary: the file's name, no facts (the controls are there already). */
  private renderFileHeader(uri: string): void {
    const parts = (this.headerParts ??= this.buildHeader());
    parts.name.textContent = fileNameOfUri(uri);
    parts.facts.textContent = '';
    const st = this.settings;
    if (st && parts.cmap.value !== st.colormap) parts.cmap.value = st.colormap;
    if (st && parts.range.value !== st.range) parts.range.value = st.range;
  }

  private buildHeader(): NonNullable<App['headerParts']> {
    const cmap = h('vscode-single-select', { class: 'colormap-select', 'aria-label': 'colormap' }) as HTMLElement & { value: string };
    cmap.append(...Object.entries(COLORMAP_LABELS).map(([v, l]) => h('vscode-option', { value: v }, l)));
    cmap.addEventListener('change', () => post({ type: 'setSetting', key: 'colormap', value: cmap.value }));
    const range = h('vscode-single-select', { class: 'range-select', 'aria-label': 'color range' }) as HTMLElement & { value: string };
    range.append(...Object.entries(RANGE_LABELS).map(([v, l]) => h('vscode-option', { value: v }, l)));
    range.addEventListener('change', () => post({ type: 'setSetting', key: 'colorRange', value: range.value }));
    const expand = h('vscode-button', { secondary: true, class: 'expand-all', title: 'Expand every section' }, 'Expand all');
    expand.addEventListener('click', () => this.setAllOpen(true));
    const collapse = h('vscode-button', { secondary: true, class: 'collapse-all', title: 'Collapse every section' }, 'Collapse all');
    collapse.addEventListener('click', () => this.setAllOpen(false));
    const name = h('h1', { class: 'model-name' });
    const facts = h('span', { class: 'facts' });
    this.headerMain.replaceChildren(
      h('div', { class: 'title-row' }, name, facts),
      h('div', { class: 'control-row' },
        h('label', { class: 'control' }, h('span', { class: 'control-label' }, 'Colors'), cmap),
        h('label', { class: 'control' }, h('span', { class: 'control-label' }, 'Range'), range),
        h('span', { class: 'spacer' }), h('span', { class: 'control' }, expand, collapse)));
    return { name, facts, cmap, range };
  }

  private setAllOpen(open: boolean): void {
    for (const el of this.content.querySelectorAll<HTMLElement & { open: boolean; dataset: DOMStringMap }>('vscode-collapsible')) {
      el.open = open;
      if (el.dataset.section) this.state.collapsed[el.dataset.section] = !open;
    }
    this.save();
    if (open) requestAnimationFrame(() => this.drawAll(true));
  }

  private showBanner(): void {
    const blocks = bannerBlocks(this.problems?.list ?? this.warnings, !!this.render);
    document.body.classList.toggle('has-errors', blocks.some((b) => b.kind === 'error'));
    if (blocks.length === 0) {
      this.banner.hidden = true;
      this.banner.replaceChildren();
      return;
    }
    this.banner.hidden = false;
    this.banner.replaceChildren(...blocks.map((b) => h('div', { class: `banner-block banner-${b.kind}` },
      h('div', { class: 'banner-title' }, b.title),
      h('ul', { class: 'banner-list' }, ...b.items.map((e) => {
        const a = h('a', { href: '#', class: 'problem-link', title: 'Go to this place in the file' }, `line ${e.line}, column ${e.col}`);
        a.addEventListener('click', (ev) => {
          ev.preventDefault();
          post({ type: 'gotoProblem', line: e.line, col: e.col });
        });
        return h('li', {}, a, ` · ${e.text}`);
      })),
      b.more ? h('div', { class: 'banner-more' }, b.more) : null)));
  }

  private renderWarnings(warnings: readonly ProblemInfo[]): void {
    this.content.querySelector('.warnings')?.remove();
    const w = contentWarnings(warnings); // (weights not used are in the banner, above)
    if (!w.length) return;
    const list = h('ul', { class: 'warnings' }, ...w.slice(0, 8).map((x) => {
      const a = h('a', { href: '#', class: 'problem-link' }, `line ${x.line}`);
      a.addEventListener('click', (ev) => {
        ev.preventDefault();
        post({ type: 'gotoProblem', line: x.line, col: x.col });
      });
      return h('li', {}, a, ` · ${x.message}`);
    }));
    this.content.prepend(list);
  }

  private notice(text: string): void {
    this.root.querySelector('.notice')?.remove();
    this.header.after(h('div', { class: 'notice', role: 'status' }, text));
  }

  // --- colors --------------------------------------------------------------------------------

  private colormap(): ColormapName {
    return (this.settings?.colormap ?? 'coolwarm') as ColormapName;
  }

  /** What the heatmaps are seen against, from the theme class VS Code gives the body (read when drawn: it may come after we start). */
  private backdrop(): Backdrop {
    return backdropOf(document.body.className);
  }

  private rangeFor(id: string, data: Float32Array, mask: Uint8Array | undefined): [number, number] {
    const st = this.settings;
    const cm = this.colormap();
    const sym = isDiverging(cm);
    const one = (d: Float32Array, m: Uint8Array | undefined): [number, number] => {
      if (st?.range === 'percentile') return percentileRange(d, st.percentile, sym, m);
      return sym ? symmetricRange(d, m) : minMaxRange(d, m);
    };
    if (st?.range !== 'perStageKind' || !this.render) return one(data, mask);
    const kind = stageInfo(id, this.render.summary).kind;
    const ranges: Array<[number, number]> = [];
    for (const c of this.render.cards.values()) {
      if (c.info.kind !== kind || !c.data) continue;
      // (a whole attention stage: every head's cells, the mask once per head)
      const T = this.render.summary.seq;
      ranges.push(one(c.data.data, c.info.masked ? repeatMask(causalMask(T), Math.max(1, Math.round(c.data.data.length / (T * T)))) : undefined));
    }
    return ranges.length ? mergeRanges(ranges) : one(data, mask);
  }

  private cardContext(): CardContext {
    const self = this;
    return {
      get summary() { return self.render!.summary; },
      get colormap() { return self.colormap(); },
      get backdrop() { return self.backdrop(); },
      get maxRows() { return self.settings?.maxRows ?? 256; },
      get maxCols() { return self.settings?.maxCols ?? 1024; },
      range: (id, data, mask) => this.rangeFor(id, data, mask),
      reveal: (stageId, index) => post({ type: 'reveal', stageId, index }),
      head: (id) => this.cardHead(id),
      setHead: (id, hh) => {
        const key = headKey(id);
        this.state.head[key] = hh;
        this.save();
        // every stage of that layer follows (the one that changed redraws itself)
        for (const [other, card] of this.render?.cards ?? []) if (other !== id && card.info.perHead && headKey(other) === key) card.draw(true);
        for (const other of this.overview.views.keys()) {
          if (headKey(other) !== key || !this.render?.cards.get(other)?.info.perHead) continue;
          this.buildOverviewCaption(other);
          this.drawOverview(other);
        }
      },
      allHeads: (id) => !!this.state.allHeads[id],
      stageData: (id) => this.render?.cards.get(id)?.data?.data ?? null,
      setAllHeads: (id, on) => {
        this.state.allHeads[id] = on;
        this.save();
      },
    };
  }

  private buildOverviewCaption(id: string): void {
    const fig = this.overview.el.querySelector(`[data-stage-id="${id}"] figcaption`);
    const r = this.render;
    if (fig && r) fig.textContent = this.overviewCaption(id, r.summary);
  }

  /** "Self-Attention Scores (head 2) · layer 0": the head for attention, the layer when there are several. */
  private overviewCaption(id: string, s: ModelSummary): string {
    const info = stageInfo(id, s);
    const heads = info.perHead ? s.layers[info.layer]?.attention?.heads ?? 1 : 1;
    const base = heads > 1 ? `${info.title} (head ${this.cardHead(id)})` : info.title;
    return s.layers.length > 1 ? `${base} · layer ${info.layer}` : base;
  }

  /** The head shown for a stage: one choice per layer, so Q, K, V, scores and weights agree. */
  private cardHead(id: string): number {
    return this.state.head[headKey(id)] ?? 0;
  }

  /** Redraws what is visible (after a resize, a settings change or a section opening). */
  private drawAll(force: boolean): void {
    if (!this.render) return;
    for (const c of this.render.cards.values()) c.draw(force);
    for (const id of this.overview.views.keys()) this.drawOverview(id);
    this.applyHighlight(false);
  }

  // --- linked with the editor -----------------------------------------------------------------

  private highlight(target: HighlightTarget | null, writes?: { shape: readonly number[]; data: ArrayBuffer }): void {
    this.highlightTarget = target;
    const r = this.render;
    if (r) {
      for (const c of r.cards.values()) if (c.info.kind === 'ffn.down') c.setExtra(null);
      if (target?.kind === 'neuron' && writes) {
        r.cards.get(`layers.${target.layer}.ffn.down`)?.setExtra({
          title: `Neuron ${target.index} writes act[:, ${target.index}] · W2[:, ${target.index}] into each token (its part of the down-projection)`,
          data: new Float32Array(writes.data), shape: writes.shape,
        });
      }
    }
    this.applyHighlight(true);
  }

  private applyHighlight(reveal: boolean): void {
    const r = this.render;
    if (!r) return;
    const t = this.highlightTarget;
    let first: StageCard | null = null;
    for (const c of r.cards.values()) {
      const hl = t ? highlightFor(c.info, t) : null;
      c.heatmap.setHighlight(hl);
      if (hl && !first) first = c;
    }
    for (const [id, v] of this.overview.views) v.setHighlight(t ? highlightFor(stageInfo(id, r.summary), t) : null);
    if (reveal && first) first.heatmap.revealHighlight();
  }
}

/** Which band of a stage the editor's cursor points at, if any. */
function highlightFor(info: StageInfo, t: HighlightTarget): { axis: 'row' | 'col'; index: number } | null {
  if (t.kind === 'token') return info.perHead ? null : { axis: 'row', index: t.index };
  if (info.layer !== t.layer) return null;
  if (t.kind === 'neuron') return info.cols === 'neuron' ? { axis: 'col', index: t.index } : null;
  if (t.kind === 'dim') return info.cols === 'dim' ? { axis: 'col', index: t.index } : null;
  return null;
}

/** The key of a stage's head choice: its layer (`layers.2.`), shared by all its attention stages. */
function headKey(id: string): string {
  return /^layers\.\d+\./.exec(id)?.[0] ?? id;
}
