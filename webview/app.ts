// The panel: it shows one model document's stages as the worker streams them, tagged with the
// document version; anything older than the render on screen is dropped. While the text does not
// read as a model, the last good render stays, dimmed, under a banner. Each host message goes to
// its handler (the table in `handlers`); the parts: the render stream (stream.ts), the stage
// messages into cards (stageReceiver.ts), the layout of sections and cards (layout.ts), moving
// about it (navigator.ts), the stages asked for (wantedStages.ts), the header (header.ts), the
// overview (overview.ts), the problems (problemsView.ts), the lenses (lenses/lensSection.ts).
import type { PanelSettings, ToWebview } from '../src/protocol/panel';
import type { HighlightTarget, ModelSummary, ProblemInfo } from '../src/protocol/stages';
import type { Activation } from '../src/core/activationKinds';
import { h, perFrame } from './dom';
import { answerExport } from './export';
import { PanelHeader } from './header';
import { backdropOf, isDiverging, type Backdrop, type ColormapName } from './heatmap';
import { highlightFor } from './highlight';
import { PanelLayout } from './layout';
import { LensSection } from './lenses/lensSection';
import { GenerationView } from './views/generationView';
import { onSaeRendered, showSaeLens } from './sae/saeCards';
import { PanelNavigator } from './navigator';
import { Overview } from './overview';
import { cardContext, lensContext, type PanelLook } from './panelContexts';
import { ProblemsView } from './problemsView';
import { RenderProgress } from './renderProgress';
import { StageReceiver } from './stageReceiver';
import { RenderStream } from './stream';
import { watchTheme } from './theme';
import { loadState, post, saveState, switchViewState, type ViewState } from './viewState';
import type { StageCard } from './views/stageCard';
import { renderSummary } from './views/summary';
import { WantedStages } from './wantedStages';
import { wholeSummary } from './wholeSummary';

type Handlers = { readonly [K in ToWebview['type']]: (msg: Extract<ToWebview, { type: K }>) => void };

export class App {
  private settings: PanelSettings | null = null;
  private state: ViewState = loadState();
  private readonly stream = new RenderStream();
  private readonly root: HTMLElement;
  private readonly headerEl = h('header', { class: 'panel-header' });
  private readonly banner = h('div', { class: 'banner', role: 'alert', hidden: true });
  private readonly content = h('main', { class: 'content' }, h('p', { class: 'placeholder' }, 'Reading the model file…'));
  private readonly look: PanelLook = {
    summary: () => this.stream.render?.summary ?? null,
    settings: () => this.settings,
    colormap: () => this.colormap(),
    backdrop: () => this.backdrop(),
    cards: () => this.layout.cards,
    state: () => this.state,
    save: () => this.save(),
  };
  private readonly header: PanelHeader;
  private readonly ctx = cardContext(this.look, () => this.overview.drawAll());
  private readonly layout = new PanelLayout(this.ctx, () => this.state, () => this.save(), () => this.drawAll(true), () => this.wanted.post());
  private readonly overview = new Overview(this.ctx, (id) => this.nav.scrollToCard(id), (layer) => this.nav.goToLayer(layer));
  private readonly wanted = new WantedStages(this.layout, this.overview, this.look.summary, () => this.settings?.maxCols ?? 1024);
  private readonly receiver = new StageReceiver(this.stream, () => this.layout.cards, (card, data) => this.arrived(card, data));
  private readonly problems = new ProblemsView(this.banner, this.content, () => !!this.stream.render);
  private readonly progress: RenderProgress;
  private readonly nav: PanelNavigator;
  private highlightTarget: HighlightTarget | null = null;
  private readonly redrawAll = perFrame(() => this.drawAll(false));
  private lenses = this.newLenses();
  private readonly generation = new GenerationView(post, (row) => this.generatedRow(row));
  /** The highlight is the Generation section's picked token's row (not the editor's cursor's). */
  private generatedHighlight = false;
  /** Compare: the baseline the stages are differences from, or null. */
  private comparing: { label: string; top: { k: number; ids: readonly number[]; p: readonly number[] } | null } | null = null;

  private readonly handlers: Handlers = {
    init: (m) => this.init(m),
    settings: (m) => this.onSettings(m.settings),
    model: (m) => this.onModelMessage(m),
    stage: (m) => this.receiver.stage(m),
    cols: (m) => this.receiver.cols(m),
    rows: (m) => this.receiver.rows(m),
    same: (m) => this.receiver.same(m),
    kept: (m) => this.receiver.kept(m),
    top: (m) => {
      const r = this.stream.render;
      if (!r || !this.stream.current(m.version) || !r.summary.head) return;
      this.layout.probsChart?.update(m.top, r.summary.tokens, r.summary.vocab, r.summary.head.temperature);
    },
    done: (m) => {
      if (m.kernel) document.body.dataset.kernel = m.kernel; // (tests read which kernel ran)
      this.onDone(m.version, m.ms);
    },
    problems: (m) => (noteModel(`${m.version}x`), this.onProblems(m.version, m.problems)),
    notice: (m) => {
      this.root.querySelector('.notice')?.remove();
      if (m.text) this.headerEl.after(h('div', { class: 'notice', role: 'status' }, m.text)); // ('' clears it)
    },
    highlight: (m) => this.highlight(m.target, m.writes),
    lens: (m) => {
      if (this.stream.render && m.version < this.stream.render.version && m.result.kind !== 'patch') return; // (a newer one is asked for)
      if (!showSaeLens(m.result)) this.lenses.show(m.result);
    },
    focusLens: (m) => this.nav.focusLens(m.kind),
    export: (m) => void answerExport(m.id, m.kind, m.stageId ? this.layout.cards.get(m.stageId) : undefined, m.stageId, this.root, this.stream.render?.summary ?? null),
    compare: (m) => this.onCompare(m),
    lensProgress: (m) => this.lenses.progress(m.done, m.total),
    generation: (m) => this.generation.handle(m),
    // the host's messages passed on at once: each in turn, one's fault not the others' (main.ts's rule)
    batch: (m) => {
      for (const x of m.messages) {
        try {
          this.handle(x);
        } catch (err) {
          console.error('FFN Lens panel:', err);
        }
      }
    },
    // now if the render is complete, else once it is (heights settle as the maps draw)
    focusStage: (m) => this.nav.focusStage(m.id, !!this.stream.render && document.body.dataset.renderedVersion === String(this.stream.render.version)),
  };

  constructor(root: HTMLElement) {
    this.root = root;
    const headerMain = h('div', { class: 'header-main' });
    this.header = new PanelHeader(headerMain, (open) => this.nav.setAllOpen(open), (layer) => this.nav.goToLayer(layer));
    this.progress = new RenderProgress(this.header, () => this.stream.render?.received ?? null);
    this.nav = new PanelNavigator({
      content: this.content, layout: this.layout, header: this.header,
      state: () => this.state, save: () => this.save(), summary: this.look.summary, lenses: () => this.lenses,
      wantedChanged: () => this.wanted.post(), drawAll: () => this.drawAll(true),
    });
    // the banner sits in the sticky header: wherever the user has scrolled, the dimmed view says why
    this.headerEl.append(headerMain, this.banner);
    root.append(this.headerEl, this.content);
    // a card scrolled to lands below the sticky header, not under it
    new ResizeObserver(() => document.documentElement.style.setProperty('--header-height', `${this.headerEl.offsetHeight}px`)).observe(this.headerEl);
    new ResizeObserver(() => this.redrawAll()).observe(this.content);
    watchTheme(() => {
      for (const c of this.layout.activationCharts.values()) c.chart.retheme();
      this.layout.probsChart?.retheme();
      // a diverging map's centre follows the theme (dark on dark): the heatmaps and legends too
      if (isDiverging(this.colormap())) this.drawAll(true);
      this.lenses.repaint();
    });
    window.addEventListener('scroll', () => {
      this.state.scrollY = window.scrollY;
      this.save();
    }, { passive: true });
  }

  handle(msg: ToWebview): void {
    (this.handlers[msg.type] as (m: ToWebview) => void)(msg);
  }

  private save(): void {
    saveState(this.state);
  }

  // --- a document, its settings, its renders -----------------------------------------------------

  private init(msg: Extract<ToWebview, { type: 'init' }>): void {
    this.settings = msg.settings;
    if (this.state.uri !== msg.uri) {
      this.state = switchViewState(this.state, msg.uri);
      this.save();
      // from the top: the new content may be built before any layout would clamp the old offset
      window.scrollTo(0, 0);
    }
    this.stream.reset();
    this.progress.end();
    this.layout.dispose();
    this.lenses = this.newLenses(); // (the lenses of the document shown before go with it)
    this.comparing = null;
    this.generation.reset();
    this.header.compare(null, null);
    this.header.offerGitHead(msg.gitHead);
    this.wanted.forget(); // (a new subscriber: told again)
    this.problems.clear();
    this.content.replaceChildren(h('p', { class: 'placeholder' }, 'Reading the model file…'));
    // the file shown now, by its name, until a model summary names the model
    this.header.file(msg.uri);
    this.header.settings(msg.settings);
    this.problems.showBanner();
  }

  private onSettings(settings: PanelSettings): void {
    // (a card held pooled to another width is not the numbers a later 'kept' means: resync then)
    for (const c of this.layout.cards.values()) if (c.data?.pooled && c.data.pooled.cols !== settings.maxCols) c.dataVersion = -1;
    this.settings = settings;
    this.header.settings(settings);
    this.drawAll(true);
    this.wanted.post(); // (a new heatmap width: the stages across the vocabulary come pooled to it)
  }

  private onModelMessage(msg: Extract<ToWebview, { type: 'model' }>): void {
    // (no vocab or no stages: the last summary's, of the same key, which the worker sent once;
    // should the panel lack them, everything again)
    const summary = wholeSummary(msg.summary, this.stream.render?.summary);
    if (!summary) {
      document.body.dataset.resyncs = String(Number(document.body.dataset.resyncs ?? 0) + 1);
      post({ type: 'resync' });
      return;
    }
    this.onModel(msg.version, summary, msg.warnings);
    if (msg.trace) document.body.dataset.trace = msg.trace.join(',');
    noteModel(String(msg.version));
  }

  private onModel(version: number, summary: ModelSummary, warnings: readonly ProblemInfo[]): void {
    const begun = this.stream.begin(version, summary);
    if (begun === 'older') return;
    document.body.dataset.modelAt = String(Date.now()); // (the benchmark splits keystroke → pixels with these)
    this.receiver.begin();
    this.problems.problems = null;
    this.problems.warnings = warnings;
    this.problems.showBanner();
    // the same layout: every card keeps its old numbers until the new ones arrive (at another T,
    // a prompt typed, its shape follows the new plan and its old numbers stay drawn, dimmed)
    if (begun === 'same') {
      for (const info of summary.stages) this.layout.cards.get(info.id)?.retarget(info);
      for (const c of this.layout.cards.values()) c.setPending();
    } else {
      const t0 = performance.now();
      this.content.replaceChildren(...this.layout.build(summary, this.overview, this.lenses.el, this.generation.el));
      document.body.dataset.layoutMs = String(Math.round(performance.now() - t0)); // (the typing bench splits the panel's part with it)
      this.generation.placed();
      this.watchLenses();
      this.wanted.post();
    }
    this.header.model(summary);
    this.progress.start(() => this.wanted.ids(summary)?.length ?? summary.stages.length);
    if (this.settings) this.header.settings(this.settings);
    this.problems.renderWarnings(warnings);
    this.content.querySelector('.summary-box')?.replaceChildren(renderSummary(summary));
    this.generation.rendered(version, summary.generated, summary.T);
  }

  /** A card got numbers of the render on screen: what follows its stage follows. */
  private arrived(card: StageCard, data: Float32Array): void {
    const { id, kind } = card.info;
    this.progress.tick();
    // the overview and the charts follow the stages they show
    if (this.overview.has(id)) this.overview.draw(id);
    this.lenses.onStage(id);
    const curve = this.layout.activationCharts.get(id);
    if (curve) curve.chart.later(curve.fn as Activation, data, this.stream.render!.summary.tokens);
    if (this.highlightTarget) this.applyHighlight(false);
    // perStageKind: a new stage can widen the shared range of the others
    if (this.settings?.range === 'perStageKind') {
      for (const c of this.layout.cards.values()) if (c.info.kind === kind && c.info.id !== id && c.hasData) c.draw(true);
    }
  }

  private onDone(version: number, ms: number): void {
    const r = this.stream.render;
    if (!r || r.version !== version) return;
    this.progress.end();
    document.body.dataset.doneAt = String(Date.now());
    document.body.dataset.computeMs = String(Math.round(ms * 10) / 10); // (the worker's parse + forward: the hosts bench reads it)
    document.body.dataset.busyMs = String(Math.round(this.receiver.busyMs));
    document.body.dataset.arrivals = this.receiver.arrivals.join(' ');
    requestAnimationFrame(() => {
      document.body.dataset.renderedVersion = String(version);
      document.body.dataset.renderedAt = String(Date.now()); // (the benchmark's keystroke → pixels clock)
      post({ type: 'rendered', version, stages: r.received, ms });
      this.nav.focusPending();
    });
    this.lenses.onRendered();
    onSaeRendered();
    if (this.state.scrollY && window.scrollY === 0) window.scrollTo(0, this.state.scrollY);
  }

  private onProblems(version: number, list: readonly ProblemInfo[]): void {
    if (this.stream.render && version < this.stream.render.version) return; // older than what is shown
    this.problems.problems = { version, list };
    this.progress.end(); // (the render under way is not coming: the file does not read)
    this.problems.showBanner();
    // never read yet: say what the panel waits for, not that it is still reading
    if (!this.stream.render) this.content.replaceChildren(h('p', { class: 'placeholder' }, 'The heatmaps appear once the file reads as a model: see the problems above.'));
  }

  private onCompare(m: Extract<ToWebview, { type: 'compare' }>): void {
    if (m.version === -1) {
      this.header.compare(null, null, true);
      return;
    }
    if (this.stream.render && m.version < this.stream.render.version) return;
    const was = this.comparing;
    this.comparing = m.label === null ? null : { label: m.label, top: m.top };
    this.header.compare(m.label, m.error, false, m.incomparable);
    this.layout.probsChart?.setBaseline(m.top, m.label);
    if (!!was !== !!this.comparing) this.drawAll(true);
  }

  // --- lenses ---------------------------------------------------------------------------------

  private newLenses(): LensSection {
    const ctx = lensContext(this.look, (l) => this.nav.goToLayer(l), (ids) => this.wanted.setLens(ids));
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
    this.generatedHighlight = false;
    this.lenses.highlight(target);
    if (this.stream.render) {
      // what one neuron writes, under the stage the plan draws it under (its layer's down-projection)
      for (const c of this.layout.cards.values()) if (c.info.show.neuronWrites) c.setExtra(null);
      if (target?.kind === 'neuron' && writes) {
        const under = [...this.layout.cards.values()].find((c) => c.info.show.neuronWrites && c.info.layer === target.layer);
        under?.setExtra({
          title: `Neuron ${target.index} writes act[:, ${target.index}] · W2[:, ${target.index}] into each token (its part of the down-projection)`,
          data: new Float32Array(writes.data), shape: writes.shape,
        });
      }
    }
    this.applyHighlight(true);
  }

  /** The Generation section's picked token: its row of every heatmap highlighted (null: none), where the page is. */
  private generatedRow(row: number | null): void {
    const t = this.highlightTarget;
    if (row === null) {
      if (!this.generatedHighlight) return;
      this.generatedHighlight = false;
      this.highlightTarget = null;
    } else {
      if (this.generatedHighlight && t?.kind === 'token' && t.index === row) return;
      this.generatedHighlight = true;
      this.highlightTarget = { kind: 'token', index: row };
    }
    this.lenses.highlight(this.highlightTarget);
    this.applyHighlight(false);
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

/** The versions of the last model messages (`x`: the text did not read as a model): a test that sees a render come whole says what came before. */
function noteModel(v: string): void {
  document.body.dataset.models = [...(document.body.dataset.models ?? '').split(' ').filter(Boolean).slice(-11), v].join(' ');
}
