// The panel's "Lenses" section: the logit lens, direct logit attribution, head scores and
// activation patching of the model as edited, one tab each. A lens is computed by the worker only
// while its tab is shown, and asked for again after every render: it follows the edits.
import type { LensKind, LensResult } from '../../src/protocol/lenses';
import { h } from '../dom';
import { DlaView } from './dlaView';
import { HeadsView } from './headsView';
import type { LensContext } from './lensContext';
import { LogitLensView } from './logitLensView';
import { PatchView } from './patchView';
import { AttentionView } from './attentionView';
import { TokensView } from './tokensView';
import type { HighlightTarget } from '../../src/protocol/stages';

type Tab = LensKind | 'attention' | 'tokens';
const TABS: ReadonlyArray<readonly [Tab, string]> = [
  ['logitLens', 'Logit lens'], ['dla', 'Attribution'], ['heads', 'Heads'], ['attention', 'Attention'], ['tokens', 'Tokens'], ['patch', 'Patching'],
];

export class LensSection {
  readonly el: HTMLElement;
  private readonly logit: LogitLensView;
  private readonly dla: DlaView;
  private readonly heads: HeadsView;
  private readonly patch: PatchView;
  private readonly attention: AttentionView;
  private readonly tokens: TokensView;
  private readonly views: Array<{ readonly el: HTMLElement; request(): void }>;
  private readonly status = h('p', { class: 'lens-status', role: 'status' });
  private tab: number;
  private readonly tabs: HTMLElement & { selectedIndex: number };
  private open = false;

  constructor(private readonly ctx: LensContext, tab: number, private readonly onTab: (tab: number) => void) {
    this.logit = new LogitLensView(ctx);
    this.dla = new DlaView(ctx);
    this.heads = new HeadsView(ctx);
    this.patch = new PatchView(ctx);
    this.attention = new AttentionView(ctx);
    this.tokens = new TokensView(ctx);
    this.tab = Math.min(Math.max(0, tab), TABS.length - 1);
    const views = this.views = [this.logit, this.dla, this.heads, this.attention, this.tokens, this.patch];
    const tabs = this.tabs = h('vscode-tabs', { 'selected-index': this.tab, class: 'lens-tabs' },
      ...TABS.flatMap(([kind, title], i) => [
        h('vscode-tab-header', { slot: 'header', 'data-lens': kind }, title),
        h('vscode-tab-panel', { 'data-lens': kind }, views[i].el),
      ])) as HTMLElement & { selectedIndex: number };
    tabs.addEventListener('vsc-tabs-select', (e) => {
      this.tab = (e as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex;
      this.onTab(this.tab);
      this.request();
    });
    this.el = h('div', { class: 'lenses' }, this.status, tabs);
  }

  /** The section was opened or closed: a lens is computed only while it is shown. */
  setOpen(open: boolean): void {
    this.open = open;
    if (open) this.request();
    else this.ctx.want([]);
  }

  /** Shows a tab (the patching command opens its own). */
  select(kind: Tab): void {
    const i = TABS.findIndex(([k]) => k === kind);
    if (i < 0) return;
    this.tab = i;
    this.tabs.selectedIndex = i;
    this.onTab(i);
  }

  /** A new render is complete: the lens shown is asked for again. */
  onRendered(): void {
    this.patch.onRendered();
    if (this.open) this.request();
  }

  private request(): void {
    // the stages a view draws from are asked for only while it is shown
    this.ctx.want([]);
    if (!this.open) return;
    const kind = TABS[this.tab][0];
    this.status.textContent = kind === 'patch' || kind === 'attention' || kind === 'tokens' ? '' : 'Computing…';
    this.views[this.tab].request();
  }

  /** Stage numbers arrived (the views drawn from stages redraw). */
  onStage(id: string): void {
    if (!this.open) return;
    const kind = TABS[this.tab][0];
    if (kind === 'attention') this.attention.onStage(id);
    if (kind === 'tokens') this.tokens.onStage(id);
  }

  /** The editor's cursor: the tokens view follows a neuron. */
  highlight(t: HighlightTarget | null): void {
    if (this.tokens.follow(t) && this.open && TABS[this.tab][0] === 'tokens') this.tokens.request();
  }

  show(r: LensResult): void {
    this.status.textContent = '';
    switch (r.kind) {
      case 'logitLens': this.logit.show(r); return;
      case 'dla': this.dla.show(r); return;
      case 'heads': this.heads.show(r); return;
      case 'patch': this.patch.show(r); return;
      case 'error':
        if (r.lens === 'patch') this.patch.error(r.message);
        else this.status.textContent = r.message;
    }
  }

  progress(done: number, total: number): void {
    this.patch.onProgress(done, total);
  }

  /** The theme changed: colors again. */
  repaint(): void {
    this.dla.repaint();
    this.heads.repaint();
    this.patch.repaint();
    if (this.open && this.tab === 0) this.request();
  }
}
