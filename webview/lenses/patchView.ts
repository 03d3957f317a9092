// Activation patching: the share of the clean answer recovered when one piece of the clean run is
// put into the corrupted run, per (layer, position) of the residual stream entering each layer,
// and per head. Runs as a command (VS Code's progress, cancellable); the panel shows its progress
// and the result.
import type { LensResult } from '../../src/protocol/lenses';
import { unitId } from '../../src/core/ids';
import { h } from '../dom';
import { HeatmapView } from '../views/heatmapView';
import { legend, wordLabel, type LensContext } from './lensContext';

type Patch = Extract<LensResult, { kind: 'patch' }>;

export class PatchView {
  readonly el = h('div', { class: 'lens-view lens-patch' });
  private readonly resid = new HeatmapView();
  private readonly heads = new HeatmapView(true, true);
  private readonly progress = h('vscode-progress-bar', { hidden: true, 'aria-label': 'Patching progress' });
  /** The last residual-stream patching and the last per-head one (two runs, each when asked). */
  private last: Patch | null = null;
  private lastHeads: Patch | null = null;
  private message = '';

  constructor(private readonly ctx: LensContext) {
    this.render();
  }

  /** Nothing to ask on its own: patching runs when the user says so. */
  request(): void {}

  onProgress(done: number, total: number): void {
    this.progress.hidden = false;
    const p = this.progress as HTMLElement & { value: number; max: number };
    p.max = total;
    p.value = done;
    this.progress.dataset.done = String(done);
    this.progress.dataset.total = String(total);
  }

  show(r: Patch): void {
    if (r.resid) this.last = r;
    if (r.heads) this.lastHeads = r;
    this.message = '';
    this.progress.hidden = true;
    this.render();
  }

  error(message: string): void {
    this.message = message;
    this.progress.hidden = true;
    this.render();
  }

  repaint(): void {
    this.render();
  }

  /** The model file changed: a message about the last attempt (a missing corrupted input…) may no longer hold. */
  onRendered(): void {
    if (!this.message) return;
    this.message = '';
    this.render();
  }

  private render(): void {
    const button = h('vscode-button', { class: 'patch-resid', title: 'FFN Lens: Activation Patching (runs in the background; cancel from its notification)' }, this.last ? 'Patch the residual stream again' : 'Patch the residual stream');
    button.addEventListener('click', () => {
      this.message = '';
      this.ctx.runPatching('resid');
    });
    const headsButton = h('vscode-button', { class: 'patch-heads', secondary: true, title: 'Patches each head\'s output at every token: one run per head' }, this.lastHeads ? 'Patch each head again' : 'Patch each head');
    headsButton.addEventListener('click', () => {
      this.message = '';
      this.ctx.runPatching('heads');
    });
    const intro = h('p', { class: 'lens-note' }, 'Runs the model on "corrupted_prompt" (or "corrupted_token_ids") of the model file, then puts back one piece of the clean run at a time and measures how much of the clean answer returns: 100 % means that piece carries it.');
    const parts: Array<Node | null> = [h('div', { class: 'lens-controls' }, button, headsButton, this.progress), intro];
    if (this.message) parts.push(h('p', { class: 'lens-error', role: 'alert' }, this.message));
    const r = this.last ?? this.lastHeads;
    if (r) {
      const T = r.tokens.length;
      const L = (r.resid ?? r.heads)!.length;
      const metric = r.alt === null ? `logit(${wordLabel(r.words, r.target)})` : `logit(${wordLabel(r.words, r.target)}) − logit(${wordLabel(r.words, r.alt)})`;
      parts.push(h('p', { class: 'lens-headline', 'data-ld-clean': String(r.ldClean), 'data-ld-corrupted': String(r.ldCorrupted) },
        `${metric}: clean ${r.ldClean.toFixed(3)}, corrupted ${r.ldCorrupted.toFixed(3)}. Each cell: (patched − corrupted) / (clean − corrupted).${this.last ? ` The residual stream: ${L * T} patched runs (and the clean and corrupted ones) in ${(this.last.ms / 1000).toFixed(1)} s.` : ''}${this.lastHeads ? ` Each head: ${this.lastHeads.heads!.flat().length} patched runs in ${(this.lastHeads.ms / 1000).toFixed(1)} s.` : ''}`));
      // (the same answer from both inputs: every share is 0/0, drawn as 0; say why)
      if (r.ldClean === r.ldCorrupted) parts.push(h('p', { class: 'lens-error', role: 'status' }, `The clean and the corrupted input give the same ${metric}: there is nothing to recover (are the two inputs the same?).`));
      const data = new Float32Array(L * T);
      this.last?.resid!.forEach((row, l) => row.forEach((v, t) => (data[l * T + t] = v)));
      const hm = this.lastHeads?.heads ?? null;
      const m = Math.max(1, ...data.map(Math.abs), ...(hm ? hm.flat().map(Math.abs) : []));
      const cols = r.tokens.map((t, i) => (r.corruptedTokens[i] !== t ? `${t}→${r.corruptedTokens[i]}` : t));
      this.resid.set({
        data, rows: L, cols: T, rowLabels: Array.from({ length: L }, (_, l) => `L${l}`), colLabels: cols, colAxis: 'token',
        describe: (l, t, v) => [`the stream entering layer ${l} at token ${t} "${r.tokens[t]}"${r.corruptedTokens[t] !== r.tokens[t] ? ` (corrupted: "${r.corruptedTokens[t]}")` : ''}`, `recovers ${(v * 100).toFixed(1)} % of ${metric}`, 'click: open this layer'],
        onClick: (l) => this.ctx.openLayer(l),
        ariaLabel: `Residual stream patching: ${L} layers × ${T} tokens`,
      });
      const share = `share of ${r.alt === null ? 'the logit' : 'the logit difference'} recovered (1 = 100 %)`;
      if (this.last) parts.push(h('h4', {}, 'The residual stream entering each layer (L0: the embeddings), by token'), this.resid.el, legend(share, 'coolwarm', [-m, m], this.ctx.backdrop()));
      if (hm && hm.some((x) => x.length)) {
        const NH = Math.max(...hm.map((x) => x.length));
        const hd = new Float32Array(L * NH).fill(NaN);
        hm.forEach((row, l) => row.forEach((v, k) => (hd[l * NH + k] = v)));
        this.heads.set({
          data: hd, rows: L, cols: NH, rowLabels: hm.map((_, l) => `L${l}`), colLabels: Array.from({ length: NH }, (_, k) => String(k)), colAxis: 'head',
          describe: (l, k, v) => [`layer ${l}, head ${k}: its output at every token`, `recovers ${(v * 100).toFixed(1)} % of ${metric}`, 'click: switch it off or scale it'],
          onClick: (l, k) => this.ctx.unit(unitId('head', l, k)),
          ariaLabel: `Head patching: ${L} layers × ${NH} heads`,
        });
        parts.push(h('h4', {}, 'Each head\'s output (every token), by layer and head'), this.heads.el, ...(this.last ? [] : [legend(share, 'coolwarm', [-m, m], this.ctx.backdrop())]));
      }
      requestAnimationFrame(() => {
        const paint = { colormap: 'coolwarm' as const, backdrop: this.ctx.backdrop(), range: [-m, m] as [number, number], maxRows: 4096, maxCols: 4096 };
        if (this.last) this.resid.paint(paint, this.el.clientWidth || 600);
        if (hm) this.heads.paint(paint, 260);
      });
    }
    this.el.replaceChildren(...parts.filter((x): x is Node => x !== null));
  }
}
