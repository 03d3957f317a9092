// Moving about the panel: a card or a layer brought to the top (its sections opened), every
// section opened or closed, a stage focused once its card exists, the lenses section opened at a
// tab. What opens is kept in the view state and changes the stages the worker sends.
import type { LensKind } from '../src/protocol/lenses';
import type { ModelSummary } from '../src/protocol/stages';
import type { PanelHeader } from './header';
import type { PanelLayout } from './layout';
import type { LensSection } from './lenses/lensSection';
import { streamStage } from './stagePicks';
import type { ViewState } from './viewState';

type Collapsible = HTMLElement & { open: boolean; dataset: DOMStringMap };

export interface NavigatorDeps {
  readonly content: HTMLElement;
  readonly layout: PanelLayout;
  readonly header: PanelHeader;
  state(): ViewState;
  save(): void;
  summary(): ModelSummary | null;
  lenses(): LensSection;
  /** Sections opened or closed: the stages shown changed. */
  wantedChanged(): void;
  drawAll(): void;
}

export class PanelNavigator {
  /** A stage to scroll to once its card exists (asked for before the model arrived). */
  private pendingFocus: string | null = null;

  constructor(private readonly d: NavigatorDeps) {}

  scrollToCard(id: string): void {
    const c = this.d.layout.cards.get(id);
    if (c) this.openAndScroll(c.el, c.el.parentElement);
  }

  /**
   * Opens layer `layer`'s section and brings its heading to the top: not its last card, which the
   * stages arriving above it (the layer's attention and FFN, asked for as it opens) push down. The
   * layer picker follows, whichever control opened it.
   */
  goToLayer(layer: number): void {
    const section = this.d.content.querySelector<HTMLElement>(`vscode-collapsible[data-section="layer${layer}"]`);
    this.d.header.showLayer(layer);
    if (section) this.openAndScroll(section, section);
    else {
      const s = this.d.summary();
      const out = s && streamStage(s, layer);
      if (out) this.scrollToCard(out.id);
    }
  }

  setAllOpen(open: boolean): void {
    const { content, state } = this.d;
    this.d.lenses().setOpen(open && !!content.querySelector('[data-section="lenses"]'));
    for (const el of content.querySelectorAll<Collapsible>('vscode-collapsible')) {
      el.open = open;
      if (el.dataset.section) state().collapsed[el.dataset.section] = !open;
    }
    this.d.save();
    this.d.wantedChanged();
    if (open) requestAnimationFrame(() => this.d.drawAll());
  }

  /** Scrolls to stage `id`: now if `now` (the render is on screen), else once it is. */
  focusStage(id: string, now: boolean): void {
    this.pendingFocus = id;
    if (now) this.focusPending();
  }

  /** The render is on screen: the stage asked for before, if its card is there. */
  focusPending(): void {
    const id = this.pendingFocus;
    if (!id || !this.d.layout.cards.has(id)) return;
    this.pendingFocus = null;
    this.scrollToCard(id);
  }

  /** Opens the lenses section at this tab. */
  focusLens(kind: LensKind): void {
    const sec = this.d.content.querySelector<Collapsible>('[data-section="lenses"]');
    const lenses = this.d.lenses();
    lenses.select(kind);
    if (sec && !sec.open) {
      sec.open = true;
      this.d.state().collapsed.lenses = false;
      this.d.save();
    }
    lenses.setOpen(true);
    requestAnimationFrame(() => sec?.scrollIntoView({ block: 'start', behavior: 'smooth' }));
  }

  /** Opens every section from `from` outwards, then scrolls `el` to the top. */
  private openAndScroll(el: HTMLElement, from: HTMLElement | null): void {
    let opened = false;
    for (let p = from; p; p = p.parentElement) {
      if (p.tagName !== 'VSCODE-COLLAPSIBLE') continue;
      const c = p as Collapsible;
      if (!c.open) {
        c.open = true;
        opened = true;
        if (c.dataset.section) this.d.state().collapsed[c.dataset.section] = false;
      }
    }
    if (opened) {
      this.d.save();
      this.d.wantedChanged();
    }
    requestAnimationFrame(() => el.scrollIntoView({ block: 'start', behavior: 'smooth' }));
  }
}
