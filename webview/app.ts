// The panel: it shows one model document's stages as the worker streams them, tagged with the
// document version; anything older than the render on screen is dropped. While the text does not
// read as a model, the last good render stays, dimmed, under a banner. The parts: the render
// stream (stream.ts), the layout of sections and cards (layout.ts), the header (header.ts), the
// overview (overview.ts), the color range (rangePolicy.ts), the banner (banner.ts).
import type { PanelSettings, ToWebview } from '../src/protocol/panel';
import type { HighlightTarget, ModelSummary, ProblemInfo } from '../src/protocol/stages';
import type { Activation } from '../src/core/activation';
import { shownFirst } from '../src/core/shownFirst';
import { bannerBlocks, contentWarnings } from './banner';
import { h, perFrame } from './dom';
import { PanelHeader } from './header';
import { backdropOf, isDiverging, type Backdrop, type ColormapName } from './heatmap';
import { headKey, highlightFor } from './highlight';
import { PanelLayout } from './layout';
import { Overview } from './overview';
import { rangeFor } from './rangePolicy';
import { RenderStream } from './stream';
import { wholeSummary } from './wholeSummary';
import { loadState, post, saveState, switchViewState, type ViewState } from './viewState';
import type { CardContext, StageCard } from './views/stageCard';
import { renderSummary } from './views/summary';
import { LensSection } from './lenses/lensSection';
import { exportStage, reportHtml } from './export';
import type { LensContext } from './lenses/lensContext';

export class App {
  private settings: PanelSettings | null = null;
  private state: ViewState = loadState();
  private readonly stream = new RenderStream();
  private problems: { version: number; list: readonly ProblemInfo[] } | null = null;
  /** The warnings of the render shown (when the text reads as a model, `problems` is null). */
  private warnings: readonly ProblemInfo[] = [];
  private readonly root: HTMLElement;
  private readonly headerEl: HTMLElement;
  private readonly banner: HTMLElement;
  private readonly content: HTMLElement;
  private readonly header: PanelHeader;
  private readonly ctx: CardContext = this.cardContext();
  private readonly layout = new PanelLayout(this.ctx, () => this.state, () => this.save(), () => this.drawAll(true), () => this.postWanted());
  private readonly overview = new Overview(this.ctx, (id) => this.scrollToCard(id), (layer) => this.goToLayer(layer));
  private highlightTarget: HighlightTarget | null = null;
  /** Time spent handling the current render's stages. */
  private busyMs = 0;
  private arrivals: string[] = [];
  /** A render still coming after a moment says how far it is (a long input, a deep model). */
  private progressTimer: ReturnType<typeof setTimeout> | null = null;
  private expected = 0;
  /** The render for which everything was asked again (at most once per render). */
  private resyncedAt = -1;
  /** The last set of wanted stages told to the worker. */
  private wantedKey = '';
  /** A stage to scroll to once its card exists (asked for before the model arrived). */
  private pendingFocus: string | null = null;
  private readonly redrawAll = perFrame(() => this.drawAll(false));
  private lenses = this.newLenses();
  /** Stages a lens view draws from (beyond the open sections' cards). */
  private lensWanted: readonly string[] = [];
  /** Compare: the baseline the stages are differences from, or null. */
  private comparing: { label: string; top: { k: number; ids: readonly number[]; p: readonly number[] } | null } | null = null;

  constructor(root: HTMLElement) {
    this.root = root;
    this.headerEl = h('header', { class: 'panel-header' });
    this.banner = h('div', { class: 'banner', role: 'alert', hidden: true });
    const headerMain = h('div', { class: 'header-main' });
    this.header = new PanelHeader(headerMain, (open) => this.setAllOpen(open), (layer) => this.goToLayer(layer));
    // the banner sits in the sticky header: wherever the user has scrolled, the dimmed view says why
    this.headerEl.append(headerMain, this.banner);
    this.content = h('main', { class: 'content' }, h('p', { class: 'placeholder' }, 'Reading the model file…'));
    root.append(this.headerEl, this.content);
    // a card scrolled to lands below the sticky header, not under it
    new ResizeObserver(() => document.documentElement.style.setProperty('--header-height', `${this.headerEl.offsetHeight}px`)).observe(this.headerEl);
    new ResizeObserver(() => this.redrawAll()).observe(this.content);
    // VS Code swaps the body's theme class (vscode-light, vscode-dark, vscode-high-contrast):
    // the charts read their colors when drawn, so draw them again.
    const theme = (): string => /vscode-(high-contrast-light|high-contrast|light|dark)/.exec(document.body.className)?.[1] ?? '';
    let themeKind = theme();
    new MutationObserver(() => {
      if (theme() === themeKind) return; // (has-errors and other classes come and go too)
      themeKind = theme();
      for (const c of this.layout.activationCharts.values()) c.retheme();
      this.layout.probsChart?.retheme();
      // a diverging map's centre follows the theme (dark on dark): the heatmaps and legends too
      if (isDiverging(this.colormap())) this.drawAll(true);
      this.lenses.repaint();
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
          this.state = switchViewState(this.state, msg.uri);
          this.save();
          // from the top: the new content may be built before any layout would clamp the old offset
          window.scrollTo(0, 0);
        }
        this.stream.reset();
        this.endProgress();
        this.layout.dispose();
        this.lenses = this.newLenses(); // (the lenses of the document shown before go with it)
        this.comparing = null;
        this.header.compare(null, null);
        this.header.offerGitHead(msg.gitHead);
        this.wantedKey = ''; // (a new subscriber: told again)
        this.problems = null;
        this.warnings = [];
        this.content.replaceChildren(h('p', { class: 'placeholder' }, 'Reading the model file…'));
        // the file shown now, by its name, until a model summary names the model
        this.header.file(msg.uri);
        this.header.settings(msg.settings);
        this.showBanner();
        return;
      case 'settings':
        // (a card held pooled to another width is not the numbers a later 'kept' means: resync then)
        for (const c of this.layout.cards.values()) if (c.data?.pooled && c.data.pooled.cols !== msg.settings.maxCols) c.dataVersion = -1;
        this.settings = msg.settings;
        this.header.settings(msg.settings);
        this.drawAll(true);
        this.postWanted(); // (a new heatmap width: the stages across the vocabulary come pooled to it)
        return;
      case 'model': {
        // (no vocab or no stages: the last summary's, of the same key, which the worker sent once;
        // should the panel lack them, everything again)
        const summary = wholeSummary(msg.summary, this.stream.render?.summary);
        if (!summary) {
          post({ type: 'resync' });
          return;
        }
        this.onModel(msg.version, summary, msg.warnings);
        if (msg.trace) document.body.dataset.trace = msg.trace.join(',');
        return;
      }
      case 'stage': {
        const t0 = performance.now();
        this.arrivals.push(`${msg.id}@${msg.offset}:${Date.now() - Number(document.body.dataset.modelAt ?? 0)}`);
        const data = this.stream.piece(msg.version, msg.id, msg.data, msg.offset, msg.total);
        if (data) this.onStage(msg.id, msg.shape, data, msg.pooled);
        this.busyMs += performance.now() - t0; // (the benchmark reads how long the panel itself worked on a render)
        return;
      }
      case 'cols': {
        // a few columns changed: the card's numbers of the render before, those columns written in
        const card = this.stream.current(msg.version) ? this.layout.cards.get(msg.id) : undefined;
        const had = card?.data;
        if (!card) return;
        if (!had || had.pooled || card.dataVersion !== msg.base) return this.resync(msg.version);
        const t0 = performance.now();
        const data = had.data.slice();
        const width = had.shape[had.shape.length - 1];
        const got = new Float32Array(msg.data);
        const n = msg.cols.length;
        const rows = data.length / width;
        for (let r = 0; r < rows; r++) for (let k = 0; k < n; k++) data[r * width + msg.cols[k]] = got[r * n + k];
        this.onStage(msg.id, had.shape, data);
        this.busyMs += performance.now() - t0;
        return;
      }
      case 'same': {
        if (!this.stream.current(msg.version)) return;
        const of = this.layout.cards.get(msg.of);
        if (!of?.data || of.dataVersion !== msg.version) return this.resync(msg.version);
        this.onStage(msg.id, of.data.shape, of.data.data);
        return;
      }
      case 'kept': {
        const card = this.stream.current(msg.version) ? this.layout.cards.get(msg.id) : undefined;
        if (!card) return;
        if (!card.hasData || card.dataVersion !== msg.base) return this.resync(msg.version);
        card.setCurrent();
        this.stream.render!.received++;
        return;
      }
      case 'top': {
        const r = this.stream.render;
        if (!r || !this.stream.current(msg.version) || !r.summary.head) return;
        this.layout.probsChart?.update(msg.top, r.summary.tokens, r.summary.vocab, r.summary.head.temperature);
        return;
      }
      case 'done':
        if (msg.kernel) document.body.dataset.kernel = msg.kernel; // (tests read which kernel ran)
        this.onDone(msg.version, msg.ms);
        return;
      case 'problems':
        if (this.stream.render && msg.version < this.stream.render.version) return; // older than what is shown
        this.problems = { version: msg.version, list: msg.problems };
        this.endProgress(); // (the render under way is not coming: the file does not read)
        this.showBanner();
        // never read yet: say what the panel waits for, not that it is still reading
        if (!this.stream.render) this.content.replaceChildren(h('p', { class: 'placeholder' }, 'The heatmaps appear once the file reads as a model: see the problems above.'));
        return;
      case 'notice':
        this.root.querySelector('.notice')?.remove();
        if (msg.text) this.headerEl.after(h('div', { class: 'notice', role: 'status' }, msg.text)); // ('' clears it)
        return;
      case 'highlight':
        this.highlight(msg.target, msg.writes);
        return;
      case 'lens':
        if (this.stream.render && msg.version < this.stream.render.version && msg.result.kind !== 'patch') return; // (a newer one is asked for)
        this.lenses.show(msg.result);
        return;
      case 'focusLens': {
        const sec = this.content.querySelector<HTMLElement & { open: boolean }>('[data-section="lenses"]');
        this.lenses.select(msg.kind);
        if (sec && !sec.open) {
          sec.open = true;
          this.state.collapsed.lenses = false;
          this.save();
        }
        this.lenses.setOpen(true);
        requestAnimationFrame(() => sec?.scrollIntoView({ block: 'start', behavior: 'smooth' }));
        return;
      }
      case 'export':
        void this.export(msg.id, msg.kind, msg.stageId);
        return;
      case 'compare': {
        if (msg.version === -1) {
          this.header.compare(null, null, true);
          return;
        }
        if (this.stream.render && msg.version < this.stream.render.version) return;
        const was = this.comparing;
        this.comparing = msg.label === null ? null : { label: msg.label, top: msg.top };
        this.header.compare(msg.label, msg.error, false, msg.incomparable);
        this.layout.probsChart?.setBaseline(msg.top, msg.label);
        if (!!was !== !!this.comparing) this.drawAll(true);
        return;
      }
      case 'lensProgress':
        this.lenses.progress(msg.done, msg.total);
        return;
      case 'focusStage':
        this.pendingFocus = msg.id;
        // now if the render is complete, else once it is (heights settle as the maps draw)
        if (this.stream.render && document.body.dataset.renderedVersion === String(this.stream.render.version)) this.focusPending();
        return;
    }
  }

  // --- a render ---------------------------------------------------------------------------

  private onModel(version: number, summary: ModelSummary, warnings: readonly ProblemInfo[]): void {
    const begun = this.stream.begin(version, summary);
    if (begun === 'older') return;
    document.body.dataset.modelAt = String(Date.now()); // (the benchmark splits keystroke → pixels with these)
    this.busyMs = 0;
    this.arrivals = [];
    this.problems = null;
    this.warnings = warnings;
    this.showBanner();
    // the same layout: every card keeps its old numbers until the new ones arrive
    if (begun === 'same') for (const c of this.layout.cards.values()) c.setPending();
    else {
      this.content.replaceChildren(...this.layout.build(summary, this.overview, this.lenses.el));
      this.watchLenses();
      this.postWanted();
    }
    this.header.model(summary);
    this.startProgress();
    if (this.settings) this.header.settings(this.settings);
    this.renderWarnings(warnings);
    this.content.querySelector('.summary-box')?.replaceChildren(renderSummary(summary));
  }

  /** `pooled`: data is [rows][pooled] values then their [rows][pooled] word ids (src/protocol/worker.ts). */
  private onStage(id: string, shape: readonly number[], data: Float32Array, pooled?: number): void {
    const r = this.stream.render!;
    const card = this.layout.cards.get(id);
    if (!card) return;
    const n = pooled ? shape[0] * pooled : 0;
    card.setData(pooled ? { shape, data: data.subarray(0, n), pooled: { cols: pooled, words: data.subarray(n) } } : { shape, data }, r.version);
    r.received++;
    if (this.progressTimer === null && this.expected) this.showProgress();
    // the overview and the charts follow the stages they show
    if (this.overview.has(id)) this.overview.draw(id);
    this.lenses.onStage(id);
    const info = card.info;
    if (info.kind === 'ffn.up' || info.kind === 'ffn.gate') {
      const L = r.summary.layers[info.layer]?.ffn;
      const chart = this.layout.activationCharts.get(info.layer);
      if (L && chart && (L.gated ? info.kind === 'ffn.gate' : info.kind === 'ffn.up')) chart.later(L.activation as Activation, data, r.summary.tokens);
    }
    if (this.highlightTarget) this.applyHighlight(false);
    // perStageKind: a new stage can widen the shared range of the others
    if (this.settings?.range === 'perStageKind') {
      for (const c of this.layout.cards.values()) if (c.info.kind === info.kind && c.info.id !== id && c.hasData) c.draw(true);
    }
  }

  /**
   * The worker built a stage on numbers this panel does not hold (their messages were dropped as
   * stale on the way, or the cards were built anew): everything of the current render again, once.
   */
  private resync(version: number): void {
    if (this.resyncedAt === version) return;
    this.resyncedAt = version;
    post({ type: 'resync' });
  }

  /**
   * After 400 ms without the render complete, the header says how many of the stages the panel
   * shows are in (a fast render never flickers it).
   */
  private startProgress(): void {
    if (this.progressTimer !== null) clearTimeout(this.progressTimer);
    this.header.progress(null);
    const s = this.stream.render!.summary;
    this.expected = 0;
    this.progressTimer = setTimeout(() => {
      this.progressTimer = null;
      const ids = this.wantedIds(s);
      this.expected = ids ? ids.length : s.stages.length;
      this.showProgress();
    }, 400);
  }

  private showProgress(): void {
    const r = this.stream.render;
    if (!r) return;
    this.header.progress(r.received === 0 ? 'computing…' : `${Math.min(r.received, this.expected)} of ${this.expected} stages…`);
  }

  private endProgress(): void {
    if (this.progressTimer !== null) clearTimeout(this.progressTimer);
    this.progressTimer = null;
    this.expected = 0;
    this.header.progress(null);
  }

  private onDone(version: number, ms: number): void {
    const r = this.stream.render;
    if (!r || r.version !== version) return;
    this.endProgress();
    document.body.dataset.doneAt = String(Date.now());
    document.body.dataset.computeMs = String(Math.round(ms * 10) / 10); // (the worker's parse + forward: the hosts bench reads it)
    document.body.dataset.busyMs = String(Math.round(this.busyMs));
    document.body.dataset.arrivals = this.arrivals.join(' ');
    requestAnimationFrame(() => {
      document.body.dataset.renderedVersion = String(version);
      document.body.dataset.renderedAt = String(Date.now()); // (the benchmark's keystroke → pixels clock)
      post({ type: 'rendered', version, stages: r.received, ms });
      this.focusPending();
    });
    this.lenses.onRendered();
    if (this.state.scrollY && window.scrollY === 0) window.scrollTo(0, this.state.scrollY);
  }

  private focusPending(): void {
    const id = this.pendingFocus;
    if (!id || !this.layout.cards.has(id)) return;
    this.pendingFocus = null;
    this.scrollToCard(id);
  }

  /** Tells the worker (through the host) which stages are shown: a deep model's closed layers are not sent. */
  /** The stages the panel shows of `s` (null: all): the open sections', and always what a new panel
   * shows (the worker's rule too), the overview's and the open lenses'. */
  private wantedIds(s: ModelSummary): string[] | null {
    return this.layout.wanted(s, [...(shownFirst(s.stages, s.layers.length) ?? []), ...this.overview.ids(), ...this.lensWanted]);
  }

  private postWanted(): void {
    const s = this.stream.render?.summary;
    if (!s) return;
    const ids = this.wantedIds(s);
    const cols = this.settings?.maxCols ?? 1024;
    const key = `${cols} ${ids ? ids.slice().sort().join(',') : '*'}`;
    if (key === this.wantedKey) return;
    this.wantedKey = key;
    post({ type: 'want', ids, cols });
  }

  private scrollToCard(id: string): void {
    const c = this.layout.cards.get(id);
    if (c) this.openAndScroll(c.el, c.el.parentElement);
  }

  /**
   * Opens layer `layer`'s section and brings its heading to the top: not its last card, which the
   * stages arriving above it (the layer's attention and FFN, asked for as it opens) push down. The
   * layer picker follows, whichever control opened it.
   */
  private goToLayer(layer: number): void {
    const section = this.content.querySelector<HTMLElement>(`vscode-collapsible[data-section="layer${layer}"]`);
    this.header.showLayer(layer);
    if (section) this.openAndScroll(section, section);
    else this.scrollToCard(`layers.${layer}.out`);
  }

  /** Opens every section from `from` outwards, then scrolls `el` to the top. */
  private openAndScroll(el: HTMLElement, from: HTMLElement | null): void {
    let opened = false;
    for (let p = from; p; p = p.parentElement) {
      if (p.tagName !== 'VSCODE-COLLAPSIBLE') continue;
      const el = p as HTMLElement & { open: boolean; dataset: DOMStringMap };
      if (!el.open) {
        el.open = true;
        opened = true;
        if (el.dataset.section) this.state.collapsed[el.dataset.section] = false;
      }
    }
    if (opened) {
      this.save();
      this.postWanted();
    }
    requestAnimationFrame(() => el.scrollIntoView({ block: 'start', behavior: 'smooth' }));
  }

  private setAllOpen(open: boolean): void {
    this.lenses.setOpen(open && !!this.content.querySelector('[data-section="lenses"]'));
    for (const el of this.content.querySelectorAll<HTMLElement & { open: boolean; dataset: DOMStringMap }>('vscode-collapsible')) {
      el.open = open;
      if (el.dataset.section) this.state.collapsed[el.dataset.section] = !open;
    }
    this.save();
    this.postWanted();
    if (open) requestAnimationFrame(() => this.drawAll(true));
  }

  // --- export ---------------------------------------------------------------------------------

  private async export(id: number, kind: 'png' | 'csv' | 'npy' | 'report', stageId: string | null): Promise<void> {
    try {
      let bytes: Uint8Array;
      if (kind === 'report') bytes = new TextEncoder().encode(reportHtml(this.root, this.stream.render?.summary.name ?? 'FFN Lens'));
      else {
        const card = stageId ? this.layout.cards.get(stageId) : undefined;
        if (!card) throw new Error(`no stage ${stageId ?? ''} in this panel`);
        // (numbers held pooled: the host asks the worker for them all)
        if (card.data?.pooled && kind !== 'png') return post({ type: 'exported', id, bytes: null, pooled: true });
        bytes = await exportStage(card, kind, this.stream.render?.summary.tokens ?? []);
      }
      const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      post({ type: 'exported', id, bytes: buf });
    } catch (e) {
      post({ type: 'exported', id, bytes: null, error: (e as Error).message });
    }
  }

  // --- lenses ---------------------------------------------------------------------------------

  private newLenses(): LensSection {
    const ctx: LensContext = {
      backdrop: () => this.backdrop(),
      colormap: () => this.colormap(),
      maxCells: () => ({ rows: this.settings?.maxRows ?? 256, cols: this.settings?.maxCols ?? 1024 }),
      request: (request) => post({ type: 'lens', request }),
      openLayer: (l) => this.goToLayer(l),
      unit: (text) => post({ type: 'unit', text }),
      runPatching: (views) => post({ type: 'runPatching', views }),
      summary: () => this.stream.render?.summary ?? null,
      stage: (id) => this.layout.cards.get(id)?.data ?? null,
      want: (ids) => {
        this.lensWanted = ids;
        this.postWanted();
      },
    };
    return new LensSection(ctx, this.state.lensTab ?? 0, (tab) => {
      this.state.lensTab = tab;
      this.save();
    });
  }

  /** The lenses are computed only while their section is open. */
  private watchLenses(): void {
    const sec = this.content.querySelector<HTMLElement & { open: boolean }>('[data-section="lenses"]');
    if (!sec) return;
    this.lenses.setOpen(sec.open);
    sec.addEventListener('vsc-collapsible-toggle', (e) => {
      if (e.target === sec) this.lenses.setOpen((e as CustomEvent<{ open: boolean }>).detail.open);
    });
  }

  // --- banner and warnings ------------------------------------------------------------------

  private showBanner(): void {
    const blocks = bannerBlocks(this.problems?.list ?? this.warnings, !!this.stream.render);
    document.body.classList.toggle('has-errors', blocks.some((b) => b.kind === 'error'));
    if (blocks.length === 0) {
      this.banner.hidden = true;
      this.banner.replaceChildren();
      return;
    }
    this.banner.hidden = false;
    this.banner.replaceChildren(...blocks.map((b) => h('div', { class: `banner-block banner-${b.kind}` },
      h('div', { class: 'banner-title' }, b.title),
      h('ul', { class: 'banner-list' }, ...b.items.map((e) => h('li', {}, this.problemLink(e.line, e.col, `line ${e.line}, column ${e.col}`), ` · ${e.text}`))),
      b.more ? h('div', { class: 'banner-more' }, b.more) : null)));
  }

  private renderWarnings(warnings: readonly ProblemInfo[]): void {
    this.content.querySelector('.warnings')?.remove();
    const w = contentWarnings(warnings); // (weights not used are in the banner, above)
    if (!w.length) return;
    this.content.prepend(h('ul', { class: 'warnings' }, ...w.slice(0, 8).map((x) => h('li', {}, this.problemLink(x.line, x.col, `line ${x.line}`), ` · ${x.message}`))));
  }

  private problemLink(line: number, col: number, text: string): HTMLElement {
    const a = h('a', { href: '#', class: 'problem-link', title: 'Go to this place in the file' }, text);
    a.addEventListener('click', (ev) => {
      ev.preventDefault();
      post({ type: 'gotoProblem', line, col });
    });
    return a;
  }

  // --- colors and drawing ----------------------------------------------------------------------

  private colormap(): ColormapName {
    const c = this.settings?.colormap ?? 'coolwarm';
    // differences from a baseline: a diverging map, centred at zero
    return this.comparing && !isDiverging(c) ? 'coolwarm' : c;
  }

  /** What the heatmaps are seen against, from the theme class VS Code gives the body (read when drawn: it may come after we start). */
  private backdrop(): Backdrop {
    return backdropOf(document.body.className);
  }

  private cardContext(): CardContext {
    const self = this;
    const info = (id: string) => self.stream.render?.summary.stages.find((s) => s.id === id);
    return {
      get summary() { return self.stream.render!.summary; },
      get colormap() { return self.colormap(); },
      get backdrop() { return self.backdrop(); },
      get maxRows() { return self.settings?.maxRows ?? 256; },
      get maxCols() { return self.settings?.maxCols ?? 1024; },
      range: (id, data, mask) => rangeFor(this.settings, this.colormap(), data, mask, info(id)?.kind ?? id,
        [...this.layout.cards.values()].map((c) => ({ kind: c.info.kind, masked: c.info.masked, data: c.data?.data ?? null })), this.stream.render?.summary.T ?? 0),
      reveal: (stageId, index) => post({ type: 'reveal', stageId, index }),
      head: (id) => {
        const i = info(id);
        return i ? this.state.head[headKey(i)] ?? 0 : 0;
      },
      setHead: (id, hh) => {
        const i = info(id);
        if (!i) return;
        const key = headKey(i);
        this.state.head[key] = hh;
        this.save();
        // every stage of that layer follows (the one that changed redraws itself), and the overview
        for (const [other, card] of this.layout.cards) if (other !== id && card.info.perHead && headKey(card.info) === key) card.draw(true);
        this.overview.drawAll();
      },
      allHeads: (id) => !!this.state.allHeads[id],
      stageData: (id) => this.layout.cards.get(id)?.data?.data ?? null,
      setAllHeads: (id, on) => {
        this.state.allHeads[id] = on;
        this.save();
      },
    };
  }

  /** Redraws what is visible (after a resize, a settings change or a section opening). */
  private drawAll(force: boolean): void {
    if (!this.stream.render) return;
    for (const c of this.layout.cards.values()) c.draw(force);
    this.overview.drawAll();
    this.applyHighlight(false);
  }

  // --- linked with the editor -----------------------------------------------------------------

  private highlight(target: HighlightTarget | null, writes?: { shape: readonly number[]; data: ArrayBuffer }): void {
    this.highlightTarget = target;
    this.lenses.highlight(target);
    if (this.stream.render) {
      for (const c of this.layout.cards.values()) if (c.info.kind === 'ffn.down') c.setExtra(null);
      if (target?.kind === 'neuron' && writes) {
        this.layout.cards.get(`layers.${target.layer}.ffn.down`)?.setExtra({
          title: `Neuron ${target.index} writes act[:, ${target.index}] · W2[:, ${target.index}] into each token (its part of the down-projection)`,
          data: new Float32Array(writes.data), shape: writes.shape,
        });
      }
    }
    this.applyHighlight(true);
  }

  private applyHighlight(reveal: boolean): void {
    if (!this.stream.render) return;
    const t = this.highlightTarget;
    let first: StageCard | null = null;
    for (const c of this.layout.cards.values()) {
      const hl = t ? highlightFor(c.info, t) : null;
      c.heatmap.setHighlight(hl);
      if (hl && !first) first = c;
    }
    this.overview.setHighlight(t);
    if (reveal && first) first.heatmap.revealHighlight();
  }
}
